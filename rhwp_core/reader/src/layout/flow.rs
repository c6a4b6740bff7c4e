//! A section as a flow of paragraphs with their stored line segments and the objects anchored
//! in them (tables with cells of paragraphs, pictures), and its placement on pages: what a
//! format whose parts arrive out of order (OWPML writes a cell's paragraphs before the cell's
//! size) builds first and lays out once a top-level paragraph is complete.
//!
//! Pages of top-level lines: a new page at a section's start, at a paragraph's page break, at a
//! line flagged first of a page, or where the vertical position falls back past the last
//! column; a table's rows past the body's bottom go on the next page and the flow continues
//! there.

use super::build::{boundaries, paragraph_lines, CharShape, Pages, Segment};
use super::{Align, BorderFill, Item, Line, Picture, Rect, Run};
use crate::error::{Error, Result};

/// A rectangle paragraphs are laid out in, page coordinates (HWPUNIT).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Area {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

/// A page's size, body area, and the header and footer areas above and below the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub width: i32,
    pub height: i32,
    pub body: Area,
    pub header: Area,
    pub footer: Area,
}

impl Default for Geometry {
    fn default() -> Self {
        // A4 with 한글's default margins (30/15/20/15 mm, header and footer 15 mm).
        Geometry::new(
            (59_528, 84_188),
            [8_504, 8_504, 5_668, 4_252, 4_252, 4_252, 0],
            false,
        )
    }
}

impl Geometry {
    /// From a page definition: paper size, margins (left, right, top, bottom, header, footer,
    /// gutter), landscape when the stored size is portrait.
    pub fn new(size: (i32, i32), margins: [i32; 7], landscape: bool) -> Self {
        let (mut w, mut h) = (size.0.clamp(1, 1 << 30), size.1.clamp(1, 1 << 30));
        if landscape && w < h {
            std::mem::swap(&mut w, &mut h);
        }
        let m = margins.map(|v| v.clamp(0, 1 << 30));
        let [left, right, top, bottom, header, footer, gutter] = m;
        let x = left.saturating_add(gutter);
        let y = top.saturating_add(header);
        let width = w.saturating_sub(x).saturating_sub(right);
        Geometry {
            width: w,
            height: h,
            body: Area {
                x,
                y,
                w: width,
                h: h.saturating_sub(y)
                    .saturating_sub(bottom)
                    .saturating_sub(footer),
            },
            header: Area {
                x,
                y: top,
                w: width,
                h: header,
            },
            footer: Area {
                x,
                y: h.saturating_sub(bottom).saturating_sub(footer),
                w: width,
                h: footer,
            },
        }
    }
}

/// The page number as a line where 한글 shows it: `position` 1–3 top left/centre/right of the
/// header area, 4–6 the same in the footer area; `None` for other positions (none, inside or
/// outside margins: not drawn yet).
pub fn page_number_line(g: &Geometry, position: u32, text: String) -> Option<Line> {
    if !(1..=6).contains(&position) {
        return None;
    }
    let (area, k) = if position <= 3 {
        (g.header, position)
    } else {
        (g.footer, position - 3)
    };
    Some(Line {
        x: area.x,
        baseline: area.y.saturating_add(area.h / 2).saturating_add(350),
        width: area.w,
        height: 1000,
        align: match k {
            1 => Align::Left,
            3 => Align::Right,
            _ => Align::Center,
        },
        last: true,
        runs: vec![Run {
            text,
            style: CharShape::default().style(1),
        }],
    })
}

/// Where an object sits relative to what (the common object properties of both formats).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Placement {
    /// Treated as a character: on its line.
    pub inline: bool,
    /// 0 paper, 1 page (body), 2 paragraph.
    pub vert_rel: u8,
    /// 0 paper, 1 page (body), 2 column, 3 paragraph.
    pub horz_rel: u8,
    /// 0 top/left, 1 centre, 2 bottom/right.
    pub vert_align: u8,
    pub horz_align: u8,
    pub vert_offset: i32,
    pub horz_offset: i32,
}

