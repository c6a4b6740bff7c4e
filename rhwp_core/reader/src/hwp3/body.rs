//! HWP 3.x paragraph lists → blocks, in one pass over the (inflated) body bytes.
//!
//! A paragraph (spec §4) is a 43-byte header (`n_chars == 0` ends the list), a 187-byte paragraph
//! shape unless it follows the previous one, `n_lines` 14-byte line records, per-character shapes
//! when flagged (a byte 1 = same as before, else 31 bytes), then `n_chars` `hchar` units ending
//! with 13. Codes below 32 (§10) take a fixed number of units in that count; some are followed by
//! data outside the count: tables/text boxes/equations (10) and pictures/drawings (11) carry
//! their own paragraph lists, as do hidden comments (15), headers/footers (16) and notes (17).
//!
//! Every length comes from the file: reads are checked against the bytes that are there, so a
//! lying length is a `corrupt_document` error (or a skipped object), never a large allocation.

use super::charset;
use crate::common::equation;
use crate::limits::Limits;
use crate::model::{
    Block, Equation, Furniture, NoteRef, Paragraph, Picture, Provenance, Run, Shape, Table,
    TableCell, Unknown,
};
use crate::{Error, Result};

mod drawing;

/// A bounds-checked little-endian reader over a byte slice.
#[derive(Clone, Copy)]
pub struct Cur<'a> {
    pub data: &'a [u8],
    pub pos: usize,
}

impl<'a> Cur<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Cur { data, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(Error::corrupt(format!(
                "HWP 3.x body ends early: {n} bytes wanted at offset {}, {} left",
                self.pos,
                self.remaining()
            )));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

pub fn le16(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .map_or(0, |s| u16::from_le_bytes([s[0], s[1]]))
}

pub fn le32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// `hunit` (1/1800 inch) → HWPUNIT (1/7200 inch).
fn hunit(v: u16) -> u32 {
    u32::from(v) * 4
}

/// Paragraph header, paragraph shape and char shape sizes (spec tables 11, 13, 16).
const PARA_HEADER: usize = 43;
const PARA_SHAPE: usize = 187;
const CHAR_SHAPE: usize = 31;
const LINE_INFO: usize = 14;
/// Offset of the attribute byte in a char shape (bit 0 italic, 1 bold, 2 underline, 5 sup, 6 sub).
const CHAR_ATTR: usize = 26;

/// A picture seen in the body, to be tied to an embedded image of the extra-info block.
pub struct State<'a> {
    pub cur: Cur<'a>,
    pub limits: &'a Limits,
    pub styles: &'a [String],
    depth: u32,
    paragraphs: u64,
    /// The section-level paragraph the blocks being read belong to.
    anchor: u32,
    anchor_page: Option<u32>,
    pub page: u32,
    pub has_layout: bool,
    lines_seen: u64,
    pub furniture: Vec<Furniture>,
    pub warnings: Vec<String>,
    footnotes: u32,
    endnotes: u32,
}

/// A paragraph's text and runs as they are built.
#[derive(Default)]
struct Text {
    text: String,
    runs: Vec<Run>,
    attr: Option<u8>,
    chars: u32,
}

impl Text {
    fn start(&mut self, attr: u8) {
        if self.attr != Some(attr) {
            self.attr = Some(attr);
            let format = crate::model::CharFormat {
                bold: attr & 0x02 != 0,
                italic: attr & 0x01 != 0,
                underline: attr & 0x04 != 0,
                strike: false,
                superscript: attr & 0x20 != 0,
                subscript: attr & 0x40 != 0,
            };
            self.runs.push(Run::formatted(String::new(), format, None));
        }
    }

    fn push_code(&mut self, code: u16, attr: u8) {
        self.start(attr);
        let before = self.text.len();
        charset::push(code, &mut self.text);
        if let Some(run) = self.runs.last_mut() {
            run.text.push_str(&self.text[before..]);
        }
        self.chars += self.text[before..].chars().count() as u32;
    }

    fn push_char(&mut self, c: char, attr: u8) {
        self.start(attr);
        self.text.push(c);
        if let Some(run) = self.runs.last_mut() {
            run.text.push(c);
        }
        self.chars += 1;
    }
}

impl<'a> State<'a> {
    pub fn new(data: &'a [u8], limits: &'a Limits, styles: &'a [String]) -> Self {
        State {
            cur: Cur::new(data),
            limits,
            styles,
            depth: 0,
            paragraphs: 0,
            anchor: 0,
            anchor_page: None,
            page: 0,
            has_layout: false,
            lines_seen: 0,
            furniture: Vec::new(),
            warnings: Vec::new(),
            footnotes: 0,
            endnotes: 0,
        }
    }

