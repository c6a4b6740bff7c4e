//! Filling an HWPX form: values into click-here fields and table cells, nothing else changed.
//!
//! Each section part is scanned once for where things are (byte ranges of paragraphs, runs,
//! field begins and ends, cells, line layouts); the places the keys name are rewritten by
//! splicing the part's text at those ranges, so bytes outside the edited paragraphs stay as
//! they were. The package is written entry by entry in its order: untouched entries are copied
//! with their compressed bytes as stored (`mimetype` first and stored stays so), a rewritten
//! section is deflated anew.
//!
//! What is written, as 한글 writes it (its own fill of `clickhere_gold_empty.hwpx` →
//! `clickhere_gold_filled.hwpx`, python-hwpx's fixtures): a click-here field's value goes in a
//! `t` of the run holding the field begin, the guide text's run (between begin and end) is
//! removed and, when the field end's run has the begin run's formatting, the two runs become
//! one; the begin's `dirty` becomes `1`. An empty value leaves the field blank with `dirty="0"`
//! (한글 then shows its guide). A line feed in a field's value is a line break (`lineBreak`):
//! the field stays within its paragraph. A cell's value replaces the cell's paragraphs, one
//! paragraph per line, each with the first paragraph's and first run's attributes. Every edited
//! paragraph loses its `linesegarray` (the stored line layout), so 한글 lays it out again rather
//! than drawing stale lines over the new text.

