//! HWP 5.0 pages as 한글 last laid them out (`crate::layout`), read by a second pass over the
//! streams `read` reads: DocInfo's faces, character shapes, paragraph shapes and border fills,
//! and each section's page definition, line segments, character-shape positions, tables (cell
//! sizes, margins, border fills) and pictures. The page of every section-level line is the page
//! tracker's (`body::PageTracker`, the same calls `read` makes); what is inside a table or a box
//! goes on the page of the line it is anchored on, a table's rows moving to the next page where
//! they pass the body's bottom.

use super::body::{ctrl_class, CtrlClass, Ctx, PageTracker};
use super::container::Container;
use super::record::{self, ctrl_id, subtree_end, tag, Reader, Record};
use crate::layout::build::{boundaries, paragraph_lines, CharShape, Pages, Segment};
use crate::layout::flow::{
    cell_text_area, page_number_line, place, row_pages, Anchor, Area, Geometry, Placement,
};
use crate::layout::{Align, Border, BorderFill, Face, Item, Layout, Picture, Rect, Script, Stroke};
use crate::{Error, Options, Result};

/// DocInfo's border-fill records (spec "테두리/배경"): the tag after ID_MAPPINGS' neighbours.
const BORDER_FILL: u16 = tag::ID_MAPPINGS + 3;

/// What the layout needs from DocInfo.
#[derive(Debug, Default)]
struct Styles {
    faces: Vec<Face>,
    shapes: Vec<CharShape>,
    aligns: Vec<Align>,
    /// Each paragraph shape's first-line indent (HWPUNIT; positive: indented).
    indents: Vec<i32>,
    border_fills: Vec<BorderFill>,
    bin_names: Vec<String>,
}

/// 0x00BBGGRR (COLORREF) → 0xRRGGBB.
fn rgb(c: u32) -> u32 {
    ((c & 0xFF) << 16) | (c & 0xFF00) | ((c >> 16) & 0xFF)
}

/// Border thickness by its index (spec "테두리선 굵기"), in HWPUNIT.
fn border_width(index: u8) -> i32 {
    const MM100: [i32; 16] = [
        10, 12, 15, 20, 25, 30, 40, 50, 60, 70, 100, 150, 200, 300, 400, 500,
    ];
    MM100[usize::from(index).min(15)] * 7200 / 2540
}

fn stroke(kind: u8) -> Stroke {
    match kind {
        0 => Stroke::None,
        2 | 4 | 5 | 6 => Stroke::Dash,
        3 | 7 => Stroke::Dot,
        8..=10 => Stroke::Double,
        _ => Stroke::Solid,
    }
}

fn styles(stream: &[u8], records: &[Record]) -> Styles {
    let mut s = Styles::default();
    // Faces come grouped by script (한글, 영문, 한자, 일어, 기타, 기호, 사용자): ID_MAPPINGS
    // counts each group; a character shape names a face by its index within its group.
    let mut group_counts = [0u32; 7];
    for r in records {
        let d = r.data(stream);
        match r.tag {
            tag::ID_MAPPINGS => {
                let mut rd = Reader::at(d, 4);
                for g in &mut group_counts {
                    *g = rd.u32().min(1 << 16);
                }
            }
            tag::FACE_NAME => {
                let mut rd = Reader::new(d);
                let property = rd.u8();
                let name = rd.string();
                if property & 0x80 != 0 {
                    rd.skip(1);
                    let _alternative = rd.string();
                }
                let serif = if property & 0x40 != 0 {
                    // PANOSE: family kind, then serif style (11–13 sans, 2–10 serif kinds).
                    let _family = rd.u8();
                    match rd.u8() {
                        2..=10 => Some(true),
                        11..=13 => Some(false),
                        _ => None,
                    }
                } else {
                    None
                };
                s.faces.push(Face { name, serif });
            }
            tag::CHAR_SHAPE => s.shapes.push(char_shape(d)),
            tag::PARA_SHAPE => {
                s.indents.push(Reader::at(d, 12).i32() / 2);
                s.aligns.push(match (Reader::new(d).u32() >> 2) & 0b111 {
                    1 => Align::Left,
                    2 => Align::Right,
                    3 => Align::Center,
                    4 | 5 => Align::Distribute,
                    _ => Align::Justify,
                });
            }
            BORDER_FILL => s.border_fills.push(border_fill(d)),
            tag::BIN_DATA => s.bin_names.push(String::new()),
            _ => {}
        }
    }
    // Face ids per group → indices into the flat face list.
    let mut starts = [0u32; 7];
    let mut at = 0u32;
    for (g, n) in group_counts.iter().enumerate() {
        starts[g] = at;
        at = at.saturating_add(*n);
    }
    for shape in &mut s.shapes {
        for (g, f) in shape.faces.iter_mut().enumerate() {
            let flat = starts[g].saturating_add(*f);
            *f = if (flat as usize) < s.faces.len() {
                flat
            } else {
                u32::MAX
            };
        }
    }
    s
}

