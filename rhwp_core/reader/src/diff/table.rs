//! Two tables compared cell by cell. Rows are aligned by their text (the cells that start in
//! the row), so a row inserted or deleted is one, not a shift of every row below it; columns
//! likewise by the cells that start in them. The cells of aligned rows and columns are then
//! compared one to one by their grid position (a merged cell is found at its top-left
//! position; a changed span is a change of that cell).

use super::align::myers;
use super::text::{char_diff, Span};
use super::Work;
use crate::error::Result;
use crate::model::{Table, TableCell};
use crate::text::push_blocks;
use serde::Serialize;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A cell at its place in one table, with the texts of the cells that start in its row (in
/// column order; itself among them): a changed cell is read in its row.
#[derive(Debug, Clone, Serialize)]
pub struct CellAt {
    pub row: u32,
    pub col: u32,
    pub row_span: u32,
    pub col_span: u32,
    pub text: String,
    pub row_cells: Vec<String>,
}

/// A row or column one table has and the other has not: its index (0-based) and the texts of
/// the cells that start in it, in order.
#[derive(Debug, Clone, Serialize)]
pub struct Line {
    pub index: u32,
    pub cells: Vec<String>,
}

/// One cell that differs between two aligned tables.
#[derive(Debug, Clone, Serialize)]
pub struct CellChange {
    /// `modified` (text or span), `inserted` (a cell only the new table has at an aligned
    /// position) or `deleted`.
    pub kind: &'static str,
    pub old: Option<CellAt>,
    pub new: Option<CellAt>,
    /// The character diff of the cell's text (empty when only the span changed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<Span>,
}

/// What differs between two tables.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TableDiff {
    pub cells: Vec<CellChange>,
    /// Rows of the old table with no counterpart in the new one, and the reverse.
    pub rows_deleted: Vec<Line>,
    pub rows_inserted: Vec<Line>,
    pub columns_deleted: Vec<Line>,
    pub columns_inserted: Vec<Line>,
}

impl TableDiff {
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
            && self.rows_deleted.is_empty()
            && self.rows_inserted.is_empty()
            && self.columns_deleted.is_empty()
            && self.columns_inserted.is_empty()
    }
}

/// Edits beyond which rows or columns are paired by position instead of by text.
const MAX_LINE_EDITS: usize = 200;

struct Grid<'t> {
    rows: u32,
    cols: u32,
    cells: HashMap<(u32, u32), (&'t TableCell, String)>,
}

impl<'t> Grid<'t> {
    fn new(t: &'t Table, work: &mut Work) -> Result<Self> {
        work.spend(t.cells.len() as u64)?;
        let mut cells = HashMap::with_capacity(t.cells.len());
        // The grid the cells cover (a declared row count the cells do not fill is no row).
        let (mut rows, mut cols) = (0u32, 0u32);
        for cell in &t.cells {
            let mut text = String::new();
            push_blocks(&cell.blocks, &mut text);
            rows = rows.max(cell.row.saturating_add(cell.row_span.max(1)));
            cols = cols.max(cell.col.saturating_add(cell.col_span.max(1)));
            cells.entry((cell.row, cell.col)).or_insert((cell, text));
        }
        Ok(Grid { rows, cols, cells })
    }

    /// One key per row (or per column): the text and spans of the cells that start in it.
    fn line_keys(&self, by_row: bool, work: &mut Work) -> Result<Vec<u64>> {
        let (outer, inner) = if by_row {
            (self.rows, self.cols)
        } else {
            (self.cols, self.rows)
        };
        work.spend(u64::from(outer) * u64::from(inner))?;
        Ok((0..outer)
            .map(|o| {
                let mut h = DefaultHasher::new();
                for i in 0..inner {
                    let at = if by_row { (o, i) } else { (i, o) };
                    if let Some((cell, text)) = self.cells.get(&at) {
                        (cell.row_span, cell.col_span, text).hash(&mut h);
                    } else {
                        0u8.hash(&mut h);
                    }
                }
                h.finish()
            })
            .collect())
    }

