//! Section streams → blocks. A section is a list of level-0 paragraphs; each
//! paragraph's PARA_TEXT, PARA_CHAR_SHAPE, PARA_LINE_SEG and CTRL_HEADER
//! records sit one level below its PARA_HEADER, and a control's own records
//! (lists of nested paragraphs, tables, shapes) one level further down.
//!
//! Block order: for each section-level paragraph, a Paragraph block when its
//! text is non-empty, then the blocks of its controls in the order their
//! control characters appear in the text.
//!
//! Pages are "as last laid out by the authoring program": Hancom stores the
//! layout of every line (PARA_LINE_SEG: start, vertical position, column
//! offset, flags) at save time. A new page starts at the first line of a new
//! section, at a line whose flags say "first line of a page" (bit 0; few files
//! set it), or when the text moves past the last column: a line flagged "first
//! line of a column" (bit 1) or whose vertical position falls back moves to the
//! next column, and with N columns in effect (`cold`) every Nth move is a new
//! page. A paragraph that changes the column layout starts a new column region
//! on the same page. A paragraph flagged with a page break (break type 0x04 or
//! 0x01) starts a new page on its first line, counted once even when that
//! line's position also falls back; paragraphs without line segments advance
//! the page only at such a break. A table that runs on to further pages is one
//! line of its anchoring paragraph: the pages it adds show in its cells' own
//! line segments (positions relative to the cell, starting again near 0 where
//! a row is split by a page break; a fall to a column further right is the
//! cell's next column), counted once per break across the cells of a row
//! (`TablePages`), nested tables included, right after the line holding the
//! table; the next line is compared with where the table's last page ends.
//! Blocks in the table keep the table's first page. A document without any
//! line segment has `pages: None`.

use super::doc_info::{DocInfo, HeadKind};
use super::fields;
use super::record::{ctrl_id, subtree_end, tag, Reader, Record};
use crate::common::lines::{
    CellLines, Endnotes, NoteFlow, NoteLines, RowPages, TableAnchor, TablePages, TablePlacement,
    TableRows,
};
use crate::limits::{Limits, MAX_OPEN_FIELDS};
use crate::model::{
    Block, Field, Furniture, ListMarker, PageDefinition, Paragraph, Provenance, Run, Section,
    TrackedChange,
};
use crate::numbering::{bullet_char, expand_template, Counters, NumberStyle};
use crate::{Error, Result};
use std::collections::{HashMap, VecDeque};

/// Page tracking across the whole document (sections continue the count); it also carries
/// the paragraph numbering's counters from section to section (`numbering::Counters`).
#[derive(Debug, Default)]
pub struct PageTracker {
    pub page: u32,
    /// Per numbering id (1-based: index 0 is id 1), its current numbers.
    pub counters: Vec<Counters>,
    prev_vpos: i32,
    /// Text columns in effect and the one being filled (0-based).
    columns: u32,
    column: u32,
    /// Whether any section-level line segment was seen (else pages are unknown).
    pub has_layout: bool,
    new_section: bool,
    /// Where the last line counted ends, relative to its column's top.
    bottom: i64,
    /// Endnotes read so far and not yet printed, how they flow (the section's body height,
    /// the endnote shape's spacing) and whether they print at each section's end rather than
    /// the document's.
    endnotes: Endnotes,
    note_flow: NoteFlow,
    endnotes_per_section: bool,
    /// The waiting endnotes' anchors (section, section-level paragraph), in order, and each
    /// printed endnote's anchor with the page it is printed on.
    endnote_anchors: Vec<(u32, u32)>,
    pub printed_endnotes: Vec<((u32, u32), u32)>,
}

/// Line-segment flag bits (spec "문단의 레이아웃", tag): first line of a page / of a column.
const LINE_FIRST_IN_PAGE: u32 = 1 << 0;
const LINE_FIRST_IN_COLUMN: u32 = 1 << 1;

impl PageTracker {
    pub fn start_section(&mut self) {
        if self.endnotes_per_section {
            self.print_endnotes();
        }
        self.new_section = true;
        self.columns = 1;
    }

    /// The end of the document: endnotes still waiting print here.
    pub fn finish(&mut self) {
        self.print_endnotes();
    }

    /// The waiting endnotes flow on after the last line counted, in the columns in effect.
    fn print_endnotes(&mut self) {
        if self.page == 0 {
            return;
        }
        let flow = NoteFlow {
            columns: self.columns,
            ..self.note_flow
        };
        let (added, pages) = self.endnotes.flow_notes(self.bottom, self.column, flow);
        let anchors = std::mem::take(&mut self.endnote_anchors);
        let page = self.page;
        self.printed_endnotes.extend(
            anchors
                .into_iter()
                .zip(pages)
                .map(|(anchor, offset)| (anchor, page.saturating_add(offset))),
        );
        if added > 0 {
            self.page = self.page.saturating_add(added);
            self.column = 0;
        }
    }

    /// One section-level line. `new_columns` is set on the first line of a paragraph that
    /// changes the column layout: its lines start a new column region on the same page, whose
    /// vertical positions start again from 0 without meaning a new page.
    /// `page_break`: the paragraph's first line after an explicit page break (counted once, even
    /// when its vertical position also falls back).
    fn line(
        &mut self,
        (vpos, height): (i32, i32),
        flags: u32,
        new_columns: Option<u32>,
        page_break: bool,
    ) -> u32 {
        if self.page == 0 {
            self.page = 1;
            self.column = 0;
        } else if self.new_section || page_break || flags & LINE_FIRST_IN_PAGE != 0 {
            self.page += 1;
            self.column = 0;
        } else if new_columns.is_some() {
            self.column = 0;
        } else if flags & LINE_FIRST_IN_COLUMN != 0 || vpos < self.prev_vpos {
            self.column += 1;
            if self.column >= self.columns.max(1) {
                self.page += 1;
                self.column = 0;
            }
        }
        if let Some(n) = new_columns {
            self.columns = n.max(1);
        }
        self.new_section = false;
        self.has_layout = true;
        self.prev_vpos = vpos;
        self.bottom = i64::from(vpos) + i64::from(height.max(0));
        self.page
    }

    /// A table anchored on the line just counted ran on over `extra` more pages; the next line
    /// is compared with the position the table's last page ended near (`last`, relative to that
    /// page's top).
    fn table(&mut self, extra: u32, last: Option<i32>) {
        if extra > 0 {
            self.page += extra;
            self.column = 0;
            self.prev_vpos = last.unwrap_or(0);
            self.bottom = i64::from(self.prev_vpos);
        }
    }

    fn explicit_break(&mut self) {
        if self.page > 0 {
            self.page += 1;
            self.column = 0;
        }
    }

    pub(crate) fn current(&self) -> Option<u32> {
        if self.page == 0 {
            None
        } else {
            Some(self.page)
        }
    }
}

/// A table cell on a known page, read paragraph by paragraph (`Ctx::cell_page`).
#[derive(Debug, Clone, Copy, Default)]
pub struct CellPage {
    pub page: u32,
    pub lines: CellLines,
    /// The nesting depth of the cell's own paragraphs (a text box's inside it has its own lines).
    pub depth: u32,
}

/// Where the blocks being read are anchored (the section-level paragraph).
#[derive(Debug, Clone, Copy, Default)]
pub struct Anchor {
    pub paragraph: u32,
    pub page: Option<u32>,
}

