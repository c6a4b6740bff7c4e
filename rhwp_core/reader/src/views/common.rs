//! What the Markdown view and its HTML fragments share (`views/_common.py`): inline pieces,
//! placed table cells, empty paragraphs, safe links and foot/endnote labels.

use crate::common::chars::{clean, first, is_alnum, is_space, last, strip, words};
use crate::model::{Block, CharFormat, Document, NoteRef, Paragraph, Run, Table, TableCell};
use std::collections::{HashMap, HashSet};

/// The formatting of a stretch of text (a run without its text).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct Format<'a> {
    pub chars: CharFormat,
    pub link: Option<&'a str>,
}

impl<'a> Format<'a> {
    fn of(run: &'a Run) -> Self {
        Format {
            chars: run.format(),
            link: run.link.as_deref(),
        }
    }

    /// What two formats share (the link is the same: callers check).
    fn common(self, other: Self) -> Self {
        let (a, b) = (self.chars, other.chars);
        Format {
            chars: CharFormat {
                bold: a.bold && b.bold,
                italic: a.italic && b.italic,
                underline: a.underline && b.underline,
                strike: a.strike && b.strike,
                superscript: a.superscript && b.superscript,
                subscript: a.subscript && b.subscript,
            },
            link: self.link,
        }
    }
}