    fn at(&self, row: u32, col: u32) -> Option<CellAt> {
        self.cells.get(&(row, col)).map(|(c, text)| CellAt {
            row,
            col,
            row_span: c.row_span,
            col_span: c.col_span,
            text: text.clone(),
            row_cells: self.line(true, row),
        })
    }

    /// The texts of the cells that start in row (or column) `index`, in order.
    fn line(&self, by_row: bool, index: u32) -> Vec<String> {
        let inner = if by_row { self.cols } else { self.rows };
        (0..inner)
            .filter_map(|i| {
                let at = if by_row { (index, i) } else { (i, index) };
                self.cells.get(&at).map(|(_, text)| text.clone())
            })
            .collect()
    }

    fn lines(&self, by_row: bool, indices: Vec<u32>) -> Vec<Line> {
        indices
            .into_iter()
            .map(|index| Line {
                index,
                cells: self.line(by_row, index),
            })
            .collect()
    }
}

/// Lines (rows or columns) of two tables: `(old, new)` pairs of the lines kept, then the old
/// lines with no counterpart, then the new ones.
type Lines = (Vec<(u32, u32)>, Vec<u32>, Vec<u32>);

/// Old line index → new line index for the lines kept, and the lines of each side left over.
fn align_lines(a: &[u64], b: &[u64], work: &mut Work) -> Result<Lines> {
    let exact = myers(a, b, MAX_LINE_EDITS, work)?.unwrap_or_default();
    let mut pairs = Vec::new();
    let (mut deleted, mut inserted) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0usize, 0usize);
    // Within each gap between equal lines, lines are paired in order (a changed row is still
    // the same row); what one side has more of is inserted or deleted, at the gap's end.
    for (ei, ej) in exact.into_iter().chain(std::iter::once((a.len(), b.len()))) {
        let common = (ei - i).min(ej - j);
        for k in 0..common {
            pairs.push(((i + k) as u32, (j + k) as u32));
        }
        deleted.extend((i + common..ei).map(|x| x as u32));
        inserted.extend((j + common..ej).map(|x| x as u32));
        if ei < a.len() {
            pairs.push((ei as u32, ej as u32));
        }
        i = ei + 1;
        j = ej + 1;
    }
    Ok((pairs, deleted, inserted))
}

/// The differences between `old` and `new`.
pub fn table_diff(old: &Table, new: &Table, work: &mut Work) -> Result<TableDiff> {
    let (ga, gb) = (Grid::new(old, work)?, Grid::new(new, work)?);
    let (rows, rows_deleted, rows_inserted) =
        align_lines(&ga.line_keys(true, work)?, &gb.line_keys(true, work)?, work)?;
    let (cols, columns_deleted, columns_inserted) = align_lines(
        &ga.line_keys(false, work)?,
        &gb.line_keys(false, work)?,
        work,
    )?;
    work.spend(rows.len() as u64 * cols.len() as u64)?;
    let mut cells = Vec::new();
    for &(ra, rb) in &rows {
        for &(ca, cb) in &cols {
            let (a, b) = (ga.at(ra, ca), gb.at(rb, cb));
            match (a, b) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    if a.text != b.text || a.row_span != b.row_span || a.col_span != b.col_span {
                        let spans = if a.text == b.text {
                            Vec::new()
                        } else {
                            char_diff(&a.text, &b.text, work)?
                        };
                        cells.push(CellChange {
                            kind: "modified",
                            old: Some(a),
                            new: Some(b),
                            spans,
                        });
                    }
                }
                (Some(a), None) => cells.push(CellChange {
                    kind: "deleted",
                    old: Some(a),
                    new: None,
                    spans: Vec::new(),
                }),
                (None, Some(b)) => cells.push(CellChange {
                    kind: "inserted",
                    old: None,
                    new: Some(b),
                    spans: Vec::new(),
                }),
            }
        }
    }
    Ok(TableDiff {
        cells,
        rows_deleted: ga.lines(true, rows_deleted),
        rows_inserted: gb.lines(true, rows_inserted),
        columns_deleted: ga.lines(false, columns_deleted),
        columns_inserted: gb.lines(false, columns_inserted),
    })
}