/// State while reading one section stream.
pub struct Ctx<'a> {
    pub stream: &'a [u8],
    pub recs: &'a [Record],
    pub info: &'a DocInfo,
    pub limits: &'a Limits,
    pub section: u32,
    pub depth: u32,
    pub anchor: Anchor,
    pub furniture: Vec<Furniture>,
    pub page_def: Option<PageDefinition>,
    /// The section's body area (the page less its margins and header/footer areas), where
    /// tables' rows are laid out: its top on the paper and its height; height 0 when the
    /// section has no page definition.
    body: (i64, i64),
    /// Section-level tables laid out over several pages, by their control's record: the page
    /// (counted from the table's first) each row starts on; their cells' blocks get that page.
    pub row_pages: HashMap<usize, Vec<u32>>,
    /// The table cell being read, when its page is known: the page it starts on and its lines
    /// so far (its paragraphs get the page their first line is on).
    pub cell_page: Option<CellPage>,
    pub columns: u32,
    /// Counters of numbered paragraphs, per numbering id (taken from and given back to the
    /// `PageTracker` around each section).
    pub counters: Vec<Counters>,
    /// The section's outline numbering id (its section definition's "번호 문단 모양 ID").
    pub outline_numbering: u16,
    pub footnotes: u32,
    pub endnotes: u32,
    /// Fields still open at the end of a paragraph (a field may span paragraphs of one list),
    /// innermost last.
    open_fields: Vec<OpenField>,
    /// Memo anchors and memo texts, matched by memo index once the whole document is read.
    pub memos: Memos,
}

/// A field whose end is in a later paragraph: where its value is kept.
#[derive(Debug)]
struct OpenField {
    depth: u32,
    /// The paragraph block (index in its list) and the field's index in it.
    field: Option<(usize, usize)>,
    /// Its memo anchor (index in `Memos::anchors`).
    memo: Option<usize>,
}

/// The text a memo is attached to: a memo field's (`%%me`, or `%unk` with a memo index) span.
#[derive(Debug)]
pub struct MemoAnchor {
    pub index: i32,
    pub text: String,
    pub provenance: Provenance,
}

/// A memo's content: a MEMO_LIST record (memo index, u32) followed by a LIST_HEADER and the
/// memo's paragraphs, all one level below the paragraph they follow.
#[derive(Debug)]
pub struct MemoBody {
    pub index: u32,
    pub blocks: Vec<Block>,
    pub provenance: Provenance,
}

#[derive(Debug, Default)]
pub struct Memos {
    pub anchors: Vec<MemoAnchor>,
    pub bodies: Vec<MemoBody>,
}

impl Memos {
    pub fn append(&mut self, other: &mut Memos) {
        self.anchors.append(&mut other.anchors);
        self.bodies.append(&mut other.bodies);
    }

    /// One memo furniture per memo text, in the order of the anchors that name it (memo
    /// index); memo texts no anchor names follow, anchored nowhere.
    pub fn into_furniture(self) -> Vec<Furniture> {
        let mut bodies: Vec<Option<MemoBody>> = self.bodies.into_iter().map(Some).collect();
        let mut out = Vec::with_capacity(bodies.len());
        let memo = |body: MemoBody, anchor: Option<MemoAnchor>| {
            let (anchor_text, provenance) = match anchor {
                Some(a) => (Some(a.text), a.provenance),
                None => (None, body.provenance),
            };
            Furniture {
                kind: "memo".into(),
                applies_to: None,
                number: None,
                author: None,
                date: None,
                anchor_text,
                blocks: body.blocks,
                provenance,
            }
        };
        // Each anchor takes the first body not yet taken with its index: the bodies of each
        // index in order, so that thousands of anchors matching no body cost no search through
        // every body each (anchors × bodies).
        let mut by_index: HashMap<i64, VecDeque<usize>> = HashMap::new();
        for (i, b) in bodies.iter().enumerate() {
            if let Some(b) = b {
                by_index.entry(b.index as i64).or_default().push_back(i);
            }
        }
        for anchor in self.anchors {
            let found = by_index
                .get_mut(&(anchor.index as i64))
                .and_then(|queue| queue.pop_front());
            if let Some(body) = found.and_then(|i| bodies[i].take()) {
                out.push(memo(body, Some(anchor)));
            }
        }
        out.extend(bodies.into_iter().flatten().map(|b| memo(b, None)));
        out
    }
}

/// A field met in a paragraph's text (see `Ctx::text_field`).
#[derive(Debug)]
struct TextField {
    field: Field,
    /// Byte offset of its value in the paragraph's text.
    start_byte: usize,
    /// Memo index when the field anchors a memo.
    memo: Option<i32>,
    /// Whether a memo anchor only (`%%me`), not listed as a field.
    memo_only: bool,
    closed: bool,
}

/// A tracked change over the PARA_TEXT units `start..end` of a paragraph: a PARA_RANGE_TAG
/// entry (start u32, end u32, tag u32) whose tag's top byte is 0x10 (inserted) or 0x11
/// (deleted) and whose low 24 bits name the DocInfo `HWPTAG_TRACK_CHANGE` record from 1.
/// Hancom writes them in the `ViewText` sections of documents with tracked changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeRange {
    pub start: u32,
    pub end: u32,
    pub deleted: bool,
    pub id: u32,
}

/// The tracked changes among a PARA_RANGE_TAG record's entries (others, such as 형광펜
/// highlights, are left out).
pub fn change_ranges(d: &[u8]) -> Vec<ChangeRange> {
    d.chunks_exact(12)
        .filter_map(|c| {
            let word = |i: usize| u32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
            let (start, end, tag) = (word(0), word(4), word(8));
            let deleted = match tag >> 24 {
                0x10 => false,
                0x11 => true,
                _ => return None,
            };
            (start < end).then_some(ChangeRange {
                start,
                end,
                deleted,
                id: tag & 0x00FF_FFFF,
            })
        })
        .collect()
}

/// The tracked change in force from each unit where one of `changes` starts or ends, in order
/// of units: the change whose range covers the unit, a deleted one before an inserted one and
/// then the first listed (`None` where none covers). One sweep over the ranges' ends, where
/// looking through every range at every such unit made a paragraph of thousands of ranges
/// quadratic (20,000 one-unit ranges took 6 s).
pub fn change_segments(changes: &[ChangeRange]) -> Vec<(usize, Option<(u32, bool)>)> {
    use std::collections::BTreeSet;
    let mut events: Vec<(usize, bool, usize)> = changes
        .iter()
        .enumerate()
        .flat_map(|(i, r)| [(r.start as usize, true, i), (r.end as usize, false, i)])
        .collect();
    events.sort_unstable();
    let (mut inserted, mut deleted) = (BTreeSet::new(), BTreeSet::new());
    let mut out: Vec<(usize, Option<(u32, bool)>)> = Vec::new();
    let mut e = 0;
    while e < events.len() {
        let at = events[e].0;
        while let Some(&(p, starts, i)) = events.get(e) {
            if p != at {
                break;
            }
            let set = if changes[i].deleted {
                &mut deleted
            } else {
                &mut inserted
            };
            if starts {
                set.insert(i);
            } else {
                set.remove(&i);
            }
            e += 1;
        }
        let now = deleted
            .first()
            .or(inserted.first())
            .map(|&i| (changes[i].id, changes[i].deleted));
        out.push((at, now));
    }
    out
}

/// What a field-start character opened (closed by the next field-end character).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Link,
    Field(usize),
    /// A field opened in an earlier paragraph.
    Carried,
    Other,
}

