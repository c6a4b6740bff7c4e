//! Helpers shared by the integration tests: where the corpus is, what code each kind of
//! bad file must get, and how to build HWP 5.0 records by hand.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)] // each test crate uses its own subset

use rhwp_reader::ErrorCode;
use std::path::{Path, PathBuf};

/// The repository's licence-noted fixtures (tests/fixtures).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The shared corpus: $RHWP_CORPUS, `../shared/corpus` beside the checkout, or /work/shared/corpus.
/// Missing locally: `None` (corpus tests skip); missing in CI (env CI set): a failure.
pub fn corpus_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("RHWP_CORPUS").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")),
        Some(PathBuf::from("/work/shared/corpus")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("hwp").is_dir() && p.join("hwpx").is_dir());
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("corpus not found: set RHWP_CORPUS to the directory holding hwp/, hwpx/, bad/ and MANIFEST.tsv");
        }
        eprintln!("corpus not found: corpus tests skipped (set RHWP_CORPUS)");
    }
    found
}

/// The error code each kind of hostile file must get (password-protected: `password_required`;
/// HWP 1.x/2.x, DRM, not an HWP at all: `unsupported_format`; truncated or damaged:
/// `corrupt_document`; a bomb or absurd nesting: `too_large` or `corrupt_document`),
/// (as `tools/corpus_report.py::expected_codes` judges them).
pub fn expected_codes(name: &str) -> &'static [ErrorCode] {
    let n = name.to_ascii_lowercase();
    let has = |keys: &[&str]| keys.iter().any(|k| n.contains(k));
    if has(&["hwp3-signature"]) {
        // An HWP 3.x signature with no body: 3.x documents are read, so this one is damaged.
        &[ErrorCode::CorruptDocument]
    } else if has(&["password"]) {
        // A password the test does not give: the caller must be asked for it.
        &[ErrorCode::PasswordRequired]
    } else if has(&["png-renamed", "text-renamed", "zip-not-hwpx"]) {
        &[ErrorCode::UnsupportedFormat]
    } else if has(&["empty", "ole-magic-only"]) {
        &[ErrorCode::UnsupportedFormat, ErrorCode::CorruptDocument]
    } else if has(&["truncated", "bitflip", "missing-section"]) {
        &[ErrorCode::CorruptDocument]
    } else if has(&["zip-bomb", "deep-nesting"]) {
        &[ErrorCode::TooLarge, ErrorCode::CorruptDocument]
    } else {
        &[
            ErrorCode::UnsupportedFormat,
            ErrorCode::CorruptDocument,
            ErrorCode::TooLarge,
        ]
    }
}

// Record tags (HWPTAG_BEGIN = 16) used by the hand-built documents.
pub const PARA_HEADER: u16 = 66;
pub const PARA_TEXT: u16 = 67;
pub const PARA_LINE_SEG: u16 = 69;
pub const CTRL_HEADER: u16 = 71;
pub const LIST_HEADER: u16 = 72;
pub const TABLE: u16 = 77;
pub const CTRL_DATA: u16 = 87;
pub const MEMO_LIST: u16 = 93;

/// One record: header (tag, level, size; 0xFFF + u32 for large ones) and data.
pub fn record(tag: u16, level: u16, data: &[u8]) -> Vec<u8> {
    let size = data.len() as u32;
    let mut v = ((tag as u32) | ((level as u32) << 10) | (size.min(0xFFF) << 20))
        .to_le_bytes()
        .to_vec();
    if size >= 0xFFF {
        v.extend_from_slice(&size.to_le_bytes());
    }
    v.extend_from_slice(data);
    v
}

pub fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect()
}

/// An HWP 5.0 compound file: `FileHeader` with the given property flags (bit 0: compressed),
/// `DocInfo` and `BodyText/Section0..` holding the given bytes as they are (deflate them first
/// for a compressed file).
pub fn hwp_file(flags: u32, doc_info: &[u8], sections: &[&[u8]]) -> Vec<u8> {
    let names: Vec<String> = (0..sections.len())
        .map(|i| format!("BodyText/Section{i}"))
        .collect();
    let mut streams: Vec<(&str, &[u8])> = vec![("DocInfo", doc_info)];
    streams.extend(
        names
            .iter()
            .map(String::as_str)
            .zip(sections.iter().copied()),
    );
    hwp_streams(0x0500_0304, flags, &streams)
}

