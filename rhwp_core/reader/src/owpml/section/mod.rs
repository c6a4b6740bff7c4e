//! One body section (`Contents/sectionN.xml`) into blocks, in one streaming
//! pass and without a DOM.
//!
//! The walk keeps an explicit stack of the containers that are open
//! (paragraphs, tables, cells, drawing objects, captions, headers/footers,
//! notes, text captures); an element's end pops what its start pushed. No
//! recursion follows the XML depth, so hostile nesting costs a bounded stack.
//!
//! Block order (the same as the HWP 5.0 reader's): for each paragraph, a
//! Paragraph block when its text is non-empty, then the blocks of the objects
//! anchored in it (tables, pictures, equations, shapes...) in document order.
//! Page headers/footers and foot/endnotes go to the document's furniture.
//!
//! This file holds the parser's state (the stack of `Frame`s, the state that
//! runs across sections) and the two dispatchers, `open` and `close`, which
//! send each element to its family:
//! - `paragraph`: paragraphs, runs, their text and list markers;
//! - `table`: tables, rows and cells;
//! - `objects`: drawing objects, pictures, equations, shapes, form controls
//!   and captions;
//! - `notes`: page headers/footers and foot/endnotes (the furniture);
//! - `fields`: fields (hyperlinks, click-here fields and the others, memos, bookmarks)
//!   and tracked changes;
//! - `pages`: page definition, columns and the line segments that say where
//!   pages start.

mod fields;
mod notes;
mod objects;
mod pages;
pub use pages::clamp_pages;
mod paragraph;
mod table;
#[cfg(test)]
mod tests;

use super::header::Header;
use super::xml::{attr, walk, Flow, Step, Tag};
use crate::limits::Limits;
use crate::model::CharFormat;
use crate::model::{
    Block, Field, Furniture, ListMarker, NoteRef, Provenance, Run, Section, TableCell,
    TrackedChange,
};
use crate::numbering::Counters;
use crate::{Error, Result};
use fields::{FieldBuilder, OpenField, Param};
use notes::FurnitureBuilder;
use objects::{ObjectBuilder, ObjectKind};
use std::collections::HashMap;
use table::TableBuilder;

/// A bin-data item as pictures refer to it (`binaryItemIDRef` = manifest id).
#[derive(Debug, Clone)]
pub struct BinRef {
    pub id: u32,
    pub name: String,
}

/// State that runs across sections: page counting and list numbering.
#[derive(Debug, Default, Clone)]
pub struct DocState {
    /// Pages seen so far (the current page's 1-based number).
    pub page: u32,
    /// Whether any section-level paragraph carried line segments.
    pub has_layout: bool,
    /// Column the layout is in on the current page (0-based).
    column: u32,
    /// Vertical position of the previous section-level line segment.
    prev_vertpos: Option<i64>,
    /// Where the previous line ends (its position, height and spacing), and the room between
    /// the line before it and it.
    prev_bottom: Option<i64>,
    room_above: Option<i64>,
    /// The furthest page a table's rows were laid out on (`pages::clamp_pages`).
    pub furthest_row_page: u32,
    /// Per numbering id, the current number at each level (`numbering::Counters`).
    list_counters: HashMap<u32, Counters>,
    footnotes: u32,
    endnotes: u32,
}

pub struct SectionInput<'a> {
    pub index: u32,
    pub part: &'a str,
    pub header: &'a Header,
    pub bins: &'a HashMap<String, BinRef>,
    /// The text of each chart part of the package (`Chart/chart1.xml` → `crate::chart::chart_text`).
    pub charts: &'a HashMap<String, String>,
    pub limits: &'a Limits,
}

pub struct SectionOutput {
    pub section: Section,
    pub furniture: Vec<Furniture>,
    /// Memos (kind `memo`), in the order their anchors end: they go after all other furniture.
    pub memos: Vec<Furniture>,
}

