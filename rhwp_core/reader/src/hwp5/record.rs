//! Record framing of HWP 5.0 streams (spec "데이터 레코드"): each record
//! starts with a 32-bit little-endian header — tag id in bits 0..10, level
//! in bits 10..20, size in bits 20..32 — and when the size field is 0xFFF
//! the real size follows as a 32-bit integer.
//!
//! A stream is framed once into a flat `Vec<Record>` of offsets (one
//! allocation per stream, no copies); the tree is implied by the levels.

use crate::{Error, Result};

pub mod tag {
    const BEGIN: u16 = 0x010;
    // DocInfo
    pub const ID_MAPPINGS: u16 = BEGIN + 1;
    pub const BIN_DATA: u16 = BEGIN + 2;
    pub const FACE_NAME: u16 = BEGIN + 3;
    pub const CHAR_SHAPE: u16 = BEGIN + 5;
    pub const NUMBERING: u16 = BEGIN + 7;
    pub const BULLET: u16 = BEGIN + 8;
    pub const PARA_SHAPE: u16 = BEGIN + 9;
    pub const STYLE: u16 = BEGIN + 10;
    /// 변경 추적 내용 (one per tracked change, in id order).
    pub const TRACK_CHANGE: u16 = BEGIN + 80;
    /// 변경 추적 작성자 (one per author, in id order).
    pub const TRACK_CHANGE_AUTHOR: u16 = BEGIN + 81;
    // BodyText
    pub const PARA_HEADER: u16 = BEGIN + 50;
    pub const PARA_TEXT: u16 = BEGIN + 51;
    pub const PARA_CHAR_SHAPE: u16 = BEGIN + 52;
    pub const PARA_LINE_SEG: u16 = BEGIN + 53;
    pub const PARA_RANGE_TAG: u16 = BEGIN + 54;
    pub const CTRL_HEADER: u16 = BEGIN + 55;
    pub const LIST_HEADER: u16 = BEGIN + 56;
    pub const PAGE_DEF: u16 = BEGIN + 57;
    pub const FOOTNOTE_SHAPE: u16 = BEGIN + 58;
    pub const SHAPE_COMPONENT: u16 = BEGIN + 60;
    pub const TABLE: u16 = BEGIN + 61;
    pub const SHAPE_COMPONENT_LINE: u16 = BEGIN + 62;
    pub const SHAPE_COMPONENT_RECTANGLE: u16 = BEGIN + 63;
    pub const SHAPE_COMPONENT_ELLIPSE: u16 = BEGIN + 64;
    pub const SHAPE_COMPONENT_ARC: u16 = BEGIN + 65;
    pub const SHAPE_COMPONENT_POLYGON: u16 = BEGIN + 66;
    pub const SHAPE_COMPONENT_CURVE: u16 = BEGIN + 67;
    pub const SHAPE_COMPONENT_OLE: u16 = BEGIN + 68;
    pub const SHAPE_COMPONENT_PICTURE: u16 = BEGIN + 69;
    pub const SHAPE_COMPONENT_CONTAINER: u16 = BEGIN + 70;
    pub const CTRL_DATA: u16 = BEGIN + 71;
    pub const EQEDIT: u16 = BEGIN + 72;
    pub const SHAPE_COMPONENT_TEXTART: u16 = BEGIN + 74;
    pub const FORM_OBJECT: u16 = BEGIN + 75;
    pub const MEMO_LIST: u16 = BEGIN + 77;
    pub const CHART_DATA: u16 = BEGIN + 79;
    pub const VIDEO_DATA: u16 = BEGIN + 82;
}

/// One framed record: where its payload lies in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub tag: u16,
    pub level: u16,
    pub start: u32,
    pub len: u32,
}

impl Record {
    /// The payload inside `stream` (the stream the record was framed from).
    #[inline]
    pub fn data<'s>(&self, stream: &'s [u8]) -> &'s [u8] {
        let s = self.start as usize;
        stream.get(s..s + self.len as usize).unwrap_or(&[])
    }
}

/// Frame every record of `stream`. A header or payload running past the end
/// of the stream is `corrupt_document` (checked before anything is allocated
/// from the claimed size); more than `max_records` records is `too_large`.
pub fn frame(stream: &[u8], max_records: u64) -> Result<Vec<Record>> {
    if stream.len() > u32::MAX as usize {
        return Err(Error::too_large("a stream of more than 4 GiB"));
    }
    // Real streams average well over 16 bytes per record.
    let mut records = Vec::with_capacity((stream.len() / 24).min(1 << 20));
    let mut pos = 0usize;
    while pos < stream.len() {
        let head = stream
            .get(pos..pos + 4)
            .ok_or_else(|| Error::corrupt(format!("record header cut off at byte {pos}")))?;
        let word = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        pos += 4;
        let tag = (word & 0x3FF) as u16;
        let level = ((word >> 10) & 0x3FF) as u16;
        let mut size = (word >> 20) as usize;
        if size == 0xFFF {
            let ext = stream.get(pos..pos + 4).ok_or_else(|| {
                Error::corrupt(format!("extended record size cut off at byte {pos}"))
            })?;
            size = u32::from_le_bytes([ext[0], ext[1], ext[2], ext[3]]) as usize;
            pos += 4;
        }
        if size > stream.len() - pos {
            return Err(Error::corrupt(format!(
                "record (tag {tag}) at byte {} claims {size} bytes but only {} remain",
                pos,
                stream.len() - pos
            )));
        }
        if records.len() as u64 >= max_records {
            return Err(Error::too_large(format!(
                "more than {max_records} records in one stream"
            )));
        }
        records.push(Record {
            tag,
            level,
            start: pos as u32,
            len: size as u32,
        });
        pos += size;
    }
    Ok(records)
}

