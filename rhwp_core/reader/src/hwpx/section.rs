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

use super::header::{CharStyle, Header, HeadingKind};
use super::xml::{
    attr, attr_flag, attr_i64, attr_u32, attrs, attrs_u32, parse_u32, walk, Flow, Step, Tag,
};
use crate::limits::Limits;
use crate::model::{
    Block, Equation, Furniture, ListMarker, NoteRef, PageDefinition, Paragraph, Picture,
    Provenance, Run, Section, Shape, Table, TableCell, Unknown,
};
use crate::numbering::{expand_template, write_number, NumberStyle};
use crate::{Error, Result};
use std::collections::HashMap;

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
    /// Per numbering id, the current number at each level.
    list_counters: HashMap<u32, [u32; 10]>,
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
    char_style: CharStyle,
    section_level: bool,
    /// Where this paragraph's first line starts (section-level paragraphs).
    start_page: Option<u32>,
    saw_lineseg: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Capture {
    /// The `Command` parameter of a hyperlink field.
    LinkCommand,
    /// An equation's script.
    Script,
    /// A drawing object's description (`shapeComment`).
    Comment,
    /// The text a form control shows (an edit box's `text`).
    FormText,
}

enum ObjectKind {
    Picture {
        bin: Option<BinRef>,
        description: Option<String>,
    },
    Equation {
        script: String,
    },
    Shape {
        kind: &'static str,
    },
    Unknown {
        object: String,
        bin: Option<u32>,
        text: Option<String>,
    },
}

struct ObjectBuilder {
    kind: ObjectKind,
    width: u32,
    height: u32,
    blocks: Vec<Block>,
    caption: Vec<Block>,
    provenance: Provenance,
    /// Whether `sz` has set the size (it wins over `curSz`).
    sized: bool,
}

struct TableBuilder {
    rows: u32,
    cols: u32,
    /// `tr` elements seen and the next free column in the current one: the address of a cell
    /// written without `cellAddr` (minimal HWPX from other tools), until a `cellAddr` says otherwise.
    rows_seen: u32,
    next_col: u32,
    cells: Vec<TableCell>,
    caption: Vec<Block>,
    provenance: Provenance,
}

struct FurnitureBuilder {
    kind: &'static str,
    applies_to: Option<String>,
    number: Option<u32>,
    blocks: Vec<Block>,
    provenance: Provenance,
    /// Offset of the note's reference mark in the anchoring paragraph.
    anchor_offset: u32,
}

enum Frame {
    Para(Box<ParaBuilder>),
    /// Inside `t` (or a dutmal's main text): character data is paragraph text.
    Text,
    Capture(Capture, String),
    Table(Box<TableBuilder>),
    Cell(Box<TableCell>),
    Object(Box<ObjectBuilder>),
    Caption(Vec<Block>),
    Furniture(Box<FurnitureBuilder>),
    /// A hyperlink field's `fieldBegin`; its Command parameter names the target.
    Field {
        id: Option<String>,
        command: Option<String>,
    },
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
    columns: u32,
    first_para_in_section: bool,
}

pub fn parse(text: &[u8], input: &SectionInput<'_>, state: &mut DocState) -> Result<SectionOutput> {
    let mut p = Parser {
        input,
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
        columns: 1,
        first_para_in_section: true,
    };
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
    // A well-formed part has closed everything; be safe anyway.
    while let Some((d, _)) = p.stack.last() {
        let d = *d;
        p.close(d);
    }
    Ok(SectionOutput {
        section: p.section,
        furniture: p.furniture,
    })
}

fn shape_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "rect" => "rectangle",
        "ellipse" => "ellipse",
        "polygon" => "polygon",
        "line" => "line",
        "arc" => "arc",
        "curve" => "curve",
        "connectLine" => "connect_line",
        "container" => "container",
        "textart" => "textart",
        _ => return None,
    })
}

/// Objects the model does not describe further (kept as Unknown blocks).
fn is_unknown_object(name: &str) -> bool {
    matches!(
        name,
        "ole"
            | "chart"
            | "video"
            | "btn"
            | "radioBtn"
            | "checkBtn"
            | "comboBox"
            | "listBox"
            | "edit"
            | "scrollBar"
    )
}

/// The target of a hyperlink field from its `Command` parameter, which
/// reads `target;flags...` with `\` escaping `:` and `;` inside the target.
fn link_target(command: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            ';' => break,
            _ => out.push(c),
        }
    }
    // Hancom appends `|-` style suffixes to some targets.
    if let Some(i) = out.find('|') {
        out.truncate(i);
    }
    let out = out.trim().to_string();
    (!out.is_empty()).then_some(out)
}