use super::content;
use super::package::{self, canonical_name, Package, CONTENT_HPF};
use crate::common::fill::{
    self, Address, CellAt, CellSite, FieldSite, FormMap, Output, Place, Value,
};
use crate::owpml::xml::{resolve_entity, xml_error};
use crate::{Error, ErrorCode, Options, Result};
use quick_xml::events::{BytesStart, Event};
use std::io::{Cursor, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

/// A paragraph (`p`) of a section part.
#[derive(Debug, Clone)]
struct Para {
    start: usize,
    open_end: usize,
    end: usize,
    /// The stored line layout (`linesegarray`), when there is one.
    lineseg: Option<(usize, usize)>,
    /// The index of the section-level paragraph holding it.
    top: u32,
    /// The innermost cell it sits directly in.
    cell: Option<usize>,
    /// The paragraph it sits in (through a table, box or note), if any.
    parent: Option<usize>,
    /// In no other paragraph and no table: one of the section's own paragraphs.
    section_level: bool,
    prefix: String,
    first_run: Option<usize>,
    text: String,
}

/// A run (`run`): its open tag and the paragraph it belongs to.
#[derive(Debug, Clone)]
struct Run {
    start: usize,
    open_end: usize,
    para: usize,
    prefix: String,
}

/// A field begin or end inside its `ctrl`.
#[derive(Debug, Clone)]
struct FieldMark {
    ctrl: (usize, usize),
    run: usize,
    para: usize,
    /// The begin's `id`, or the end's `beginIDRef`.
    id: String,
    /// Begin only: its type, name, whether it was edited, and its start tag's range.
    kind: String,
    name: String,
    dirty: bool,
    tag: (usize, usize),
}

/// A form control (`checkBtn`, `radioBtn`, `comboBox`, `listBox`, `edit`).
#[derive(Debug, Clone)]
struct Control {
    kind: &'static str,
    tag: (usize, usize),
    name: String,
    value: String,
    group: Option<String>,
    options: Vec<String>,
    /// A combo box one may type into (`editEnable`): any text goes.
    free: bool,
    para: Option<usize>,
    /// An edit box's `text` element: where it is, and where its content is.
    text: Option<((usize, usize), (usize, usize))>,
}

/// A table cell (`tc`).
#[derive(Debug, Clone, Default)]
struct Cell {
    table: usize,
    parent: Option<usize>,
    row: u32,
    col: u32,
    row_span: u32,
    col_span: u32,
    name: Option<String>,
    paras: Vec<usize>,
    text_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Para,
    Run,
    Text,
    Ctrl,
    Table,
    Cell,
    SubList,
    LineSegs,
    Control,
    ControlText,
    Other,
}

struct Frame {
    kind: Kind,
    start: usize,
    idx: usize,
}

/// Where things are in one section part.
#[derive(Default)]
struct Scan {
    paras: Vec<Para>,
    runs: Vec<Run>,
    begins: Vec<FieldMark>,
    ends: Vec<FieldMark>,
    cells: Vec<Cell>,
    /// Text inside `t` elements, by where it starts.
    texts: Vec<(usize, String)>,
    /// Where elements other than runs and text open inside paragraphs (objects, controls).
    objects: Vec<usize>,
    /// Per table: the rows seen so far and the grid column the next cell starts at.
    tables: Vec<(u32, u32)>,
    controls: Vec<Control>,
}

fn attr(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes().with_checks(false).flatten().find_map(|a| {
        (a.key.local_name().as_ref() == key)
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

fn attr_u32(e: &BytesStart<'_>, key: &str) -> Option<u32> {
    attr(e, key).and_then(|v| v.trim().parse().ok())
}

/// The prefix of an element's qualified name, colon included (`hp:`), or "".
fn prefix_of(e: &BytesStart<'_>) -> String {
    let name = e.name();
    let raw = name.as_ref();
    match raw.find(':') {
        Some(k) => raw[..=k].to_string(),
        None => String::new(),
    }
}

/// The character an inline element inside `t` stands for.
fn inline_char(local: &str) -> Option<char> {
    match local {
        "tab" => Some('\t'),
        "lineBreak" => Some('\n'),
        "hyphen" => Some('-'),
        "nbSpace" => Some('\u{a0}'),
        "fwSpace" => Some(' '),
        _ => None,
    }
}

impl Scan {
    fn of(text: &[u8], part: &str, options: &Options) -> Result<Scan> {
        let max_depth = options.limits.max_xml_depth as usize;
        let mut scan = Scan::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut top = 0u32;
        let mut reader = quick_xml::Reader::from_reader(text);
        loop {
            let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let event = reader.read_event().map_err(|e| xml_error(part, e))?;
            let after = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            match event {
                Event::Start(e) => {
                    if stack.len() >= max_depth {
                        return Err(crate::owpml::xml::too_deep(part, max_depth as u32));
                    }
                    let frame = scan.open(&e, before, after, &stack, &mut top);
                    stack.push(frame);
                }
                Event::Empty(e) => {
                    let frame = scan.open(&e, before, after, &stack, &mut top);
                    stack.push(frame);
                    scan.close(&mut stack, after, after);
                }
                Event::End(_) => {
                    if stack.is_empty() {
                        return Err(xml_error(part, "closing tag without an opening one"));
                    }
                    scan.close(&mut stack, before, after);
                }
                Event::Text(t) => scan.text(&stack, before, &t.xml10_content()),
                Event::CData(t) => scan.text(&stack, before, &t.xml10_content()),
                Event::GeneralRef(r) => {
                    if let Some(c) = resolve_entity(&r) {
                        scan.text(&stack, before, c.encode_utf8(&mut [0; 4]));
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        if !stack.is_empty() {
            return Err(xml_error(
                part,
                "the part ends inside an open element (truncated?)",
            ));
        }
        Ok(scan)
    }

    fn innermost(stack: &[Frame], kind: Kind) -> Option<&Frame> {
        stack.iter().rev().find(|f| f.kind == kind)
    }

    fn in_text(stack: &[Frame]) -> bool {
        stack.iter().any(|f| f.kind == Kind::Text)
    }

    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        e: &BytesStart<'_>,
        start: usize,
        open_end: usize,
        stack: &[Frame],
        top: &mut u32,
    ) -> Frame {
        let local = e.local_name();
        let local = local.as_ref();
        let para = Scan::innermost(stack, Kind::Para).map(|f| f.idx);
        let in_text = Scan::in_text(stack);
        if in_text {
            if let (Some(c), Some(p)) = (inline_char(local), para) {
                self.paras[p].text.push(c);
                self.texts.push((start, c.to_string()));
            }
            return Frame {
                kind: Kind::Other,
                start,
                idx: 0,
            };
        }
        let (kind, idx) = match local {
            "p" => {
                // A paragraph directly in a cell (or in its sub-list) belongs to that cell.
                let cell = match stack.last() {
                    Some(c) if c.kind == Kind::Cell => Some(c.idx),
                    Some(s) if s.kind == Kind::SubList => stack
                        .len()
                        .checked_sub(2)
                        .map(|k| &stack[k])
                        .filter(|c| c.kind == Kind::Cell)
                        .map(|c| c.idx),
                    _ => None,
                };
                // As the reader counts them: a paragraph in no other paragraph and in no table
                // is section-level; one in a table standing in the section belongs to the
                // section-level paragraph before it.
                let in_table = Scan::innermost(stack, Kind::Table).is_some();
                let here_top = match para {
                    Some(p) => self.paras[p].top,
                    None if in_table => top.saturating_sub(1),
                    None => {
                        let t = *top;
                        *top += 1;
                        t
                    }
                };
                // A paragraph break inside a field's text reads as a line feed.
                self.texts.push((start, "\n".to_string()));
                let idx = self.paras.len();
                self.paras.push(Para {
                    start,
                    open_end,
                    end: open_end,
                    lineseg: None,
                    top: here_top,
                    cell,
                    parent: para,
                    section_level: para.is_none() && !in_table,
                    prefix: prefix_of(e),
                    first_run: None,
                    text: String::new(),
                });
                if let Some(c) = cell {
                    self.cells[c].paras.push(idx);
                }
                (Kind::Para, idx)
            }
            "run" => {
                let idx = self.runs.len();
                let p = para.unwrap_or(usize::MAX);
                self.runs.push(Run {
                    start,
                    open_end,
                    para: p,
                    prefix: prefix_of(e),
                });
                if let Some(p) = para {
                    self.paras[p].first_run.get_or_insert(idx);
                }
                (Kind::Run, idx)
            }
            "t" => (Kind::Text, 0),
            "ctrl" => (Kind::Ctrl, 0),
            "subList" => (Kind::SubList, 0),
            "linesegarray" => (Kind::LineSegs, 0),
            "checkBtn" | "radioBtn" | "comboBox" | "listBox" | "edit" => {
                let kind = match local {
                    "checkBtn" => "checkbox",
                    "radioBtn" => "radio",
                    "comboBox" => "combo_box",
                    "listBox" => "list_box",
                    _ => "edit",
                };
                let value = match kind {
                    "checkbox" | "radio" => {
                        (attr(e, "value").as_deref() == Some("CHECKED")).to_string()
                    }
                    "combo_box" | "list_box" => attr(e, "selectedValue").unwrap_or_default(),
                    _ => String::new(),
                };
                self.controls.push(Control {
                    kind,
                    tag: (start, open_end),
                    name: attr(e, "name").unwrap_or_default(),
                    value,
                    group: attr(e, "radioGroupName").filter(|g| !g.is_empty()),
                    options: Vec::new(),
                    free: attr(e, "editEnable").as_deref() == Some("1"),
                    para,
                    text: None,
                });
                self.object_at(start, stack);
                (Kind::Control, self.controls.len() - 1)
            }
            "listItem" | "text" if stack.last().is_some_and(|f| f.kind == Kind::Control) => {
                let c = stack.last().map_or(0, |f| f.idx);
                if local == "listItem" {
                    if let Some(v) = attr(e, "value")
                        .filter(|v| !v.is_empty())
                        .or_else(|| attr(e, "displayText"))
                        .filter(|v| !v.is_empty())
                    {
                        self.controls[c].options.push(v);
                    }
                    (Kind::Other, 0)
                } else {
                    self.controls[c].text = Some(((start, open_end), (open_end, open_end)));
                    (Kind::ControlText, c)
                }
            }
            "tbl" => {
                self.tables.push((0, 0));
                (Kind::Table, self.tables.len() - 1)
            }
            "tr" => {
                if let Some(t) = Scan::innermost(stack, Kind::Table) {
                    self.tables[t.idx] = (self.tables[t.idx].0 + 1, 0);
                }
                (Kind::Other, 0)
            }
            "tc" => {
                let idx = self.cells.len();
                let table = Scan::innermost(stack, Kind::Table).map_or(0, |f| f.idx);
                // Without a cellAddr, a cell's place is where it stands in its row.
                let (rows_seen, next_col) = self.tables.get(table).copied().unwrap_or_default();
                self.cells.push(Cell {
                    table,
                    row: rows_seen.saturating_sub(1),
                    col: next_col,
                    parent: Scan::innermost(stack, Kind::Cell).map(|f| f.idx),
                    name: attr(e, "name").filter(|n| !n.is_empty()),
                    row_span: 1,
                    col_span: 1,
                    text_only: true,
                    ..Cell::default()
                });
                (Kind::Cell, idx)
            }
            "cellAddr" | "cellSpan" => {
                if let Some(c) = stack.last().filter(|f| f.kind == Kind::Cell) {
                    let cell = &mut self.cells[c.idx];
                    if local == "cellAddr" {
                        cell.row = attr_u32(e, "rowAddr").unwrap_or(0);
                        cell.col = attr_u32(e, "colAddr").unwrap_or(0);
                    } else {
                        cell.row_span = attr_u32(e, "rowSpan").unwrap_or(1).max(1);
                        cell.col_span = attr_u32(e, "colSpan").unwrap_or(1).max(1);
                    }
                }
                (Kind::Other, 0)
            }
            "fieldBegin" | "fieldEnd" => {
                let ctrl = stack.last().filter(|f| f.kind == Kind::Ctrl);
                let run = Scan::innermost(stack, Kind::Run);
                if let (Some(ctrl), Some(run), Some(p)) = (ctrl, run, para) {
                    let begin = local == "fieldBegin";
                    let mark = FieldMark {
                        ctrl: (ctrl.start, usize::MAX),
                        run: run.idx,
                        para: p,
                        id: attr(e, if begin { "id" } else { "beginIDRef" }).unwrap_or_default(),
                        kind: attr(e, "type").unwrap_or_default(),
                        name: attr(e, "name").unwrap_or_default(),
                        dirty: attr(e, "dirty").is_some_and(|d| d.trim() == "1"),
                        tag: (start, open_end),
                    };
                    if begin {
                        self.begins.push(mark);
                    } else {
                        self.ends.push(mark);
                    }
                }
                self.object_at(start, stack);
                (Kind::Other, 0)
            }
            _ => (Kind::Other, 0),
        };
        if kind == Kind::Other
            && !matches!(
                local,
                "lineseg" | "cellAddr" | "cellSpan" | "cellSz" | "cellMargin"
            )
            && para.is_some()
        {
            self.object_at(start, stack);
        }
        if matches!(kind, Kind::Ctrl | Kind::Table) && para.is_some() {
            self.object_at(start, stack);
        }
        Frame { kind, start, idx }
    }

    /// An object or control opens at `at`: no cell it sits in holds only text any more.
    fn object_at(&mut self, at: usize, stack: &[Frame]) {
        self.objects.push(at);
        let mut in_para = false;
        for f in stack.iter().rev() {
            match f.kind {
                Kind::Para => in_para = true,
                Kind::Cell if in_para => self.cells[f.idx].text_only = false,
                _ => {}
            }
        }
    }

    fn close(&mut self, stack: &mut Vec<Frame>, close_start: usize, end: usize) {
        let Some(frame) = stack.pop() else { return };
        match frame.kind {
            Kind::ControlText => {
                if let Some((tag, _)) = self.controls[frame.idx].text {
                    let inner_end = close_start.max(tag.1);
                    self.controls[frame.idx].text = Some(((tag.0, end), (tag.1, inner_end)));
                }
            }
            Kind::Para => self.paras[frame.idx].end = end,
            Kind::Cell => {
                let cell = &self.cells[frame.idx];
                let next = cell.col.saturating_add(cell.col_span);
                if let Some(t) = self.tables.get_mut(cell.table) {
                    t.1 = next;
                }
            }
            Kind::Ctrl => {
                for mark in self.begins.iter_mut().chain(self.ends.iter_mut()) {
                    if mark.ctrl == (frame.start, usize::MAX) {
                        mark.ctrl.1 = end;
                    }
                }
            }
            // The stored line layout is a child of its paragraph.
            Kind::LineSegs => {
                if let Some(p) = stack.last().filter(|f| f.kind == Kind::Para) {
                    self.paras[p.idx].lineseg = Some((frame.start, end));
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, stack: &[Frame], at: usize, text: &str) {
        if let Some(f) = stack.last().filter(|f| f.kind == Kind::ControlText) {
            self.controls[f.idx].value.push_str(text);
            return;
        }
        if text.is_empty() || !Scan::in_text(stack) {
            return;
        }
        let _ = at;
        if let Some(p) = Scan::innermost(stack, Kind::Para).map(|f| f.idx) {
            self.paras[p].text.push_str(text);
            self.texts.push((at, text.to_string()));
        }
    }

    /// The text inside `t` elements between two positions.
    fn text_between(&self, from: usize, to: usize) -> String {
        let first = self.texts.partition_point(|(at, _)| *at < from);
        self.texts[first..]
            .iter()
            .take_while(|(at, _)| *at < to)
            .map(|(_, s)| s.as_str())
            .collect()
    }

    fn cell_chain(&self, mut cell: Option<usize>) -> Vec<CellAt> {
        let mut chain = Vec::new();
        while let Some(c) = cell {
            chain.push(CellAt {
                row: self.cells[c].row,
                col: self.cells[c].col,
            });
            cell = self.cells[c].parent;
        }
        chain.reverse();
        chain
    }
}

/// One section part: its path, its index in the spine, its text and what is in it.
struct Section {
    path: String,
    index: u32,
    text: Vec<u8>,
    scan: Scan,
}

/// Where each place of the form map is in the sections.
enum Site {
    /// A click-here field: its section, begin and end (indices in the scan).
    Field {
        section: usize,
        begin: usize,
        end: usize,
    },
    /// A cell: its section and index in the scan.
    Cell { section: usize, cell: usize },
    /// A form control: its section and index in the scan.
    Control { section: usize, control: usize },
}

fn address(section: &Section, top: u32, cells: Vec<CellAt>) -> Address {
    Address {
        part: section.path.clone(),
        section: section.index,
        paragraph: top,
        cells,
    }
}

/// The form map of the sections, and where each of its places is (fields in the first list,
/// cells then controls in the second).
fn form_map(sections: &[Section]) -> (FormMap, Vec<Site>, Vec<Site>) {
    let mut map = FormMap::default();
    let mut field_sites = Vec::new();
    let mut cell_sites = Vec::new();
    for (s, section) in sections.iter().enumerate() {
        let scan = &section.scan;
        for (b, begin) in scan.begins.iter().enumerate() {
            if !begin.kind.eq_ignore_ascii_case("CLICK_HERE") {
                continue;
            }
            let end = scan
                .ends
                .iter()
                .position(|e| e.id == begin.id && e.ctrl.0 >= begin.ctrl.1);
            let para = &scan.paras[begin.para];
            let mut refused = None;
            let mut before = String::new();
            let mut paragraphs = 1;
            match end.map(|e| &scan.ends[e]) {
                None => refused = Some("it has no field end".to_string()),
                Some(e)
                    if e.para != begin.para
                        && (scan.paras[e.para].parent != para.parent
                            || scan.paras[e.para].cell != para.cell) =>
                {
                    refused =
                        Some("it ends in another cell, box or note than it begins".to_string())
                }
                Some(e) => {
                    paragraphs = (e.para - begin.para) as u32 + 1;
                    if para.section_level {
                        paragraphs = scan.paras[e.para].top - para.top + 1;
                    }
                    let (from, to) = (begin.ctrl.1, e.ctrl.0);
                    if scan.objects.iter().any(|&at| at > from && at < to) {
                        refused = Some("it holds an object or another field".to_string());
                    } else if begin.dirty {
                        // Never edited, its content is the guide text, not a value.
                        before = scan.text_between(from, to);
                    }
                }
            }
            map.fields.push(FieldSite {
                name: begin.name.clone(),
                before: before.trim_start_matches('\n').to_string(),
                section_level: para.section_level,
                paragraphs,
                address: address(section, para.top, scan.cell_chain(para.cell)),
                refused,
            });
            field_sites.push(Site::Field {
                section: s,
                begin: b,
                end: end.unwrap_or(usize::MAX),
            });
        }
        for (c, cell) in scan.cells.iter().enumerate() {
            let text: Vec<&str> = cell
                .paras
                .iter()
                .map(|&p| scan.paras[p].text.as_str())
                .collect();
            let top = cell.paras.first().map_or(0, |&p| scan.paras[p].top);
            map.cells.push(CellSite {
                table: s << 32 | cell.table,
                row: cell.row,
                col: cell.col,
                row_span: cell.row_span,
                col_span: cell.col_span,
                name: cell.name.clone(),
                text: text.join("\n"),
                text_only: cell.text_only && !cell.paras.is_empty(),
                address: address(section, top, scan.cell_chain(Some(c))),
            });
            cell_sites.push(Site::Cell {
                section: s,
                cell: c,
            });
        }
        for (c, control) in scan.controls.iter().enumerate() {
            let (top, cell) = control
                .para
                .map_or((0, None), |p| (scan.paras[p].top, scan.paras[p].cell));
            map.controls.push(fill::ControlSite {
                kind: control.kind,
                name: control.name.clone(),
                value: control.value.clone(),
                options: if control.free {
                    Vec::new()
                } else {
                    control.options.clone()
                },
                group: control.group.clone(),
                address: address(section, top, scan.cell_chain(cell)),
            });
            cell_sites.push(Site::Control {
                section: s,
                control: c,
            });
        }
    }
    (map, field_sites, cell_sites)
}

/// A value as the content of `t` elements (prefix `pre`): XML escaped, tabs and line breaks as
/// their elements; "" for an empty value (no empty `t`).
fn text_xml(pre: &str, text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut out = format!("<{pre}t>");
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            // The width is a layout cache 한글 recomputes; this is its default tab stop.
            '\t' => out.push_str(&format!(
                "<{pre}tab width=\"4000\" leader=\"0\" type=\"1\"/>"
            )),
            '\n' => out.push_str(&format!("<{pre}lineBreak/>")),
            c => out.push(c),
        }
    }
    out.push_str(&format!("</{pre}t>"));
    out
}

/// An open tag as written, made an open tag of an element with content (`<x/>` → `<x>`).
fn opening(tag: &[u8]) -> String {
    let tag = String::from_utf8_lossy(tag);
    match tag.strip_suffix("/>") {
        Some(head) => format!("{}>", head.trim_end()),
        None => tag.into_owned(),
    }
}

/// One paragraph holding one line of a value: the given paragraph and run open tags, the text;
/// an empty line holds one run and nothing in it, as 한글 writes an empty paragraph.
fn paragraph_xml(pre: &str, p_open: &str, run_open: &str, line: &str) -> String {
    let run = if line.is_empty() {
        format!("{}/>", run_open.trim_end_matches('>').trim_end())
    } else {
        format!("{run_open}{}</{pre}run>", text_xml(pre, line))
    };
    format!("{p_open}{run}</{pre}p>")
}

/// The edits of one section part: (start, end, replacement), non-overlapping.
type Splices = Vec<(usize, usize, String)>;

fn field_splices(section: &Section, begin: usize, end: usize, text: &str, out: &mut Splices) {
    let scan = &section.scan;
    let raw = &section.text;
    let (b, e) = (&scan.begins[begin], &scan.ends[end]);
    let begin_run = &scan.runs[b.run];
    let pre = &begin_run.prefix;
    let end_run = &scan.runs[e.run];
    let end_open = &raw[end_run.start..end_run.open_end];
    let same_open = end_open == &raw[begin_run.start..begin_run.open_end];
    let mut content = String::new();
    if e.para == b.para {
        content.push_str(&text_xml(pre, text));
    } else {
        // A field over several paragraphs keeps a paragraph per line: the first line ends the
        // begin's paragraph, the last starts the end's; a one-line value joins them.
        let p_open = {
            let p = &scan.paras[e.para];
            opening(&raw[p.start..p.open_end])
        };
        let run_open = opening(&raw[begin_run.start..begin_run.open_end]);
        let lines: Vec<&str> = text.split('\n').collect();
        if let [first, middle @ .., last] = lines.as_slice() {
            content.push_str(&text_xml(pre, first));
            content.push_str(&format!("</{pre}run></{pre}p>"));
            for line in middle {
                content.push_str(&paragraph_xml(pre, &p_open, &run_open, line));
            }
            content.push_str(&p_open);
            content.push_str(&opening(end_open));
            content.push_str(&text_xml(pre, last));
        } else {
            content.push_str(&text_xml(pre, text));
        }
        if let Some((from, to)) = scan.paras[e.para].lineseg {
            out.push((from, to, String::new()));
        }
    }
    let multi_line = e.para != b.para && text.contains('\n');
    if e.run != b.run && !same_open && !multi_line {
        content.push_str(&format!("</{pre}run>"));
        content.push_str(&String::from_utf8_lossy(end_open));
    }
    out.push((b.ctrl.1, e.ctrl.0, content));
    // 한글 marks an edited field dirty; a blank one stays as never edited (its guide shows).
    let dirty = if text.is_empty() { "0" } else { "1" };
    set_attr(raw, b.tag, "dirty", dirty, out);
    if let Some((from, to)) = scan.paras[b.para].lineseg.filter(|_| e.para == b.para) {
        out.push((from, to, String::new()));
    }
}

fn cell_splices(section: &Section, cell: usize, text: &str, out: &mut Splices) {
    let scan = &section.scan;
    let raw = &section.text;
    let cell = &scan.cells[cell];
    let (Some(&first), Some(&last)) = (cell.paras.first(), cell.paras.last()) else {
        return;
    };
    let p = &scan.paras[first];
    let pre = &p.prefix;
    let p_open = opening(&raw[p.start..p.open_end]);
    let run_open = match p.first_run.map(|r| &scan.runs[r]) {
        Some(r) if r.para == first => opening(&raw[r.start..r.open_end]),
        _ => format!("<{pre}run charPrIDRef=\"0\">"),
    };
    let mut content = String::new();
    for line in text.split('\n') {
        content.push_str(&paragraph_xml(pre, &p_open, &run_open, line));
    }
    out.push((p.start, scan.paras[last].end, content));
}

/// Set attribute `name` of the start tag at `tag` to `value` (already escaped): its value
/// replaced, or the attribute added after the element's name.
fn set_attr(raw: &[u8], tag: (usize, usize), name: &str, value: &str, out: &mut Splices) {
    let bytes = &raw[tag.0..tag.1];
    let key = format!(" {name}=\"");
    match find(bytes, key.as_bytes()) {
        Some(k) => {
            let at = tag.0 + k + key.len();
            let close = raw[at..tag.1]
                .iter()
                .position(|&c| c == b'"')
                .map_or(at, |n| at + n);
            out.push((at, close, value.to_string()));
        }
        None => {
            let name_end = bytes
                .iter()
                .position(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>')
                .unwrap_or(bytes.len());
            let at = tag.0 + name_end;
            out.push((at, at, format!(" {name}=\"{value}\"")));
        }
    }
}

/// Text as an XML attribute value or character data.
fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
    out
}

/// Set a form control: a checkbox or radio button ticked or cleared (a radio button ticked clears
/// the others of its group, in every section), an edit box's text, a combo or list box's choice.
fn control_splices(sections: &[Section], s: usize, c: usize, value: &str, out: &mut [Splices]) {
    let section = &sections[s];
    let control = &section.scan.controls[c];
    let raw = &section.text;
    let state = |on: bool| if on { "CHECKED" } else { "UNCHECKED" };
    match control.kind {
        "checkbox" | "radio" => {
            let on = value == "true";
            set_attr(raw, control.tag, "value", state(on), &mut out[s]);
            if control.kind == "radio" && on && control.group.is_some() {
                for (t, other) in sections.iter().enumerate() {
                    for (k, o) in other.scan.controls.iter().enumerate() {
                        if o.kind == "radio" && o.group == control.group && (t, k) != (s, c) {
                            set_attr(&other.text, o.tag, "value", state(false), &mut out[t]);
                        }
                    }
                }
            }
        }
        "combo_box" | "list_box" => set_attr(
            raw,
            control.tag,
            "selectedValue",
            &escaped(value),
            &mut out[s],
        ),
        _ => match control.text {
            // `<text/>`: the element written anew with the value.
            Some((element, inner)) if inner.0 == element.1 => {
                let tag = String::from_utf8_lossy(&raw[element.0..element.1]);
                let head = tag.trim_end_matches("/>").trim_end();
                let name = head
                    .trim_start_matches('<')
                    .split_whitespace()
                    .next()
                    .unwrap_or("text");
                out[s].push((
                    element.0,
                    element.1,
                    format!("{head}>{}</{name}>", escaped(value)),
                ));
            }
            Some((_, inner)) => out[s].push((inner.0, inner.1, escaped(value))),
            None => {}
        },
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn apply(text: &[u8], mut splices: Splices, part: &str) -> Result<Vec<u8>> {
    splices.sort_by_key(|s| (s.0, s.1));
    splices.dedup();
    let mut out = Vec::with_capacity(text.len() + 256);
    let mut at = 0;
    for (from, to, with) in splices {
        if from < at || to < from || to > text.len() {
            return Err(Error {
                code: ErrorCode::InvalidInput,
                message: format!("{part}: two keys fill overlapping places"),
                suggestion: "Fill a cell or a field with one key (a named cell holding a field is filled by the field's name).".into(),
            });
        }
        out.extend_from_slice(&text[at..from]);
        out.extend_from_slice(with.as_bytes());
        at = to;
    }
    out.extend_from_slice(&text[at..]);
    Ok(out)
}

/// The spine's section parts, as the reader takes them.
fn section_paths(pkg: &mut Package<'_>, options: &Options) -> Result<Vec<String>> {
    let names = pkg.names();
    let spine = match pkg.read(CONTENT_HPF)? {
        Some(bytes) => content::parse(&bytes, &options.limits)
            .map(|d| super::resolve_sections(&d, pkg, &names))
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let parts = if spine.is_empty() {
        super::sections_by_name(&names)
    } else {
        spine
    };
    Ok(parts
        .into_iter()
        .filter(|(_, present)| *present)
        .map(|(path, _)| path)
        .collect())
}

/// Fill the HWPX form in `bytes` with `values`: the new package (None when nothing changes)
/// and what was done.
pub fn fill(bytes: &[u8], values: &[(String, Value)], options: &Options) -> Result<Output> {
    let mut pkg = Package::open_with(bytes, options)?;
    package::check_is_hwpx(&mut pkg)?;
    if package::is_encrypted(&mut pkg)? {
        return Err(fill::not_writable(
            "password-protected HWPX",
            "its parts are encrypted and would have to be encrypted again",
        ));
    }
    let mut sections = Vec::new();
    for (index, path) in section_paths(&mut pkg, options)?.into_iter().enumerate() {
        let Some(text) = pkg.read(&path)? else {
            continue;
        };
        let scan = Scan::of(&text, &path, options)?;
        sections.push(Section {
            path,
            index: index as u32,
            text,
            scan,
        });
    }
    let (map, field_sites, cell_sites) = form_map(&sections);
    let (targets, plan) = fill::resolve(&map, values)?;
    let mut splices: Vec<Splices> = vec![Vec::new(); sections.len()];
    for target in &targets {
        match target.place {
            Place::Field(i) => {
                if let Site::Field {
                    section,
                    begin,
                    end,
                } = field_sites[i]
                {
                    field_splices(
                        &sections[section],
                        begin,
                        end,
                        &target.text,
                        &mut splices[section],
                    );
                }
            }
            Place::Cell(i) => {
                if let Site::Cell { section, cell } = cell_sites[i] {
                    cell_splices(
                        &sections[section],
                        cell,
                        &target.text,
                        &mut splices[section],
                    );
                }
            }
            Place::Control(i) => {
                if let Some(Site::Control { section, control }) =
                    cell_sites.get(map.cells.len() + i)
                {
                    control_splices(&sections, *section, *control, &target.text, &mut splices);
                }
            }
        }
    }
    let mut rewritten: Vec<(String, Vec<u8>)> = Vec::new();
    for (section, edits) in sections.iter().zip(splices) {
        if edits.is_empty() {
            continue;
        }
        let text = apply(&section.text, edits, &section.path)?;
        if text != section.text {
            rewritten.push((canonical_name(&section.path), text));
        }
    }
    let changed_parts = sections
        .iter()
        .filter(|s| rewritten.iter().any(|(n, _)| *n == canonical_name(&s.path)))
        .map(|s| s.path.clone())
        .collect();
    let bytes = if rewritten.is_empty() {
        None
    } else {
        Some(write_package(bytes, &rewritten)?)
    };
    Ok(Output {
        bytes,
        plan,
        changed_parts,
    })
}

fn zip_failed(e: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("writing the package: {e}"))
}

/// The package with the parts in `rewritten` (by canonical name) replaced: every other entry
/// copied as stored, in the package's order, the archive comment kept.
fn write_package(bytes: &[u8], rewritten: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(zip_failed)?;
    let mut writer = ZipWriter::new(Cursor::new(Vec::with_capacity(bytes.len() + 4096)));
    for i in 0..archive.len() {
        let entry = archive.by_index_raw(i).map_err(zip_failed)?;
        let name = entry.name().map_err(zip_failed)?.to_string();
        match rewritten.iter().find(|(n, _)| *n == canonical_name(&name)) {
            Some((_, text)) => {
                let method = match entry.compression() {
                    CompressionMethod::Stored => CompressionMethod::Stored,
                    _ => CompressionMethod::Deflated,
                };
                let mut opts = SimpleFileOptions::default().compression_method(method);
                if let Some(time) = entry.last_modified() {
                    opts = opts.last_modified_time(time);
                }
                drop(entry);
                writer.start_file(name, opts).map_err(zip_failed)?;
                writer.write_all(text).map_err(zip_failed)?;
            }
            None => writer.raw_copy_file(entry).map_err(zip_failed)?,
        }
    }
    let comment = archive.comment().to_vec();
    if !comment.is_empty() {
        writer
            .set_raw_comment(comment.into_boxed_slice())
            .map_err(zip_failed)?;
    }
    Ok(writer.finish().map_err(zip_failed)?.into_inner())
}
