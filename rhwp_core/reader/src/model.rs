//! The document model both readers produce (HWP 5.0 and HWPX alike).
//!
//! Its serde shape *is* the IR shape: `rhwp_core/python/rhwp_core/ir.py` mirrors
//! it field for field (`schema/hwp_document.schema.json` is exported from there),
//! and the Python layer builds the IR objects by walking this serde output
//! (`rhwp_core/src/ir_objects.rs`), or validates its JSON. Keep the two in step:
//! a field added here must be added there (the tests compare both builds).
//!
//! Units: lengths are HWPUNIT (1/7200 inch), as both formats store them.

mod char_format;
pub mod field;
#[cfg(test)]
pub mod testing;

pub use char_format::CharFormat;

use crate::deferred::Deferred;
use serde::Serialize;

/// Bumped whenever the JSON shape changes in a way a consumer could notice.
/// 1.1 added fields, cell field names, form controls, memos (furniture of kind `memo`) and
/// tracked changes: all additions, so a 1.0 reader of the JSON still reads it.
pub const SCHEMA_VERSION: &str = "1.2";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Hwp,
    Hwpx,
    /// 한글 3.x ("HWP Document File V3.00").
    Hwp3,
    /// HWPML 2.x, the single-file XML format (`.hml`).
    Hwpml,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Metadata {
    pub title: Option<String>,
    pub subject: Option<String>,
    pub author: Option<String>,
    pub keywords: Option<String>,
    pub comments: Option<String>,
    pub last_saved_by: Option<String>,
    /// ISO 8601 (UTC when the file says so), as stored by the authoring program.
    pub created: Option<String>,
    pub modified: Option<String>,
}

/// An entry of the document's binary-data table (pictures, OLE objects).
#[derive(Debug, Clone, Serialize)]
pub struct BinData {
    /// The id controls refer to (HWP: 1-based index in DocInfo; HWPX: the item id's number when it has one).
    pub id: u32,
    /// `embedding`, `link` or `storage` (HWP); `embedding` for HWPX package items.
    pub storage: String,
    /// File name inside the package (`BIN0001.png`, `BinData/image1.png`) or the linked path.
    pub name: String,
    /// Lower-case extension without the dot (`png`, `jpg`, `ole`), when known.
    pub extension: Option<String>,
    /// Stored (possibly compressed) size in bytes, when the stream/entry exists.
    pub size: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Style {
    pub id: u32,
    pub name: String,
    pub english_name: Option<String>,
    /// `paragraph` or `character`.
    pub kind: String,
}

/// Where a block comes from. Offsets count Unicode scalar values (Python string indices) in the
/// paragraph's `text` (Rust `char`s, i.e. Python string indices).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Provenance {
    /// 0-based section index.
    pub section: u32,
    /// 0-based index of the section-level paragraph this block is in or anchored to.
    pub paragraph: u32,
    pub char_start: u32,
    pub char_end: u32,
    /// 1-based page as last laid out by the authoring program (cached line
    /// layout + explicit breaks); `None` when the file carries no layout.
    pub page: Option<u32>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Run {
    pub text: String,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub superscript: bool,
    pub subscript: bool,
    /// Hyperlink target when the run lies inside a hyperlink field.
    pub link: Option<String>,
    /// Set when the run is a tracked change (변경 내용 추적). A deleted run's text is not in
    /// its paragraph's `text` (the text is 한글's final view); every other run's is.
    pub change: Option<TrackedChange>,
}

/// A tracked change: who inserted or deleted the run's text, and when.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TrackedChange {
    /// `inserted` or `deleted`.
    pub kind: String,
    pub author: Option<String>,
    /// As stored (HWPX: `2024-05-01T09:30:00Z`-like; HWP 5.0: its system time), `None` when absent.
    pub time: Option<String>,
}