/// The line an object is anchored on.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anchor {
    pub page: u32,
    pub area: Area,
    pub line_x: i32,
    pub line_y: i32,
    pub para_y: i32,
}

/// The top-left corner of an object of `size` placed as `p` says.
pub fn place(p: &Placement, g: &Geometry, anchor: &Anchor, size: (i32, i32)) -> (i32, i32) {
    if p.inline {
        return (anchor.line_x, anchor.line_y);
    }
    let (vbase, vlen) = match p.vert_rel {
        0 => (0, g.height),
        1 => (g.body.y, g.body.h),
        _ => (anchor.para_y, anchor.area.h),
    };
    let (hbase, hlen) = match p.horz_rel {
        0 => (0, g.width),
        1 => (g.body.x, g.body.w),
        _ => (anchor.area.x, anchor.area.w),
    };
    let y = match p.vert_align {
        1 => vbase + (vlen - size.1) / 2,
        2 => vbase + vlen - size.1 - p.vert_offset,
        _ => vbase.saturating_add(p.vert_offset),
    };
    let x = match p.horz_align {
        1 => hbase + (hlen - size.0) / 2,
        2 => hbase + hlen - size.0 - p.horz_offset,
        _ => hbase.saturating_add(p.horz_offset),
    };
    (x, y)
}

/// Rows past the body's bottom move to the next page (top of the body): for each row
/// boundary, its page and how far up it moves. `ys`: row boundaries from the table's top `ty`.
pub fn row_pages(ys: &[i32], ty: i32, body: &Area, first: u32, flowing: bool) -> Vec<(u32, i32)> {
    let bottom = body.y.saturating_add(body.h);
    let mut out = vec![(first, 0i32); ys.len()];
    let (mut page, mut shift) = (first, 0i32);
    for k in 0..ys.len().saturating_sub(1) {
        let top = ty.saturating_add(ys[k]).saturating_sub(shift);
        let bot = ty.saturating_add(ys[k + 1]).saturating_sub(shift);
        if flowing && k > 0 && bot > bottom && top > body.y {
            page = page.saturating_add(1);
            shift = shift.saturating_add(top - body.y);
        }
        out[k] = (page, shift);
    }
    if let Some(last) = out.last_mut() {
        *last = (page, shift);
    }
    out
}

/// A paragraph as stored.
#[derive(Debug, Clone, Default)]
pub struct Para {
    pub chars: Vec<(u32, char)>,
    pub shapes: Vec<(u32, u32)>,
    pub segs: Vec<Segment>,
    pub align: Align,
    pub indent: i32,
    pub page_break: bool,
    /// A column layout (count, gap) set from this paragraph on.
    pub columns: Option<(i32, i32)>,
    /// Objects with the text position of their anchor.
    pub objects: Vec<(u32, Object)>,
    /// The text position reached while the paragraph is read.
    pub pos: u32,
}

impl Para {
    /// Its lines placed with the area's top-left at `origin`.
    pub fn lines(&self, shapes: &[CharShape], origin: (i32, i32)) -> Vec<Line> {
        paragraph_lines(
            &self.chars,
            &self.shapes,
            &self.segs,
            shapes,
            origin,
            (self.align, self.indent),
        )
    }
}

#[derive(Debug, Clone)]
pub enum Object {
    Table(Table),
    Picture {
        placement: Placement,
        size: (i32, i32),
        bin: String,
    },
}

#[derive(Debug, Clone, Default)]
pub struct Table {
    pub placement: Placement,
    pub size: (i32, i32),
    pub rows: u32,
    pub cols: u32,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, Default)]
pub struct Cell {
    pub col: u32,
    pub row: u32,
    pub cols: u32,
    pub rows: u32,
    pub size: (i32, i32),
    /// Left, right, top, bottom.
    pub margins: [i32; 4],
    /// 0 top, 1 centre, 2 bottom.
    pub valign: u8,
    pub border_fill: BorderFill,
    pub paras: Vec<Para>,
}