/// Bullets often use private-use code points of symbol fonts; show those as a plain bullet.
fn bullet_marker(ch: &str) -> String {
    match ch.chars().next() {
        None => "•".into(),
        Some(c) if ('\u{E000}'..='\u{F8FF}').contains(&c) => "•".into(),
        Some(_) => ch.to_string(),
    }
}

fn set_page(blocks: &mut [Block], page: Option<u32>) {
    for b in blocks {
        set_block_page(b, page);
    }
}

/// Nested blocks are bounded by `limits.max_depth` (checked when objects open).
fn set_block_page(block: &mut Block, page: Option<u32>) {
    match block {
        Block::Paragraph(x) => x.provenance.page = page,
        Block::Table(x) => {
            x.provenance.page = page;
            set_page(&mut x.caption, page);
            for c in &mut x.cells {
                set_page(&mut c.blocks, page);
            }
        }
        Block::Picture(x) => {
            x.provenance.page = page;
            set_page(&mut x.caption, page);
        }
        Block::Equation(x) => {
            x.provenance.page = page;
            set_page(&mut x.caption, page);
        }
        Block::Shape(x) => {
            x.provenance.page = page;
            set_page(&mut x.blocks, page);
            set_page(&mut x.caption, page);
        }
        Block::Unknown(x) => x.provenance.page = page,
    }
}

