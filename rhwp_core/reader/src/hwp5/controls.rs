//! Controls (CTRL_HEADER and the records below it) → blocks and furniture.
//!
//! Record shapes, for a CTRL_HEADER at level L:
//! - `tbl `: [LIST_HEADER caption + its paragraphs], TABLE, then one LIST_HEADER per cell
//!   (column/row address and spans at bytes 8..16) followed by the cell's paragraphs, all at L+1;
//! - `gso `: [LIST_HEADER caption + paragraphs], one SHAPE_COMPONENT at L+1; inside a shape
//!   component (level M) at M+1: the text box's LIST_HEADER + paragraphs, the kind record
//!   (PICTURE, RECTANGLE, ...) and, for groups, the child SHAPE_COMPONENTs;
//! - `head`/`foot`/`fn  `/`en  `/`tcmt`: a LIST_HEADER + paragraphs at L+1;
//! - `eqed`: [caption], EQEDIT (property, script) at L+1;
//! - `secd`: PAGE_DEF at L+1; `cold`: the column count in its own data;
//! - `form`: FORM_OBJECT at L+1 (a form control, `fields::form_control`);
//! - fields (`%clk`, ...): [CTRL_DATA with the field name] at L+1, read with the text.

use super::body::Ctx;
use super::record::{ctrl_id, subtree_end, tag, Reader};
use crate::common::equation;
use crate::common::lines::CellLines;
use crate::model::{
    Block, Equation, Furniture, NoteRef, PageDefinition, Picture, Shape, Table, TableCell, Unknown,
};
use crate::{Error, Result};

/// Fields of the common object properties after the control id (spec "개체 공통 속성").
struct ObjectCommon {
    width: u32,
    height: u32,
    description: Option<String>,
}

fn object_common(data: &[u8]) -> ObjectCommon {
    // id, property, vertical offset, horizontal offset, width, height, z-order,
    // 4 margins (i16), instance id, page-break prevention, description.
    let mut r = Reader::at(data, 16);
    let width = r.u32();
    let height = r.u32();
    r.skip(4 + 8 + 4 + 4);
    let description = if r.remaining() >= 2 {
        Some(r.string()).filter(|s| !s.is_empty())
    } else {
        None
    };
    ObjectCommon {
        width,
        height,
        description,
    }
}

