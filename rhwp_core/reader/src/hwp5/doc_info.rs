//! The `DocInfo` stream: the tables body records refer to by index — char
//! shapes (bold/italic/...), paragraph shapes (outline level, numbering or
//! bullet reference), styles, numbering and bullet definitions, and the
//! binary-data table. Only what the model uses is decoded; each record is
//! read leniently (a short record leaves the rest of its fields at zero).

use super::record::{tag, Reader, Record};
use crate::model::{BinData, CharFormat, Style};

/// How a paragraph is headed (spec "문단 모양", 속성 1 bits 23–24).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum HeadKind {
    #[default]
    None,
    Outline,
    Number,
    Bullet,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ParaFormat {
    pub head: HeadKind,
    /// 0-based paragraph level (bits 25–27).
    pub level: u8,
    /// The numbering or bullet id (1-based into the numbering/bullet table).
    pub numbering_id: u16,
}

/// One level of a numbering definition.
#[derive(Debug, Clone, Default)]
pub struct NumberLevel {
    /// The format string, `^1.` meaning "level-1 number followed by a dot".
    pub format: String,
    /// Number style from the paragraph-head property (bits 5–8 hold the number shape).
    pub shape: u8,
    pub start: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Numbering {
    pub levels: Vec<NumberLevel>,
}

#[derive(Debug, Default)]
pub struct DocInfo {
    pub char_formats: Vec<CharFormat>,
    pub para_formats: Vec<ParaFormat>,
    pub styles: Vec<Style>,
    pub numberings: Vec<Numbering>,
    pub bullets: Vec<char>,
    pub bin_data: Vec<BinData>,
    /// `HWPTAG_TRACK_CHANGE` records, in order (body range tags name them from 1).
    pub track_changes: Vec<TrackChangeInfo>,
    /// `HWPTAG_TRACK_CHANGE_AUTHOR` names, in order (changes name them from 1).
    pub track_authors: Vec<String>,
}

/// One `HWPTAG_TRACK_CHANGE` record (변경 추적 내용, 26 bytes in the files seen; its layout is
/// not in the published spec): u32 kind (0x10 inserted, 0x11 deleted, as the range tags
/// marking its text), then year, month, day, hour, minute (u16 each), then the 1-based author
/// id (u16); the ten bytes after it are not known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrackChangeInfo {
    pub kind: u32,
    /// `YYYY-MM-DDTHH:MM` (no seconds are stored), `None` when the record holds no date.
    pub time: Option<String>,
    pub author: u16,
}

impl DocInfo {
    /// Time and author of the tracked change a range tag names (`id` from 1).
    pub fn track_change(&self, id: u32) -> (Option<String>, Option<String>) {
        let Some(c) = id
            .checked_sub(1)
            .and_then(|i| self.track_changes.get(i as usize))
        else {
            return (None, None);
        };
        let author = (c.author as usize)
            .checked_sub(1)
            .and_then(|a| self.track_authors.get(a))
            .filter(|a| !a.is_empty())
            .cloned();
        (c.time.clone(), author)
    }

    pub fn char_format(&self, id: u32) -> CharFormat {
        self.char_formats
            .get(id as usize)
            .copied()
            .unwrap_or_default()
    }

    pub fn para_format(&self, id: u16) -> ParaFormat {
        self.para_formats
            .get(id as usize)
            .copied()
            .unwrap_or_default()
    }

    pub fn style_name(&self, id: u8) -> Option<&str> {
        self.styles.get(id as usize).map(|s| s.name.as_str())
    }

    pub fn bin_data_name(&self, id: u32) -> Option<String> {
        // Ids are 1-based positions in the table (assigned so in `parse`).
        self.bin_data
            .get((id as usize).checked_sub(1)?)
            .map(|b| b.name.clone())
    }
}

pub fn parse(stream: &[u8], records: &[Record]) -> DocInfo {
    let mut info = DocInfo::default();
    for r in records {
        let d = r.data(stream);
        match r.tag {
            tag::CHAR_SHAPE => info.char_formats.push(char_shape(d)),
            tag::PARA_SHAPE => info.para_formats.push(para_shape(d)),
            tag::STYLE => {
                let id = info.styles.len() as u32;
                info.styles.push(style(d, id));
            }
            tag::NUMBERING => info.numberings.push(numbering(d)),
            tag::BULLET => info.bullets.push(bullet(d)),
            tag::BIN_DATA => {
                let id = info.bin_data.len() as u32 + 1;
                info.bin_data.push(bin_data(d, id));
            }
            tag::TRACK_CHANGE => info.track_changes.push(track_change(d)),
            tag::TRACK_CHANGE_AUTHOR => info.track_authors.push(track_author(d)),
            _ => {}
        }
    }
    info
}

fn track_change(d: &[u8]) -> TrackChangeInfo {
    let mut r = Reader::new(d);
    let kind = r.u32();
    let [year, month, day, hour, minute] = [r.u16(), r.u16(), r.u16(), r.u16(), r.u16()];
    let author = r.u16();
    let time = (year != 0 && (1..=12).contains(&month) && (1..=31).contains(&day))
        .then(|| format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}"));
    TrackChangeInfo { kind, time, author }
}

