//! The fonts pages are drawn with: font files found in the directories given (the render pack
//! ships NanumMyeongjo and NanumGothic; `RHWP_FONT_DIR` adds the user's), loaded once per
//! process for each list of directories, and 한글's faces mapped to them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use resvg::usvg::fontdb;

/// The shipped serif and sans families (their names inside the font files).
pub const SERIF: &str = "NanumMyeongjo";
pub const SANS: &str = "NanumGothic";

/// Font files larger than this are not loaded (a real CJK font is 5–20 MB).
const MAX_FONT_BYTES: u64 = 64 << 20;
/// Font files looked at in the directories given, at most.
const MAX_FONT_FILES: usize = 512;

/// One loaded face: its family names and the file's bytes (parsed again for metrics).
struct LoadedFace {
    families: Vec<String>,
    bold: bool,
    data: Arc<Vec<u8>>,
    index: u32,
}

/// The loaded fonts: the database usvg draws from, and the faces for measuring.
pub struct Fonts {
    pub db: Arc<fontdb::Database>,
    faces: Vec<LoadedFace>,
}

/// Whether a face name (as the document stores it) is a serif (명조/바탕) face; sans otherwise.
/// `stored`: what the document says of the face's kind, used for names the table does not know.
pub fn is_serif(name: &str, stored: Option<bool>) -> bool {
    let n = name.to_lowercase();
    const SERIF_NAMES: [&str; 10] = [
        "바탕",
        "명조",
        "궁서",
        "batang",
        "myeongjo",
        "gungsuh",
        "serif",
        "times",
        "신명",
        "바탕체",
    ];
    const SANS_NAMES: [&str; 12] = [
        "돋움",
        "굴림",
        "고딕",
        "gothic",
        "gulim",
        "dotum",
        "malgun",
        "sans",
        "arial",
        "helvetica",
        "헤드라인",
        "견고딕",
    ];
    if SANS_NAMES.iter().any(|s| n.contains(s)) {
        return false;
    }
    if SERIF_NAMES.iter().any(|s| n.contains(s)) {
        return true;
    }
    stored.unwrap_or(true)
}

fn font_files(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, u32)> = dirs.iter().map(|d| (d.clone(), 0)).collect();
    while let Some((path, depth)) = stack.pop() {
        if out.len() >= MAX_FONT_FILES {
            break;
        }
        if path.is_dir() {
            if depth > 4 {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                let mut children: Vec<PathBuf> =
                    entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                children.sort();
                stack.extend(children.into_iter().rev().map(|c| (c, depth + 1)));
            }
        } else if is_font_file(&path) {
            out.push(path);
        }
    }
    out
}

fn is_font_file(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        matches!(
            e.to_ascii_lowercase().as_str(),
            "ttf" | "otf" | "ttc" | "otc"
        )
    })
}

impl Fonts {
    /// The fonts in `dirs` (files or directories), loaded once per process for the same list.
    pub fn load(dirs: &[PathBuf]) -> Arc<Fonts> {
        static CACHE: OnceLock<Mutex<HashMap<Vec<PathBuf>, Arc<Fonts>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut guard = match cache.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(f) = guard.get(dirs) {
            return f.clone();
        }
        let fonts = Arc::new(Fonts::from_files(&font_files(dirs)));
        // A handful of directory lists per process: the pack's and the user's.
        if guard.len() < 16 {
            guard.insert(dirs.to_vec(), fonts.clone());
        }
        fonts
    }