impl Ctx<'_> {
    /// The children of record `i` (one level down), within `..end`.
    fn children(&self, i: usize, end: usize) -> Vec<usize> {
        let level = self.recs[i].level + 1;
        (i + 1..end.min(self.recs.len()))
            .filter(|&j| self.recs[j].level == level)
            .collect()
    }

    /// Read one control. Blocks go to `out` (or to furniture); a note returns its reference.
    pub fn control(
        &mut self,
        c: usize,
        end: usize,
        offset: u32,
        out: &mut Vec<Block>,
    ) -> Result<Option<NoteRef>> {
        let data = self.data(c);
        let id = ctrl_id(data);
        match &id {
            b"secd" => self.section_definition(c, end),
            b"cold" => {
                let mut r = Reader::at(data, 4);
                let columns = ((r.u16() >> 2) & 0xFF) as u32;
                if self.columns == 0 {
                    self.columns = columns.max(1);
                }
            }
            b"tbl " => out.push(self.table(c, end, offset)?),
            b"gso " => {
                if let Some(b) = self.drawing_object(c, end, offset)? {
                    out.push(b);
                }
            }
            b"eqed" => out.push(self.equation(c, end, offset)?),
            b"form" => out.push(self.form(c, end, offset)),
            b"head" | b"foot" => {
                let applies = Reader::at(data, 4).u32() & 0b11;
                let blocks = self.first_list(c, end)?;
                let furniture = Furniture {
                    kind: if &id == b"head" { "header" } else { "footer" }.into(),
                    applies_to: Some(
                        match applies {
                            1 => "even",
                            2 => "odd",
                            _ => "both",
                        }
                        .into(),
                    ),
                    number: None,
                    author: None,
                    date: None,
                    anchor_text: None,
                    blocks,
                    provenance: self.provenance(offset, offset),
                };
                self.furniture.push(furniture);
            }
            b"fn  " | b"en  " => {
                let footnote = &id == b"fn  ";
                let counter = if footnote {
                    &mut self.footnotes
                } else {
                    &mut self.endnotes
                };
                *counter += 1;
                let stored = Reader::at(data, 4).u32();
                let number = if stored > 0 { stored } else { *counter };
                let blocks = self.first_list(c, end)?;
                let kind = if footnote { "footnote" } else { "endnote" };
                self.furniture.push(Furniture {
                    kind: kind.into(),
                    applies_to: None,
                    number: Some(number),
                    author: None,
                    date: None,
                    anchor_text: None,
                    blocks,
                    provenance: self.provenance(offset, offset),
                });
                return Ok(Some(NoteRef {
                    kind: kind.into(),
                    number,
                    offset,
                }));
            }
            // Hidden comments (숨은 설명) are notes the page does not show. Measured on the corpus:
            // its only hidden comment (hwpswift-constitution-commentary-2007) is empty, so the
            // readers' consensus gives no signal either way; the text is "the text the document
            // shows", so their paragraphs are left out of the text. An Unknown block
            // (object `hidden_comment`, no text) marks where one sits.
            b"tcmt" => {
                out.push(Block::Unknown(Unknown {
                    object: "hidden_comment".into(),
                    bin_data_id: None,
                    text: None,
                    provenance: self.provenance(offset, offset),
                }));
            }
            // Fields (%hlk, %clk, ...) are read with the text; auto numbers, bookmarks,
            // page controls and the like carry no content of their own.
            _ => {}
        }
        Ok(None)
    }

    fn section_definition(&mut self, c: usize, end: usize) {
        for j in self.children(c, end) {
            if self.recs[j].tag == tag::PAGE_DEF && self.page_def.is_none() {
                let mut r = Reader::new(self.data(j));
                let width = r.u32();
                let height = r.u32();
                let margin_left = r.u32();
                let margin_right = r.u32();
                let margin_top = r.u32();
                let margin_bottom = r.u32();
                r.skip(12); // header, footer, gutter
                let landscape = r.u32() & 1 != 0;
                self.page_def = Some(PageDefinition {
                    width,
                    height,
                    landscape,
                    margin_left,
                    margin_right,
                    margin_top,
                    margin_bottom,
                });
            }
        }
    }

    /// The paragraphs of the first LIST_HEADER below control `c`.
    fn first_list(&mut self, c: usize, end: usize) -> Result<Vec<Block>> {
        match self
            .children(c, end)
            .into_iter()
            .find(|&j| self.recs[j].tag == tag::LIST_HEADER)
        {
            Some(j) => self.list(j),
            None => Ok(Vec::new()),
        }
    }

    fn table(&mut self, c: usize, end: usize, offset: u32) -> Result<Block> {
        let mut rows = 0u32;
        let mut cols = 0u32;
        let mut caption = Vec::new();
        let mut cells = Vec::new();
        let mut seen_table = false;
        for j in self.children(c, end) {
            match self.recs[j].tag {
                tag::TABLE => {
                    let mut r = Reader::at(self.data(j), 4);
                    rows = r.u16() as u32;
                    cols = r.u16() as u32;
                    seen_table = true;
                }
                tag::LIST_HEADER if !seen_table => caption = self.list(j)?,
                tag::LIST_HEADER => {
                    let mut r = Reader::at(self.data(j), 8);
                    let col = r.u16() as u32;
                    let row = r.u16() as u32;
                    let col_span = (r.u16() as u32).max(1);
                    let row_span = (r.u16() as u32).max(1);
                    // A cell of a table laid out over pages is on its row's page, and a cell that
                    // runs on over pages has its paragraphs on theirs.
                    let table_page = self.anchor.page;
                    let row_page = self.row_pages.get(&c).and_then(|p| p.get(row as usize));
                    let cell_page =
                        table_page.map(|page| page.saturating_add(*row_page.unwrap_or(&0)));
                    self.anchor.page = cell_page;
                    let outer = std::mem::replace(
                        &mut self.cell_page,
                        cell_page.map(|page| super::body::CellPage {
                            page,
                            lines: CellLines::default(),
                            depth: self.depth + 1,
                        }),
                    );
                    let blocks = self.list(j);
                    self.cell_page = outer;
                    self.anchor.page = table_page;
                    let blocks = blocks?;
                    cells.push(TableCell {
                        row,
                        col,
                        row_span,
                        col_span,
                        header: false,
                        field_name: super::fields::cell_field_name(self.data(j)),
                        blocks,
                    });
                }
                _ => {}
            }
        }
        // Cells are stored row by row; keep that order but make it explicit.
        cells.sort_by_key(|cell| (cell.row, cell.col));
        Ok(Block::Table(Table {
            rows,
            cols,
            cells,
            caption,
            provenance: self.provenance(offset, offset + 1),
        }))
    }

    /// A form object (`form`: object common properties, then a FORM_OBJECT child holding its
    /// type and property string, see `fields::form_control`).
    fn form(&mut self, c: usize, end: usize, offset: u32) -> Block {
        let provenance = self.provenance(offset, offset + 1);
        match self
            .children(c, end)
            .into_iter()
            .find(|&j| self.recs[j].tag == tag::FORM_OBJECT)
        {
            Some(j) => {
                let mut control = super::fields::form_control(self.data(j));
                control.provenance = provenance;
                Block::FormControl(control)
            }
            None => Block::Unknown(Unknown {
                object: "form".into(),
                bin_data_id: None,
                text: None,
                provenance,
            }),
        }
    }

    fn equation(&mut self, c: usize, end: usize, offset: u32) -> Result<Block> {
        let mut script = String::new();
        let mut caption = Vec::new();
        for j in self.children(c, end) {
            match self.recs[j].tag {
                tag::EQEDIT => {
                    let mut r = Reader::at(self.data(j), 4);
                    script = r.string();
                }
                tag::LIST_HEADER => caption = self.list(j)?,
                _ => {}
            }
        }
        Ok(Block::Equation(Equation {
            latex: equation::to_latex(&script),
            script,
            caption,
            provenance: self.provenance(offset, offset + 1),
        }))
    }

    /// A `gso ` control: caption plus one shape component (possibly a group).
    fn drawing_object(&mut self, c: usize, end: usize, offset: u32) -> Result<Option<Block>> {
        let common = object_common(self.data(c));
        let mut caption = Vec::new();
        let mut block = None;
        for j in self.children(c, end) {
            match self.recs[j].tag {
                tag::LIST_HEADER => caption = self.list(j)?,
                tag::SHAPE_COMPONENT if block.is_none() => {
                    let e = subtree_end(self.recs, j);
                    block = Some(self.shape_component(j, e, true, offset, &common)?);
                }
                _ => {}
            }
        }
        let Some(mut block) = block else {
            return Ok(None);
        };
        match &mut block {
            Block::Picture(p) => {
                p.caption = caption;
                p.description = common.description.clone();
            }
            Block::Shape(s) => s.caption = caption,
            Block::Unknown(u) => {
                let mut text = String::new();
                crate::text::push_blocks(&caption, &mut text);
                if !text.is_empty() {
                    u.text = Some(text);
                }
            }
            _ => {}
        }
        Ok(Some(block))
    }

    /// One SHAPE_COMPONENT (at `i`, subtree to `end`): a picture, an object with text, or a group.
    fn shape_component(
        &mut self,
        i: usize,
        end: usize,
        top: bool,
        offset: u32,
        common: &ObjectCommon,
    ) -> Result<Block> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(Error::too_large(format!(
                "drawing objects nested more than {} deep",
                self.limits.max_depth
            )));
        }
        let data = self.data(i);
        let kind_id = ctrl_id(data);
        // The top-level component repeats its id; then x, y (i32), group level, version (u16),
        // original width/height, current width/height (u32).
        let mut r = Reader::at(data, if top { 8 } else { 4 } + 8 + 4 + 8);
        let (mut width, mut height) = (r.u32(), r.u32());
        if top {
            width = common.width;
            height = common.height;
        }
        let mut blocks = Vec::new();
        let mut bin_id: Option<u32> = None;
        let mut kind_tag = None;
        for j in self.children(i, end) {
            let rec = self.recs[j];
            match rec.tag {
                tag::LIST_HEADER => {
                    let mut text = self.list(j)?;
                    blocks.append(&mut text);
                }
                tag::SHAPE_COMPONENT => {
                    let e = subtree_end(self.recs, j);
                    blocks.push(self.shape_component(j, e, false, offset, common)?);
                }
                tag::SHAPE_COMPONENT_PICTURE => {
                    // border color, thickness, property (u32 each), 4 corner points (8 × i32),
                    // crop (4 × i32), inner margins (4 × u16), brightness, contrast, effect (u8), bin id (u16).
                    let mut r = Reader::at(self.data(j), 71);
                    let id = r.u16();
                    if !r.short && id > 0 {
                        bin_id = Some(id as u32);
                    }
                    kind_tag = Some(rec.tag);
                }
                tag::SHAPE_COMPONENT_OLE => {
                    // property (u32), extent (2 × i32), bin data id (u16).
                    let mut r = Reader::at(self.data(j), 12);
                    let id = r.u16();
                    if !r.short && id > 0 {
                        bin_id = Some(id as u32);
                    }
                    kind_tag = Some(rec.tag);
                }
                t => {
                    if kind_tag.is_none() {
                        kind_tag = Some(t);
                    }
                }
            }
        }
        self.depth -= 1;
        let provenance = self.provenance(offset, offset + 1);
        let shape_kind = match &kind_id {
            b"$pic" => {
                return Ok(Block::Picture(Picture {
                    bin_data_id: bin_id,
                    bin_data_name: bin_id.and_then(|id| self.info.bin_data_name(id)),
                    width,
                    height,
                    description: None,
                    caption: Vec::new(),
                    provenance,
                }))
            }
            b"$ole" | b"$cht" | b"$vid" => {
                let object = match (&kind_id, kind_tag) {
                    (b"$vid", _) | (_, Some(tag::VIDEO_DATA)) => "video",
                    (b"$cht", _) | (_, Some(tag::CHART_DATA)) => "chart",
                    _ => "ole",
                };
                let mut text = String::new();
                crate::text::push_blocks(&blocks, &mut text);
                return Ok(Block::Unknown(Unknown {
                    object: object.into(),
                    bin_data_id: bin_id,
                    text: if text.is_empty() { None } else { Some(text) },
                    provenance,
                }));
            }
            b"$rec" => "rectangle",
            b"$ell" => "ellipse",
            b"$pol" => "polygon",
            b"$lin" => "line",
            b"$arc" => "arc",
            b"$cur" => "curve",
            b"$con" => "container",
            b"$tat" => "textart",
            _ => match kind_tag {
                Some(tag::SHAPE_COMPONENT_RECTANGLE) => "rectangle",
                Some(tag::SHAPE_COMPONENT_ELLIPSE) => "ellipse",
                Some(tag::SHAPE_COMPONENT_POLYGON) => "polygon",
                Some(tag::SHAPE_COMPONENT_LINE) => "line",
                Some(tag::SHAPE_COMPONENT_ARC) => "arc",
                Some(tag::SHAPE_COMPONENT_CURVE) => "curve",
                Some(tag::SHAPE_COMPONENT_CONTAINER) => "container",
                Some(tag::SHAPE_COMPONENT_TEXTART) => "textart",
                _ => "unknown",
            },
        };
        Ok(Block::Shape(Shape {
            shape_kind: shape_kind.into(),
            blocks,
            caption: Vec::new(),
            provenance,
        }))
    }
}