/// `HWPTAG_TRACK_CHANGE_AUTHOR`: the name's length in UTF-16 units (u32), the name; what
/// follows (u32 1, then a u32) is not known.
fn track_author(d: &[u8]) -> String {
    let mut r = Reader::new(d);
    let n = r.u32() as usize;
    if n > r.remaining() / 2 {
        return String::new();
    }
    super::record::utf16_string(r.bytes(n * 2))
}

fn char_shape(d: &[u8]) -> CharFormat {
    // 7 face ids (u16), 7 ratios, 7 spacings, 7 relative sizes, 7 offsets (u8 each), base size (i32).
    let mut r = Reader::at(d, 7 * 2 + 7 * 4 + 4);
    let p = r.u32();
    CharFormat {
        italic: p & 1 != 0,
        bold: p & (1 << 1) != 0,
        // bits 2–3: underline kind, 0 = none (1 below, 3 above the text).
        underline: (p >> 2) & 0b11 != 0,
        superscript: p & (1 << 15) != 0,
        subscript: p & (1 << 16) != 0,
        // bits 18–20: strike-out kind, 0 = none.
        strike: (p >> 18) & 0b111 != 0,
    }
}

fn para_shape(d: &[u8]) -> ParaFormat {
    let mut r = Reader::new(d);
    let p = r.u32();
    // left/right margin, indent, spacing above/below, line spacing (6 × i32), tab def id (u16).
    r.skip(6 * 4 + 2);
    let numbering_id = r.u16();
    ParaFormat {
        head: match (p >> 23) & 0b11 {
            1 => HeadKind::Outline,
            2 => HeadKind::Number,
            3 => HeadKind::Bullet,
            _ => HeadKind::None,
        },
        level: ((p >> 25) & 0b111) as u8,
        numbering_id,
    }
}

/// Style names and numbering formats are copied into every paragraph that
/// uses them; real ones are a few dozen characters, so longer ones are cut
/// here rather than multiplied by the paragraph count.
const MAX_HEADER_TEXT_CHARS: usize = 256;

fn bounded(mut s: String) -> String {
    if let Some((cut, _)) = s.char_indices().nth(MAX_HEADER_TEXT_CHARS) {
        s.truncate(cut);
    }
    s
}

fn style(d: &[u8], id: u32) -> Style {
    let mut r = Reader::new(d);
    let name = bounded(r.string());
    let english = bounded(r.string());
    let kind = r.u8() & 0b111;
    Style {
        id,
        name,
        english_name: if english.is_empty() {
            None
        } else {
            Some(english)
        },
        kind: if kind == 1 { "character" } else { "paragraph" }.to_string(),
    }
}

fn numbering(d: &[u8]) -> Numbering {
    let mut r = Reader::new(d);
    let mut levels = Vec::with_capacity(7);
    for _ in 0..7 {
        // Paragraph-head info: property (u32), width adjust (u16), distance (u16), char shape (u32).
        let p = r.u32();
        r.skip(2 + 2 + 4);
        let format = bounded(r.string());
        levels.push(NumberLevel {
            format,
            shape: ((p >> 5) & 0xF) as u8,
            start: 1,
        });
        if r.short {
            break;
        }
    }
    let start = r.u16() as u32;
    // Per-level start numbers (5.0.2.5 and later).
    for level in levels.iter_mut() {
        let s = r.u32();
        level.start = if r.short { start.max(1) } else { s.max(1) };
    }
    Numbering { levels }
}

fn bullet(d: &[u8]) -> char {
    // Paragraph-head info (12 bytes), then the bullet character (mapped when shown:
    // `numbering::bullet_char`).
    let unit = Reader::at(d, 12).u16();
    char::from_u32(unit as u32).unwrap_or('•')
}

fn bin_data(d: &[u8], id: u32) -> BinData {
    let mut r = Reader::new(d);
    let p = r.u16();
    match p & 0xF {
        0 => {
            let absolute = r.string();
            let relative = r.string();
            let name = if absolute.is_empty() {
                relative
            } else {
                absolute
            };
            let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
            BinData {
                id,
                storage: "link".into(),
                name,
                extension,
                size: None,
            }
        }
        kind => {
            let stream_id = r.u16();
            let ext = r.string();
            // Embedded items live in `BinData/BIN%04X.<ext>` (hexadecimal id).
            let ext = if ext.is_empty() && kind == 2 {
                "OLE".to_string()
            } else {
                ext
            };
            let name = if ext.is_empty() {
                format!("BIN{stream_id:04X}")
            } else {
                format!("BIN{stream_id:04X}.{ext}")
            };
            BinData {
                id,
                storage: if kind == 2 { "storage" } else { "embedding" }.into(),
                name,
                extension: if ext.is_empty() {
                    None
                } else {
                    Some(ext.to_ascii_lowercase())
                },
                size: None,
            }
        }
    }
}

/// Fill `size` of embedded bin data from the sizes of the `BinData/` streams.
pub fn attach_sizes(bin_data: &mut [BinData], streams: &[(String, u64)]) {
    let sizes: std::collections::HashMap<String, u64> = streams
        .iter()
        .map(|(n, len)| (n.to_ascii_lowercase(), *len))
        .collect();
    for b in bin_data.iter_mut().filter(|b| b.storage != "link") {
        b.size = sizes.get(&b.name.to_ascii_lowercase()).copied();
    }
}