/// Where a cell's paragraphs go: inside its margins (left, right, top, bottom), moved down
/// as its vertical alignment (0 top, 1 centre, 2 bottom) says for content this tall.
pub fn cell_text_area(
    (x0, y0, x1, y1): (i32, i32, i32, i32),
    margins: [i32; 4],
    valign: u8,
    content: i32,
) -> Area {
    let inner = Area {
        x: x0.saturating_add(margins[0]),
        y: y0.saturating_add(margins[2]),
        w: (x1 - x0) - margins[0] - margins[1],
        h: (y1 - y0) - margins[2] - margins[3],
    };
    let dy = match valign {
        1 => (inner.h - content).max(0) / 2,
        2 => (inner.h - content).max(0),
        _ => 0,
    };
    Area {
        y: inner.y.saturating_add(dy),
        ..inner
    }
}

/// How tall a list of paragraphs is as laid out (the bottom of its last segment).
fn content_height(paras: &[Para]) -> i32 {
    paras
        .iter()
        .filter_map(|p| p.segs.last())
        .map(|s| s.vpos.saturating_add(s.height))
        .max()
        .unwrap_or(0)
}

/// Lays a section's flow out on pages.
pub struct Flow<'a> {
    pub pages: &'a mut Pages,
    pub shapes: &'a [CharShape],
    pub geometry: Geometry,
    pub max_depth: u32,
    page: u32,
    prev_vpos: i32,
    columns: (i32, i32),
    column: i32,
    region_top: i32,
    bottom: i32,
    /// Where the previous line ended (its position, height and spacing) in the column.
    prev_end: i32,
    new_section: bool,
    /// The section's headers and footers: from which page, footer or not, on which pages (0
    /// all, 1 even, 2 odd), their paragraphs.
    furniture: Vec<(u32, bool, u32, Vec<Para>)>,
    /// Page numbers: from which page, where (`page_number_line`), text before and after.
    page_numbers: Option<(u32, u32, String, String)>,
    section_first: u32,
}

impl<'a> Flow<'a> {
    pub fn new(pages: &'a mut Pages, shapes: &'a [CharShape], max_depth: u32) -> Self {
        Flow {
            pages,
            shapes,
            geometry: Geometry::default(),
            max_depth,
            page: 0,
            prev_vpos: 0,
            columns: (1, 0),
            column: 0,
            region_top: 0,
            bottom: 0,
            prev_end: 0,
            new_section: false,
            furniture: Vec::new(),
            page_numbers: None,
            section_first: 1,
        }
    }

    pub fn start_section(&mut self) {
        self.new_section = true;
        self.columns = (1, 0);
        self.furniture.clear();
        self.page_numbers = None;
        self.section_first = self.page.saturating_add(1);
    }

    /// A header (or footer) defined from the current page on.
    pub fn furniture(&mut self, footer: bool, parity: u32, paras: Vec<Para>) {
        if self.furniture.len() < 1000 {
            self.furniture
                .push((self.page.max(1), footer, parity, paras));
        }
    }

    /// Page numbers shown from the current page on.
    pub fn page_numbers(&mut self, position: u32, before: String, after: String) {
        self.page_numbers = Some((self.page.max(1), position, before, after));
    }

    /// Draw the section's headers, footers and page numbers on its pages (only the wanted
    /// one when a page is asked for).
    pub fn finish_section(&mut self, want: Option<u32>) -> Result<()> {
        let (first, last) = (self.section_first, self.page);
        let pages: Vec<u32> = match want {
            Some(w) if (first..=last).contains(&w) => vec![w],
            Some(_) => Vec::new(),
            None => (first..=last).collect(),
        };
        let furniture = std::mem::take(&mut self.furniture);
        for page in pages {
            for footer in [false, true] {
                let chosen = furniture.iter().rev().find(|f| {
                    f.1 == footer
                        && f.0 <= page
                        && match f.2 {
                            1 => page % 2 == 0,
                            2 => page % 2 == 1,
                            _ => true,
                        }
                });
                if let Some(f) = chosen {
                    let area = if footer {
                        self.geometry.footer
                    } else {
                        self.geometry.header
                    };
                    self.nested(&f.3, area, page, 1)?;
                }
            }
            if let Some((from, position, before, after)) = &self.page_numbers {
                if *from <= page {
                    if let Some(line) = page_number_line(
                        &self.geometry,
                        *position,
                        format!("{before}{page}{after}"),
                    ) {
                        self.pages.push(page, Item::Line(line))?;
                    }
                }
            }
        }
        Ok(())
    }