/// A field (필드): a stretch of a paragraph's text the document marks as one thing — a
/// click-here field (누름틀) to fill in, a date, a cross-reference, a mail-merge slot, a
/// formula, a bookmark. Hyperlinks are not listed here: they are runs' `link`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Field {
    /// `click_here`, `date`, `page_number`, `cross_reference`, `mail_merge`, `formula`,
    /// `bookmark`, `table_of_contents`, `summary`, `user_info`, `file_path`, `other`.
    pub kind: String,
    pub name: Option<String>,
    /// The instruction an empty click-here field shows in its place (안내문).
    pub guide: Option<String>,
    /// Whether a form-mode reader may fill it in (HWP: editable while read-only).
    pub editable: bool,
    /// The field's value: what the document holds between its start and end ("" when empty).
    pub value: String,
    /// The characters `[start, end)` of the paragraph's `text` that the field spans: its
    /// value, or, for an empty click-here field, the guide text shown in its place
    /// (`[name: guide]`, see `Document::show_empty_fields`).
    pub start: u32,
    pub end: u32,
    /// The field began in an earlier paragraph: a field over several paragraphs is listed in
    /// each, over the part that paragraph holds (`value` is that part), this flag set in all
    /// but the first (the form listing joins the parts).
    pub continued: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListMarker {
    /// `bullet` or `number`.
    pub kind: String,
    /// 1-based nesting level.
    pub level: u8,
    /// The marker as the document shows it (`•`, `1.`, `가)`), best effort.
    pub marker: String,
}

/// A reference from body text to a footnote or endnote.
#[derive(Debug, Clone, Serialize)]
pub struct NoteRef {
    /// `footnote` or `endnote`.
    pub kind: String,
    /// The note's number as shown.
    pub number: u32,
    /// Character offset in the paragraph text where the reference mark sits.
    pub offset: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Paragraph {
    /// The text as 한글 shows it: Hancom's private-use characters as the characters drawn for
    /// them (`common::private_use`).
    pub text: String,
    /// The text as the file stores it, only where it differs from `text` (a paragraph holding
    /// a private-use character with a known mapping; `None` elsewhere): what a writer
    /// round-trips. Offsets (runs, fields, note references) count in `text`.
    pub stored_text: Option<String>,
    /// The text cut where formatting or links change. Empty when nothing in the paragraph is
    /// formatted or linked: the text is then one plain run (most paragraphs of real documents;
    /// leaving them out keeps the IR of a 200-page report small).
    pub runs: Vec<Run>,
    pub style: Option<String>,
    /// 1..=6 when the paragraph is an outline/heading paragraph.
    pub heading_level: Option<u8>,
    pub list: Option<ListMarker>,
    pub note_refs: Vec<NoteRef>,
    /// `page` or `column` when the paragraph starts with an explicit break.
    pub break_before: Option<String>,
    /// Fields whose value lies in this paragraph, in text order.
    pub fields: Vec<Field>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, Serialize)]