pub enum Piece<'a> {
    Text(String, Format<'a>),
    Note(&'a NoteRef),
}

fn inside_word(left: &str, right: &str) -> bool {
    last(&clean(left)).is_some_and(is_alnum) && first(&clean(right)).is_some_and(is_alnum)
}

/// `inline_pieces`: the paragraph's text as formatted pieces, note references at their offsets.
/// The runs are used when they spell the text exactly, else the text alone; with `whole_words`
/// formatting that changes inside a word is reduced to what both sides share.
pub fn inline_pieces(paragraph: &Paragraph, whole_words: bool) -> Vec<Piece<'_>> {
    // A deleted run (tracked change) is not in the text: the views show the final version.
    let runs: Vec<&Run> = paragraph.runs.iter().filter(|r| !r.is_deleted()).collect();
    let text = paragraph.text.as_str();
    if runs.len() == 1 && runs[0].text == text && paragraph.note_refs.is_empty() {
        if text.is_empty() {
            return Vec::new();
        }
        return vec![Piece::Text(text.to_owned(), Format::of(runs[0]))];
    }
    let spelled = !runs.is_empty() && {
        let mut rest = text;
        runs.iter()
            .all(|run| match rest.strip_prefix(run.text.as_str()) {
                Some(r) => {
                    rest = r;
                    true
                }
                None => false,
            })
            && rest.is_empty()
    };
    let parts: Vec<(&str, Format<'_>)> = if spelled {
        runs.iter()
            .map(|r| (r.text.as_str(), Format::of(r)))
            .collect()
    } else if text.is_empty() {
        Vec::new()
    } else {
        vec![(text, Format::default())]
    };
    let mut merged: Vec<(String, Format<'_>)> = Vec::new();
    for (run_text, format) in parts {
        if run_text.is_empty() {
            continue;
        }
        if let Some(previous) = merged.last_mut() {
            // (A run of nothing visible takes its neighbour's format.)
            if previous.1 == format || clean(run_text).is_empty() {
                previous.0.push_str(run_text);
                continue;
            }
            if clean(&previous.0).is_empty() {
                previous.0.push_str(run_text);
                previous.1 = format;
                continue;
            }
            if whole_words && previous.1.link == format.link && inside_word(&previous.0, run_text) {
                previous.0.push_str(run_text);
                previous.1 = previous.1.common(format);
                continue;
            }
        }
        merged.push((run_text.to_owned(), format));
    }
    if paragraph.note_refs.is_empty() {
        return merged.into_iter().map(|(t, f)| Piece::Text(t, f)).collect();
    }
    let mut refs: Vec<&NoteRef> = paragraph.note_refs.iter().collect();
    refs.sort_by_key(|r| r.offset); // stable, as Python's sorted
    let mut pieces = Vec::new();
    let mut position: i64 = 0; // character offset of the current piece's start
    let mut next = 0;
    for (piece_text, format) in merged {
        let count = piece_text.chars().count() as i64;
        // Cuts only move forward within a piece: a cursor turns character offsets into bytes.
        let mut cursor = (0i64, 0usize);
        let mut byte_at = |i: i64| {
            let (at, byte) = &mut cursor;
            for c in piece_text[*byte..].chars().take((i - *at).max(0) as usize) {
                *byte += c.len_utf8();
                *at += 1;
            }
            *byte
        };
        let mut start: i64 = 0;
        while next < refs.len() && i64::from(refs[next].offset) < position + count {
            let cut = (i64::from(refs[next].offset) - position).max(start);
            if cut > start {
                let (from, to) = (byte_at(start), byte_at(cut));
                pieces.push(Piece::Text(piece_text[from..to].to_owned(), format));
            }
            pieces.push(Piece::Note(refs[next]));
            start = cut;
            next += 1;
        }
        if start < count {
            let from = byte_at(start);
            pieces.push(Piece::Text(piece_text[from..].to_owned(), format));
        }
        position += count;
    }
    pieces.extend(refs[next..].iter().map(|r| Piece::Note(r)));
    pieces
}

/// `placed_cells`: each cell with its grid position — the declared one, or, when addresses
/// collide, the next free slot in reading order (as HTML lays cells out).
pub fn placed_cells(table: &Table) -> Vec<(&TableCell, u64, u64)> {
    let declared: HashSet<(u32, u32)> = table.cells.iter().map(|c| (c.row, c.col)).collect();
    if declared.len() == table.cells.len() {
        return table
            .cells
            .iter()
            .map(|c| (c, u64::from(c.row), u64::from(c.col)))
            .collect();
    }
    let width = u64::from(table.cols.max(1));
    let limit = table.cells.len() as u64 + 1;
    let mut occupied: HashSet<(u64, u64)> = HashSet::new();
    let mut placed = Vec::with_capacity(table.cells.len());
    let (mut row, mut col) = (0u64, 0u64);
    for cell in &table.cells {
        while occupied.contains(&(row, col)) || col >= width {
            col += 1;
            if col >= width {
                row += 1;
                col = 0;
            }
        }
        placed.push((cell, row, col));
        let rows = u64::from(cell.row_span.max(1)).min(limit);
        let cols = u64::from(cell.col_span.max(1)).min(width - col).min(limit);
        for dr in 0..rows {
            for dc in 0..cols {
                occupied.insert((row + dr, col + dc));
            }
        }
        col += u64::from(cell.col_span.max(1));
    }
    placed
}

/// True when the paragraph shows nothing (no visible text, no note reference).
pub fn paragraph_is_empty(paragraph: &Paragraph) -> bool {
    // `not clean(text).strip()`: empty when every character is space or forbidden (stops at
    // the first visible one, without copying).
    paragraph.note_refs.is_empty()
        && paragraph
            .text
            .chars()
            .all(|c| is_space(c) || crate::common::chars::is_forbidden(c))
}

pub fn block_is_empty_paragraph(block: &Block) -> bool {
    matches!(block, Block::Paragraph(p) if paragraph_is_empty(p))
}

/// `safe_url`: web, mail, ftp, tel and file links and scheme-less references only, with what
/// would end a Markdown destination or an HTML attribute percent-encoded.
pub fn safe_url(url: Option<&str>) -> Option<String> {
    let url = url.filter(|u| !u.is_empty())?;
    let cleaned = clean(url);
    let url = strip(&cleaned);
    let bytes = url.as_bytes();
    let scheme_len = if bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        let n = bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
            .count();
        (bytes.get(n) == Some(&b':')).then_some(n)
    } else {
        None
    };
    if scheme_len.is_some() {
        const SAFE: [&str; 6] = ["http:", "https:", "mailto:", "ftp:", "tel:", "file:"];
        let safe = SAFE
            .iter()
            .any(|s| bytes.len() >= s.len() && bytes[..s.len()].eq_ignore_ascii_case(s.as_bytes()));
        if !safe {
            return None;
        }
    }
    let joined: String;
    let url = if url.contains(['\n', '\t']) {
        joined = words(url).collect();
        joined.as_str()
    } else {
        url
    };
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '"' => out.push_str("%22"),
            '\\' => out.push_str("%5C"),
            _ => out.push(c),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A foot- or endnote with the label the views give it (`1`, `e1`).
pub struct Note<'a> {
    /// `footnote` or `endnote`.
    pub kind: &'static str,
    pub label: String,
    pub number: u64,
    pub blocks: &'a [Block],
}

