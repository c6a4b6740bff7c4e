//! Tables: `tbl`, its rows and cells (addresses from `cellAddr`, or from the
//! grid for cells written without one), spans, and the Table block they
//! close into.

use super::pages::{PendingTable, TableFlow};
use super::{Frame, Parser};
use crate::common::lines::{CellLines, TableAnchor, TablePages, TableRows};
use crate::model::{Block, Provenance, Table, TableCell};
use crate::owpml::xml::{attr, attr_flag, attrs, attrs_u32, parse_u32, Tag};
use crate::Result;

pub(super) struct TableBuilder {
    rows: u32,
    cols: u32,
    /// `tr` elements seen and the next free column in the current one: the address of a cell
    /// written without `cellAddr` (minimal HWPX from other tools), until a `cellAddr` says otherwise.
    rows_seen: u32,
    next_col: u32,
    cells: Vec<TableCell>,
    pub(super) caption: Vec<Block>,
    provenance: Provenance,
    /// Cells whose lines run on to further pages.
    pages: TablePages,
    /// A section-level table: its rows, to lay out on pages (`pages::TableFlow`).
    flow: Option<Box<TableFlow>>,
    /// The height (`cellSz`) of the cell being read.
    cell_height: u32,
}

impl Parser<'_> {
    #[inline]
    pub(super) fn open_table(&mut self, e: &Tag<'_, '_>, depth: u32) -> Result<()> {
        self.enter_object()?;
        let provenance = self.provenance_here();
        let [rows, cols] = attrs_u32(e, ["rowCnt", "colCnt"]);
        let flow = self.para_mut().is_some_and(|p| p.section_level).then(|| {
            let [page_break, repeat] = attrs(e, ["pageBreak", "repeatHeader"]);
            let page_break = page_break.as_deref().unwrap_or("CELL");
            Box::new(TableFlow {
                rows: TableRows::new(rows.unwrap_or(0)),
                // Until its `pos` says otherwise: 한글's default, a table set as a character.
                anchor: TableAnchor {
                    inline: true,
                    paragraph_relative: false,
                    vertical_offset: 0,
                    stored_height: 0,
                },
                splits: page_break != "NONE",
                inside_rows: page_break == "TABLE",
                repeat_header: repeat.as_deref() == Some("1"),
            })
        });
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
                pages: TablePages::default(),
                flow,
                cell_height: 0,
            })),
        );
        Ok(())
    }

    /// The table's `pos`: how it sits (as a character, or relative to what, how far down).
    #[inline]
    pub(super) fn table_position(&mut self, e: &Tag<'_, '_>) {
        if let Some(Frame::Table(t)) = self.top() {
            if let Some(flow) = t.flow.as_mut() {
                let [inline, relative_to, offset] =
                    attrs(e, ["treatAsChar", "vertRelTo", "vertOffset"]);
                flow.anchor.inline = inline.as_deref() == Some("1");
                flow.anchor.paragraph_relative = relative_to.as_deref() == Some("PARA");
                flow.anchor.vertical_offset = offset
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .unwrap_or(0);
            }
        }
    }

    /// The table's `sz`: the height it was last laid out with.
    #[inline]
    pub(super) fn table_size(&mut self, e: &Tag<'_, '_>) {
        if let Some(Frame::Table(t)) = self.top() {
            if let Some(flow) = t.flow.as_mut() {
                let height = attr(e, "height").and_then(|v| parse_u32(&v)).unwrap_or(0);
                flow.anchor.stored_height = i64::from(height);
            }
        }
    }

    /// A cell's `cellSz`: its height, for its row.
    #[inline]
    pub(super) fn cell_size(&mut self, e: &Tag<'_, '_>) {
        let height = attr(e, "height").and_then(|v| parse_u32(&v)).unwrap_or(0);
        // The cell is on top; its table just below.
        if let [.., (_, Frame::Table(t)), (_, Frame::Cell(_))] = self.stack.as_mut_slice() {
            t.cell_height = height;
        }
    }

    #[inline]
    pub(super) fn open_row(&mut self) {
        if let Some(Frame::Table(t)) = self.top() {
            t.rows_seen += 1;
            t.next_col = 0;
        }
    }

    #[inline]
    pub(super) fn open_cell(&mut self, e: &Tag<'_, '_>, depth: u32) {
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
                    field_name: attr(e, "name")
                        .filter(|n| !n.is_empty())
                        .map(|n| n.into_owned()),
                    blocks: Vec::new(),
                })),
            );
            self.cell_lines.push(CellLines::default());
        }
    }

    #[inline]
    pub(super) fn cell_addr(&mut self, e: &Tag<'_, '_>) {
        if let Some(Frame::Cell(c)) = self.top() {
            let [row, col] = attrs_u32(e, ["rowAddr", "colAddr"]);
            c.row = row.unwrap_or(0);
            c.col = col.unwrap_or(0);
        }
    }

    #[inline]
    pub(super) fn cell_span(&mut self, e: &Tag<'_, '_>) {
        if let Some(Frame::Cell(c)) = self.top() {
            let [row_span, col_span] = attrs_u32(e, ["rowSpan", "colSpan"]);
            c.row_span = row_span.unwrap_or(1).max(1);
            c.col_span = col_span.unwrap_or(1).max(1);
        }
    }

    #[inline]
    pub(super) fn close_table(&mut self, t: TableBuilder) {
        self.object_depth = self.object_depth.saturating_sub(1);
        let TableBuilder {
            rows,
            cols,
            mut cells,
            caption,
            provenance,
            pages,
            flow,
            ..
        } = t;
        // A table that runs on to further pages adds them after the line anchoring it; one
        // of the section's may, by its rows' heights.
        let lines = pages.finish();
        if lines.0 > 0 || flow.is_some() {
            if let Some(p) = self.para_mut() {
                let object = p.objects.len();
                p.pending_tables.push(PendingTable {
                    position: p.chars + 8 * object as u32,
                    lines,
                    flow,
                    object,
                });
            }
        }
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

    #[inline]
    pub(super) fn close_cell(&mut self, c: TableCell) {
        let lines = self.cell_lines.pop().unwrap_or_default();
        if let Some(Frame::Table(t)) = self.top() {
            t.pages.cell(c.row, c.row_span, &lines);
            let height = std::mem::take(&mut t.cell_height);
            if let Some(flow) = t.flow.as_mut() {
                flow.rows
                    .cell(c.row, c.row_span, height, c.header, lines.count);
            }
            t.next_col = c.col.saturating_add(c.col_span);
            t.cells.push(c);
        }
    }
}