/// The end (exclusive) of the subtree of `records[i]`: the index of the next
/// record whose level is not deeper than `records[i]`'s.
#[inline]
pub fn subtree_end(records: &[Record], i: usize) -> usize {
    let level = match records.get(i) {
        Some(r) => r.level,
        None => return records.len(),
    };
    let mut j = i + 1;
    while j < records.len() && records[j].level > level {
        j += 1;
    }
    j
}

/// A bounds-checked little-endian reader over a record payload: reading past
/// the end yields zeros / empty strings and sets `short`, never panics.
pub struct Reader<'a> {
    data: &'a [u8],
    pub pos: usize,
    pub short: bool,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            short: false,
        }
    }

    pub fn at(data: &'a [u8], pos: usize) -> Self {
        Reader {
            data,
            pos,
            short: false,
        }
    }

    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        match self.data.get(self.pos..self.pos.saturating_add(n)) {
            Some(b) => {
                self.pos += n;
                b
            }
            None => {
                self.short = true;
                self.pos = self.data.len();
                &[]
            }
        }
    }

    pub fn skip(&mut self, n: usize) {
        self.bytes(n);
    }

    pub fn u8(&mut self) -> u8 {
        self.bytes(1).first().copied().unwrap_or(0)
    }

    pub fn u16(&mut self) -> u16 {
        match self.bytes(2) {
            [a, b] => u16::from_le_bytes([*a, *b]),
            _ => 0,
        }
    }

    pub fn u32(&mut self) -> u32 {
        match self.bytes(4) {
            [a, b, c, d] => u32::from_le_bytes([*a, *b, *c, *d]),
            _ => 0,
        }
    }

    pub fn i32(&mut self) -> i32 {
        self.u32() as i32
    }

    /// A WCHAR string prefixed by its length in code units (u16).
    pub fn string(&mut self) -> String {
        let n = self.u16() as usize;
        let raw = self.bytes(n * 2);
        utf16_string(raw)
    }
}

/// Decode UTF-16LE bytes (unpaired surrogates become U+FFFD).
pub fn utf16_string(raw: &[u8]) -> String {
    let units = raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .map(|r| r.unwrap_or('\u{FFFD}'))
        .collect()
}

/// A control id as 4 ASCII characters (`tbl `, `gso `); stored as a
/// little-endian u32 whose most significant byte is the first character.
pub fn ctrl_id(data: &[u8]) -> [u8; 4] {
    match data.get(..4) {
        Some(b) => [b[3], b[2], b[1], b[0]],
        None => [0; 4],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn header(tag: u16, level: u16, size: u32) -> Vec<u8> {
        let s = size.min(0xFFF);
        let mut v = ((tag as u32) | ((level as u32) << 10) | (s << 20))
            .to_le_bytes()
            .to_vec();
        if s == 0xFFF {
            v.extend_from_slice(&size.to_le_bytes());
        }
        v
    }

    #[test]
    fn frames_plain_and_extended() {
        let mut s = header(66, 0, 2);
        s.extend_from_slice(&[1, 2]);
        s.extend(header(67, 1, 5000));
        s.extend(vec![7u8; 5000]);
        s.extend(header(68, 1, 0));
        let r = frame(&s, 100).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!((r[0].tag, r[0].level, r[0].len), (66, 0, 2));
        assert_eq!(r[0].data(&s), &[1, 2]);
        assert_eq!(
            (r[1].tag, r[1].level, r[1].start, r[1].len),
            (67, 1, 14, 5000)
        );
        assert_eq!(r[2].len, 0);
        assert_eq!(subtree_end(&r, 0), 3);
        assert_eq!(subtree_end(&r, 1), 2);
    }

    #[test]
    fn exact_0xfff_uses_extension() {
        let mut s = header(67, 0, 0xFFF);
        assert_eq!(s.len(), 8);
        s.extend(vec![0u8; 0xFFF]);
        assert_eq!(frame(&s, 10).unwrap()[0].len, 0xFFF);
    }

    #[test]
    fn hostile_sizes_fail_fast() {
        // A 2 GB claimed size in a tiny stream: corrupt, nothing allocated from it.
        let s = header(67, 0, 2_000_000_000);
        assert_eq!(frame(&s, 10).unwrap_err().code, ErrorCode::CorruptDocument);
        // Cut-off header and cut-off extended size.
        assert_eq!(
            frame(&[1, 2, 3], 10).unwrap_err().code,
            ErrorCode::CorruptDocument
        );
        assert_eq!(
            frame(&header(67, 0, 0xFFF)[..6], 10).unwrap_err().code,
            ErrorCode::CorruptDocument
        );
        // Payload one byte short.
        let mut s = header(67, 0, 4);
        s.extend_from_slice(&[0, 0, 0]);
        assert_eq!(frame(&s, 10).unwrap_err().code, ErrorCode::CorruptDocument);
        assert!(frame(&[], 10).unwrap().is_empty());
    }

    #[test]
    fn record_count_limit() {
        let s: Vec<u8> = (0..5).flat_map(|_| header(66, 0, 0)).collect();
        assert_eq!(frame(&s, 5).unwrap().len(), 5);
        assert_eq!(frame(&s, 4).unwrap_err().code, ErrorCode::TooLarge);
    }

    #[test]
    fn reader_never_panics() {
        let mut r = Reader::new(&[1, 0, 0x41]);
        assert_eq!(r.u16(), 1);
        assert_eq!(r.u32(), 0);
        assert!(r.short);
        assert_eq!(Reader::new(&[5, 0, 0x41, 0]).string(), "");
        assert_eq!(Reader::new(&[1, 0, 0x41, 0]).string(), "A");
        assert_eq!(ctrl_id(b" lbt"), *b"tbl ");
    }
}
