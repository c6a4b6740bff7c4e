//! Pages and columns: the section's page definition (`pagePr`, `margin`), its
//! column count (`colPr`), and the line segments of the cached layout that say
//! where a page starts; `set_page` gives finished blocks their page.

use super::{DocState, Frame, ParaBuilder, Parser};
use crate::model::{Block, PageDefinition};
use crate::owpml::xml::{attr_u32, attrs, attrs_u32, parse_u32, Tag};

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
                let [left, right, top, bottom] = attrs_u32(e, ["left", "right", "top", "bottom"]);
                pd.margin_left = left.unwrap_or(0);
                pd.margin_right = right.unwrap_or(0);
                pd.margin_top = top.unwrap_or(0);
                pd.margin_bottom = bottom.unwrap_or(0);
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
        let [textpos, vertpos, horzpos] = attrs(e, ["textpos", "vertpos", "horzpos"]);
        let textpos = textpos.and_then(|v| parse_u32(&v)).unwrap_or(0);
        let vertpos = vertpos.map_or(0, |v| position(&v));
        if p.in_cell {
            let Some(lines) = self.cell_lines.last_mut() else {
                return;
            };
            for (extra, last) in take_pending(&mut p.pending_tables, textpos) {
                lines.table(extra, last);
            }
            let horzpos = horzpos.map_or(0, |v| position(&v));
            lines.line(clamp_i32(vertpos), clamp_i32(horzpos));
            return;
        }
        let st = &mut *self.state;
        for (extra, last) in take_pending(&mut p.pending_tables, textpos) {
            st.table(extra, last);
        }
        st.has_layout = true;
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

    /// A closing paragraph's tables not yet counted (anchored on its last line, or a paragraph
    /// without line segments).
    pub(super) fn tables_before(&mut self, p: &mut ParaBuilder, before: u32) {
        if p.in_cell {
            if let Some(lines) = self.cell_lines.last_mut() {
                for (extra, last) in take_pending(&mut p.pending_tables, before) {
                    lines.table(extra, last);
                }
            }
        } else if p.section_level {
            for (extra, last) in take_pending(&mut p.pending_tables, before) {
                self.state.table(extra, last);
            }
        }
        p.pending_tables.clear();
    }
}

impl DocState {
    /// A table ran on `extra` pages past the one it starts on; the next line is compared with
    /// where its last page's content ends.
    fn table(&mut self, extra: u32, last: Option<i32>) {
        if extra > 0 && self.page > 0 {
            self.page += extra;
            self.column = 0;
            self.prev_vertpos = Some(i64::from(last.unwrap_or(0)));
        }
    }
}

/// The pending tables placed before `before` (in line-segment units), taken out in order.
fn take_pending(
    pending: &mut Vec<(u32, u32, Option<i32>)>,
    before: u32,
) -> impl Iterator<Item = (u32, Option<i32>)> {
    let n = pending.iter().take_while(|t| t.0 < before).count();
    let taken: Vec<_> = pending.drain(..n).map(|t| (t.1, t.2)).collect();
    taken.into_iter()
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

pub(super) fn set_page(blocks: &mut [Block], page: Option<u32>) {
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
        Block::FormControl(x) => x.provenance.page = page,
        Block::Unknown(x) => x.provenance.page = page,
    }
}