/// Control-character classes (spec "제어 문자"): how many UTF-16 units each occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtrlClass {
    /// One unit (line break, paragraph end, hyphen, non-breaking and fixed-width space, ...).
    Char,
    /// Eight units, data in place (tab, field end, ...).
    Inline,
    /// Eight units, object described by the next CTRL_HEADER.
    Extended,
}

pub fn ctrl_class(unit: u16) -> CtrlClass {
    match unit {
        0 | 10 | 13 | 24..=31 => CtrlClass::Char,
        4..=9 | 19 | 20 => CtrlClass::Inline,
        _ => CtrlClass::Extended,
    }
}

/// What decoding a PARA_TEXT yields besides the text.
#[derive(Debug, Default)]
struct Decoded {
    text: String,
    runs: Vec<Run>,
    /// For each extended control in order: (char offset in text, unit position).
    anchors: Vec<(u32, u32)>,
    /// Fields starting in this paragraph, in text order.
    fields: Vec<TextField>,
    /// Byte offsets where fields carried from earlier paragraphs end, innermost first.
    carried_ends: Vec<usize>,
}

/// The run being built while PARA_TEXT is decoded: it ends at every change of character shape,
/// link or tracked change.
struct RunInProgress {
    /// Where it starts in the paragraph's text (a byte offset).
    start: usize,
    format: crate::model::CharFormat,
    link: Option<String>,
    change: Option<TrackedChange>,
    /// The paragraph's character count where the tracked change in force began.
    deleted_from: u32,
}

impl RunInProgress {
    /// Close the run: push it (if it holds text) and start the next where it ends. A deleted
    /// stretch goes into the run only: it is cut from the text again, and the character count,
    /// anchors and fields past it come back to where it began.
    fn end(&mut self, d: &mut Decoded, chars: &mut u32) {
        if d.text.len() > self.start {
            let mut run = Run::formatted(
                d.text[self.start..].to_string(),
                self.format,
                self.link.clone(),
            );
            run.change = self.change.clone();
            d.runs.push(run);
        }
        if self.change.as_ref().is_some_and(|c| c.kind == "deleted") {
            let (at, from) = (self.start, self.deleted_from);
            d.text.truncate(at);
            *chars = from;
            for a in d.anchors.iter_mut().filter(|a| a.0 > from) {
                a.0 = from;
            }
            for f in d.fields.iter_mut() {
                f.start_byte = f.start_byte.min(at);
                f.field.start = f.field.start.min(from);
                f.field.end = f.field.end.min(from);
            }
            for e in d.carried_ends.iter_mut() {
                *e = (*e).min(at);
            }
        }
        self.start = d.text.len();
    }
}