pub struct TableCell {
    /// 0-based address of the cell's top-left grid position.
    pub row: u32,
    pub col: u32,
    pub row_span: u32,
    pub col_span: u32,
    pub header: bool,
    /// The cell's field name (셀 필드 이름), by which forms address it.
    pub field_name: Option<String>,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Table {
    pub rows: u32,
    pub cols: u32,
    /// Cells in reading order (row, then column).
    pub cells: Vec<TableCell>,
    pub caption: Vec<Block>,
    pub provenance: Provenance,
}

impl Table {
    /// The indices of the cells printed on `pages` (sorted), in order: a cell is on the page of
    /// its first block that has one (its row's, for a table laid out over several pages), an
    /// empty cell on its predecessor's, the first on the table's. None for a table without pages.
    pub fn cells_on_pages(&self, pages: &[u32]) -> Option<Vec<usize>> {
        let mut current = self.provenance.page?;
        let mut kept = Vec::with_capacity(self.cells.len());
        for (i, cell) in self.cells.iter().enumerate() {
            if let Some(p) = cell.blocks.iter().find_map(|b| b.provenance().page) {
                current = p;
            }
            if pages.binary_search(&current).is_ok() {
                kept.push(i);
            }
        }
        Some(kept)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Picture {
    pub bin_data_id: Option<u32>,
    /// The bin data's name (`BIN0001.png`), resolved from the bin-data table.
    pub bin_data_name: Option<String>,
    pub width: u32,
    pub height: u32,
    pub description: Option<String>,
    pub caption: Vec<Block>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, Serialize)]
pub struct Equation {
    /// The equation in HWP's equation-script syntax, as stored.
    pub script: String,
    /// The script as LaTeX; `None` when it does not translate (`common::equation`).
    pub latex: Option<String>,
    pub caption: Vec<Block>,
    pub provenance: Provenance,
}

impl Equation {
    /// The equation as the text shows it: `$LaTeX$`, or the script as it is when it does not
    /// translate.
    pub fn shown(&self) -> String {
        match &self.latex {
            Some(latex) => format!("${latex}$"),
            None => self.script.trim().to_owned(),
        }
    }
}

/// A drawing object that carries text: a text box, a rectangle or ellipse with
/// text in it, or a group/container of such objects.
#[derive(Debug, Clone, Serialize)]
pub struct Shape {
    /// `rectangle`, `ellipse`, `polygon`, `line`, `arc`, `curve`, `container`, `textart`, ...
    pub shape_kind: String,
    pub blocks: Vec<Block>,
    pub caption: Vec<Block>,
    pub provenance: Provenance,
}

/// Anything the reader recognised as an object but does not model further
/// (OLE objects, charts, video, forms): kept so consumers know it is there.
#[derive(Debug, Clone, Serialize)]
pub struct Unknown {
    /// The control id (`gso `, `ole`, `chart`, `form`, ...) or element name.
    pub object: String,
    pub bin_data_id: Option<u32>,
    /// Any text the object carries (e.g. a form control's caption).
    pub text: Option<String>,
    pub provenance: Provenance,
}

/// A form control (양식 개체) a reader fills in or ticks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FormControl {
    /// `checkbox`, `radio`, `combo_box`, `list_box`, `edit`, `button`, `scroll_bar`.
    pub control: String,
    pub name: Option<String>,
    pub caption: Option<String>,
    /// An edit box's or combo box's text, a list box's selection.
    pub value: Option<String>,
    /// Ticked (checkbox, radio button); `None` for controls that have no such state.
    pub checked: Option<bool>,
    /// A combo or list box's choices, where the format stores them.
    pub options: Vec<String>,
    /// A radio button's group.
    pub group: Option<String>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block {
    Paragraph(Paragraph),
    Table(Table),
    Picture(Picture),
    Equation(Equation),
    Shape(Shape),
    FormControl(FormControl),
    Unknown(Unknown),
}

/// Page headers/footers, foot/endnotes and memos: what is not the running body.
#[derive(Debug, Clone, Serialize)]
pub struct Furniture {
    /// `header`, `footer`, `footnote`, `endnote` or `memo` (메모: a reviewer's note on a
    /// stretch of the text, never part of that text; memos come after the notes).
    pub kind: String,
    /// `both`, `even` or `odd` for headers/footers; `None` for notes.
    pub applies_to: Option<String>,
    /// The note number (notes only).
    pub number: Option<u32>,
    /// A memo's author and date, when stored.
    pub author: Option<String>,
    pub date: Option<String>,
    /// The text a memo is attached to (its anchor's range; `provenance` says where it is).
    pub anchor_text: Option<String>,
    pub blocks: Vec<Block>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct PageDefinition {
    pub width: u32,
    pub height: u32,
    pub landscape: bool,
    pub margin_left: u32,
    pub margin_right: u32,
    pub margin_top: u32,
    pub margin_bottom: u32,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Section {
    pub index: u32,
    pub page: Option<PageDefinition>,
    /// Number of text columns the section starts with.
    pub columns: u32,
    /// Number of section-level paragraphs (including empty ones, which carry no block).
    pub paragraph_count: u32,
    pub blocks: Vec<Block>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Document {
    pub schema_version: &'static str,
    pub format: Format,
    /// `5.0.3.4` for HWP; the package's version for HWPX (read when first asked for: HWPX keeps
    /// it in a part of its own, `version.xml`, that nothing but the summary and the IR need).
    pub version: Deferred<String>,
    pub compressed: bool,
    pub distribution: bool,
    pub metadata: Metadata,
    /// Read when first asked for in HWPX (most callers want the text, which needs only
    /// the styles its paragraphs name).
    pub styles: Deferred<Vec<Style>>,
    pub bin_data: Vec<BinData>,
    pub sections: Vec<Section>,
    pub furniture: Vec<Furniture>,
    /// Page count as last laid out by the authoring program; `None` without layout data.
    pub pages: Option<u32>,
    /// What lenient reading skipped or repaired, one line each.
    pub warnings: Vec<String>,
}

impl Document {
    pub fn new(format: Format) -> Self {
        Document {
            schema_version: SCHEMA_VERSION,
            format,
            version: Deferred::default(),
            compressed: false,
            distribution: false,
            metadata: Metadata::default(),
            styles: Deferred::default(),
            bin_data: Vec::new(),
            sections: Vec::new(),
            furniture: Vec::new(),
            pages: None,
            warnings: Vec::new(),
        }
    }
}

impl FormControl {
    /// What 한글's page shows for the control, as text: a checkbox as `☑`/`☐` and a radio
    /// button as `◉`/`○` before its caption, a button as `[caption]`, an edit, combo or list
    /// box as its value. Every view writes this, so an agent reads a ticked box as ticked.
    pub fn shown(&self) -> String {
        let caption = self.caption.as_deref().unwrap_or("").trim();
        let with_caption = |mark: &str| {
            if caption.is_empty() {
                mark.to_string()
            } else {
                format!("{mark} {caption}")
            }
        };
        let on = self.checked == Some(true);
        match self.control.as_str() {
            "checkbox" => with_caption(if on { "☑" } else { "☐" }),
            "radio" => with_caption(if on { "◉" } else { "○" }),
            "button" if !caption.is_empty() => format!("[{caption}]"),
            _ => self.value.as_deref().unwrap_or("").trim().to_string(),
        }
    }
}

impl Run {
    /// A run of `text` in `format`, inside the hyperlink `link` if any, not a tracked change.
    pub fn formatted(text: String, format: CharFormat, link: Option<String>) -> Run {
        let CharFormat {
            bold,
            italic,
            underline,
            strike,
            superscript,
            subscript,
        } = format;
        Run {
            text,
            bold,
            italic,
            underline,
            strike,
            superscript,
            subscript,
            link,
            change: None,
        }
    }

    /// The run's character formatting.
    pub fn format(&self) -> CharFormat {
        CharFormat {
            bold: self.bold,
            italic: self.italic,
            underline: self.underline,
            strike: self.strike,
            superscript: self.superscript,
            subscript: self.subscript,
        }
    }

    /// A tracked deletion: its text is not in the paragraph's (final) text.
    pub fn is_deleted(&self) -> bool {
        self.change.as_ref().is_some_and(|c| c.kind == "deleted")
    }

    /// Whether the run carries no formatting and no link (a paragraph of such runs keeps none).
    pub fn is_plain(&self) -> bool {
        self.format() == CharFormat::default() && self.link.is_none() && self.change.is_none()
    }
}

/// Call `f` on every block of `blocks` and, depth first, on the blocks nested in them, as
/// `for_each_block_mut` does, without changing them.
pub fn for_each_block<'a>(blocks: &'a [Block], f: &mut impl FnMut(&'a Block)) {
    for block in blocks {
        f(block);
        match block {
            Block::Table(t) => {
                for_each_block(&t.caption, f);
                for cell in &t.cells {
                    for_each_block(&cell.blocks, f);
                }
            }
            Block::Picture(p) => for_each_block(&p.caption, f),
            Block::Equation(e) => for_each_block(&e.caption, f),
            Block::Shape(s) => {
                for_each_block(&s.blocks, f);
                for_each_block(&s.caption, f);
            }
            Block::Paragraph(_) | Block::FormControl(_) | Block::Unknown(_) => {}
        }
    }
}

/// Call `f` on every block of `blocks` and, depth first, on the blocks nested in them (table
/// cells and captions, shapes' text and captions, picture and equation captions).
pub fn for_each_block_mut(blocks: &mut [Block], f: &mut impl FnMut(&mut Block)) {
    for block in blocks {
        f(block);
        match block {
            Block::Table(t) => {
                for_each_block_mut(&mut t.caption, f);
                for cell in &mut t.cells {
                    for_each_block_mut(&mut cell.blocks, f);
                }
            }
            Block::Picture(p) => for_each_block_mut(&mut p.caption, f),
            Block::Equation(e) => for_each_block_mut(&mut e.caption, f),
            Block::Shape(s) => {
                for_each_block_mut(&mut s.blocks, f);
                for_each_block_mut(&mut s.caption, f);
            }
            Block::Paragraph(_) | Block::FormControl(_) | Block::Unknown(_) => {}
        }
    }
}

impl Document {
    /// Empty the runs of paragraphs that carry no formatting or link (see `Paragraph::runs`),
    /// and show each empty click-here field's guide in its place (`field::show_empty_fields`).
    /// Every reader builds runs and fields as it goes; this is the one place the rules apply.
    pub fn drop_plain_runs(&mut self) {
        self.for_each_block_mut(&mut |block| {
            if let Block::Paragraph(p) = block {
                if !p.fields.is_empty() {
                    field::show_empty_fields(p);
                }
                if p.runs.iter().all(Run::is_plain) {
                    p.runs = Vec::new();
                }
            }
        });
    }

    /// Every block of the body and the furniture, nested ones included (`for_each_block_mut`).
    pub fn for_each_block_mut(&mut self, f: &mut impl FnMut(&mut Block)) {
        for section in &mut self.sections {
            for_each_block_mut(&mut section.blocks, f);
        }
        for furniture in &mut self.furniture {
            for_each_block_mut(&mut furniture.blocks, f);
        }
    }
}

/// Give `blocks` and everything in them (captions, cells, a shape's text) the page `page`.
/// Nested blocks are bounded by `limits.max_depth` (checked when objects open).
pub fn set_pages(blocks: &mut [Block], page: Option<u32>) {
    for block in blocks {
        block.set_page(page);
    }
}

impl Block {
    /// This block and everything in it on page `page` (`set_pages`).
    pub fn set_page(&mut self, page: Option<u32>) {
        match self {
            Block::Paragraph(x) => x.provenance.page = page,
            Block::Table(x) => {
                x.provenance.page = page;
                set_pages(&mut x.caption, page);
                for c in &mut x.cells {
                    set_pages(&mut c.blocks, page);
                }
            }
            Block::Picture(x) => {
                x.provenance.page = page;
                set_pages(&mut x.caption, page);
            }
            Block::Equation(x) => {
                x.provenance.page = page;
                set_pages(&mut x.caption, page);
            }
            Block::Shape(x) => {
                x.provenance.page = page;
                set_pages(&mut x.blocks, page);
                set_pages(&mut x.caption, page);
            }
            Block::FormControl(x) => x.provenance.page = page,
            Block::Unknown(x) => x.provenance.page = page,
        }
    }

    pub fn provenance(&self) -> &Provenance {
        match self {
            Block::Paragraph(b) => &b.provenance,
            Block::Table(b) => &b.provenance,
            Block::Picture(b) => &b.provenance,
            Block::Equation(b) => &b.provenance,
            Block::Shape(b) => &b.provenance,
            Block::FormControl(b) => &b.provenance,
            Block::Unknown(b) => &b.provenance,
        }
    }

    /// The last page the block runs on to: a table laid out over several pages ends on its
    /// last row's page (its cells' blocks carry their rows' pages); any other block is on its
    /// own page. Nesting is bounded by `limits.max_depth`, checked when objects are read.
    pub fn last_page(&self) -> Option<u32> {
        match self {
            Block::Table(t) => t
                .cells
                .iter()
                .flat_map(|c| c.blocks.iter())
                .filter_map(Block::last_page)
                .chain(t.provenance.page)
                .max(),
            _ => self.provenance().page,
        }
    }

    /// What of the block is printed on `pages` (sorted): a table laid out over several pages
    /// keeps the cells of its rows on those pages (`Table::cells_on_pages`) and its caption only
    /// with its first page; any other block, or a table without pages, is kept whole.
    pub fn on_pages(&self, pages: &[u32]) -> Block {
        let Block::Table(t) = self else {
            return self.clone();
        };
        let Some(kept) = t.cells_on_pages(pages) else {
            return self.clone();
        };
        let first = t.provenance.page.unwrap_or(0);
        Block::Table(Table {
            rows: t.rows,
            cols: t.cols,
            cells: kept.into_iter().map(|i| t.cells[i].clone()).collect(),
            caption: if pages.binary_search(&first).is_ok() {
                t.caption.clone()
            } else {
                Vec::new()
            },
            provenance: t.provenance.clone(),
        })
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Block::Paragraph(_) => "paragraph",
            Block::Table(_) => "table",
            Block::Picture(_) => "picture",
            Block::Equation(_) => "equation",
            Block::Shape(_) => "shape",
            Block::FormControl(_) => "form_control",
            Block::Unknown(_) => "unknown",
        }
    }
}