/// An HWP 5.0 compound file of `version` whose `FileHeader` has the given property flags, with
/// the given streams (`DocInfo`, `BodyText/Section0`, `ViewText/Section0`...) and an empty
/// `BodyText` storage when no section is given.
pub fn hwp_streams(version: u32, flags: u32, streams: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::{Cursor, Write};
    let mut cfb =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new())).unwrap();
    let mut header = vec![0u8; 256];
    header[..17].copy_from_slice(b"HWP Document File");
    header[32..36].copy_from_slice(&version.to_le_bytes());
    header[36..40].copy_from_slice(&flags.to_le_bytes());
    cfb.create_stream("FileHeader")
        .unwrap()
        .write_all(&header)
        .unwrap();
    cfb.create_storage("BodyText").unwrap();
    for (path, data) in streams {
        if let Some((dir, _)) = path.split_once('/') {
            if !cfb.exists(dir) {
                cfb.create_storage(dir).unwrap();
            }
        }
        cfb.create_stream(path).unwrap().write_all(data).unwrap();
    }
    cfb.flush().unwrap();
    cfb.into_inner().into_inner()
}

/// A small deterministic generator (xorshift) so the mutation set is the same every run.
pub struct XorShift(pub u64);
impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Offset in the file of FAT entry `sector` (version 3 file: 512-byte sectors, FAT sectors
/// listed in the header's DIFAT array at 0x4C).
pub fn fat_entry_offset(file: &[u8], sector: u32) -> usize {
    let per_sector = 512 / 4;
    let fat_sector = u32_at(file, 0x4C + 4 * (sector as usize / per_sector));
    (fat_sector as usize + 1) * 512 + 4 * (sector as usize % per_sector)
}

/// The start sector and size of the directory entry named `name` (following the directory's
/// FAT chain, four 128-byte entries per sector).
pub fn stream_entry(file: &[u8], name: &str) -> (u32, u64) {
    let wanted: Vec<u8> = name.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let mut sector = u32_at(file, 0x30);
    for _ in 0..64 {
        let dir = (sector as usize + 1) * 512;
        for e in 0..4 {
            let entry = &file[dir + 128 * e..dir + 128 * (e + 1)];
            if entry.starts_with(&wanted) && entry[wanted.len()] == 0 {
                return (u32_at(entry, 116), u64::from(u32_at(entry, 120)));
            }
        }
        sector = u32_at(file, fat_entry_offset(file, sector));
    }
    panic!("{name} not in the directory");
}

/// An extended control character (8 UTF-16 units) naming control `id`.
pub fn ctrl_char(code: u16, id: &[u8; 4]) -> Vec<u8> {
    let mut v = code.to_le_bytes().to_vec();
    v.extend_from_slice(&[id[3], id[2], id[1], id[0]]);
    v.extend(std::iter::repeat_n(0u8, 8));
    v.extend_from_slice(&code.to_le_bytes());
    v
}

/// A control's CTRL_HEADER at `level`: its id (stored reversed) then `rest`.
pub fn ctrl_header(level: u16, id: &[u8; 4], rest: &[u8]) -> Vec<u8> {
    let mut d = vec![id[3], id[2], id[1], id[0]];
    d.extend_from_slice(rest);
    record(CTRL_HEADER, level, &d)
}

/// A paragraph at `level` holding `text` (UTF-16 bytes, control characters included) and its end.
pub fn text_paragraph(level: u16, text: &[u8]) -> Vec<u8> {
    let mut v = record(PARA_HEADER, level, &[0u8; 22]);
    let mut t = text.to_vec();
    t.extend_from_slice(&13u16.to_le_bytes());
    v.extend(record(PARA_TEXT, level + 1, &t));
    v
}

/// A length-prefixed (u16 units) UTF-16 string.
pub fn wstring(s: &str) -> Vec<u8> {
    let mut v = (s.encode_utf16().count() as u16).to_le_bytes().to_vec();
    v.extend(utf16(s));
    v
}

/// A table cell's LIST_HEADER (one row and column wide) at `level`, then its paragraphs.
pub fn cell(level: u16, row: u16, col: u16, inner: Vec<u8>) -> Vec<u8> {
    let mut d = vec![1, 0, 0, 0, 0, 0, 0, 0];
    for x in [col, row, 1, 1] {
        d.extend_from_slice(&x.to_le_bytes());
    }
    let mut v = record(LIST_HEADER, level, &d);
    v.extend(inner);
    v
}

/// A parameter set (id 0x21B) with the name item (0x4000, string).
pub fn name_set(name: &str) -> Vec<u8> {
    let mut v = vec![0x1b, 0x02, 1, 0, 0, 0, 0x00, 0x40, 1, 0];
    v.extend(wstring(name));
    v
}

/// A field's CTRL_HEADER (+ CTRL_DATA with its name) at `level`.
pub fn field_ctrl(
    level: u16,
    id: &[u8; 4],
    property: u32,
    command: &str,
    memo: u32,
    name: Option<&str>,
) -> Vec<u8> {
    let mut d = vec![id[3], id[2], id[1], id[0]];
    d.extend_from_slice(&property.to_le_bytes());
    d.push(9);
    d.extend(wstring(command));
    d.extend_from_slice(&0x5bb8_40e1u32.to_le_bytes());
    d.extend_from_slice(&memo.to_le_bytes());
    let mut v = record(CTRL_HEADER, level, &d);
    if let Some(name) = name {
        v.extend(record(CTRL_DATA, level + 1, &name_set(name)));
    }
    v
}

/// A click-here field's command, with its guide as `Direction`.
pub fn click_here_command(guide: &str) -> String {
    let inner = format!(
        "Direction:wstring:{}:{guide} HelpState:wstring:0: ",
        guide.encode_utf16().count()
    );
    format!("Clickhere:set:{}:{inner} ", inner.encode_utf16().count())
}

/// A form control as the tests compare it: (control, name, caption, value, checked, group).
pub type FormRow<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    Option<bool>,
    Option<&'a str>,
);