    fn provenance(&self, start: u32, end: u32) -> Provenance {
        Provenance {
            section: 0,
            paragraph: self.anchor,
            char_start: start,
            char_end: end,
            page: self.anchor_page,
        }
    }

    /// The body's paragraph list: section-level paragraphs, counted for provenance and pages.
    /// Returns the blocks and the number of section-level paragraphs.
    pub fn body(&mut self) -> Result<(Vec<Block>, u32)> {
        let mut out = Vec::new();
        let mut count = 0u32;
        loop {
            self.anchor = count;
            if !self.paragraph(true, &mut out)? {
                break;
            }
            count += 1;
        }
        Ok((out, count))
    }

    /// A nested paragraph list (cell, caption, text box, header, note), up to its empty paragraph.
    fn list(&mut self) -> Result<Vec<Block>> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(Error::too_large(format!(
                "HWP 3.x paragraph lists nest deeper than {} levels",
                self.limits.max_depth
            )));
        }
        let mut out = Vec::new();
        let r = loop {
            match self.paragraph(false, &mut out) {
                Ok(true) => {}
                Ok(false) => break Ok(out),
                Err(e) => break Err(e),
            }
        };
        self.depth -= 1;
        r
    }

    /// A paragraph list stored as a byte string of its own (text boxes of drawings).
    fn list_in(&mut self, bytes: &'a [u8]) -> Result<Vec<Block>> {
        let saved = std::mem::replace(&mut self.cur, Cur::new(bytes));
        let r = self.list();
        self.cur = saved;
        r
    }

    /// One paragraph; `false` at the empty paragraph that ends a list.
    fn paragraph(&mut self, top: bool, out: &mut Vec<Block>) -> Result<bool> {
        let h = self.cur.take(PARA_HEADER)?;
        let follows_shape = h[0];
        let n_chars = le16(h, 1) as usize;
        let n_lines = le16(h, 3) as usize;
        let has_shapes = h[5] != 0;
        let flags = h[6];
        let style = h[11];
        let rep_attr = h[12 + CHAR_ATTR];
        if n_chars == 0 {
            return Ok(false);
        }
        self.paragraphs += 1;
        if self.paragraphs > self.limits.max_records {
            return Err(Error::too_large(format!(
                "more than {} paragraphs",
                self.limits.max_records
            )));
        }
        if follows_shape == 0 {
            self.cur.skip(PARA_SHAPE)?;
        }
        let lines = self.cur.take(
            n_lines
                .checked_mul(LINE_INFO)
                .ok_or_else(|| Error::corrupt("line count overflows"))?,
        )?;
        if top {
            // Line records (spec table 12): word 12, bit 15 = the break information is valid,
            // bit 0 = the line starts a new page. Page 1 needs no mark.
            if self.page == 0 {
                self.page = 1;
            }
            for (k, line) in lines.chunks_exact(LINE_INFO).enumerate() {
                let brk = le16(line, 12);
                if brk & 0x8000 != 0 {
                    self.has_layout = true;
                    // A mark on the document's first line starts page 1 itself.
                    if brk & 0x0001 != 0 && self.lines_seen > 0 {
                        self.page += 1;
                    }
                }
                self.lines_seen += 1;
                if k == 0 {
                    self.anchor_page = Some(self.page);
                }
            }
            if lines.is_empty() {
                self.anchor_page = Some(self.page);
            }
        }
        // Per-character attributes (only the attribute byte matters to the model).
        let attrs: Option<Vec<u8>> = if has_shapes {
            // Each character has at least its flag byte: the count is bounded by the bytes left.
            if n_chars > self.cur.remaining() {
                return Err(Error::corrupt(
                    "character shapes run past the end of the body",
                ));
            }
            let mut v = Vec::with_capacity(n_chars);
            let mut attr = rep_attr;
            for _ in 0..n_chars {
                if self.cur.u8()? != 1 {
                    attr = self.cur.take(CHAR_SHAPE)?[CHAR_ATTR];
                }
                v.push(attr);
            }
            Some(v)
        } else {
            None
        };
        let attr_at = |i: usize| {
            attrs
                .as_ref()
                .and_then(|v| v.get(i).copied())
                .unwrap_or(rep_attr)
        };

        // Each character is at least 2 bytes.
        if n_chars > self.cur.remaining() / 2 {
            return Err(Error::corrupt(
                "a paragraph claims more characters than the body holds",
            ));
        }
        let mut t = Text {
            text: String::with_capacity(n_chars + n_chars / 2),
            ..Text::default()
        };
        let mut controls: Vec<Block> = Vec::new();
        let mut note_refs: Vec<NoteRef> = Vec::new();
        let mut i = 0usize;
        while i < n_chars {
            let c = self.cur.u16()?;
            let at = i;
            i += 1;
            if c >= 32 {
                t.push_code(c, attr_at(at));
                continue;
            }
            match c {
                13 => {}
                9 => {
                    self.cur.skip(6)?;
                    i += 3;
                    t.push_char('\t', attr_at(at));
                }
                10 => {
                    self.cur.skip(6)?;
                    i += 3;
                    let block = self.boxed(t.chars)?;
                    controls.push(block);
                }
                11 => {
                    self.cur.skip(6)?;
                    i += 3;
                    if let Some(block) = self.picture(t.chars)? {
                        controls.push(block);
                    }
                }
                14 => {
                    self.cur.skip(6 + 84)?;
                    i += 3;
                }
                15 => {
                    // Hidden comment: read past its list; not text.
                    self.cur.skip(6 + 8)?;
                    i += 3;
                    self.list()?;
                }
                16 => {
                    self.cur.skip(6)?;
                    i += 3;
                    let info = self.cur.take(10)?;
                    let kind = if info[8] == 1 { "footer" } else { "header" };
                    let applies = match info[9] {
                        1 => "even",
                        2 => "odd",
                        _ => "both",
                    };
                    let blocks = self.list()?;
                    let provenance = self.provenance(t.chars, t.chars);
                    self.furniture.push(Furniture {
                        kind: kind.into(),
                        applies_to: Some(applies.into()),
                        number: None,
                        author: None,
                        date: None,
                        anchor_text: None,
                        blocks,
                        provenance,
                    });
                }
                17 => {
                    self.cur.skip(6)?;
                    i += 3;
                    let info = self.cur.take(14)?;
                    let endnote = le16(info, 10) == 1;
                    let number = if endnote {
                        self.endnotes += 1;
                        self.endnotes
                    } else {
                        self.footnotes += 1;
                        self.footnotes
                    };
                    let kind = if endnote { "endnote" } else { "footnote" };
                    let blocks = self.list()?;
                    let provenance = self.provenance(t.chars, t.chars);
                    note_refs.push(NoteRef {
                        kind: kind.into(),
                        number,
                        offset: t.chars,
                    });
                    self.furniture.push(Furniture {
                        kind: kind.into(),
                        applies_to: None,
                        number: Some(number),
                        author: None,
                        date: None,
                        anchor_text: None,
                        blocks,
                        provenance,
                    });
                }
                18..=21 => {
                    self.cur.skip(6)?;
                    i += 3;
                }
                7 => {
                    self.cur.skip(82)?;
                    i += 41;
                }
                8 => {
                    self.cur.skip(94)?;
                    i += 47;
                }
                22 => {
                    self.cur.skip(22)?;
                    i += 11;
                }
                23 => {
                    self.cur.skip(8)?;
                    i += 4;
                }
                24 => {
                    self.cur.skip(4)?;
                    i += 2;
                    t.push_char('-', attr_at(at));
                }
                25 => {
                    self.cur.skip(4)?;
                    i += 2;
                }
                26 => {
                    self.cur.skip(244)?;
                    i += 122;
                }
                28 => {
                    self.cur.skip(62)?;
                    i += 31;
                }
                30 | 31 => {
                    self.cur.skip(2)?;
                    i += 1;
                    t.push_char(if c == 30 { '\u{A0}' } else { ' ' }, attr_at(at));
                }
                _ => {
                    // Fields (5), bookmarks (6), cross references (29) and reserved codes:
                    // code, dword length n, code, n bytes of data.
                    let n = self.cur.u32()? as usize;
                    self.cur.skip(2)?;
                    self.cur.skip(n)?;
                    i += 3;
                }
            }
        }

        let break_before = if flags & 0x02 != 0 {
            Some("page".to_string())
        } else if flags & 0x01 != 0 {
            Some("column".to_string())
        } else {
            None
        };
        if !t.text.is_empty() {
            let chars = t.chars;
            out.push(Block::Paragraph(Paragraph {
                text: t.text,
                stored_text: None,
                runs: t.runs,
                style: self.styles.get(style as usize).cloned(),
                heading_level: None,
                list: None,
                note_refs,
                break_before,
                fields: Vec::new(),
                provenance: self.provenance(0, chars),
            }));
        }
        out.append(&mut controls);
        Ok(true)
    }

    /// Code 10: a table, text box, equation or button (spec §10.6).
    fn boxed(&mut self, offset: u32) -> Result<Block> {
        let info = self.cur.take(84)?;
        let kind = le16(info, 78);
        let n_cells = le16(info, 80) as usize;
        let cell_info = self.cur.take(
            n_cells
                .checked_mul(27)
                .ok_or_else(|| Error::corrupt("cell count overflows"))?,
        )?;
        let mut lists = Vec::with_capacity(n_cells.min(4096));
        for _ in 0..n_cells {
            lists.push(self.list()?);
        }
        let caption = self.list()?;
        let provenance = self.provenance(offset, offset + 1);
        Ok(match kind {
            0 => Block::Table(table(cell_info, lists, caption, provenance)),
            2 => {
                let mut script = String::new();
                for blocks in &lists {
                    for b in blocks {
                        let s = crate::text::block_text(b);
                        if !s.is_empty() {
                            if !script.is_empty() {
                                script.push('\n');
                            }
                            script.push_str(&s);
                        }
                    }
                }
                Block::Equation(Equation {
                    latex: equation::to_latex(&script),
                    script,
                    caption,
                    provenance,
                })
            }
            _ => Block::Shape(Shape {
                shape_kind: if kind == 1 { "textbox" } else { "button" }.into(),
                blocks: lists.into_iter().flatten().collect(),
                caption,
                provenance,
            }),
        })
    }

    /// Code 11: a picture, OLE object or drawing (spec §10.7, §11).
    fn picture(&mut self, offset: u32) -> Result<Option<Block>> {
        let info = self.cur.take(348)?;
        let extra_len = le32(info, 0) as usize;
        let kind = info[74];
        let width = hunit(le16(info, 42));
        let height = hunit(le16(info, 44));
        let name = charset::decode_kchars(&info[83..339]);
        let extra = self.cur.take(extra_len)?;
        let drawing = if kind == 3 {
            self.drawing(extra)?
        } else {
            Vec::new()
        };
        let caption = self.list()?;
        let provenance = self.provenance(offset, offset + 1);
        Ok(Some(match kind {
            3 => Block::Shape(Shape {
                shape_kind: "container".into(),
                blocks: drawing,
                caption,
                provenance,
            }),
            1 => Block::Unknown(Unknown {
                object: "ole".into(),
                bin_data_id: None,
                text: None,
                provenance,
            }),
            _ => Block::Picture(Picture {
                bin_data_id: None,
                bin_data_name: (!name.is_empty()).then_some(name),
                width,
                height,
                description: None,
                caption,
                provenance,
            }),
        }))
    }
}

