//! Tables: `tbl`, its rows and cells (addresses from `cellAddr`, or from the
//! grid for cells written without one), spans, and the Table block they
//! close into.

use super::{Frame, Parser};
use crate::common::lines::{CellLines, TablePages};
use crate::model::{Block, Provenance, Table, TableCell};
use crate::owpml::xml::{attr, attr_flag, attrs_u32, Tag};
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
}

impl Parser<'_> {
    #[inline]
    pub(super) fn open_table(&mut self, e: &Tag<'_, '_>, depth: u32) -> Result<()> {
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
                pages: TablePages::default(),
            })),
        );
        Ok(())
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
            ..
        } = t;
        // A table that runs on to further pages adds them after the line anchoring it.
        let (extra, last) = pages.finish();
        if extra > 0 {
            if let Some(p) = self.para_mut() {
                // Its position in the line segments' units (a control is 8 of them).
                let pos = p.chars + 8 * p.objects.len() as u32;
                p.pending_tables.push((pos, extra, last));
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
            t.next_col = c.col.saturating_add(c.col_span);
            t.cells.push(c);
        }
    }
}