/// The form controls among `blocks` (top level), as rows.
pub fn form_rows(blocks: &[rhwp_reader::model::Block]) -> Vec<FormRow<'_>> {
    blocks
        .iter()
        .filter_map(|b| match b {
            rhwp_reader::model::Block::FormControl(f) => Some((
                f.control.as_str(),
                f.name.as_deref(),
                f.caption.as_deref(),
                f.value.as_deref(),
                f.checked,
                f.group.as_deref(),
            )),
            _ => None,
        })
        .collect()
}

/// The files of `dir` with extension `ext`, sorted (none if the folder is missing).
pub fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Strict reading: what lenient reading would repair is an error.
pub fn strict() -> rhwp_reader::Options {
    rhwp_reader::Options {
        strict: true,
        ..rhwp_reader::Options::default()
    }
}

/// A zip package of the given parts, deflated, in order (an HWPX when its first part is
/// `mimetype` holding `application/hwp+zip`).
pub fn zip_package<S: AsRef<[u8]>>(entries: &[(&str, S)]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, body) in entries {
        w.start_file(*name, options).unwrap();
        w.write_all(body.as_ref()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// The field parts of the top-level paragraphs among `blocks`, in order, as the tests compare
/// them: (value, start, end, continued).
pub fn field_parts(blocks: &[rhwp_reader::model::Block]) -> Vec<(&str, u32, u32, bool)> {
    blocks
        .iter()
        .filter_map(|b| match b {
            rhwp_reader::model::Block::Paragraph(p) => Some(p),
            _ => None,
        })
        .flat_map(|p| &p.fields)
        .map(|f| (f.value.as_str(), f.start, f.end, f.continued))
        .collect()
}

/// Every stream of a compound file, by path (no leading slash).
pub fn streams(bytes: &[u8]) -> std::collections::BTreeMap<String, Vec<u8>> {
    use std::io::Read;
    let mut c = cfb::CompoundFile::open(std::io::Cursor::new(bytes)).unwrap();
    let paths: Vec<_> = c
        .walk()
        .filter(|e| e.is_stream())
        .map(|e| e.path().to_path_buf())
        .collect();
    paths
        .into_iter()
        .map(|p| {
            let mut v = Vec::new();
            c.open_stream(&p).unwrap().read_to_end(&mut v).unwrap();
            (p.to_string_lossy().trim_start_matches('/').to_string(), v)
        })
        .collect()
}