/// A CHAR_SHAPE record (spec "글자 모양"), face ids still per group.
fn char_shape(d: &[u8]) -> CharShape {
    let mut r = Reader::new(d);
    let mut c = CharShape::default();
    for f in &mut c.faces {
        *f = u32::from(r.u16());
    }
    for v in &mut c.ratio {
        *v = r.u8();
    }
    for v in &mut c.spacing {
        *v = r.u8() as i8;
    }
    for v in &mut c.rel_size {
        *v = r.u8();
    }
    for v in &mut c.offset {
        *v = r.u8() as i8;
    }
    c.size = r.i32();
    let p = r.u32();
    c.italic = p & 1 != 0;
    c.bold = p & (1 << 1) != 0;
    c.underline = (p >> 2) & 0b11 == 1;
    c.strike = (p >> 18) & 0b111 != 0;
    c.script = if p & (1 << 15) != 0 {
        Script::Super
    } else if p & (1 << 16) != 0 {
        Script::Sub
    } else {
        Script::Normal
    };
    r.skip(2); // shadow gaps
    c.color = rgb(r.u32());
    c
}

/// A BORDER_FILL record: property (u16), four borders (kind, thickness, colour) left, right,
/// top, bottom, the diagonal, then the fill (kind u32; bit 0: a solid colour follows).
fn border_fill(d: &[u8]) -> BorderFill {
    let mut r = Reader::at(d, 2);
    let mut bf = BorderFill::default();
    for b in &mut bf.borders {
        let kind = r.u8();
        let width = r.u8();
        let color = r.u32();
        *b = Border {
            stroke: stroke(kind),
            width: border_width(width),
            color: rgb(color),
        };
    }
    r.skip(6);
    let fill = r.u32();
    if fill & 1 != 0 {
        let bg = r.u32();
        // 0xFFFFFFFF: "no colour".
        if !r.short && bg != u32::MAX {
            bf.fill = Some(rgb(bg));
        }
    }
    bf
}

fn page_geometry(d: &[u8]) -> Geometry {
    let mut r = Reader::new(d);
    let v: Vec<i32> = (0..9).map(|_| r.u32().min(1 << 30) as i32).collect();
    let landscape = r.u32() & 1 != 0;
    // Stored: width, height, left, right, top, bottom, header, footer, gutter.
    Geometry::new(
        (v[0], v[1]),
        [v[2], v[3], v[4], v[5], v[6], v[7], v[8]],
        landscape,
    )
}

/// Where a paragraph's lines go: section-level lines take the tracker's pages, lines in a
/// table or box the page they are placed on.
enum Pager<'t> {
    Tracker(&'t mut PageTracker),
    Fixed(u32),
}

/// The text columns of the page being filled: which one a section-level line is in and where
/// the current column region starts (a paragraph changing the column layout starts a region
/// below what the page holds so far; its lines' positions start again from 0).
#[derive(Debug, Clone, Copy, Default)]
struct Columns {
    count: i32,
    gap: i32,
    column: i32,
    region_top: i32,
    page: u32,
    prev_vpos: i32,
    bottom: i32,
    /// Where the previous line ended (position, height, spacing) in its column.
    prev_end: i32,
}