    fn from_files(files: &[PathBuf]) -> Fonts {
        let mut db = fontdb::Database::new();
        let mut faces = Vec::new();
        for file in files {
            let Ok(meta) = std::fs::metadata(file) else {
                continue;
            };
            if meta.len() > MAX_FONT_BYTES {
                continue;
            }
            let Ok(bytes) = std::fs::read(file) else {
                continue;
            };
            let data = Arc::new(bytes);
            let ids = db.load_font_source(fontdb::Source::Binary(data.clone()));
            for id in ids {
                if let Some(info) = db.face(id) {
                    faces.push(LoadedFace {
                        families: info.families.iter().map(|f| f.0.clone()).collect(),
                        bold: info.weight.0 >= 600,
                        data: data.clone(),
                        index: info.index,
                    });
                }
            }
        }
        db.set_serif_family(SERIF);
        db.set_sans_serif_family(SANS);
        Fonts {
            db: Arc::new(db),
            faces,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.faces.is_empty()
    }

    /// The family a document face is drawn with: the face itself when a loaded font has that
    /// family name (the user's own fonts), else the shipped serif or sans.
    pub fn family_for(&self, name: &str, stored: Option<bool>) -> String {
        if !name.is_empty()
            && self
                .faces
                .iter()
                .any(|f| f.families.iter().any(|n| n == name))
        {
            return name.to_string();
        }
        if is_serif(name, stored) { SERIF } else { SANS }.to_string()
    }

    /// A measurer for one render: faces parsed once, advances cached.
    pub fn measurer(&self) -> Measurer<'_> {
        let parsed = self
            .faces
            .iter()
            .map(|f| ttf_parser::Face::parse(&f.data, f.index).ok())
            .collect();
        Measurer {
            fonts: self,
            parsed,
            families: Vec::new(),
            cache: HashMap::new(),
        }
    }
}

/// Glyph advances (in em) from the loaded faces.
pub struct Measurer<'f> {
    fonts: &'f Fonts,
    parsed: Vec<Option<ttf_parser::Face<'f>>>,
    /// Families measured so far (the cache names them by index).
    families: Vec<String>,
    cache: HashMap<(usize, bool, char), f32>,
}

impl Measurer<'_> {
    /// The advance of `c` in `family` (bold or not), in em: from the family's face when it has
    /// the glyph, else from any face that has it (usvg falls back the same way), else half an em
    /// (a full em for wide characters).
    pub fn advance(&mut self, family: &str, bold: bool, c: char) -> f32 {
        let fid = match self.families.iter().position(|f| f == family) {
            Some(k) => k,
            None => {
                self.families.push(family.to_string());
                self.families.len() - 1
            }
        };
        if let Some(&a) = self.cache.get(&(fid, bold, c)) {
            return a;
        }
        let order = self.order(family, bold);
        let mut found = None;
        for k in order {
            if let Some(Some(face)) = self.parsed.get(k) {
                if let Some(g) = face.glyph_index(c) {
                    let upem = f32::from(face.units_per_em().max(1));
                    found = face.glyph_hor_advance(g).map(|a| f32::from(a) / upem);
                    break;
                }
            }
        }
        let wide = matches!(crate::layout::script_group(c), 0 | 2 | 3);
        let a = found.unwrap_or(if wide { 1.0 } else { 0.5 });
        if self.cache.len() < 65_536 {
            self.cache.insert((fid, bold, c), a);
        }
        a
    }

    /// Faces to look in: the family's with the right weight, the family's other, the shipped
    /// sans, then every face.
    fn order(&self, family: &str, bold: bool) -> Vec<usize> {
        let faces = &self.fonts.faces;
        let has = |k: usize, fam: &str| faces[k].families.iter().any(|n| n == fam);
        let mut order: Vec<usize> = Vec::with_capacity(faces.len() + 4);
        for fam in [family, SANS] {
            order.extend((0..faces.len()).filter(|&k| has(k, fam) && faces[k].bold == bold));
            order.extend((0..faces.len()).filter(|&k| has(k, fam) && faces[k].bold != bold));
        }
        order.extend(0..faces.len());
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hangul_faces_map_to_serif_or_sans() {
        for serif in [
            "함초롬바탕",
            "바탕",
            "신명조",
            "휴먼명조",
            "궁서",
            "Batang",
            "HY신명조",
            "한양신명조",
        ] {
            assert!(is_serif(serif, None), "{serif}");
        }
        for sans in [
            "함초롬돋움",
            "돋움",
            "굴림",
            "맑은 고딕",
            "HY견고딕",
            "나눔고딕",
            "Gulim",
            "Malgun Gothic",
            "Arial",
        ] {
            assert!(!is_serif(sans, None), "{sans}");
        }
        assert!(!is_serif("Unknown Face", Some(false)));
        assert!(is_serif("Unknown Face", None));
    }
}