struct ParaBuilder {
    text: String,
    chars: u32,
    /// Where each run starts in `text` (bytes) and its formatting, its own text left
    /// empty: most paragraphs are plain, and their runs are dropped from the model
    /// (`Run::is_plain`), so run texts are cut from `text` only for the others.
    runs: Vec<(usize, Run)>,
    /// `styleIDRef`; the name is looked up only for paragraphs that become blocks.
    style_id: Option<u32>,
    heading_level: Option<u8>,
    list: Option<ListMarker>,
    note_refs: Vec<NoteRef>,
    break_before: Option<String>,
    /// Blocks of the objects anchored in this paragraph, in order.
    objects: Vec<Block>,
    char_style: CharFormat,
    section_level: bool,
    /// Directly in a table cell: its lines say where the cell runs on to another page.
    in_cell: bool,
    /// Tables anchored here whose pages are counted after the line holding them.
    pending_tables: Vec<pages::PendingTable>,
    /// Tables of this paragraph laid out over several pages: (index among `objects`, the page
    /// from the table's first each row starts on); their cells' blocks get their row's page.
    row_pages: Vec<(usize, Vec<u32>)>,
    /// Where this paragraph's first line starts (section-level paragraphs).
    start_page: Option<u32>,
    saw_lineseg: bool,
    /// Fields (and memos) whose end has not come yet, and the finished fields.
    open_fields: Vec<OpenField>,
    fields: Vec<Field>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Capture {
    /// A string parameter of a field (`Command`, `Direction`, `Author`...).
    Param(Param),
    /// An equation's script.
    Script,
    /// A drawing object's description (`shapeComment`).
    Comment,
    /// The text a form control shows (an edit box's `text`).
    FormText,
}

enum Frame {
    Para(Box<ParaBuilder>),
    /// Inside `t` (or a dutmal's main text): character data is paragraph text.
    Text,
    /// Inside a dutmal's `subText` (ruby, 덧말): gathered, then added to the paragraph text in
    /// parentheses after its base (`crate::text::push_ruby`).
    RubyText(String),
    Capture(Capture, String),
    Table(Box<TableBuilder>),
    Cell(Box<TableCell>),
    Object(Box<ObjectBuilder>),
    Caption(Vec<Block>),
    Furniture(Box<FurnitureBuilder>),
    /// A `fieldBegin`: its parameters, and a memo's paragraphs.
    Field(Box<FieldBuilder>),
    PagePr,
    /// `switch`: the first alternative (`case`) is read, the others skipped.
    Switch {
        taken: bool,
    },
    /// The alternative of a `switch` being read.
    Alternative,
}

struct Parser<'a> {
    input: &'a SectionInput<'a>,
    /// The section's outline numbering (`secPr outlineShapeIDRef`), when known.
    outline_numbering: Option<u32>,
    state: &'a mut DocState,
    stack: Vec<(u32, Frame)>,
    section: Section,
    furniture: Vec<Furniture>,
    /// Index of the current section-level paragraph.
    section_para: u32,
    /// Blocks and furniture count when the current section-level paragraph opened.
    blocks_mark: usize,
    furniture_mark: usize,
    /// Open tables, objects and notes: nesting of lists inside controls.
    object_depth: u32,
    /// Hyperlink in force: (field id, target).
    link: Option<(Option<String>, String)>,
    /// Tracked change in force (between `insertBegin`/`deleteBegin` and their end).
    change: Option<TrackedChange>,
    /// Fields still open when their paragraph closed, for the next paragraph at that depth.
    carried: Vec<(u32, OpenField)>,
    memos: Vec<Furniture>,
    memos_mark: usize,
    columns: u32,
    first_para_in_section: bool,
    /// The lines of each open table cell, innermost last.
    cell_lines: Vec<crate::common::lines::CellLines>,
    /// The height of the section's body area (paper less margins, header and footer), 0 unknown.
    body_height: i64,
}