impl Columns {
    /// The offset of a line (page `page`, segment `seg`) from the body's top-left; `new` is the
    /// column layout (count, gap) set by the line's paragraph, on its first line. Also where
    /// the line's paragraph starts (`top`): where the previous line ended, unless it starts a
    /// page or column (an object pushing a first line down sits between the two).
    fn place(
        &mut self,
        page: u32,
        seg: &Segment,
        new: Option<(i32, i32)>,
        body_w: i32,
    ) -> (i32, i32, i32) {
        if page != self.page {
            self.page = page;
            self.column = 0;
            self.region_top = 0;
            self.bottom = 0;
            self.prev_end = 0;
            if let Some((n, gap)) = new {
                (self.count, self.gap) = (n, gap);
            }
        } else if let Some((n, gap)) = new {
            if seg.vpos < self.bottom {
                self.region_top = self.bottom;
            }
            self.column = 0;
            (self.count, self.gap) = (n, gap);
        } else if seg.flags & 2 != 0 || seg.vpos < self.prev_vpos {
            self.column = (self.column + 1).min(self.count.max(1) - 1);
            self.prev_end = 0;
        }
        self.prev_vpos = seg.vpos;
        let top = seg.vpos.min(self.prev_end).max(0);
        self.prev_end = seg
            .vpos
            .saturating_add(seg.height)
            .saturating_add(seg.spacing);
        let n = self.count.max(1);
        let width = (body_w - self.gap * (n - 1)) / n;
        let dy = self.region_top;
        self.bottom = self
            .bottom
            .max(dy.saturating_add(seg.vpos).saturating_add(seg.height));
        (self.column * (width + self.gap), dy, top)
    }
}

/// A header or footer defined in the section: from which page, on which pages (0 all, 1 even,
/// 2 odd), its LIST_HEADER and the end of its control's records.
#[derive(Debug, Clone, Copy)]
struct Furniture {
    from_page: u32,
    footer: bool,
    parity: u32,
    list: usize,
    end: usize,
}

/// Where page numbers are shown (spec "쪽 번호 위치"): from which page, the position (1–3 top
/// left/centre/right, 4–6 bottom), and the characters around the number.
#[derive(Debug, Clone, Default)]
struct PageNumbers {
    from_page: u32,
    position: u32,
    before: String,
    after: String,
}

struct Pass<'a> {
    furniture: Vec<Furniture>,
    page_numbers: Option<PageNumbers>,
    columns: Columns,
    ctx: Ctx<'a>,
    styles: &'a Styles,
    pages: &'a mut Pages,
    geometry: Geometry,
    max_depth: u32,
}

/// The characters of a PARA_TEXT by unit position (controls left out, a tab as `'\t'`) and
/// the unit positions of its extended controls, in order.
fn para_chars(d: &[u8]) -> (Vec<(u32, char)>, Vec<u32>) {
    let units: Vec<u16> = d
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let mut chars = Vec::with_capacity(units.len());
    let mut controls = Vec::new();
    let mut k = 0usize;
    while k < units.len() {
        let u = units[k];
        let pos = k as u32;
        if u < 32 {
            match ctrl_class(u) {
                CtrlClass::Char => {
                    match u {
                        10 => chars.push((pos, '\n')),
                        13 => chars.push((pos, '\r')),
                        24 => chars.push((pos, '-')),
                        30 | 31 => chars.push((pos, ' ')),
                        _ => {}
                    }
                    k += 1;
                }
                CtrlClass::Inline => {
                    if u == 9 {
                        chars.push((pos, '\t'));
                    }
                    k += 8;
                }
                CtrlClass::Extended => {
                    controls.push(pos);
                    k += 8;
                }
            }
            continue;
        }
        let c = if (0xD800..0xDC00).contains(&u) {
            match units.get(k + 1) {
                Some(&lo) if (0xDC00..0xE000).contains(&lo) => {
                    k += 1;
                    char::from_u32(
                        0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(lo) - 0xDC00),
                    )
                }
                _ => None,
            }
        } else {
            char::from_u32(u32::from(u))
        };
        if let Some(c) = c {
            chars.push((pos, c));
        }
        k += 1;
    }
    (chars, controls)
}