/// The hyperlink target of a `%hlk` field's command string: up to the first
/// unescaped `;`, with `\` escapes (`http\://`) removed.
pub fn hyperlink_target(command: &str) -> Option<String> {
    let out = crate::model::field::unescaped_target(command);
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

impl<'a> Ctx<'a> {
    pub fn new(
        stream: &'a [u8],
        recs: &'a [Record],
        info: &'a DocInfo,
        limits: &'a Limits,
        section: u32,
    ) -> Self {
        Ctx {
            stream,
            recs,
            info,
            limits,
            section,
            depth: 0,
            anchor: Anchor::default(),
            furniture: Vec::new(),
            page_def: None,
            body: (0, 0),
            row_pages: HashMap::new(),
            cell_page: None,
            columns: 0,
            counters: Vec::new(),
            outline_numbering: 0,
            footnotes: 0,
            endnotes: 0,
            open_fields: Vec::new(),
            memos: Memos::default(),
        }
    }

    #[inline]
    pub fn data(&self, i: usize) -> &'a [u8] {
        self.recs.get(i).map(|r| r.data(self.stream)).unwrap_or(&[])
    }

    pub fn provenance(&self, char_start: u32, char_end: u32) -> Provenance {
        Provenance {
            section: self.section,
            paragraph: self.anchor.paragraph,
            char_start,
            char_end,
            page: self.anchor.page,
        }
    }

    /// Read the whole section: its blocks; `pages` carries the page count across sections.
    pub fn read_section(&mut self, pages: &mut PageTracker) -> Result<Section> {
        pages.start_section();
        // About one block per two section-level paragraph records in typical documents.
        let paragraphs = self
            .recs
            .iter()
            .filter(|r| r.level == 0 && r.tag == tag::PARA_HEADER)
            .count();
        let mut blocks = Vec::with_capacity(paragraphs);
        let mut index = 0u32;
        let mut i = 0;
        let base_level = self.recs.first().map(|r| r.level).unwrap_or(0);
        // The outline numbering is the section definition's (ctrl id, property u32, three
        // HWPUNIT16 spacings, default tab u32, then the numbering id u16): known before the
        // first paragraph, which holds the definition, is numbered.
        self.outline_numbering = self
            .recs
            .iter()
            .find(|r| {
                r.tag == tag::CTRL_HEADER && &super::record::ctrl_id(r.data(self.stream)) == b"secd"
            })
            .map(|r| Reader::at(r.data(self.stream), 18).u16())
            .unwrap_or(0);
        self.body = self
            .recs
            .iter()
            .find(|r| r.tag == tag::PAGE_DEF)
            .map_or((0, 0), |r| body_area(r.data(self.stream)));
        self.counters = std::mem::take(&mut pages.counters);
        while i < self.recs.len() {
            let r = self.recs[i];
            let end = subtree_end(self.recs, i);
            if r.tag == tag::PARA_HEADER && r.level == base_level {
                self.anchor = Anchor {
                    paragraph: index,
                    page: None,
                };
                let read = self.paragraph(i, end, Some(&mut *pages), &mut blocks);
                if read.is_err() {
                    pages.counters = std::mem::take(&mut self.counters);
                }
                read?;
                index += 1;
            }
            i = end.max(i + 1);
        }
        pages.counters = std::mem::take(&mut self.counters);
        self.open_fields.clear();
        Ok(Section {
            index: self.section,
            page: self.page_def.take(),
            columns: self.columns.max(1),
            paragraph_count: index,
            blocks,
        })
    }

    /// The page of each line of a section-level paragraph (its text start and page), from its
    /// line segments `segs`, its controls `ctrls` (column definitions, tables that run on) with
    /// their `anchors` (char offset, unit position), and whether it starts after a page break.
    pub(crate) fn track_lines(
        &mut self,
        pages: &mut PageTracker,
        segs: &[u8],
        ctrls: &[usize],
        anchors: &[(u32, u32)],
        page_break: bool,
    ) -> Vec<(u32, u32)> {
        let mut line_pages: Vec<(u32, u32)> = Vec::new();
        self.note_layout(pages, ctrls);
        if segs.len() < 36 {
            if page_break {
                pages.explicit_break();
            }
            return line_pages;
        }
        // A column definition in this paragraph changes the layout from its first line on.
        let mut new_columns = ctrls.iter().find_map(|&c| {
            let d = self.data(c);
            (&super::record::ctrl_id(d) == b"cold")
                .then(|| ((Reader::at(d, 4).u16() >> 2) & 0xFF) as u32)
        });
        // Tables, by the text position of their control, and the pages they run on to
        // as their cells' lines show (a row split by a page break).
        let mut tables: Vec<(u32, usize, u32, Option<i32>)> = Vec::new();
        for (k, &c) in ctrls.iter().enumerate() {
            if &super::record::ctrl_id(self.data(c)) == b"tbl " {
                let (extra, last) = self.table_pages(c, subtree_end(self.recs, c), 1);
                let unit = anchors.get(k).map_or(0, |a| a.1);
                tables.push((unit, c, extra, last));
            }
        }
        let mut tables = tables.into_iter().peekable();
        let mut page_break = page_break;
        line_pages.reserve(segs.len() / 36);
        let mut chunks = segs.chunks_exact(36).peekable();
        while let Some(seg) = chunks.next() {
            let mut r = Reader::new(seg);
            let start = r.u32();
            let vpos = r.i32();
            let height = r.i32();
            r.skip(20);
            let flags = r.u32();
            let page = pages.line(
                (vpos, height),
                flags,
                new_columns.take(),
                std::mem::take(&mut page_break),
            );
            line_pages.push((start, page));
            // The tables anchored on this line: before the next line's start.
            let next = chunks.peek().map_or(u32::MAX, |n| Reader::new(n).u32());
            while let Some(&(_, c, extra, last)) = tables.peek().filter(|t| t.0 < next) {
                // Rows that moved wholly to a next page show only in the rows' heights
                // against the page (`TablePlacement`).
                let rows = self.table_rows(c, subtree_end(self.recs, c), vpos);
                let inline = Reader::at(self.data(c), 4).u32() & 1 != 0;
                let placed = TablePlacement::new((extra, last), rows, inline);
                if let Some(row_pages) = placed.row_pages {
                    self.row_pages.insert(c, row_pages);
                }
                if placed.counts {
                    pages.table(placed.extra, placed.last);
                }
                tables.next();
            }
        }
        line_pages
    }

    /// What a paragraph's controls tell the page tracker about endnotes: a section definition
    /// (`secd`) gives the body height and the endnote shape (its second FOOTNOTE_SHAPE record:
    /// property bits 8-9 where notes print, 1 at the section's end; the separator's margins above
    /// and below at offsets 16 and 18, the spacing between notes at 20); an endnote (`en  `)
    /// gives its lines (its list's paragraphs, positions relative to the note).
    fn note_layout(&self, pages: &mut PageTracker, ctrls: &[usize]) {
        for &c in ctrls {
            let id = super::record::ctrl_id(self.data(c));
            let level = self.recs[c].level;
            let children = (c + 1..subtree_end(self.recs, c)).map(|j| (j, self.recs[j]));
            if &id == b"secd" {
                let mut shapes = 0;
                for (j, r) in children.filter(|(_, r)| r.level == level + 1) {
                    if r.tag == tag::PAGE_DEF {
                        pages.note_flow.height = body_area(self.data(j)).1;
                    } else if r.tag == tag::FOOTNOTE_SHAPE {
                        shapes += 1;
                        if shapes == 2 {
                            let mut h = Reader::new(self.data(j));
                            pages.endnotes_per_section = (h.u32() >> 8) & 3 == 1;
                            h.skip(12);
                            let above = i64::from(h.u16());
                            let below = i64::from(h.u16());
                            pages.note_flow.separator = above + below;
                            pages.note_flow.spacing = i64::from(h.u16());
                        }
                    }
                }
            } else if &id == b"en  " {
                let mut note = NoteLines::default();
                for (j, r) in children {
                    if r.tag == tag::PARA_LINE_SEG && r.level == level + 2 {
                        for seg in self.data(j).chunks_exact(36) {
                            let mut s = Reader::at(seg, 4);
                            let vpos = s.i32();
                            note.line(vpos, s.i32());
                        }
                    }
                }
                pages.endnotes.push(note);
                pages
                    .endnote_anchors
                    .push((self.section, self.anchor.paragraph));
            }
        }
    }

    /// The pages a table control (`tbl ` at `c`, subtree up to `end`) runs on to beyond the
    /// page it starts on, from its cells' line segments, and where its last page's content
    /// ends. `depth` bounds nested tables as `limits.max_depth` does.
    fn table_pages(&self, c: usize, end: usize, depth: u32) -> (u32, Option<i32>) {
        if depth > self.limits.max_depth {
            return (0, None);
        }
        let level = self.recs[c].level + 1;
        let mut table = TablePages::default();
        let mut seen_table = false;
        let mut j = c + 1;
        while j < end {
            let r = self.recs[j];
            if r.level != level {
                j += 1;
                continue;
            }
            match r.tag {
                tag::TABLE => seen_table = true,
                tag::LIST_HEADER if seen_table => {
                    let mut h = Reader::at(self.data(j), 10);
                    let row = h.u16() as u32;
                    h.skip(2);
                    let row_span = h.u16() as u32;
                    let (lines, next) = self.cell_lines(j, end, depth);
                    table.cell(row, row_span, &lines);
                    j = next;
                    continue;
                }
                _ => {}
            }
            j += 1;
        }
        table.finish()
    }

    /// A section-level table's rows laid out on pages (`common::lines::TableRows`): control
    /// `c` (subtree up to `end`), anchored on a line at `line_vpos`. None when the section's
    /// body height is unknown or the table stores no rows.
    fn table_rows(&self, c: usize, end: usize, line_vpos: i32) -> Option<RowPages> {
        // The object's common header: property (bit 0 treated as a character, bits 3-4 what
        // its vertical offset is relative to: paper, page, paragraph), vertical offset.
        let mut h = Reader::at(self.data(c), 4);
        let property = h.u32();
        let vertical_offset = i64::from(h.i32());
        h.skip(8);
        let level = self.recs[c].level + 1;
        // Table property: bits 0-1 how it breaks at a page's end (0: it does not, it moves
        // whole; 1: between rows; 2: inside rows too), bit 2 its header rows repeat on each page.
        let table_property = (c + 1..end)
            .find(|&j| self.recs[j].tag == tag::TABLE && self.recs[j].level == level)
            .map_or(0, |j| Reader::new(self.data(j)).u32());
        let anchor = TableAnchor {
            inline: property & 1 != 0,
            paragraph_relative: (property >> 3) & 3 == 2,
            vertical_offset,
            stored_height: i64::from(h.u32()),
        };
        let top = anchor.top(i64::from(line_vpos), None, self.body.1)?;
        let mut rows: Option<TableRows> = None;
        // The cell being read (row, rows spanned, height, header) and its lines so far.
        let mut cell: Option<(u32, u32, u32, bool)> = None;
        let mut lines = 0u32;
        for j in c + 1..end {
            let r = self.recs[j];
            if r.tag == tag::PARA_LINE_SEG && r.level == level + 1 {
                lines = lines.saturating_add((r.data(self.stream).len() / 36) as u32);
            }
            if r.level != level {
                continue;
            }
            match r.tag {
                tag::TABLE => {
                    rows = Some(TableRows::new(u32::from(Reader::at(self.data(j), 4).u16())));
                }
                tag::LIST_HEADER => {
                    if let (Some(table), Some((row, span, height, header))) =
                        (rows.as_mut(), cell.take())
                    {
                        table.cell(row, span, height, header, lines);
                    }
                    lines = 0;
                    if rows.is_some() {
                        // Paragraph count, list property (bytes 2-5), the cell's flags (bit 2:
                        // a header cell), column, row, spans, width, height.
                        let mut l = Reader::at(self.data(j), 6);
                        let header = l.u16() & 4 != 0;
                        l.skip(2);
                        let row = u32::from(l.u16());
                        l.skip(2);
                        let row_span = u32::from(l.u16()).max(1);
                        l.skip(4);
                        cell = Some((row, row_span, l.u32(), header));
                    }
                }
                _ => {}
            }
        }
        if let (Some(table), Some((row, span, height, header))) = (rows.as_mut(), cell) {
            table.cell(row, span, height, header, lines);
        }
        rows?.layout(
            top,
            self.body.1,
            table_property & 3 != 0,
            table_property & 3 == 2,
            table_property & 4 != 0,
        )
    }

    /// The lines of the paragraphs following a cell's LIST_HEADER at `list` (same level, up to
    /// `end`), and the index after them.
    fn cell_lines(&self, list: usize, end: usize, depth: u32) -> (CellLines, usize) {
        let level = self.recs[list].level;
        let mut lines = CellLines::default();
        let mut i = list + 1;
        while i < end {
            let r = self.recs[i];
            if r.tag != tag::PARA_HEADER || r.level != level {
                break;
            }
            let para_end = subtree_end(self.recs, i);
            let mut tables = (0u32, None);
            let mut segs: &[u8] = &[];
            for k in i + 1..para_end {
                let rk = self.recs[k];
                if rk.level != level + 1 {
                    continue;
                }
                match rk.tag {
                    tag::PARA_LINE_SEG => segs = self.data(k),
                    tag::CTRL_HEADER if &ctrl_id(self.data(k)) == b"tbl " => {
                        let (extra, last) =
                            self.table_pages(k, subtree_end(self.recs, k), depth + 1);
                        if extra > 0 {
                            tables = (tables.0 + extra, last);
                        }
                    }
                    _ => {}
                }
            }
            // Nested tables are taken as anchored on the paragraph's first line.
            let mut first = true;
            for seg in segs.chunks_exact(36) {
                let (vpos, hpos) = seg_position(seg);
                lines.line(vpos, hpos);
                if std::mem::take(&mut first) {
                    lines.table(tables.0, tables.1);
                }
            }
            if first {
                lines.table(tables.0, tables.1);
            }
            i = para_end;
        }
        (lines, i)
    }

    /// Read the paragraphs that follow a LIST_HEADER at `list` (same level), as blocks.
    pub fn list(&mut self, list: usize) -> Result<Vec<Block>> {
        let Some(header) = self.recs.get(list).copied() else {
            return Ok(Vec::new());
        };
        // The list header starts with its paragraph count: size the vector once (most table
        // cells hold one paragraph; a default-grown vector would reserve four blocks).
        let count = Reader::new(header.data(self.stream)).u16() as usize;
        let mut blocks = Vec::with_capacity(count.clamp(1, 64));
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(Error::too_large(format!(
                "objects nested more than {} deep (tables in cells in boxes ...)",
                self.limits.max_depth
            )));
        }
        let mut i = list + 1;
        while let Some(r) = self.recs.get(i) {
            if r.tag != tag::PARA_HEADER || r.level != header.level {
                break;
            }
            let end = subtree_end(self.recs, i);
            self.paragraph(i, end, None, &mut blocks)?;
            i = end;
        }
        let depth = self.depth;
        self.open_fields.retain(|o| o.depth < depth);
        self.depth -= 1;
        Ok(blocks)
    }

    /// One paragraph (PARA_HEADER at `i`, subtree up to `end`): pushes its
    /// Paragraph block (when it has text) and its controls' blocks.
    fn paragraph(
        &mut self,
        i: usize,
        end: usize,
        pages: Option<&mut PageTracker>,
        out: &mut Vec<Block>,
    ) -> Result<()> {
        let level = self.recs[i].level;
        let mut h = Reader::new(self.data(i));
        let _nchars = h.u32() & 0x7FFF_FFFF;
        let _ctrl_mask = h.u32();
        let para_shape = h.u16();
        let style = h.u8();
        let break_type = h.u8();

        let mut text_rec = None;
        let mut shape_rec = None;
        let mut line_rec = None;
        let mut range_rec = None;
        let mut ctrls: Vec<usize> = Vec::new();
        let mut memo_lists: Vec<usize> = Vec::new();
        for j in i + 1..end {
            let r = self.recs[j];
            if r.level != level + 1 {
                continue;
            }
            match r.tag {
                tag::PARA_TEXT => text_rec = Some(j),
                tag::PARA_CHAR_SHAPE => shape_rec = Some(j),
                tag::PARA_LINE_SEG => line_rec = Some(j),
                tag::PARA_RANGE_TAG => range_rec = Some(j),
                tag::CTRL_HEADER => ctrls.push(j),
                tag::MEMO_LIST => memo_lists.push(j),
                _ => {}
            }
        }

        let carried = self
            .open_fields
            .iter()
            .rev()
            .take_while(|o| o.depth == self.depth)
            .count();
        let changes = range_rec.map_or_else(Vec::new, |j| change_ranges(self.data(j)));
        let mut decoded = self.decode_text(
            text_rec.map(|j| self.data(j)).unwrap_or(&[]),
            shape_rec,
            &ctrls,
            carried,
            &changes,
        );
        if carried > 0 {
            self.continue_fields(carried, &mut decoded, out);
        }

        // Pages from the line layout of section-level paragraphs.
        let mut line_pages: Vec<(u32, u32)> = Vec::new();
        let break_before = if break_type & (0x04 | 0x01) != 0 {
            Some("page".to_string())
        } else if break_type & 0x08 != 0 {
            Some("column".to_string())
        } else {
            None
        };
        if let Some(pages) = pages {
            let segs = line_rec.map(|j| self.data(j)).unwrap_or(&[]);
            let page_break = break_before.as_deref() == Some("page");
            line_pages = self.track_lines(pages, segs, &ctrls, &decoded.anchors, page_break);
            self.anchor.page = line_pages.first().map(|l| l.1).or_else(|| pages.current());
        } else if let Some(mut cell) = self.cell_page.filter(|c| c.depth == self.depth) {
            // A paragraph of a table cell laid out on a known page: a line falling back to the
            // same or an earlier column is the cell running on to the next page (CellLines), so
            // the paragraph is on the page its first line is on.
            let segs = line_rec.map(|j| self.data(j)).unwrap_or(&[]);
            let mut first = None;
            for seg in segs.chunks_exact(36) {
                let (vpos, hpos) = seg_position(seg);
                cell.lines.line(vpos, hpos);
                first.get_or_insert(cell.lines.extra);
            }
            let extra = first.unwrap_or(cell.lines.extra);
            self.anchor.page = Some(cell.page.saturating_add(extra));
            self.cell_page = Some(cell);
        }

        let para_format = self.info.para_format(para_shape);
        let heading_level = match para_format.head {
            HeadKind::Outline => Some((para_format.level + 1).min(6)),
            _ => None,
        };
        let list = self.list_marker(
            para_format.head,
            para_format.level,
            para_format.numbering_id,
        );

        let text_chars = decoded.text.chars().count() as u32;
        let mut paragraph = Paragraph {
            text: decoded.text,
            stored_text: None,
            runs: decoded.runs,
            style: self.info.style_name(style).map(str::to_string),
            heading_level,
            list,
            note_refs: Vec::new(),
            break_before,
            fields: Vec::new(),
            provenance: self.provenance(0, text_chars),
        };

        // Controls: each CTRL_HEADER pairs with the extended control character at the same rank.
        let mut control_blocks = Vec::new();
        let saved = self.anchor;
        for (k, &c) in ctrls.iter().enumerate() {
            let (offset, unit) = decoded
                .anchors
                .get(k)
                .copied()
                .unwrap_or((text_chars, u32::MAX));
            if !line_pages.is_empty() {
                // The line holding the control: the last one starting at or before it.
                let at = line_pages.partition_point(|l| l.0 <= unit);
                self.anchor.page = line_pages.get(at.saturating_sub(1)).map(|l| l.1);
            }
            let end = subtree_end(self.recs, c);
            if let Some(note) = self.control(c, end, offset, &mut control_blocks)? {
                paragraph.note_refs.push(note);
            }
            self.anchor = saved;
        }
        // Fields: listed in the paragraph where they start; memo fields become memo anchors.
        for tf in std::mem::take(&mut decoded.fields) {
            let memo = tf.memo.map(|index| {
                self.memos.anchors.push(MemoAnchor {
                    index,
                    text: tf.field.value.clone(),
                    provenance: self.provenance(tf.field.start, tf.field.end),
                });
                self.memos.anchors.len() - 1
            });
            let field = (!tf.memo_only).then(|| {
                paragraph.fields.push(tf.field);
                (out.len(), paragraph.fields.len() - 1)
            });
            if !tf.closed {
                self.open_fields.push(OpenField {
                    depth: self.depth,
                    field,
                    memo,
                });
            }
        }
        // Memo texts follow the paragraph, one level down (after the document's last paragraph).
        for &m in &memo_lists {
            let index = Reader::new(self.data(m)).u32();
            let list = m + 1;
            let blocks = match self.recs.get(list) {
                Some(r) if r.tag == tag::LIST_HEADER && r.level == self.recs[m].level => {
                    self.list(list)?
                }
                _ => Vec::new(),
            };
            self.memos.bodies.push(MemoBody {
                index,
                blocks,
                provenance: self.provenance(0, 0),
            });
        }
        // A paragraph whose text was all deleted (tracked) still shows its deleted runs.
        if !paragraph.text.is_empty()
            || !paragraph.fields.is_empty()
            || paragraph.runs.iter().any(|r| r.change.is_some())
        {
            out.push(Block::Paragraph(paragraph));
        }
        out.append(&mut control_blocks);
        Ok(())
    }

    /// Fields open since earlier paragraphs of this list go on in this paragraph, up to where
    /// each ends (the ones ending here are closed): each is listed here too, over the part this
    /// paragraph holds, marked `continued` (a memo's anchor takes the text after a line break).
    fn continue_fields(&mut self, carried: usize, decoded: &mut Decoded, out: &[Block]) {
        let n = self.open_fields.len();
        let mut pieces = Vec::new();
        for j in 0..carried {
            let end = decoded
                .carried_ends
                .get(j)
                .copied()
                .unwrap_or(decoded.text.len());
            let piece = &decoded.text[..end];
            let open = &self.open_fields[n - 1 - j];
            let opener = open.field.and_then(|(block, k)| match out.get(block) {
                Some(Block::Paragraph(p)) => p.fields.get(k),
                _ => None,
            });
            // (An empty piece is where the field ends, at this paragraph's start: nothing of it here.)
            if let (Some(opener), false) = (opener, piece.is_empty()) {
                pieces.push(TextField {
                    field: Field {
                        value: piece.to_string(),
                        start: 0,
                        end: piece.chars().count() as u32,
                        continued: true,
                        ..opener.clone()
                    },
                    start_byte: 0,
                    memo: None,
                    memo_only: false,
                    closed: true,
                });
            }
            if let Some(m) = open.memo {
                if let Some(a) = self.memos.anchors.get_mut(m) {
                    a.text.push('\n');
                    a.text.push_str(piece);
                }
            }
        }
        // Outermost first, before the fields that start in this paragraph (text order).
        pieces.reverse();
        pieces.append(&mut decoded.fields);
        decoded.fields = pieces;
        let closed = decoded.carried_ends.len().min(carried);
        self.open_fields.truncate(n - closed);
    }

    fn list_marker(&mut self, head: HeadKind, level: u8, id: u16) -> Option<ListMarker> {
        let level_index = (level as usize).min(6);
        let id = match head {
            HeadKind::Bullet => {
                let c = self
                    .info
                    .bullets
                    .get((id as usize).checked_sub(1)?)
                    .copied()
                    .unwrap_or('•');
                return Some(ListMarker {
                    kind: "bullet".into(),
                    level: level + 1,
                    marker: bullet_char(c).to_string(),
                });
            }
            HeadKind::Number => id,
            HeadKind::Outline => self.outline_numbering,
            HeadKind::None => return None,
        };
        let numbering = self.info.numberings.get((id as usize).checked_sub(1)?)?;
        if self.counters.len() < self.info.numberings.len() {
            self.counters
                .resize(self.info.numberings.len(), Counters::default());
        }
        let start = |l: usize| numbering.levels.get(l).map(|n| n.start).unwrap_or(1);
        let current = self
            .counters
            .get_mut(id as usize - 1)?
            .advance(level_index, start);
        let format = match numbering.levels.get(level_index) {
            Some(n) => n.format.as_str(),
            None if head == HeadKind::Number => "^1.",
            None => "",
        };
        let marker = expand_template(format, |l| {
            let shape = numbering.levels.get(l).map(|n| n.shape).unwrap_or(0);
            (
                current.get(l).copied().unwrap_or(1),
                NumberStyle::from_hwp5(shape),
            )
        });
        // An outline level without a number format shows none: the heading stands alone.
        if head == HeadKind::Outline && marker.trim().is_empty() {
            return None;
        }
        Some(ListMarker {
            kind: "number".into(),
            level: level + 1,
            marker,
        })
    }

    /// Decode PARA_TEXT: text, formatted runs and the positions of extended controls.
    fn decode_text(
        &self,
        raw: &[u8],
        shape_rec: Option<usize>,
        ctrls: &[usize],
        carried: usize,
        changes: &[ChangeRange],
    ) -> Decoded {
        let n_units = raw.len() / 2;
        let unit = |k: usize| u16::from_le_bytes([raw[2 * k], raw[2 * k + 1]]);
        // Exact UTF-8 size of the ordinary characters (controls only shrink it): one pass, no regrowth.
        let capacity: usize = (0..n_units)
            .map(|k| match unit(k) {
                0..=0x7F => 1,
                0x80..=0x7FF => 2,
                _ => 3,
            })
            .sum();
        let mut d = Decoded {
            text: String::with_capacity(capacity),
            runs: Vec::with_capacity(
                shape_rec.map_or(1, |j| (self.data(j).len() / 8).clamp(1, 64)),
            ),
            anchors: Vec::with_capacity(ctrls.len()),
            fields: Vec::new(),
            carried_ends: Vec::new(),
        };

        // Char-shape boundaries: (unit position, shape id) pairs.
        let shapes = shape_rec.map(|j| self.data(j)).unwrap_or(&[]);
        let mut boundaries = shapes.chunks_exact(8).map(|c| {
            (
                u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            )
        });
        let mut next_boundary = boundaries.next();
        // Stack of open fields, those carried from earlier paragraphs at the bottom.
        let mut fields: Vec<Open> = vec![Open::Carried; carried];
        // How many of them are fields (carried or listed), bounded by `MAX_OPEN_FIELDS`.
        let mut open_fields = carried;
        let mut chars = 0u32;
        let mut ext_rank = 0usize;
        // The tracked change in force (`change`), and the paragraph's character count where a
        // deletion began: deleted text goes into runs only, so each deleted stretch is cut
        // from the text again and offsets past it come back to where it began.
        let mut run = RunInProgress {
            start: 0,
            format: self.info.char_format(0),
            link: None,
            change: None,
            deleted_from: 0,
        };
        let mut change_at: Option<usize> = None;
        let mut next_change = usize::MAX;
        let segments = change_segments(changes);
        let mut segment = 0usize;

        let mut k = 0usize;
        while k < n_units {
            // Apply every char-shape boundary at or before this unit.
            while let Some((pos, id)) = next_boundary {
                if pos as usize > k {
                    break;
                }
                let f = self.info.char_format(id);
                if f != run.format {
                    run.end(&mut d, &mut chars);
                    run.format = f;
                }
                next_boundary = boundaries.next();
            }
            // Tracked changes: a new one (or none) from this unit on ends the current run.
            if !changes.is_empty() && (k >= next_change || k == 0) {
                while segments.get(segment).is_some_and(|&(p, _)| p <= k) {
                    segment += 1;
                }
                // The last segment starting at or before `k` is in force (none before the first).
                let at = segment.checked_sub(1).and_then(|s| segments[s].1);
                let id = at.map(|(id, deleted)| ((id as usize) << 1) | deleted as usize);
                if id != change_at {
                    run.end(&mut d, &mut chars);
                    change_at = id;
                    run.deleted_from = chars;
                    run.change = at.map(|(id, deleted)| {
                        let (time, author) = self.info.track_change(id);
                        TrackedChange {
                            kind: if deleted { "deleted" } else { "inserted" }.into(),
                            author,
                            time,
                        }
                    });
                }
                next_change = segments.get(segment).map_or(usize::MAX, |&(p, _)| p);
            }
            // Fast path: ordinary characters up to the next char-shape boundary.
            let limit = next_boundary
                .map_or(n_units, |(p, _)| (p as usize).clamp(k + 1, n_units))
                .min(next_change.max(k + 1));
            while k < limit {
                let u = unit(k);
                if u < 32 || (0xD800..0xE000).contains(&u) {
                    break;
                }
                // Not a surrogate, so a valid scalar value.
                d.text.push(char::from_u32(u as u32).unwrap_or('\u{FFFD}'));
                chars += 1;
                k += 1;
            }
            if k >= limit {
                continue;
            }
            let u = unit(k);
            if u >= 32 {
                // A surrogate: a pair makes one character, a lone one U+FFFD.
                if (0xD800..0xDC00).contains(&u) && k + 1 < n_units {
                    let lo = unit(k + 1);
                    if (0xDC00..0xE000).contains(&lo) {
                        let c = 0x10000 + (((u as u32) - 0xD800) << 10) + (lo as u32 - 0xDC00);
                        d.text.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                        chars += 1;
                        k += 2;
                        continue;
                    }
                }
                d.text.push('\u{FFFD}');
                chars += 1;
                k += 1;
                continue;
            }
            match ctrl_class(u) {
                CtrlClass::Char => {
                    let c = match u {
                        10 => Some('\n'),
                        24 => Some('-'),
                        30 => Some('\u{A0}'),
                        31 => Some(' '),
                        _ => None, // 13 paragraph end, 0 and reserved codes show nothing
                    };
                    if let Some(c) = c {
                        d.text.push(c);
                        chars += 1;
                    }
                    k += 1;
                }
                CtrlClass::Inline => {
                    match u {
                        9 => {
                            d.text.push('\t');
                            chars += 1;
                        }
                        // Field end: closes the innermost open field (ending its link if any).
                        4 => match fields.pop() {
                            Some(Open::Link) => {
                                run.end(&mut d, &mut chars);
                                run.link = None;
                            }
                            Some(Open::Field(i)) => {
                                let f = &mut d.fields[i];
                                f.field.end = chars;
                                f.field.value = d.text[f.start_byte..].to_string();
                                f.closed = true;
                                open_fields -= 1;
                            }
                            Some(Open::Carried) => {
                                d.carried_ends.push(d.text.len());
                                open_fields -= 1;
                            }
                            _ => {}
                        },
                        _ => {}
                    }
                    k += 8;
                }
                CtrlClass::Extended => {
                    d.anchors.push((chars, k as u32));
                    if u == 3 {
                        let c = ctrls.get(ext_rank).copied();
                        let target = c.and_then(|c| self.field_link(c));
                        if target.is_some() {
                            run.end(&mut d, &mut chars);
                            run.link = target;
                            fields.push(Open::Link);
                        } else if let Some(tf) = c
                            .filter(|_| open_fields < MAX_OPEN_FIELDS)
                            .and_then(|c| self.text_field(c, chars, d.text.len()))
                        {
                            d.fields.push(tf);
                            fields.push(Open::Field(d.fields.len() - 1));
                            open_fields += 1;
                        } else {
                            fields.push(Open::Other);
                        }
                    } else if u == 23 {
                        // 덧말 (`tdut`) and 글자 겹침 (`tcps`) keep the characters they show in
                        // the control, not in PARA_TEXT.
                        let shown = ctrls
                            .get(ext_rank)
                            .and_then(|&c| self.ruby(c).or_else(|| self.overlap(c)));
                        if let Some(shown) = shown {
                            d.text.push_str(&shown);
                            chars += shown.chars().count() as u32;
                        }
                    }
                    ext_rank += 1;
                    k += 8;
                }
            }
        }
        run.end(&mut d, &mut chars);
        // Fields still open run to the end of the paragraph (and on into the next ones).
        for f in d.fields.iter_mut().filter(|f| !f.closed) {
            f.field.end = chars;
            f.field.value = d.text[f.start_byte..].to_string();
        }
        d
    }

    /// The field whose CTRL_HEADER is record `c`, starting at `chars` (byte `byte`) of the text:
    /// kind, name (its CTRL_DATA parameter set), guide (a click-here command's `Direction`),
    /// editable (property bit 0). `None` for hyperlinks and controls that are not fields.
    fn text_field(&self, c: usize, chars: u32, byte: usize) -> Option<TextField> {
        let data = self.data(c);
        let id = ctrl_id(data);
        let memo_only = &id == b"%%me";
        let kind = fields::field_kind(&id);
        if kind.is_none() && !memo_only {
            return None;
        }
        let mut r = Reader::at(data, 4);
        let property = r.u32();
        r.skip(1);
        let command = r.string();
        let _instance_id = r.u32();
        let memo_index = (r.remaining() >= 4).then(|| r.i32());
        let memo = if memo_only {
            Some(memo_index.unwrap_or(0))
        } else if &id == b"%unk" {
            memo_index.filter(|&m| m > 0)
        } else {
            None
        };
        let level = self.recs.get(c).map(|r| r.level)?;
        let name = self
            .recs
            .get(c + 1)
            .filter(|r| r.tag == tag::CTRL_DATA && r.level == level + 1)
            .and_then(|r| fields::parameter_name(r.data(self.stream)));
        let guide = if kind == Some("click_here") {
            fields::click_here_guide(&command)
        } else {
            None
        };
        Some(TextField {
            field: Field {
                kind: kind.unwrap_or("other").into(),
                name,
                guide,
                editable: property & 1 != 0,
                value: String::new(),
                start: chars,
                end: chars,
                continued: false,
            },
            start_byte: byte,
            memo,
            memo_only,
            closed: false,
        })
    }

    /// A ruby control (덧말, `tdut`: control id, then the base text and the ruby text as
    /// length-prefixed UTF-16 strings, then position, size ratio, option, style and alignment):
    /// the text it shows, `base(ruby)` (`crate::text::push_ruby`).
    fn ruby(&self, c: usize) -> Option<String> {
        let data = self.data(c);
        if &super::record::ctrl_id(data) != b"tdut" {
            return None;
        }
        let mut r = Reader::at(data, 4);
        let mut shown = r.string();
        let ruby = r.string();
        crate::text::push_ruby(&ruby, &mut shown);
        (!shown.is_empty()).then_some(shown)
    }

    /// Overlapped characters (글자 겹침, `tcps`: control id, then the characters drawn over each
    /// other as a length-prefixed UTF-16 string, then border type, inner size, spread and the
    /// characters' shapes): the characters themselves, in order (a circled `12` reads `12`).
    fn overlap(&self, c: usize) -> Option<String> {
        let data = self.data(c);
        if &super::record::ctrl_id(data) != b"tcps" {
            return None;
        }
        let shown = Reader::at(data, 4).string();
        (!shown.is_empty()).then_some(shown)
    }

    /// The target of a hyperlink field (`%hlk`): command string after property (u32) and extra property (u8).
    fn field_link(&self, c: usize) -> Option<String> {
        let data = self.data(c);
        if &super::record::ctrl_id(data) != b"%hlk" {
            return None;
        }
        let mut r = Reader::at(data, 4 + 4 + 1);
        hyperlink_target(&r.string())
    }
}

