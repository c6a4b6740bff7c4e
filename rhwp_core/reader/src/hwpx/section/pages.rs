//! Pages and columns: the section's page definition (`pagePr`, `margin`), its
//! column count (`colPr`), and the line segments of the cached layout that say
//! where a page starts; `set_page` gives finished blocks their page.

use super::{Frame, Parser};
use crate::hwpx::xml::{attr_i64, attr_u32, attrs, attrs_u32, parse_u32, Tag};
use crate::model::{Block, PageDefinition};

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

    /// A line segment of the cached layout. Only those of section-level
    /// paragraphs count: a page starts where the vertical position falls
    /// back (after as many falls as the section has columns).
    pub(super) fn lineseg(&mut self, e: &Tag<'_, '_>) {
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