pub fn parse(text: &[u8], input: &SectionInput<'_>, state: &mut DocState) -> Result<SectionOutput> {
    let mut p = Parser::new(input, state);
    p.outline_numbering = outline_numbering(text);
    let limits = input.limits;
    walk(
        text,
        input.part,
        limits.max_xml_depth,
        limits.max_records,
        |step, depth| match step {
            Step::Open { name, owpml, start } => p.open(name, owpml, start, depth),
            Step::Close => {
                p.close(depth);
                Ok(Flow::Continue)
            }
            Step::Text(t) => {
                p.text(t);
                Ok(Flow::Continue)
            }
            Step::Children(_) => Ok(Flow::Continue),
        },
    )?;
    Ok(p.finish())
}

/// `outlineShapeIDRef` of the section's `secPr`: found before the walk, since the first
/// paragraph (the one holding `secPr`) may itself be an outline heading.
fn outline_numbering(text: &[u8]) -> Option<u32> {
    const NAME: &[u8] = b"outlineShapeIDRef=\"";
    let at = text.windows(NAME.len()).position(|w| w == NAME)? + NAME.len();
    let digits = text[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&text[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

/// A section built from elements another walk hands over one by one, in OWPML's vocabulary:
/// HWPML's body is OWPML's ancestor, element for element (`P`/`p`, `TEXT`/`run`, `CHAR`/`t`,
/// `TABLE`/`tbl`...), so its reader renames what it reads and lets this parser build the model
/// (HWPML's body reader) rather than keeping a second copy of every mapping.
pub struct SectionBuilder<'a> {
    parser: Parser<'a>,
}

impl<'a> SectionBuilder<'a> {
    pub fn new(input: &'a SectionInput<'a>, state: &'a mut DocState) -> Self {
        SectionBuilder {
            parser: Parser::new(input, state),
        }
    }

    /// An OWPML element opens at element depth `depth` (its `Close` must come at the same depth).
    pub fn open(&mut self, name: &str, start: &Tag<'_, '_>, depth: u32) -> Result<Flow> {
        self.parser.open(name, true, start, depth)
    }

    pub fn close(&mut self, depth: u32) {
        self.parser.close(depth);
    }

    pub fn text(&mut self, t: &str) {
        self.parser.text(t);
    }

    /// More of the form control being read, spelled as OWPML spells it on the control's own
    /// element (`name`, `caption`, `value`, `radioGroupName`, `selectedValue`): HWPML gives them
    /// on the control's `FORMOBJECT` and `BUTTONSET` children instead. What is already known stays.
    pub fn form_details(&mut self, details: &Tag<'_, '_>) {
        self.parser.form_details(details);
    }

    pub fn finish(self) -> SectionOutput {
        self.parser.finish()
    }
}

impl<'a> Parser<'a> {
    fn new(input: &'a SectionInput<'a>, state: &'a mut DocState) -> Self {
        Parser {
            input,
            outline_numbering: None,
            state,
            stack: Vec::with_capacity(64),
            section: Section {
                index: input.index,
                columns: 1,
                ..Section::default()
            },
            furniture: Vec::new(),
            section_para: 0,
            blocks_mark: 0,
            furniture_mark: 0,
            object_depth: 0,
            link: None,
            change: None,
            carried: Vec::new(),
            memos: Vec::new(),
            memos_mark: 0,
            columns: 1,
            first_para_in_section: true,
            cell_lines: Vec::new(),
            body_height: 0,
        }
    }

    fn finish(mut self) -> SectionOutput {
        // A well-formed part has closed everything; be safe anyway.
        while let Some((d, _)) = self.stack.last() {
            let d = *d;
            self.close(d);
        }
        self.flush_carried();
        SectionOutput {
            section: self.section,
            furniture: self.furniture,
            memos: self.memos,
        }
    }

    fn top(&mut self) -> Option<&mut Frame> {
        self.stack.last_mut().map(|(_, f)| f)
    }

    fn push(&mut self, depth: u32, frame: Frame) {
        self.stack.push((depth, frame));
    }

    fn para_mut(&mut self) -> Option<&mut ParaBuilder> {
        self.stack.iter_mut().rev().find_map(|(_, f)| match f {
            Frame::Para(p) => Some(p.as_mut()),
            _ => None,
        })
    }

    fn in_para(&self) -> bool {
        self.stack.iter().any(|(_, f)| matches!(f, Frame::Para(_)))
    }

    /// Where an object opening now is anchored.
    fn provenance_here(&self) -> Provenance {
        let offset = self
            .stack
            .iter()
            .rev()
            .find_map(|(_, f)| match f {
                Frame::Para(p) => Some(p.chars),
                _ => None,
            })
            .unwrap_or(0);
        Provenance {
            section: self.input.index,
            paragraph: self.section_para,
            char_start: offset,
            char_end: offset,
            page: None,
        }
    }

    fn enter_object(&mut self) -> Result<()> {
        self.object_depth += 1;
        if self.object_depth > self.input.limits.max_depth {
            return Err(Error::too_large(format!(
                "{}: objects nested more than {} deep (tables in cells in boxes...)",
                self.input.part, self.input.limits.max_depth
            )));
        }
        Ok(())
    }

    /// Hand a finished block to the innermost container that holds blocks.
    fn emit(&mut self, block: Block) {
        for (_, f) in self.stack.iter_mut().rev() {
            match f {
                Frame::Para(p) => return p.objects.push(block),
                Frame::Cell(c) => return c.blocks.push(block),
                Frame::Caption(v) => return v.push(block),
                Frame::Furniture(n) => return n.blocks.push(block),
                Frame::Field(f) if f.is_memo() => return f.blocks.push(block),
                Frame::Object(o) if matches!(o.kind, ObjectKind::Shape { .. }) => {
                    return o.blocks.push(block)
                }
                _ => {}
            }
        }
        self.section.blocks.push(block);
    }

    /// An element opens: to its family's reader, by local name (OWPML elements only;
    /// within a `switch`, the first alternative only).
    fn open(&mut self, name: &str, owpml: bool, e: &Tag<'_, '_>, depth: u32) -> Result<Flow> {
        if let Some(Frame::Switch { taken }) = self.top() {
            // Read the first alternative only: the others repeat it for older readers.
            if *taken {
                return Ok(Flow::Skip);
            }
            *taken = true;
            self.push(depth, Frame::Alternative);
            return Ok(Flow::Continue);
        }
        if !owpml {
            return Ok(Flow::Continue);
        }
        match name {
            "p" => self.open_para(e, depth),
            "run" => self.open_run(e),
            "t" | "mainText" => {
                if self.in_para() {
                    self.push(depth, Frame::Text);
                }
            }
            "subText" => {
                if self.in_para() {
                    self.push(depth, Frame::RubyText(String::new()));
                }
            }
            // 글자 겹침: the characters drawn over each other are an attribute, not `t` text.
            "compose" => {
                if self.in_para() {
                    if let Some(shown) = attr(e, "composeText").filter(|t| !t.is_empty()) {
                        self.para_text(&shown);
                    }
                }
            }
            "tab" => self.inline_char('\t'),
            "lineBreak" => self.inline_char('\n'),
            "hyphen" => self.inline_char('-'),
            "nbSpace" => self.inline_char('\u{a0}'),
            "fwSpace" => self.inline_char(' '),
            "switch" => self.push(depth, Frame::Switch { taken: false }),
            // Hidden comments are not shown text; the others are layout and
            // rendering details with nothing the model keeps.
            "hiddenComment" | "footNotePr" | "endNotePr" | "pageBorderFill" | "renderingInfo"
            | "imgRect" | "effects" | "fillBrush" | "controlPoints" | "cellzoneList"
            | "lineShape" | "shadow" => return Ok(Flow::Skip),
            "parameters" if !matches!(self.top(), Some(Frame::Field(_))) => return Ok(Flow::Skip),
            "secPr" => {}
            "pagePr" => self.open_page_pr(e, depth),
            "margin" => self.margin(e),
            "colPr" => self.col_pr(e),
            "fieldBegin" => self.field_begin(e, depth),
            "stringParam" => self.string_param(e, depth),
            "fieldEnd" => self.field_end(e),
            "bookmark" => self.bookmark(e),
            "insertBegin" | "deleteBegin" => self.change_begin(name, e),
            "insertEnd" | "deleteEnd" => self.change = None,
            "listItem" => self.list_item(e),
            "header" | "footer" => self.open_header_footer(name, e, depth)?,
            "footNote" | "endNote" => self.open_note(name, e, depth)?,
            "autoNum" => self.auto_num(e),
            "tbl" => self.open_table(e, depth)?,
            "tr" => self.open_row(),
            "tc" => self.open_cell(e, depth),
            "cellAddr" => self.cell_addr(e),
            "cellSpan" => self.cell_span(e),
            "cellSz" => self.cell_size(e),
            "pos" if matches!(self.top(), Some(Frame::Table(_))) => self.table_position(e),
            "caption" => self.open_caption(depth),
            "pic" => self.open_object(
                depth,
                ObjectKind::Picture {
                    bin: None,
                    description: None,
                },
            )?,
            "equation" => self.open_object(
                depth,
                ObjectKind::Equation {
                    script: String::new(),
                },
            )?,
            "script" => self.open_script(depth),
            "text" => self.open_form_text(depth),
            "shapeComment" => self.open_shape_comment(depth),
            "img" => self.img(e),
            "sz" | "curSz" => self.size(name, e),
            "linesegarray" => {
                // Section-level paragraphs' line segments say where pages start, table cells'
                // where a table runs on to another page.
                if !matches!(self.top(), Some(Frame::Para(p)) if p.section_level || p.in_cell) {
                    return Ok(Flow::Skip);
                }
            }
            "lineseg" => self.lineseg(e),
            _ => self.open_other(name, e, depth)?,
        }
        Ok(Flow::Continue)
    }

    fn text(&mut self, t: &str) {
        match self.top() {
            Some(Frame::Text) => self.para_text(t),
            Some(Frame::RubyText(buf)) => buf.push_str(t),
            Some(Frame::Capture(_, buf)) => buf.push_str(t),
            _ => {}
        }
    }

    /// An element closes: the frame its start pushed (if any) is finished by its family.
    fn close(&mut self, depth: u32) {
        match self.stack.last() {
            Some((d, _)) if *d == depth => {}
            _ => return,
        }
        let Some((_, frame)) = self.stack.pop() else {
            return;
        };
        match frame {
            Frame::Para(p) => self.close_para(*p, depth),
            Frame::Capture(kind, buf) => self.close_capture(kind, buf),
            Frame::Field(f) => self.close_field(*f),
            Frame::Table(t) => self.close_table(*t),
            Frame::Cell(c) => self.close_cell(*c),
            Frame::Caption(blocks) => self.close_caption(blocks),
            Frame::Object(o) => self.close_object(*o),
            Frame::Furniture(f) => self.close_furniture(*f),
            Frame::RubyText(ruby) => {
                let mut shown = String::new();
                crate::text::push_ruby(&ruby, &mut shown);
                self.para_text(&shown);
            }
            Frame::Text | Frame::PagePr | Frame::Switch { .. } | Frame::Alternative => {}
        }
    }

    /// Text captured for a field or an object, handed to it.
    #[inline]
    fn close_capture(&mut self, kind: Capture, buf: String) {
        match kind {
            Capture::Param(param) => {
                if let Some(Frame::Field(f)) = self.top() {
                    f.param(param, buf);
                }
            }
            Capture::Script => {
                if let Some(Frame::Object(o)) = self.top() {
                    if let ObjectKind::Equation { script } = &mut o.kind {
                        script.push_str(&buf);
                    }
                }
            }
            Capture::FormText => {
                if let Some(Frame::Object(o)) = self.top() {
                    if let ObjectKind::Form(form) = &mut o.kind {
                        if !buf.is_empty() {
                            form.value = Some(buf);
                        }
                    }
                }
            }
            Capture::Comment => {
                if let Some(Frame::Object(o)) = self.top() {
                    if let ObjectKind::Picture { description, .. } = &mut o.kind {
                        let d = buf.trim();
                        if !d.is_empty() {
                            *description = Some(d.to_string());
                        }
                    }
                }
            }
        }
    }
}