/// A line segment's vertical position and its start within the column (x): the second and
/// seventh of its nine 32-bit fields.
fn seg_position(seg: &[u8]) -> (i32, i32) {
    let mut r = Reader::new(seg);
    r.skip(4);
    let vpos = r.i32();
    r.skip(16);
    (vpos, r.i32())
}

/// The body area's top and height from a PAGE_DEF record: width, height, left, right, top,
/// bottom, header, footer, gutter (HWPUNIT, u32 each), then the property (bit 0: landscape,
/// the paper turned so width and height swap places).
fn body_area(page_def: &[u8]) -> (i64, i64) {
    let mut r = Reader::new(page_def);
    let width = i64::from(r.u32());
    let height = i64::from(r.u32());
    r.skip(8);
    let [top, bottom, header, footer] = [r.u32(), r.u32(), r.u32(), r.u32()].map(i64::from);
    r.skip(4);
    let landscape = r.u32() & 1 != 0;
    let tall = if landscape { width } else { height };
    (top + header, (tall - top - bottom - header - footer).max(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_widths() {
        for u in [0u16, 10, 13, 24, 25, 30, 31] {
            assert_eq!(ctrl_class(u), CtrlClass::Char, "{u}");
        }
        for u in [4u16, 5, 6, 7, 8, 9, 19, 20] {
            assert_eq!(ctrl_class(u), CtrlClass::Inline, "{u}");
        }
        for u in [1u16, 2, 3, 11, 12, 14, 15, 16, 17, 18, 21, 22, 23] {
            assert_eq!(ctrl_class(u), CtrlClass::Extended, "{u}");
        }
    }

    fn units(us: &[u16]) -> Vec<u8> {
        us.iter().flat_map(|u| u.to_le_bytes()).collect()
    }

    #[test]
    fn decodes_every_control_class() {
        let info = DocInfo::default();
        let limits = Limits::default();
        let ctx = Ctx::new(&[], &[], &info, &limits, 0);
        let mut t: Vec<u16> = vec!['가' as u16];
        t.extend([9, 0, 0, 0, 0, 0, 0, 9]); // tab, inline (8 units)
        t.push('나' as u16);
        t.extend([11, 0x6c20, 0x7462, 0, 0, 0, 0, 11]); // table, extended (8 units)
        t.extend([10, 24, 30, 31]); // line break, hyphen, nbsp, fixed space (1 unit each)
        t.extend([0xD83D, 0xDE00]); // surrogate pair
        t.extend([13]);
        let d = ctx.decode_text(&units(&t), None, &[], 0, &[]);
        assert_eq!(d.text, "가\t나\n-\u{A0} 😀");
        assert_eq!(d.anchors, vec![(3, 10)]);
        assert_eq!(d.runs.len(), 1);
        // A cut-off inline control at the end does not panic.
        let d = ctx.decode_text(&units(&[65, 9, 0]), None, &[], 0, &[]);
        assert_eq!(d.text, "A\t");
        // An odd byte count is ignored.
        assert_eq!(ctx.decode_text(&[65, 0, 66], None, &[], 0, &[]).text, "A");
    }

    #[test]
    fn hyperlink_command() {
        assert_eq!(
            hyperlink_target("http\\://example.com/a;1;0;0;").as_deref(),
            Some("http://example.com/a")
        );
        assert_eq!(hyperlink_target(";"), None);
    }

    /// Each anchor takes the first memo text with its index not yet taken; texts left over
    /// follow, unanchored, in their order.
    #[test]
    fn memos_matched_by_index_in_order() {
        use crate::model::FormControl;
        let at = |paragraph: u32| Provenance {
            paragraph,
            ..Provenance::default()
        };
        let memos = Memos {
            anchors: [2, 1, 2, 7]
                .iter()
                .enumerate()
                .map(|(i, &index)| MemoAnchor {
                    index,
                    text: format!("a{i}"),
                    provenance: at(100 + i as u32),
                })
                .collect(),
            bodies: [1u32, 2, 2, 3]
                .iter()
                .enumerate()
                .map(|(i, &index)| MemoBody {
                    index,
                    blocks: vec![Block::FormControl(FormControl {
                        name: Some(format!("b{i}")),
                        ..FormControl::default()
                    })],
                    provenance: at(i as u32),
                })
                .collect(),
        };
        let got: Vec<(Option<String>, String)> = memos
            .into_furniture()
            .into_iter()
            .map(|f| {
                let Some(Block::FormControl(c)) = f.blocks.first() else {
                    panic!("{f:?}")
                };
                (f.anchor_text, c.name.clone().unwrap_or_default())
            })
            .collect();
        let want = [
            (Some("a0"), "b1"),
            (Some("a1"), "b0"),
            (Some("a2"), "b2"),
            (None, "b3"),
        ];
        assert_eq!(
            got,
            want.map(|(a, b)| (a.map(str::to_string), b.to_string()))
        );
    }

    /// The segments give at every unit what looking through every range there gives: a
    /// covering deleted range first, else the first covering one listed, else none.
    #[test]
    fn change_segments_agree_with_every_range_looked_at() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % u64::from(n)) as u32
        };
        for _ in 0..200 {
            let changes: Vec<ChangeRange> = (0..next(8))
                .filter_map(|i| {
                    let start = next(30);
                    let end = start + next(12);
                    (start < end).then_some(ChangeRange {
                        start,
                        end,
                        deleted: next(2) == 1,
                        id: i + 1,
                    })
                })
                .collect();
            let segments = change_segments(&changes);
            for k in 0..48usize {
                let covers = |r: &&ChangeRange| r.start as usize <= k && k < r.end as usize;
                let want = changes
                    .iter()
                    .filter(covers)
                    .find(|r| r.deleted)
                    .or_else(|| changes.iter().find(covers))
                    .map(|r| (r.id, r.deleted));
                let got = segments
                    .iter()
                    .take_while(|&&(p, _)| p <= k)
                    .last()
                    .and_then(|&(_, now)| now);
                assert_eq!(got, want, "{changes:?} at {k}");
            }
        }
    }
}