    pub fn page_count(&self) -> u32 {
        self.page
    }

    /// A top-level paragraph: its lines take their pages and columns; its objects go on the
    /// page of the line they are anchored on.
    pub fn paragraph(&mut self, p: &Para) -> Result<()> {
        let body = self.geometry.body;
        let lines = p.lines(self.shapes, (body.x, body.y));
        if p.segs.is_empty() && p.page_break && self.page > 0 {
            self.page += 1;
            self.reset_page();
        }
        let mut placed: Vec<(u32, i32, i32)> = Vec::with_capacity(p.segs.len());
        // Where the paragraph starts: where the previous one ended, unless it starts a page or
        // column (an object pushing its first line down sits between the two).
        let mut para_top = 0;
        for (n, seg) in p.segs.iter().enumerate() {
            let new_columns = if n == 0 { p.columns } else { None };
            if self.page == 0 {
                self.page = 1;
                self.reset_page();
            } else if self.new_section || (n == 0 && p.page_break) || seg.flags & 1 != 0 {
                self.page += 1;
                self.reset_page();
            } else if let Some(_c) = new_columns {
                if seg.vpos < self.bottom {
                    self.region_top = self.bottom;
                }
                self.column = 0;
            } else if seg.flags & 2 != 0 || seg.vpos < self.prev_vpos {
                self.column += 1;
                self.prev_end = 0;
                if self.column >= self.columns.0.max(1) {
                    self.page += 1;
                    self.reset_page();
                }
            }
            if n == 0 {
                para_top = seg.vpos.min(self.prev_end).max(0);
            }
            self.prev_end = seg
                .vpos
                .saturating_add(seg.height)
                .saturating_add(seg.spacing);
            if let Some(c) = new_columns {
                self.columns = (c.0.max(1), c.1);
            }
            self.new_section = false;
            self.prev_vpos = seg.vpos;
            let n_cols = self.columns.0.max(1);
            let width = (body.w - self.columns.1 * (n_cols - 1)) / n_cols;
            let dx = self.column * (width + self.columns.1);
            let dy = self.region_top;
            self.bottom = self
                .bottom
                .max(dy.saturating_add(seg.vpos).saturating_add(seg.height));
            placed.push((self.page, dx, dy));
        }
        for (line, &(page, dx, dy)) in lines.into_iter().zip(&placed) {
            if !line.runs.is_empty() {
                let mut line = line;
                line.x = line.x.saturating_add(dx);
                line.baseline = line.baseline.saturating_add(dy);
                self.pages.push(page, Item::Line(line))?;
            }
        }
        let page_now = self.page.max(1);
        for (pos, obj) in &p.objects {
            let k = p
                .segs
                .partition_point(|s| s.start <= *pos)
                .saturating_sub(1);
            let seg = p.segs.get(k).copied().unwrap_or_default();
            let (page, dx, dy) = placed.get(k).copied().unwrap_or((page_now, 0, 0));
            let area = Area {
                x: body.x + dx,
                y: body.y + dy,
                ..body
            };
            let anchor = Anchor {
                page,
                area,
                line_x: area.x.saturating_add(seg.x),
                line_y: area.y.saturating_add(seg.vpos),
                para_y: area.y.saturating_add(para_top),
            };
            let last = self.object(obj, &anchor, 1)?;
            if last > self.page {
                // The flow goes on where the table ended.
                self.page = last;
                self.reset_page();
                self.prev_vpos = 0;
            }
        }
        Ok(())
    }

