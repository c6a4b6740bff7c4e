//! Pages and columns: the section's page definition (`pagePr`, `margin`), its
//! column count (`colPr`), and the line segments of the cached layout that say
//! where a page starts; `set_page` gives finished blocks their page.

use super::{DocState, Frame, ParaBuilder, Parser};
use crate::common::lines::{TableAnchor, TablePlacement, TableRows};
use crate::model::{Block, PageDefinition, Table};
use crate::owpml::xml::{attr_u32, attrs, attrs_u32, parse_u32, Tag};

/// A table anchored in a paragraph, counted once the line holding it is known.
pub(super) struct PendingTable {
    /// Its position in the line segments' units (a control is 8 of them).
    pub position: u32,
    /// What its cells' lines show: pages added and where its last page's content ends.
    pub lines: (u32, Option<i32>),
    /// A section-level table that flows with the text: its rows, to lay out on pages from the
    /// top of the line it is anchored on.
    pub flow: Option<Box<TableFlow>>,
    /// Its index among the paragraph's objects.
    pub object: usize,
}

/// A section-level table's rows and how it sits and breaks, for laying it out on pages.
pub(super) struct TableFlow {
    pub rows: TableRows,
    pub anchor: TableAnchor,
    /// `pageBreak`: `CELL` breaks between rows, `TABLE` inside rows too, `NONE` moves whole.
    pub splits: bool,
    pub inside_rows: bool,
    /// `repeatHeader`: the header rows repeat on each further page.
    pub repeat_header: bool,
}

impl Parser<'_> {
    #[inline]
    pub(super) fn open_page_pr(&mut self, e: &Tag<'_, '_>, depth: u32) {
        let [width, height, landscape] = attrs(e, ["width", "height", "landscape"]);
        let number =
            |v: Option<std::borrow::Cow<'_, str>>| v.and_then(|v| parse_u32(&v)).unwrap_or(0);
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

    #[inline]
    pub(super) fn margin(&mut self, e: &Tag<'_, '_>) {
        if matches!(self.top(), Some(Frame::PagePr)) {
            if let Some(pd) = self.section.page.as_mut() {
                let [left, right, top, bottom, header, footer] =
                    attrs_u32(e, ["left", "right", "top", "bottom", "header", "footer"])
                        .map(|v| v.unwrap_or(0));
                pd.margin_left = left;
                pd.margin_right = right;
                pd.margin_top = top;
                pd.margin_bottom = bottom;
                // The paper's height (its width when turned), less what is not body.
                let tall = if pd.landscape { pd.width } else { pd.height };
                self.body_height = [top, bottom, header, footer]
                    .iter()
                    .fold(i64::from(tall), |h, &m| h - i64::from(m))
                    .max(0);
            }
        }
    }

    #[inline]
    pub(super) fn col_pr(&mut self, e: &Tag<'_, '_>) {
        let n = attr_u32(e, "colCount").unwrap_or(1).clamp(1, 255);
        if self.section.paragraph_count <= 1 && self.section.blocks.is_empty() {
            self.section.columns = n;
        }
        self.columns = n;
    }

    /// A line segment of the cached layout. Section-level paragraphs' lines: a page starts
    /// where the vertical position falls back (after as many falls as the section has
    /// columns). Table cells' lines: a fall back to the same or an earlier column is the cell
    /// running on to the next page, which the table adds once it closes. Tables anchored on
    /// earlier lines of the paragraph are counted first.
    pub(super) fn lineseg(&mut self, e: &Tag<'_, '_>) {
        let columns = self.columns;
        let Some((_, Frame::Para(p))) = self.stack.last_mut() else {
            return;
        };
        if !p.section_level && !p.in_cell {
            return;
        }
        let [textpos, vertpos, horzpos, vertsize, spacing] =
            attrs(e, ["textpos", "vertpos", "horzpos", "vertsize", "spacing"]);
        let textpos = textpos.and_then(|v| parse_u32(&v)).unwrap_or(0);
        let vertpos = vertpos.map_or(0, |v| position(&v));
        if p.in_cell {
            let Some(lines) = self.cell_lines.last_mut() else {
                return;
            };
            for t in take_pending(&mut p.pending_tables, textpos) {
                lines.table(t.lines.0, t.lines.1);
            }
            let horzpos = horzpos.map_or(0, |v| position(&v));
            lines.line(clamp_i32(vertpos), clamp_i32(horzpos));
            return;
        }
        let st = &mut *self.state;
        for t in take_pending(&mut p.pending_tables, textpos) {
            st.place_table(t, self.body_height, &mut p.row_pages);
        }
        st.has_layout = true;
        let mut fresh = st.prev_vertpos.is_none();
        if let Some(prev) = st.prev_vertpos {
            if vertpos < prev {
                fresh = true;
                st.column += 1;
                if st.column >= columns {
                    st.page += 1;
                    st.column = 0;
                }
            }
        }
        st.prev_vertpos = Some(vertpos);
        // The room between the line before (its height and spacing) and this one, where a
        // table anchored here may lie; from the column's top on a new page or column.
        let bottom_before = if fresh { Some(0) } else { st.prev_bottom };
        st.room_above = bottom_before.map(|b| vertpos - b);
        let size = |v: Option<std::borrow::Cow<'_, str>>| v.map_or(0, |v| position(&v));
        st.prev_bottom = Some(vertpos + size(vertsize) + size(spacing));
        if !p.saw_lineseg {
            p.saw_lineseg = true;
            p.start_page = Some(st.page.max(1));
        }
    }

    /// A closing paragraph's tables not yet counted (anchored on its last line, or a paragraph
    /// without line segments).
    pub(super) fn tables_before(&mut self, p: &mut ParaBuilder, before: u32) {
        if p.in_cell {
            if let Some(lines) = self.cell_lines.last_mut() {
                for t in take_pending(&mut p.pending_tables, before) {
                    lines.table(t.lines.0, t.lines.1);
                }
            }
        } else if p.section_level {
            for t in take_pending(&mut p.pending_tables, before) {
                self.state
                    .place_table(t, self.body_height, &mut p.row_pages);
            }
        }
        p.pending_tables.clear();
    }
}