/// `NoteIndex`: labels for the notes and the note each body reference points to. References and
/// notes of a kind pair in order when their counts agree, else by number; labels are the numbers
/// (endnotes prefixed `e`), made unique with a suffix when numbering restarts.
pub struct NoteIndex<'a> {
    pub notes: Vec<Note<'a>>,
    by_ref: HashMap<*const NoteRef, usize>,
}

/// The note references of `blocks` and of the blocks nested in them, in reading order.
fn body_note_refs(blocks: &[Block]) -> Vec<&NoteRef> {
    let mut out = Vec::new();
    crate::model::for_each_block(blocks, &mut |b| {
        if let Block::Paragraph(p) = b {
            out.extend(p.note_refs.iter());
        }
    });
    out
}

impl<'a> NoteIndex<'a> {
    pub fn new(doc: &'a Document) -> Self {
        let mut notes = Vec::new();
        let mut by_ref = HashMap::new();
        let mut used: HashSet<String> = HashSet::new();
        let has_notes = doc
            .furniture
            .iter()
            .any(|f| f.kind == "footnote" || f.kind == "endnote");
        let mut body_refs = Vec::new();
        if has_notes {
            for section in &doc.sections {
                body_refs.extend(body_note_refs(&section.blocks));
            }
        }
        for (kind, prefix) in [("footnote", ""), ("endnote", "e")] {
            let base = notes.len();
            let mut numbers = Vec::new();
            for (ordinal, furniture) in doc.furniture.iter().filter(|f| f.kind == kind).enumerate()
            {
                let number = furniture.number.map_or(ordinal as u64 + 1, u64::from);
                let mut label = format!("{prefix}{number}");
                let mut suffix = 2;
                while used.contains(&label) {
                    label = format!("{prefix}{number}-{suffix}");
                    suffix += 1;
                }
                used.insert(label.clone());
                notes.push(Note {
                    kind,
                    label,
                    number,
                    blocks: &furniture.blocks,
                });
                numbers.push(number);
            }
            let refs: Vec<&NoteRef> = body_refs
                .iter()
                .copied()
                .filter(|r| r.kind == kind)
                .collect();
            if refs.len() == numbers.len() {
                for (i, r) in refs.iter().enumerate() {
                    by_ref.insert(*r as *const NoteRef, base + i);
                }
            } else {
                let mut unused: Vec<usize> = (0..numbers.len()).collect();
                for r in refs {
                    if let Some(at) = unused
                        .iter()
                        .position(|&i| numbers[i] == u64::from(r.number))
                    {
                        by_ref.insert(r as *const NoteRef, base + unused.remove(at));
                    }
                }
            }
        }
        NoteIndex { notes, by_ref }
    }

    /// Let the note references in `copy` (a clone of `original`) find the notes `original`'s do
    /// (references are found by address).
    pub fn alias(&mut self, original: &[Block], copy: &[Block]) {
        let (from, to) = (body_note_refs(original), body_note_refs(copy));
        for (o, c) in from.iter().zip(&to) {
            if let Some(&i) = self.by_ref.get(&(*o as *const NoteRef)) {
                self.by_ref.insert(*c as *const NoteRef, i);
            }
        }
    }

    /// The note a body reference points to, if the document holds it.
    pub fn note_for(&self, r: &NoteRef) -> Option<&Note<'a>> {
        self.by_ref
            .get(&(r as *const NoteRef))
            .map(|&i| &self.notes[i])
    }

    /// The label of the note a body reference points to, if the document holds it.
    pub fn label_for(&self, r: &NoteRef) -> Option<&str> {
        self.note_for(r).map(|n| n.label.as_str())
    }
}

/// Whether the model marks the paragraph as a heading (Python: `paragraph.heading_level` truthy).
pub fn marked_heading(paragraph: &Paragraph) -> bool {
    paragraph.heading_level.is_some_and(|l| l > 0)
}