    fn reset_page(&mut self) {
        self.column = 0;
        self.region_top = 0;
        self.bottom = 0;
        self.prev_vpos = 0;
        self.prev_end = 0;
    }

    /// Lay out an object; returns the last page it is on.
    fn object(&mut self, obj: &Object, anchor: &Anchor, depth: u32) -> Result<u32> {
        if depth > self.max_depth {
            return Err(Error::too_large("objects nested too deep to lay out"));
        }
        match obj {
            Object::Picture {
                placement,
                size,
                bin,
            } => {
                let (x, y) = place(placement, &self.geometry, anchor, *size);
                self.pages.push(
                    anchor.page,
                    Item::Picture(Picture {
                        x,
                        y,
                        width: size.0,
                        height: size.1,
                        bin: bin.clone(),
                    }),
                )?;
                Ok(anchor.page)
            }
            Object::Table(t) => self.table(t, anchor, depth),
        }
    }

    fn table(&mut self, t: &Table, anchor: &Anchor, depth: u32) -> Result<u32> {
        let (tx, ty) = place(&t.placement, &self.geometry, anchor, t.size);
        let xs = boundaries(
            t.cols,
            &t.cells
                .iter()
                .map(|c| (c.col, c.cols, c.size.0))
                .collect::<Vec<_>>(),
        );
        let heights: Vec<(u32, u32, i32)> = t
            .cells
            .iter()
            .map(|c| {
                let needed = content_height(&c.paras)
                    .saturating_add(c.margins[2])
                    .saturating_add(c.margins[3]);
                (
                    c.row,
                    c.rows,
                    if c.rows == 1 {
                        c.size.1.max(needed)
                    } else {
                        c.size.1
                    },
                )
            })
            .collect();
        let ys = boundaries(t.rows, &heights);
        let rows = row_pages(
            &ys,
            ty,
            &self.geometry.body,
            anchor.page,
            depth == 1 && !t.placement.inline,
        );
        let mut last_page = anchor.page;
        for cell in &t.cells {
            let (page, shift) = rows
                .get(cell.row as usize)
                .copied()
                .unwrap_or((anchor.page, 0));
            last_page = last_page.max(page);
            let at = |v: &[i32], k: u32, or: i32| v.get(k as usize).copied().unwrap_or(or);
            let x0 = tx.saturating_add(at(&xs, cell.col, 0));
            let x1 = tx.saturating_add(at(&xs, cell.col.saturating_add(cell.cols), cell.size.0));
            let y0 = ty
                .saturating_add(at(&ys, cell.row, 0))
                .saturating_sub(shift);
            let y1 = ty
                .saturating_add(at(&ys, cell.row.saturating_add(cell.rows), cell.size.1))
                .saturating_sub(shift);
            self.pages.push(
                page,
                Item::Rect(Rect::cell((x0, y0, x1, y1), &cell.border_fill)),
            )?;
            let area = cell_text_area(
                (x0, y0, x1, y1),
                cell.margins,
                cell.valign,
                content_height(&cell.paras),
            );
            self.nested(&cell.paras, area, page, depth)?;
        }
        Ok(last_page)
    }

    /// Paragraphs inside an object, all on `page`.
    fn nested(&mut self, paras: &[Para], area: Area, page: u32, depth: u32) -> Result<()> {
        for p in paras {
            let lines = p.lines(self.shapes, (area.x, area.y));
            for line in lines {
                if !line.runs.is_empty() {
                    self.pages.push(page, Item::Line(line))?;
                }
            }
            for (pos, obj) in &p.objects {
                let k = p
                    .segs
                    .partition_point(|s| s.start <= *pos)
                    .saturating_sub(1);
                let seg = p.segs.get(k).copied().unwrap_or_default();
                let anchor = Anchor {
                    page,
                    area,
                    line_x: area.x.saturating_add(seg.x),
                    line_y: area.y.saturating_add(seg.vpos),
                    para_y: area.y.saturating_add(p.segs.first().map_or(0, |s| s.vpos)),
                };
                self.object(obj, &anchor, depth + 1)?;
            }
        }
        Ok(())
    }
}