impl DocState {
    /// A section-level table anchored on the line just counted: its rows laid out from that
    /// line's top on a body `body` high (`TablePlacement`), the pages it adds counted, and its
    /// rows' pages kept for its cells.
    fn place_table(&mut self, t: PendingTable, body: i64, row_pages: &mut Vec<(usize, Vec<u32>)>) {
        let line_vpos = self.prev_vertpos.unwrap_or(0);
        let room_above = self.room_above;
        let (rows, inline) = match t.flow {
            Some(f) => {
                let TableFlow {
                    rows,
                    anchor,
                    splits,
                    inside_rows,
                    repeat_header,
                } = *f;
                let laid = anchor
                    .top(line_vpos, room_above, body)
                    .and_then(|top| rows.layout(top, body, splits, inside_rows, repeat_header));
                (laid, anchor.inline)
            }
            None => (None, true),
        };
        let placed = TablePlacement::new(t.lines, rows, inline);
        if let Some(rows) = placed.row_pages {
            let furthest = self
                .page
                .saturating_add(rows.iter().copied().max().unwrap_or(0));
            self.furthest_row_page = self.furthest_row_page.max(furthest);
            row_pages.push((t.object, rows));
        }
        if placed.counts {
            self.table(placed.extra, placed.last);
        }
    }

    /// A table ran on `extra` pages past the one it starts on; the next line is compared with
    /// where its last page's content ends.
    fn table(&mut self, extra: u32, last: Option<i32>) {
        if extra > 0 && self.page > 0 {
            self.page += extra;
            self.column = 0;
            self.prev_vertpos = Some(i64::from(last.unwrap_or(0)));
            self.prev_bottom = self.prev_vertpos;
        }
    }
}

/// The pending tables placed before `before` (in line-segment units), taken out in order.
fn take_pending(pending: &mut Vec<PendingTable>, before: u32) -> Vec<PendingTable> {
    let n = pending.iter().take_while(|t| t.position < before).count();
    pending.drain(..n).collect()
}

fn position(v: &str) -> i64 {
    match parse_u32(v) {
        Some(n) if !v.starts_with('+') => i64::from(n),
        _ => v.trim().parse::<i64>().unwrap_or(0),
    }
}

fn clamp_i32(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// No block past the document's last page `last`: a table moved whole to a next page that
/// no later line of the document reaches stays on the last one.
pub fn clamp_pages(blocks: &mut [Block], last: u32) {
    for block in blocks {
        // Only a section-level table's cells get pages of their own (`set_row_pages`).
        if let Block::Table(t) = block {
            for cell in &mut t.cells {
                if cell.blocks.iter().any(|b| b.provenance().page > Some(last)) {
                    set_page(&mut cell.blocks, Some(last));
                }
            }
        }
    }
}

/// A table laid out over pages from `page`: each cell's blocks on its row's page.
pub(super) fn set_row_pages(table: &mut Table, page: Option<u32>, rows: &[u32]) {
    let Some(page) = page else {
        return;
    };
    for cell in &mut table.cells {
        let row = rows.get(cell.row as usize).copied().unwrap_or(0);
        set_page(&mut cell.blocks, Some(page.saturating_add(row)));
    }
}

pub(super) fn set_page(blocks: &mut [Block], page: Option<u32>) {
    crate::model::set_pages(blocks, page);
}