fn segments(d: &[u8]) -> Vec<Segment> {
    d.chunks_exact(36)
        .map(|s| {
            let mut r = Reader::new(s);
            Segment {
                start: r.u32(),
                vpos: r.i32(),
                height: r.i32(),
                text_height: r.i32(),
                baseline: r.i32(),
                spacing: r.i32(),
                x: r.i32(),
                width: r.i32(),
                flags: r.u32(),
            }
        })
        .collect()
}

impl Pass<'_> {
    fn children(&self, i: usize, end: usize) -> impl Iterator<Item = usize> + '_ {
        let level = self.ctx.recs[i].level + 1;
        (i + 1..end.min(self.ctx.recs.len())).filter(move |&j| self.ctx.recs[j].level == level)
    }

    /// One paragraph (PARA_HEADER at `i`) laid out in `area`.
    fn paragraph(
        &mut self,
        i: usize,
        end: usize,
        area: Area,
        pager: &mut Pager<'_>,
        depth: u32,
    ) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::too_large("objects nested too deep to lay out"));
        }
        let mut h = Reader::new(self.ctx.data(i));
        h.skip(8);
        let para_shape = h.u16();
        h.skip(1);
        let break_type = h.u8();
        let (mut text, mut shapes, mut segs) = (&[][..], &[][..], &[][..]);
        let mut ctrls = Vec::new();
        let mut new_columns = None;
        for j in self.children(i, end).collect::<Vec<_>>() {
            match self.ctx.recs[j].tag {
                tag::PARA_TEXT => text = self.ctx.data(j),
                tag::PARA_CHAR_SHAPE => shapes = self.ctx.data(j),
                tag::PARA_LINE_SEG => segs = self.ctx.data(j),
                tag::CTRL_HEADER => {
                    let d = self.ctx.data(j);
                    if &ctrl_id(d) == b"cold" {
                        let mut r = Reader::at(d, 4);
                        let n = i32::from((r.u16() >> 2) & 0xFF).max(1);
                        new_columns = Some((n, i32::from(r.u16())));
                    }
                    ctrls.push(j);
                }
                _ => {}
            }
        }
        // A section definition sets the page from this paragraph on.
        for &c in &ctrls {
            if &ctrl_id(self.ctx.data(c)) == b"secd" {
                let end_c = subtree_end(self.ctx.recs, c);
                let def = self
                    .children(c, end_c)
                    .find(|&j| self.ctx.recs[j].tag == tag::PAGE_DEF);
                if let Some(p) = def {
                    self.geometry = page_geometry(self.ctx.data(p));
                    self.pages.size = (self.geometry.width, self.geometry.height);
                }
            }
        }
        let (mut chars, controls) = para_chars(text);
        // A page-number control (atno of the page kind) in a header, footer or box shows the
        // number of the page it is drawn on.
        if let Pager::Fixed(page) = pager {
            for (k, &c) in ctrls.iter().enumerate() {
                let d = self.ctx.data(c);
                if &ctrl_id(d) == b"atno" && Reader::at(d, 4).u32() & 0xF == 0 {
                    if let Some(&at) = controls.get(k) {
                        let from = chars.partition_point(|ch| ch.0 < at);
                        let digits: Vec<(u32, char)> =
                            page.to_string().chars().map(|c| (at, c)).collect();
                        chars.splice(from..from, digits);
                    }
                }
            }
        }
        let shape_pos: Vec<(u32, u32)> = shapes
            .chunks_exact(8)
            .map(|p| {
                let mut r = Reader::new(p);
                (r.u32(), r.u32())
            })
            .collect();
        let seg_list = segments(segs);
        let line_pages: Vec<u32> = match pager {
            Pager::Tracker(tracker) => {
                let anchors: Vec<(u32, u32)> = controls.iter().map(|&u| (0, u)).collect();
                let page_break = break_type & (0x04 | 0x01) != 0;
                let tracked = self
                    .ctx
                    .track_lines(tracker, segs, &ctrls, &anchors, page_break);
                tracked.iter().map(|l| l.1).collect()
            }
            Pager::Fixed(p) => vec![*p; seg_list.len()],
        };
        let area = if matches!(pager, Pager::Tracker(_)) {
            self.geometry.body
        } else {
            area
        };
        let indent = self
            .styles
            .indents
            .get(usize::from(para_shape))
            .copied()
            .unwrap_or(0);
        let align = self
            .styles
            .aligns
            .get(usize::from(para_shape))
            .copied()
            .unwrap_or_default();
        let mut lines = paragraph_lines(
            &chars,
            &shape_pos,
            &seg_list,
            &self.styles.shapes,
            (area.x, area.y),
            (align, indent),
        );
        // Section-level lines: moved into their column (region).
        let mut shifts = vec![(0, 0); seg_list.len()];
        let mut para_top = seg_list.first().map_or(0, |s| s.vpos);
        if matches!(pager, Pager::Tracker(_)) {
            for (n, seg) in seg_list.iter().enumerate() {
                let page = line_pages.get(n).copied().unwrap_or(1);
                let new = if n == 0 { new_columns } else { None };
                let (dx, dy, top) = self.columns.place(page, seg, new, area.w);
                shifts[n] = (dx, dy);
                if n == 0 {
                    para_top = top;
                }
                if let Some(l) = lines.get_mut(n) {
                    l.x = l.x.saturating_add(shifts[n].0);
                    l.baseline = l.baseline.saturating_add(shifts[n].1);
                }
            }
        }
        let fallback_page = match pager {
            Pager::Tracker(t) => t.current().unwrap_or(1),
            Pager::Fixed(p) => *p,
        };
        for (n, line) in lines.into_iter().enumerate() {
            let page = line_pages.get(n).copied().unwrap_or(fallback_page);
            if !line.runs.is_empty() {
                self.pages.push(page, Item::Line(line))?;
            }
        }
        // Controls: the k-th CTRL_HEADER is the k-th extended control of the text.
        for (k, &c) in ctrls.iter().enumerate() {
            let unit = controls.get(k).copied().unwrap_or(0);
            let line = seg_list
                .partition_point(|s| s.start <= unit)
                .saturating_sub(1);
            let page = line_pages.get(line).copied().unwrap_or(fallback_page);
            let seg = seg_list.get(line).copied().unwrap_or_default();
            let (dx, dy) = shifts.get(line).copied().unwrap_or_default();
            let anchor = Anchor {
                page,
                area: Area {
                    x: area.x + dx,
                    y: area.y + dy,
                    ..area
                },
                line_x: area.x.saturating_add(seg.x).saturating_add(dx),
                line_y: area.y.saturating_add(seg.vpos).saturating_add(dy),
                para_y: area.y.saturating_add(para_top).saturating_add(dy),
            };
            let end_c = subtree_end(self.ctx.recs, c);
            match &ctrl_id(self.ctx.data(c)) {
                b"tbl " => self.table(c, end_c, anchor, depth + 1)?,
                b"gso " => self.drawing(c, end_c, anchor, depth + 1)?,
                id @ (b"head" | b"foot") if matches!(pager, Pager::Tracker(_)) => {
                    let list = self
                        .children(c, end_c)
                        .find(|&j| self.ctx.recs[j].tag == tag::LIST_HEADER);
                    if let (Some(list), true) = (list, self.furniture.len() < 1000) {
                        self.furniture.push(Furniture {
                            from_page: page,
                            footer: id == b"foot",
                            parity: Reader::at(self.ctx.data(c), 4).u32() & 0b11,
                            list,
                            end: end_c,
                        });
                    }
                }
                b"pgnp" => {
                    let mut r = Reader::at(self.ctx.data(c), 4);
                    let position = (r.u32() >> 8) & 0xF;
                    let _user = r.u16();
                    let wchar = |u: u16| char::from_u32(u32::from(u)).filter(|c| !c.is_control());
                    let (prefix, suffix, dash) = (wchar(r.u16()), wchar(r.u16()), wchar(r.u16()));
                    let dash = dash.map(|d| format!("{d} ")).unwrap_or_default();
                    self.page_numbers = Some(PageNumbers {
                        from_page: page,
                        position,
                        before: format!("{dash}{}", prefix.map(String::from).unwrap_or_default()),
                        after: format!(
                            "{}{}",
                            suffix.map(String::from).unwrap_or_default(),
                            dash.chars().rev().collect::<String>()
                        ),
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Where an object (table, picture) goes, from its common properties (spec "개체 공통 속성":
    /// property, vertical and horizontal offset) and the line it is anchored on.
    fn place(&self, d: &[u8], anchor: &Anchor, size: (i32, i32)) -> (i32, i32) {
        let mut r = Reader::at(d, 4);
        let p = r.u32();
        let placement = Placement {
            inline: p & 1 != 0,
            vert_rel: ((p >> 3) & 0b11).min(2) as u8,
            horz_rel: ((p >> 8) & 0b11) as u8,
            vert_align: ((p >> 5) & 0b111).min(2) as u8,
            horz_align: ((p >> 10) & 0b111).min(2) as u8,
            vert_offset: r.i32(),
            horz_offset: r.i32(),
        };
        place(&placement, &self.geometry, anchor, size)
    }

    fn table(&mut self, c: usize, end: usize, anchor: Anchor, depth: u32) -> Result<()> {
        if depth > self.max_depth {
            return Err(Error::too_large("tables nested too deep to lay out"));
        }
        let d = self.ctx.data(c);
        let mut r = Reader::at(d, 16);
        let size = (r.u32().min(1 << 30) as i32, r.u32().min(1 << 30) as i32);
        let (tx, ty) = self.place(d, &anchor, size);
        struct Cell {
            list: usize,
            col: u32,
            row: u32,
            cols: u32,
            rows: u32,
            w: i32,
            h: i32,
            margins: [i32; 4],
            valign: u32,
            border_fill: u16,
        }
        let mut cells = Vec::new();
        let (mut nrows, mut ncols) = (0u32, 0u32);
        for j in self.children(c, end).collect::<Vec<_>>() {
            let rec = self.ctx.recs[j];
            let d = self.ctx.data(j);
            match rec.tag {
                tag::TABLE => {
                    let mut r = Reader::at(d, 4);
                    nrows = u32::from(r.u16());
                    ncols = u32::from(r.u16());
                }
                tag::LIST_HEADER => {
                    let mut r = Reader::at(d, 2);
                    let property = r.u32();
                    r.skip(2);
                    let col = u32::from(r.u16());
                    let row = u32::from(r.u16());
                    let cols = u32::from(r.u16()).max(1);
                    let rows = u32::from(r.u16()).max(1);
                    let w = r.u32().min(1 << 30) as i32;
                    let h = r.u32().min(1 << 30) as i32;
                    let margins = [r.u16(), r.u16(), r.u16(), r.u16()].map(i32::from);
                    let border_fill = r.u16();
                    cells.push(Cell {
                        list: j,
                        col,
                        row,
                        cols,
                        rows,
                        w,
                        h,
                        margins,
                        valign: (property >> 5) & 0b11,
                        border_fill,
                    });
                }
                _ => {}
            }
        }
        let xs = boundaries(
            ncols,
            &cells
                .iter()
                .map(|c| (c.col, c.cols, c.w))
                .collect::<Vec<_>>(),
        );
        // 한글 grows a row to its content where the stored cell height is smaller.
        let heights: Vec<(u32, u32, i32)> = cells
            .iter()
            .map(|c| {
                let needed = self
                    .list_height(c.list, end)
                    .saturating_add(c.margins[2])
                    .saturating_add(c.margins[3]);
                (
                    c.row,
                    c.rows,
                    if c.rows == 1 { c.h.max(needed) } else { c.h },
                )
            })
            .collect();
        let ys = boundaries(nrows, &heights);
        // Rows past the body's bottom go to the next page, starting at the body's top.
        let flowing = matches!(self.place_kind(d), PlaceKind::Flow);
        let row_page = row_pages(&ys, ty, &self.geometry.body, anchor.page, flowing);
        let (page, shift) = row_page.last().copied().unwrap_or((anchor.page, 0));
        let row_page_at = |row: u32| row_page.get(row as usize).copied().unwrap_or((page, shift));
        for cell in &cells {
            let (page, shift) = row_page_at(cell.row);
            let x0 = tx.saturating_add(xs.get(cell.col as usize).copied().unwrap_or(0));
            let x1 = tx.saturating_add(
                xs.get((cell.col + cell.cols) as usize)
                    .copied()
                    .unwrap_or(cell.w),
            );
            let y0 = ty
                .saturating_add(ys.get(cell.row as usize).copied().unwrap_or(0))
                .saturating_sub(shift);
            let y1 = ty
                .saturating_add(
                    ys.get((cell.row + cell.rows) as usize)
                        .copied()
                        .unwrap_or(cell.h),
                )
                .saturating_sub(shift);
            let bf = (cell.border_fill as usize)
                .checked_sub(1)
                .and_then(|k| self.styles.border_fills.get(k))
                .copied()
                .unwrap_or_default();
            self.pages
                .push(page, Item::Rect(Rect::cell((x0, y0, x1, y1), &bf)))?;
            // The cell's paragraphs, vertically aligned as the cell says.
            let area = cell_text_area(
                (x0, y0, x1, y1),
                cell.margins,
                cell.valign as u8,
                self.list_height(cell.list, end),
            );
            self.list(cell.list, end, area, page, depth)?;
        }
        Ok(())
    }

    /// Headers, footers and page numbers on pages `first..=last` (only the wanted one when a
    /// page is asked for): on each, the last one defined up to that page for its parity.
    fn furniture(&mut self, first: u32, last: u32, want: Option<u32>) -> Result<()> {
        let pages: Vec<u32> = match want {
            Some(w) if (first..=last).contains(&w) => vec![w],
            Some(_) => Vec::new(),
            None => (first..=last).collect(),
        };
        for page in pages {
            for footer in [false, true] {
                let parity_ok = |f: &Furniture| match f.parity {
                    1 => page % 2 == 0,
                    2 => page % 2 == 1,
                    _ => true,
                };
                let chosen = self
                    .furniture
                    .iter()
                    .rev()
                    .find(|f| f.footer == footer && f.from_page <= page && parity_ok(f))
                    .copied();
                if let Some(f) = chosen {
                    let area = if footer {
                        self.geometry.footer
                    } else {
                        self.geometry.header
                    };
                    self.list(f.list, f.end, area, page, 1)?;
                }
            }
            let numbers = self.page_numbers.clone().filter(|n| n.from_page <= page);
            if let Some(n) = numbers {
                let text = format!("{}{page}{}", n.before, n.after);
                if let Some(line) = page_number_line(&self.geometry, n.position, text) {
                    self.pages.push(page, Item::Line(line))?;
                }
            }
        }
        Ok(())
    }

    fn place_kind(&self, d: &[u8]) -> PlaceKind {
        if Reader::at(d, 4).u32() & 1 != 0 {
            PlaceKind::Char
        } else {
            PlaceKind::Flow
        }
    }

    /// How tall the paragraphs after LIST_HEADER `list` are as laid out (their last segment's
    /// bottom).
    fn list_height(&self, list: usize, end: usize) -> i32 {
        let level = self.ctx.recs[list].level;
        let mut i = list + 1;
        let mut bottom = 0;
        while i < end && self.ctx.recs[i].tag == tag::PARA_HEADER && self.ctx.recs[i].level == level
        {
            let pe = subtree_end(self.ctx.recs, i);
            for j in self.children(i, pe) {
                if self.ctx.recs[j].tag == tag::PARA_LINE_SEG {
                    if let Some(s) = segments(self.ctx.data(j)).last() {
                        bottom = bottom.max(s.vpos.saturating_add(s.height));
                    }
                }
            }
            i = pe;
        }
        bottom
    }

    /// The paragraphs after LIST_HEADER `list` (same level), laid out in `area` on `page`.
    fn list(&mut self, list: usize, end: usize, area: Area, page: u32, depth: u32) -> Result<()> {
        let level = self.ctx.recs[list].level;
        let mut i = list + 1;
        while i < end && self.ctx.recs[i].tag == tag::PARA_HEADER && self.ctx.recs[i].level == level
        {
            let pe = subtree_end(self.ctx.recs, i);
            self.paragraph(i, pe, area, &mut Pager::Fixed(page), depth + 1)?;
            i = pe;
        }
        Ok(())
    }

    /// A drawing object: a picture at its place; a box's text in it.
    fn drawing(&mut self, c: usize, end: usize, anchor: Anchor, depth: u32) -> Result<()> {
        let d = self.ctx.data(c);
        let mut r = Reader::at(d, 16);
        let size = (r.u32().min(1 << 30) as i32, r.u32().min(1 << 30) as i32);
        let (x, y) = self.place(d, &anchor, size);
        for j in (c + 1..end).collect::<Vec<_>>() {
            let rec = self.ctx.recs[j];
            match rec.tag {
                tag::SHAPE_COMPONENT_PICTURE => {
                    let mut r = Reader::at(self.ctx.data(j), 71);
                    let id = r.u16();
                    let name = (usize::from(id))
                        .checked_sub(1)
                        .and_then(|k| self.styles.bin_names.get(k))
                        .filter(|n| !n.is_empty());
                    if let (false, Some(name)) = (r.short, name) {
                        self.pages.push(
                            anchor.page,
                            Item::Picture(Picture {
                                x,
                                y,
                                width: size.0,
                                height: size.1,
                                bin: name.clone(),
                            }),
                        )?;
                    }
                    return Ok(());
                }
                tag::LIST_HEADER if rec.level == self.ctx.recs[c].level + 2 => {
                    // A text box: its paragraphs inside the shape (margins not read yet).
                    let area = Area {
                        x,
                        y,
                        w: size.0,
                        h: size.1,
                    };
                    return self.list(j, end, area, anchor.page, depth);
                }
                _ => {}
            }
        }
        Ok(())
    }
}

enum PlaceKind {
    Char,
    Flow,
}

/// The pages of the HWP 5.0 document in `bytes`; with `want`, only that page's items are kept.
pub fn layout(bytes: &[u8], options: &Options, want: Option<u32>) -> Result<Layout> {
    let (mut container, header) = Container::open_document(bytes, options)?;
    let limits = &options.limits;
    let info_data = container.read_stream("DocInfo", header.compressed)?;
    let info_records = record::frame(&info_data, limits.max_records)?;
    let info = super::doc_info::parse(&info_data, &info_records);
    let mut styles = styles(&info_data, &info_records);
    styles.bin_names = info.bin_data.iter().map(|b| b.name.clone()).collect();
    let storage = super::body_storage(&header);
    let sections = super::section_streams(&container, storage);
    let mut pages = Pages::new(want);
    let mut tracker = PageTracker::default();
    let mut geometry = Geometry::default();
    for (number, name) in &sections {
        let data =
            super::read_section_stream(&mut container, &header, &format!("{storage}/{name}"))?;
        let recs = record::frame(&data, limits.max_records)?;
        tracker.start_section();
        let first_page = tracker.page.saturating_add(1);
        let mut pass = Pass {
            furniture: Vec::new(),
            page_numbers: None,
            columns: Columns::default(),
            ctx: Ctx::new(&data, &recs, &info, limits, *number),
            styles: &styles,
            pages: &mut pages,
            geometry,
            max_depth: limits.max_depth,
        };
        let base = recs.first().map_or(0, |r| r.level);
        let mut i = 0;
        while i < recs.len() {
            let end = subtree_end(&recs, i).max(i + 1);
            if recs[i].tag == tag::PARA_HEADER && recs[i].level == base {
                pass.paragraph(i, end, geometry.body, &mut Pager::Tracker(&mut tracker), 0)?;
            }
            i = end;
        }
        if tracker.has_layout {
            pass.furniture(first_page, tracker.page, want)?;
        }
        geometry = pass.geometry;
    }
    tracker.finish();
    if tracker.has_layout {
        pages.open(tracker.page.max(1))?;
    }
    pages.layout.faces = styles.faces;
    pages.layout.estimated = !tracker.has_layout;
    Ok(pages.layout)
}