/// Cells' grid positions and spans from their positions and sizes (spec table 42): the distinct
/// left edges are the columns, the distinct top edges the rows.
fn table(
    cell_info: &[u8],
    lists: Vec<Vec<Block>>,
    caption: Vec<Block>,
    provenance: Provenance,
) -> Table {
    let rects: Vec<(u32, u32, u32, u32)> = cell_info
        .chunks_exact(27)
        .map(|c| {
            (
                u32::from(le16(c, 4)),
                u32::from(le16(c, 6)),
                u32::from(le16(c, 8)),
                u32::from(le16(c, 10)),
            )
        })
        .collect();
    let mut xs: Vec<u32> = rects.iter().map(|r| r.0).collect();
    let mut ys: Vec<u32> = rects.iter().map(|r| r.1).collect();
    xs.sort_unstable();
    xs.dedup();
    ys.sort_unstable();
    ys.dedup();
    let index = |edges: &[u32], v: u32| edges.partition_point(|&e| e < v) as u32;
    let mut cells: Vec<TableCell> = rects
        .iter()
        .zip(lists)
        .map(|(&(x, y, w, h), blocks)| {
            let col = index(&xs, x);
            let row = index(&ys, y);
            let col_end = index(&xs, x.saturating_add(w).saturating_sub(8)).max(col + 1);
            let row_end = index(&ys, y.saturating_add(h).saturating_sub(8)).max(row + 1);
            TableCell {
                row,
                col,
                row_span: row_end - row,
                col_span: col_end - col,
                header: false,
                field_name: None,
                blocks,
            }
        })
        .collect();
    cells.sort_by_key(|c| (c.row, c.col));
    Table {
        rows: ys.len() as u32,
        cols: xs.len() as u32,
        cells,
        caption,
        provenance,
    }
}