impl<'a> Parser<'a> {
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
                Frame::Object(o) if matches!(o.kind, ObjectKind::Shape { .. }) => {
                    return o.blocks.push(block)
                }
                _ => {}
            }
        }
        self.section.blocks.push(block);
    }

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
            "run" => {
                let style = self.input.header.char_style(attr_u32(e, "charPrIDRef"));
                if let Some(p) = self.para_mut() {
                    p.char_style = style;
                }
            }
            "t" | "mainText" => {
                if self.in_para() {
                    self.push(depth, Frame::Text);
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
            "parameters" if !matches!(self.top(), Some(Frame::Field { .. })) => {
                return Ok(Flow::Skip)
            }
            "secPr" => {}
            "pagePr" => {
                let [width, height, landscape] = attrs(e, ["width", "height", "landscape"]);
                let number = |v: Option<std::borrow::Cow<'_, str>>| {
                    v.and_then(|v| parse_u32(&v)).unwrap_or(0)
                };
                let page = PageDefinition {
                    // OWPML writes portrait as WIDELY and landscape as NARROWLY.
                    landscape: landscape.as_deref() == Some("NARROWLY"),
                    width: number(width),
                    height: number(height),
                    ..PageDefinition::default()
                };
                if self.section.page.is_none() {
                    self.section.page = Some(page);
                }
                self.push(depth, Frame::PagePr);
            }
            "margin" => {
                if matches!(self.top(), Some(Frame::PagePr)) {
                    if let Some(pd) = self.section.page.as_mut() {
                        let [left, right, top, bottom] =
                            attrs_u32(e, ["left", "right", "top", "bottom"]);
                        pd.margin_left = left.unwrap_or(0);
                        pd.margin_right = right.unwrap_or(0);
                        pd.margin_top = top.unwrap_or(0);
                        pd.margin_bottom = bottom.unwrap_or(0);
                    }
                }
            }
            "colPr" => {
                let n = attr_u32(e, "colCount").unwrap_or(1).clamp(1, 255);
                if self.section.paragraph_count <= 1 && self.section.blocks.is_empty() {
                    self.section.columns = n;
                }
                self.columns = n;
            }
            "fieldBegin" => {
                if attr(e, "type").as_deref() == Some("HYPERLINK") {
                    let id = attr(e, "id").map(|s| s.into_owned());
                    self.push(depth, Frame::Field { id, command: None });
                }
            }
            "stringParam" => {
                if self.field_open() && attr(e, "name").as_deref() == Some("Command") {
                    self.push(depth, Frame::Capture(Capture::LinkCommand, String::new()));
                }
            }
            "fieldEnd" => {
                if let Some((id, _)) = &self.link {
                    let begin = attr(e, "beginIDRef");
                    if id.is_none() || begin.is_none() || begin.as_deref() == id.as_deref() {
                        self.link = None;
                    }
                }
            }
            "header" | "footer" => {
                self.enter_object()?;
                let applies_to = match attr(e, "applyPageType").as_deref() {
                    Some("EVEN") => "even",
                    Some("ODD") => "odd",
                    _ => "both",
                };
                let kind = if name == "header" { "header" } else { "footer" };
                let provenance = self.provenance_here();
                self.push(
                    depth,
                    Frame::Furniture(Box::new(FurnitureBuilder {
                        kind,
                        applies_to: Some(applies_to.into()),
                        number: None,
                        blocks: Vec::new(),
                        anchor_offset: provenance.char_start,
                        provenance,
                    })),
                );
            }
            "footNote" | "endNote" => {
                self.enter_object()?;
                let kind = if name == "footNote" {
                    "footnote"
                } else {
                    "endnote"
                };
                let provenance = self.provenance_here();
                self.push(
                    depth,
                    Frame::Furniture(Box::new(FurnitureBuilder {
                        kind,
                        applies_to: None,
                        number: attr_u32(e, "number").filter(|&n| n > 0),
                        blocks: Vec::new(),
                        anchor_offset: provenance.char_start,
                        provenance,
                    })),
                );
            }
            "autoNum" => {
                let num = attr_u32(e, "num");
                let num_type = attr(e, "numType");
                if matches!(num_type.as_deref(), Some("FOOTNOTE") | Some("ENDNOTE")) {
                    for (_, f) in self.stack.iter_mut().rev() {
                        if let Frame::Furniture(n) = f {
                            if n.number.is_none() {
                                n.number = num;
                            }
                            break;
                        }
                    }
                }
            }
            "tbl" => {
                self.enter_object()?;
                let provenance = self.provenance_here();
                let [rows, cols] = attrs_u32(e, ["rowCnt", "colCnt"]);
                self.push(
                    depth,
                    Frame::Table(Box::new(TableBuilder {
                        rows: rows.unwrap_or(0),
                        cols: cols.unwrap_or(0),
                        rows_seen: 0,
                        next_col: 0,
                        cells: Vec::new(),
                        caption: Vec::new(),
                        provenance,
                    })),
                );
            }
            "tr" => {
                if let Some(Frame::Table(t)) = self.top() {
                    t.rows_seen += 1;
                    t.next_col = 0;
                }
            }
            "tc" => {
                if let Some(Frame::Table(t)) = self.top() {
                    let (row, col) = (t.rows_seen.saturating_sub(1), t.next_col);
                    self.push(
                        depth,
                        Frame::Cell(Box::new(TableCell {
                            row,
                            col,
                            row_span: 1,
                            col_span: 1,
                            header: attr_flag(e, "header"),
                            blocks: Vec::new(),
                        })),
                    );
                }
            }
            "cellAddr" => {
                if let Some(Frame::Cell(c)) = self.top() {
                    let [row, col] = attrs_u32(e, ["rowAddr", "colAddr"]);
                    c.row = row.unwrap_or(0);
                    c.col = col.unwrap_or(0);
                }
            }
            "cellSpan" => {
                if let Some(Frame::Cell(c)) = self.top() {
                    let [row_span, col_span] = attrs_u32(e, ["rowSpan", "colSpan"]);
                    c.row_span = row_span.unwrap_or(1).max(1);
                    c.col_span = col_span.unwrap_or(1).max(1);
                }
            }
            "caption" => {
                if matches!(self.top(), Some(Frame::Table(_)) | Some(Frame::Object(_))) {
                    self.push(depth, Frame::Caption(Vec::new()));
                }
            }
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
            "script" => {
                if let Some(Frame::Object(o)) = self.top() {
                    if matches!(o.kind, ObjectKind::Equation { .. }) {
                        self.push(depth, Frame::Capture(Capture::Script, String::new()));
                    }
                }
            }
            "text" => {
                if let Some(Frame::Object(o)) = self.top() {
                    if matches!(o.kind, ObjectKind::Unknown { .. }) {
                        self.push(depth, Frame::Capture(Capture::FormText, String::new()));
                    }
                }
            }
            "shapeComment" => {
                if matches!(self.top(), Some(Frame::Object(_))) {
                    self.push(depth, Frame::Capture(Capture::Comment, String::new()));
                }
            }
            "img" => {
                let bin = attr(e, "binaryItemIDRef")
                    .and_then(|id| self.input.bins.get(id.as_ref()).cloned());
                if let Some(Frame::Object(o)) = self.top() {
                    if let ObjectKind::Picture { bin: slot, .. } = &mut o.kind {
                        if slot.is_none() {
                            *slot = bin;
                        }
                    }
                }
            }
            "sz" | "curSz" => {
                let [w, h] = attrs_u32(e, ["width", "height"]).map(|v| v.unwrap_or(0));
                match self.top() {
                    Some(Frame::Object(o)) if name == "sz" || !o.sized => {
                        o.width = w;
                        o.height = h;
                        o.sized |= name == "sz";
                    }
                    _ => {}
                }
            }
            "linesegarray" => {
                // Only section-level paragraphs' line segments say where pages start.
                if !matches!(self.top(), Some(Frame::Para(p)) if p.section_level) {
                    return Ok(Flow::Skip);
                }
            }
            "lineseg" => self.lineseg(e),
            _ => {
                if let Some(kind) = shape_kind(name) {
                    self.open_object(depth, ObjectKind::Shape { kind })?;
                    if name == "textart" {
                        if let Some(text) = attr(e, "text") {
                            self.textart(&text);
                        }
                    }
                } else if is_unknown_object(name) {
                    let bin = attr(e, "binaryItemIDRef")
                        .and_then(|id| self.input.bins.get(id.as_ref()).map(|b| b.id));
                    // Buttons show a caption, combo boxes their selected value, charts their
                    // series (read from the chart part beforehand).
                    let text = attr(e, "caption")
                        .or_else(|| attr(e, "selectedValue"))
                        .map(|s| s.into_owned())
                        .or_else(|| {
                            let part = attr(e, "chartIDRef")?;
                            self.input.charts.get(part.trim_start_matches('/')).cloned()
                        })
                        .filter(|s| !s.trim().is_empty());
                    self.open_object(
                        depth,
                        ObjectKind::Unknown {
                            object: name.to_string(),
                            bin,
                            text,
                        },
                    )?;
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn field_open(&self) -> bool {
        self.stack
            .iter()
            .rev()
            .take(3)
            .any(|(_, f)| matches!(f, Frame::Field { .. }))
    }

    fn open_object(&mut self, depth: u32, kind: ObjectKind) -> Result<()> {
        self.enter_object()?;
        let provenance = self.provenance_here();
        self.push(
            depth,
            Frame::Object(Box::new(ObjectBuilder {
                kind,
                width: 0,
                height: 0,
                blocks: Vec::new(),
                caption: Vec::new(),
                provenance,
                sized: false,
            })),
        );
        Ok(())
    }

    /// Text art keeps its words in an attribute; they become one paragraph per line.
    fn textart(&mut self, text: &str) {
        let provenance = self.provenance_here();
        let Some((_, Frame::Object(o))) = self.stack.last_mut() else {
            return;
        };
        // Hancom writes the line breaks of text art as the visible symbols ␍␊.
        for line in text
            .split(['\r', '\n', '\u{240D}', '\u{240A}'])
            .filter(|l| !l.trim().is_empty())
        {
            let chars = line.chars().count() as u32;
            o.blocks.push(Block::Paragraph(Paragraph {
                text: line.to_string(),
                runs: vec![Run {
                    text: line.to_string(),
                    ..Run::default()
                }],
                style: None,
                heading_level: None,
                list: None,
                note_refs: Vec::new(),
                break_before: None,
                provenance: Provenance {
                    char_start: 0,
                    char_end: chars,
                    ..provenance.clone()
                },
            }));
        }
    }

    fn open_para(&mut self, e: &Tag<'_, '_>, depth: u32) {
        let section_level = !self.in_para() && self.object_depth == 0;
        let header = self.input.header;
        let [para_pr, style_id, page_break, column_break] =
            attrs(e, ["paraPrIDRef", "styleIDRef", "pageBreak", "columnBreak"]);
        let flag = |v: &Option<std::borrow::Cow<'_, str>>| {
            matches!(v.as_deref(), Some("1") | Some("true"))
        };
        let (page_break, column_break) = (flag(&page_break), flag(&column_break));
        let para_pr = para_pr.and_then(|v| v.trim().parse::<u32>().ok());
        let style_id = style_id.and_then(|v| v.trim().parse::<u32>().ok());
        let break_before = if page_break {
            Some("page".to_string())
        } else if column_break {
            Some("column".to_string())
        } else {
            None
        };
        let mut heading_level = None;
        let mut list = None;
        if let Some(h) = header.heading(para_pr) {
            match h.kind {
                HeadingKind::Outline => heading_level = Some((h.level + 1).min(6)),
                HeadingKind::Bullet => {
                    let ch = header.bullet(h.id_ref).unwrap_or_default();
                    list = Some(ListMarker {
                        kind: "bullet".into(),
                        level: h.level + 1,
                        marker: bullet_marker(ch),
                    });
                }
                HeadingKind::Number => list = Some(self.number_marker(h.id_ref, h.level)),
            }
        }
        let mut start_page = None;
        if section_level {
            if self.section.paragraph_count == 0 {
                self.blocks_mark = 0;
            }
            self.section_para = self.section.paragraph_count;
            self.section.paragraph_count += 1;
            self.blocks_mark = self.section.blocks.len();
            self.furniture_mark = self.furniture.len();
            let st = &mut *self.state;
            if self.first_para_in_section || page_break {
                // Sections and explicit page breaks start a new page.
                st.page += 1;
                st.column = 0;
                st.prev_vertpos = None;
            } else if column_break {
                st.column += 1;
                if st.column >= self.columns {
                    st.page += 1;
                    st.column = 0;
                }
                st.prev_vertpos = None;
            }
            self.first_para_in_section = false;
            start_page = Some(st.page.max(1));
        }
        let para = ParaBuilder {
            text: String::new(),
            chars: 0,
            runs: Vec::new(),
            style_id,
            heading_level,
            list,
            note_refs: Vec::new(),
            break_before,
            objects: Vec::new(),
            char_style: CharStyle::default(),
            section_level,
            start_page,
            saw_lineseg: false,
        };
        self.push(depth, Frame::Para(Box::new(para)));
    }

    fn number_marker(&mut self, numbering_id: u32, level: u8) -> ListMarker {
        let header = self.input.header;
        let numbering = header.numbering(numbering_id);
        let lvl = (level as usize).min(9);
        let counters = self
            .state
            .list_counters
            .entry(numbering_id)
            .or_insert([0; 10]);
        let start_of = |l: usize| {
            numbering
                .and_then(|n| n.levels.get(l))
                .map(|x| x.start)
                .unwrap_or(1)
        };
        counters[lvl] = if counters[lvl] == 0 {
            start_of(lvl).max(1)
        } else {
            counters[lvl].saturating_add(1)
        };
        for c in counters.iter_mut().skip(lvl + 1) {
            *c = 0;
        }
        let counters = *counters;
        let template = numbering
            .and_then(|n| n.levels.get(lvl))
            .map(|l| l.text.as_str())
            .unwrap_or("");
        let style_of = |l: usize| {
            NumberStyle::from_owpml(
                numbering
                    .and_then(|n| n.levels.get(l))
                    .map(|x| x.num_format.as_str())
                    .unwrap_or(""),
            )
        };
        let marker = if template.is_empty() {
            let mut out = String::new();
            write_number(&mut out, counters[lvl], style_of(lvl));
            out.push('.');
            out
        } else {
            expand_template(template, |l| {
                let l = l.min(9);
                (
                    if counters[l] == 0 {
                        start_of(l).max(1)
                    } else {
                        counters[l]
                    },
                    style_of(l),
                )
            })
        };
        ListMarker {
            kind: "number".into(),
            level: level + 1,
            marker,
        }
    }

    /// A line segment of the cached layout. Only those of section-level
    /// paragraphs count: a page starts where the vertical position falls
    /// back (after as many falls as the section has columns).
    fn lineseg(&mut self, e: &Tag<'_, '_>) {
        let columns = self.columns;
        let Some((_, Frame::Para(p))) = self.stack.last_mut() else {
            return;
        };
        if !p.section_level {
            return;
        }
        let st = &mut *self.state;
        st.has_layout = true;
        let vertpos = attr_i64(e, "vertpos").unwrap_or(0);
        if let Some(prev) = st.prev_vertpos {
            if vertpos < prev {
                st.column += 1;
                if st.column >= columns {
                    st.page += 1;
                    st.column = 0;
                }
            }
        }
        st.prev_vertpos = Some(vertpos);
        if !p.saw_lineseg {
            p.saw_lineseg = true;
            p.start_page = Some(st.page.max(1));
        }
    }

    fn inline_char(&mut self, c: char) {
        if matches!(self.top(), Some(Frame::Text)) {
            let mut buf = [0u8; 4];
            self.para_text(c.encode_utf8(&mut buf));
        }
    }

    fn text(&mut self, t: &str) {
        match self.top() {
            Some(Frame::Text) => self.para_text(t),
            Some(Frame::Capture(_, buf)) => buf.push_str(t),
            _ => {}
        }
    }

    /// Append text to the innermost paragraph, extending its last run when
    /// the formatting and link are the same.
    fn para_text(&mut self, t: &str) {
        let link = self.link.as_ref().map(|(_, target)| target.as_str());
        let Some(p) = self.stack.iter_mut().rev().find_map(|(_, f)| match f {
            Frame::Para(p) => Some(p.as_mut()),
            _ => None,
        }) else {
            return;
        };
        let start = p.text.len();
        p.text.push_str(t);
        p.chars += t.chars().count() as u32;
        let cs = p.char_style;
        if let Some((_, last)) = p.runs.last() {
            let same = last.bold == cs.bold
                && last.italic == cs.italic
                && last.underline == cs.underline
                && last.strike == cs.strike
                && last.superscript == cs.superscript
                && last.subscript == cs.subscript
                && last.link.as_deref() == link;
            if same {
                return;
            }
        }
        p.runs.push((
            start,
            Run {
                text: String::new(),
                bold: cs.bold,
                italic: cs.italic,
                underline: cs.underline,
                strike: cs.strike,
                superscript: cs.superscript,
                subscript: cs.subscript,
                link: link.map(str::to_string),
            },
        ));
    }

    fn close(&mut self, depth: u32) {
        match self.stack.last() {
            Some((d, _)) if *d == depth => {}
            _ => return,
        }
        let Some((_, frame)) = self.stack.pop() else {
            return;
        };
        match frame {
            Frame::Para(p) => self.close_para(*p),
            Frame::Capture(kind, buf) => match kind {
                Capture::LinkCommand => {
                    if let Some(Frame::Field { command, .. }) = self.top() {
                        *command = Some(buf);
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
                        if let ObjectKind::Unknown { text, .. } = &mut o.kind {
                            if !buf.trim().is_empty() {
                                *text = Some(buf);
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
            },
            Frame::Field { id, command } => {
                if let Some(target) = command.as_deref().and_then(link_target) {
                    self.link = Some((id, target));
                }
            }
            Frame::Table(t) => {
                self.object_depth = self.object_depth.saturating_sub(1);
                let TableBuilder {
                    rows,
                    cols,
                    mut cells,
                    caption,
                    provenance,
                    ..
                } = *t;
                cells.sort_by_key(|c| (c.row, c.col));
                let rows = rows.max(cells.iter().map(|c| c.row + c.row_span).max().unwrap_or(0));
                let cols = cols.max(cells.iter().map(|c| c.col + c.col_span).max().unwrap_or(0));
                self.emit(Block::Table(Table {
                    rows,
                    cols,
                    cells,
                    caption,
                    provenance,
                }));
            }
            Frame::Cell(c) => {
                if let Some(Frame::Table(t)) = self.top() {
                    t.next_col = c.col.saturating_add(c.col_span);
                    t.cells.push(*c);
                }
            }
            Frame::Caption(blocks) => match self.top() {
                Some(Frame::Table(t)) => t.caption.extend(blocks),
                Some(Frame::Object(o)) => o.caption.extend(blocks),
                _ => {}
            },
            Frame::Object(o) => {
                self.object_depth = self.object_depth.saturating_sub(1);
                let ObjectBuilder {
                    kind,
                    width,
                    height,
                    blocks,
                    caption,
                    provenance,
                    ..
                } = *o;
                let block = match kind {
                    ObjectKind::Picture { bin, description } => Block::Picture(Picture {
                        bin_data_id: bin.as_ref().map(|b| b.id),
                        bin_data_name: bin.map(|b| b.name),
                        width,
                        height,
                        description,
                        caption,
                        provenance,
                    }),
                    ObjectKind::Equation { script } => Block::Equation(Equation {
                        script,
                        caption,
                        provenance,
                    }),
                    ObjectKind::Shape { kind } => Block::Shape(Shape {
                        shape_kind: kind.to_string(),
                        blocks,
                        caption,
                        provenance,
                    }),
                    ObjectKind::Unknown { object, bin, text } => Block::Unknown(Unknown {
                        object,
                        bin_data_id: bin,
                        text,
                        provenance,
                    }),
                };
                self.emit(block);
            }
            Frame::Furniture(f) => {
                self.object_depth = self.object_depth.saturating_sub(1);
                let FurnitureBuilder {
                    kind,
                    applies_to,
                    mut number,
                    blocks,
                    provenance,
                    anchor_offset,
                } = *f;
                if kind == "footnote" || kind == "endnote" {
                    let counter = if kind == "footnote" {
                        &mut self.state.footnotes
                    } else {
                        &mut self.state.endnotes
                    };
                    *counter += 1;
                    let n = *number.get_or_insert(*counter);
                    if let Some(p) = self.para_mut() {
                        p.note_refs.push(NoteRef {
                            kind: kind.into(),
                            number: n,
                            offset: anchor_offset,
                        });
                    }
                }
                self.furniture.push(Furniture {
                    kind: kind.into(),
                    applies_to,
                    number,
                    blocks,
                    provenance,
                });
            }
            Frame::Text | Frame::PagePr | Frame::Switch { .. } | Frame::Alternative => {}
        }
    }

    fn close_para(&mut self, p: ParaBuilder) {
        let ParaBuilder {
            text,
            chars,
            runs,
            style_id,
            heading_level,
            list,
            note_refs,
            break_before,
            objects,
            section_level,
            start_page,
            ..
        } = p;
        let provenance = Provenance {
            section: self.input.index,
            paragraph: self.section_para,
            char_start: 0,
            char_end: chars,
            page: None,
        };
        if !text.is_empty() {
            let runs = run_texts(&text, runs);
            self.emit(Block::Paragraph(Paragraph {
                text,
                runs,
                style: self.input.header.style_name(style_id).map(str::to_string),
                heading_level,
                list,
                note_refs,
                break_before,
                provenance,
            }));
        }
        for block in objects {
            self.emit(block);
        }
        if section_level && self.state.has_layout {
            let page = start_page;
            let mark = self.blocks_mark.min(self.section.blocks.len());
            set_page(&mut self.section.blocks[mark..], page);
            let fmark = self.furniture_mark.min(self.furniture.len());
            for f in &mut self.furniture[fmark..] {
                f.provenance.page = page;
                set_page(&mut f.blocks, page);
            }
        }
    }
}

/// The runs of a finished paragraph with their texts cut from its text; none
/// when all of them are plain (what `Document::drop_plain_runs` would leave).
fn run_texts(text: &str, marks: Vec<(usize, Run)>) -> Vec<Run> {
    if marks.iter().all(|(_, r)| r.is_plain()) {
        return Vec::new();
    }
    let ends: Vec<usize> = marks
        .iter()
        .skip(1)
        .map(|(start, _)| *start)
        .chain(std::iter::once(text.len()))
        .collect();
    marks
        .into_iter()
        .zip(ends)
        .map(|((start, mut run), end)| {
            run.text = text.get(start..end).unwrap_or_default().to_string();
            run
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::push_blocks;

    fn run(xml: &str) -> (SectionOutput, DocState) {
        let header = Header::default();
        let bins = HashMap::new();
        let limits = Limits::default();
        let charts = HashMap::new();
        let input = SectionInput {
            charts: &charts,
            index: 0,
            part: "section0.xml",
            header: &header,
            bins: &bins,
            limits: &limits,
        };
        let mut state = DocState::default();
        let out = parse(xml.as_bytes(), &input, &mut state).unwrap();
        (out, state)
    }

    const NS: &str = r#"xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph" xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section""#;

    #[test]
    fn cells_without_cell_addr_take_their_row_and_column_from_the_grid() {
        // Minimal HWPX written by other tools has bare `tc`s with paragraphs, no cellAddr.
        let xml = format!(
            r#"<hs:sec {NS}><hp:p><hp:run><hp:tbl><hp:tr><hp:tc><hp:p><hp:run><hp:t>a</hp:t></hp:run></hp:p></hp:tc>
            <hp:tc><hp:cellSpan colSpan="2" rowSpan="1"/><hp:p><hp:run><hp:t>b</hp:t></hp:run></hp:p></hp:tc>
            <hp:tc><hp:p><hp:run><hp:t>c</hp:t></hp:run></hp:p></hp:tc></hp:tr>
            <hp:tr><hp:tc><hp:p><hp:run><hp:t>d</hp:t></hp:run></hp:p></hp:tc></hp:tr></hp:tbl></hp:run></hp:p></hs:sec>"#
        );
        let (out, _) = run(&xml);
        let Some(Block::Table(t)) = out.section.blocks.first() else {
            panic!("no table: {:?}", out.section.blocks)
        };
        let addresses: Vec<(u32, u32, u32)> =
            t.cells.iter().map(|c| (c.row, c.col, c.col_span)).collect();
        assert_eq!(addresses, vec![(0, 0, 1), (0, 1, 2), (0, 3, 1), (1, 0, 1)]);
        assert_eq!((t.rows, t.cols), (2, 4));
    }

    #[test]
    fn paragraph_then_its_table() {
        let xml = format!(
            r#"<hs:sec {NS}><hp:p><hp:run><hp:t>앞<hp:tab/>뒤</hp:t><hp:tbl rowCnt="1" colCnt="2"><hp:tr>
            <hp:tc><hp:subList><hp:p><hp:run><hp:t>A</hp:t></hp:run></hp:p></hp:subList><hp:cellAddr colAddr="1" rowAddr="0"/></hp:tc>
            <hp:tc><hp:subList><hp:p><hp:run><hp:t>B</hp:t></hp:run></hp:p></hp:subList><hp:cellAddr colAddr="0" rowAddr="0"/><hp:cellSpan colSpan="1" rowSpan="1"/></hp:tc>
            </hp:tr></hp:tbl></hp:run></hp:p></hs:sec>"#
        );
        let (out, state) = run(&xml);
        let mut text = String::new();
        push_blocks(&out.section.blocks, &mut text);
        assert_eq!(text, "앞\t뒤\nB\nA");
        assert_eq!(out.section.paragraph_count, 1);
        assert!(!state.has_layout);
        match &out.section.blocks[1] {
            Block::Table(t) => {
                assert_eq!((t.rows, t.cols), (1, 2));
                assert_eq!(t.provenance.char_start, 3);
            }
            other => panic!("expected a table, got {}", other.kind()),
        }
    }

    #[test]
    fn other_prefixes_and_2024_namespace() {
        let xml = r#"<s:sec xmlns:s="http://www.owpml.org/owpml/2024/section" xmlns:x="http://www.owpml.org/owpml/2024/paragraph"><x:p><x:run><x:t>가 &amp; 나</x:t></x:run></x:p></s:sec>"#;
        let (out, _) = run(xml);
        let mut text = String::new();
        push_blocks(&out.section.blocks, &mut text);
        assert_eq!(text, "가 & 나");
    }

    #[test]
    fn notes_links_and_pages() {
        let xml = format!(
            r#"<hs:sec {NS}><hp:p><hp:run><hp:t>본문</hp:t><hp:ctrl><hp:footNote number="3"><hp:subList><hp:p><hp:run><hp:t>각주</hp:t></hp:run></hp:p></hp:subList></hp:footNote></hp:ctrl>
            <hp:ctrl><hp:fieldBegin id="7" type="HYPERLINK"><hp:parameters><hp:stringParam name="Command">http\://x.kr;1;0;0;</hp:stringParam></hp:parameters></hp:fieldBegin></hp:ctrl><hp:t>링크</hp:t><hp:ctrl><hp:fieldEnd beginIDRef="7"/></hp:ctrl><hp:t>끝</hp:t></hp:run>
            <hp:linesegarray><hp:lineseg vertpos="0"/><hp:lineseg vertpos="1000"/></hp:linesegarray></hp:p>
            <hp:p><hp:run><hp:t>둘째</hp:t></hp:run><hp:linesegarray><hp:lineseg vertpos="0"/></hp:linesegarray></hp:p></hs:sec>"#
        );
        let (out, state) = run(&xml);
        assert_eq!(out.furniture.len(), 1);
        assert_eq!(out.furniture[0].number, Some(3));
        let Block::Paragraph(p) = &out.section.blocks[0] else {
            panic!()
        };
        assert_eq!(p.text, "본문링크끝");
        assert_eq!(p.note_refs[0].offset, 2);
        assert_eq!(p.runs[1].link.as_deref(), Some("http://x.kr"));
        assert_eq!(p.runs[2].link, None);
        assert_eq!(p.provenance.page, Some(1));
        let Block::Paragraph(p2) = &out.section.blocks[1] else {
            panic!()
        };
        assert_eq!(p2.provenance.page, Some(2));
        assert_eq!(state.page, 2);
    }

    #[test]
    fn switch_reads_first_case_only() {
        let xml = format!(
            r#"<hs:sec {NS}><hp:p><hp:run><hp:switch><hp:case><hp:t>케이스</hp:t></hp:case><hp:default><hp:t>기본</hp:t></hp:default></hp:switch></hp:run></hp:p></hs:sec>"#
        );
        let (out, _) = run(&xml);
        let mut text = String::new();
        push_blocks(&out.section.blocks, &mut text);
        assert_eq!(text, "케이스");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut xml = format!("<hs:sec {NS}>");
        for _ in 0..5000 {
            xml.push_str("<hp:p>");
        }
        let header = Header::default();
        let bins = HashMap::new();
        let limits = Limits::default();
        let charts = HashMap::new();
        let input = SectionInput {
            charts: &charts,
            index: 0,
            part: "s",
            header: &header,
            bins: &bins,
            limits: &limits,
        };
        let err = parse(xml.as_bytes(), &input, &mut DocState::default())
            .err()
            .unwrap();
        assert_eq!(err.code, crate::ErrorCode::TooLarge);
    }

    #[test]
    fn link_targets() {
        assert_eq!(
            link_target("http\\://www.hancom.com;1;0;0;").as_deref(),
            Some("http://www.hancom.com")
        );
        assert_eq!(
            link_target("www.daum.net|-;1;0;0").as_deref(),
            Some("www.daum.net")
        );
        assert_eq!(link_target(";1;0"), None);
    }
}
