//! What every format's layout pass shares: character shapes as stored (per script group), line
//! segments, the lines of one paragraph cut from its text by the segments, table geometry from
//! cell sizes, and the pages being filled.

use super::{Align, CharStyle, Item, Layout, Line, Page, Run, Script};
use crate::error::{Error, Result};

/// Pages a layout may hold: a tracker saying more is a hostile file.
pub const MAX_PAGES: u32 = 100_000;
/// Items one page may hold before the rest are dropped (a real page holds a few thousand).
pub const MAX_ITEMS_PER_PAGE: usize = 200_000;

/// A character shape as formats store it: face, width ratio, spacing, relative size and offset
/// per script group (`super::script_group`), the rest once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharShape {
    /// Index into `Layout::faces` per group (`u32::MAX`: none).
    pub faces: [u32; 7],
    pub ratio: [u8; 7],
    pub spacing: [i8; 7],
    pub rel_size: [u8; 7],
    pub offset: [i8; 7],
    /// Base size, HWPUNIT (1000 = 10 pt).
    pub size: i32,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub script: Script,
    pub color: u32,
}

impl Default for CharShape {
    fn default() -> Self {
        CharShape {
            faces: [u32::MAX; 7],
            ratio: [100; 7],
            spacing: [0; 7],
            rel_size: [100; 7],
            offset: [0; 7],
            size: 1000,
            bold: false,
            italic: false,
            underline: false,
            strike: false,
            script: Script::Normal,
            color: 0,
        }
    }
}

impl CharShape {
    /// The style a character of script group `group` is drawn in.
    pub fn style(&self, group: usize) -> CharStyle {
        let g = group.min(6);
        let rel = i64::from(self.rel_size[g].clamp(10, 250));
        let mut size = (i64::from(self.size.clamp(1, 409_600)) * rel / 100) as i32;
        if self.script != Script::Normal {
            // 한글 draws super/subscript at about 70 % of the size.
            size = size * 7 / 10;
        }
        CharStyle {
            face: self.faces[g],
            size,
            bold: self.bold,
            italic: self.italic,
            underline: self.underline,
            strike: self.strike,
            color: self.color & 0xFF_FFFF,
            ratio: self.ratio[g].clamp(10, 250),
            spacing: self.spacing[g].clamp(-50, 50),
            script: self.script,
            offset: self.offset[g].clamp(-100, 100),
        }
    }
}

/// One stored line segment (HWP 5.0 PARA_LINE_SEG, OWPML `lineseg`), HWPUNIT, relative to the
/// area its paragraph is laid out in (the page's body, a cell's inside).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Segment {
    /// The text position where the line starts (the format's character units).
    pub start: u32,
    pub vpos: i32,
    pub height: i32,
    pub text_height: i32,
    /// Distance from the line's top to its baseline.
    pub baseline: i32,
    pub spacing: i32,
    pub x: i32,
    pub width: i32,
    pub flags: u32,
}

/// The lines of one paragraph: its characters by text position (`chars`, in order; controls
/// already left out, a tab as `'\t'`), its character-shape changes (`shapes`: position and
/// index into `table`), its segments, placed with the area's top-left at `origin`. A positive
/// first-line indent (들여쓰기), which 한글 keeps out of the segment's start, moves the first
/// line right.
pub fn paragraph_lines(
    chars: &[(u32, char)],
    shapes: &[(u32, u32)],
    segs: &[Segment],
    table: &[CharShape],
    origin: (i32, i32),
    (align, indent): (Align, i32),
) -> Vec<Line> {
    let default_shape = CharShape::default();
    let shape_at = |pos: u32| -> &CharShape {
        let k = shapes.partition_point(|s| s.0 <= pos);
        let id = if k == 0 {
            shapes.first().map_or(0, |s| s.1)
        } else {
            shapes[k - 1].1
        };
        table.get(id as usize).unwrap_or(&default_shape)
    };
    let mut lines = Vec::with_capacity(segs.len());
    let mut c = 0usize;
    for (n, seg) in segs.iter().enumerate() {
        let end = segs.get(n + 1).map_or(u32::MAX, |s| s.start);
        while c < chars.len() && chars[c].0 < seg.start {
            c += 1;
        }
        let mut runs: Vec<Run> = Vec::new();
        let mut broken = false;
        while c < chars.len() && chars[c].0 < end {
            let (pos, ch) = chars[c];
            c += 1;
            if matches!(ch, '\r' | '\n') {
                // A line break ends the line as a paragraph's end does (no stretching).
                broken = true;
                continue;
            }
            let style = shape_at(pos).style(super::script_group(ch));
            match runs.last_mut() {
                Some(r) if r.style == style => r.text.push(ch),
                _ => runs.push(Run {
                    text: ch.to_string(),
                    style,
                }),
            }
        }
        // 한글 puts the baseline at 85 % of the text height; a segment saying far less was
        // written by another program (한글 lays such lines out again), so 85 % is taken.
        let baseline = if seg.baseline < seg.text_height * 3 / 4 {
            seg.text_height.saturating_mul(17) / 20
        } else {
            seg.baseline
        };
        lines.push(Line {
            x: origin.0.saturating_add(seg.x),
            baseline: origin.1.saturating_add(seg.vpos).saturating_add(baseline),
            width: seg.width,
            height: seg.height,
            align,
            last: broken || n + 1 == segs.len(),
            runs,
        });
    }
    if let (Some(first), true) = (lines.first_mut(), indent > 0) {
        first.x = first.x.saturating_add(indent);
        first.width = first.width.saturating_sub(indent);
    }
    lines
}

/// Where rows or columns start, from the cells' addresses, spans and sizes: boundary `k` is the
/// offset of column (or row) `k`; boundaries no cell fixes are spread between fixed ones.
/// `cells`: (address, span, size).
pub fn boundaries(count: u32, cells: &[(u32, u32, i32)]) -> Vec<i32> {
    let n = count.min(10_000) as usize;
    // One size per (address, span), the largest (한글 makes a row as tall as its tallest cell);
    // single spans first, so they decide where they can.
    let mut sized: Vec<(u32, u32, i32)> = Vec::with_capacity(cells.len());
    let mut sorted = cells.to_vec();
    sorted.sort_unstable_by_key(|&(at, span, size)| (span, at, std::cmp::Reverse(size)));
    for (at, span, size) in sorted {
        if sized.last().is_none_or(|l| (l.0, l.1) != (at, span)) {
            sized.push((at, span, size));
        }
    }
    let cells = &sized[..];
    let mut b: Vec<Option<i32>> = vec![None; n + 1];
    b[0] = Some(0);
    // Each pass fixes at least one boundary or stops: at most n passes over the cells.
    for _ in 0..=n {
        let mut changed = false;
        for &(at, span, size) in cells {
            let (a, e) = (
                at as usize,
                (at as usize).saturating_add(span.max(1) as usize),
            );
            if e > n {
                continue;
            }
            match (b[a], b[e]) {
                (Some(x), None) => {
                    b[e] = Some(x.saturating_add(size));
                    changed = true;
                }
                (None, Some(x)) => {
                    b[a] = Some(x.saturating_sub(size));
                    changed = true;
                }
                _ => {}
            }
        }
        if !changed {
            break;
        }
    }
    let mut out = Vec::with_capacity(n + 1);
    let mut last = 0;
    for v in b {
        last = v.unwrap_or(last);
        out.push(last);
    }
    out
}

/// The pages being filled. With `want` set only that page's items are kept (a page is rendered
/// with memory bounded by the page, not the document); the count is kept for every page.
#[derive(Debug, Default)]
pub struct Pages {
    pub layout: Layout,
    want: Option<u32>,
    /// Page size for pages opened from now on (the section's page definition).
    pub size: (i32, i32),
    count: u32,
}

impl Pages {
    pub fn new(want: Option<u32>) -> Self {
        Pages {
            layout: Layout::default(),
            want,
            size: (59_528, 84_188),
            count: 0,
        }
    }

    /// Page `n` (1-based) exists from here on; pages up to it take the current size.
    pub fn open(&mut self, n: u32) -> Result<()> {
        if n > MAX_PAGES {
            return Err(Error::too_large(format!(
                "the layout runs to more than {MAX_PAGES} pages"
            )));
        }
        while self.count < n {
            self.count += 1;
            let keep = self.want.is_none_or(|w| w == self.count);
            self.layout.pages.push(Page {
                width: self.size.0,
                height: self.size.1,
                items: if keep {
                    Vec::new()
                } else {
                    Vec::with_capacity(0)
                },
            });
        }
        Ok(())
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// Put an item on page `n` (opened if needed); dropped when that page is not wanted.
    pub fn push(&mut self, n: u32, item: Item) -> Result<()> {
        let n = n.max(1);
        self.open(n)?;
        if self.want.is_some_and(|w| w != n) {
            return Ok(());
        }
        if let Some(page) = self.layout.pages.get_mut(n as usize - 1) {
            if page.items.len() < MAX_ITEMS_PER_PAGE {
                page.items.push(item);
            }
        }
        Ok(())
    }

    pub fn page_size(&self, n: u32) -> (i32, i32) {
        n.checked_sub(1)
            .and_then(|i| self.layout.pages.get(i as usize))
            .map_or(self.size, |p| (p.width, p.height))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(start: u32, vpos: i32) -> Segment {
        Segment {
            start,
            vpos,
            height: 1000,
            text_height: 1000,
            baseline: 850,
            spacing: 600,
            x: 0,
            width: 42_520,
            flags: 0,
        }
    }

    #[test]
    fn lines_cut_at_segment_starts_with_styles_per_script() {
        let text: Vec<(u32, char)> = "가나 ab다\r"
            .chars()
            .zip(0..)
            .map(|(c, i)| (i, c))
            .collect();
        let bold = CharShape {
            bold: true,
            faces: [0, 1, 2, 3, 4, 5, 6],
            ..CharShape::default()
        };
        let table = [CharShape::default(), bold];
        let lines = paragraph_lines(
            &text,
            &[(0, 0), (3, 1)],
            &[seg(0, 0), seg(4, 1600)],
            &table,
            (8504, 5668),
            (Align::Justify, 0),
        );
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].x, 8504);
        assert_eq!(lines[0].baseline, 5668 + 850);
        assert_eq!(lines[1].baseline, 5668 + 1600 + 850);
        let t0: Vec<&str> = lines[0].runs.iter().map(|r| r.text.as_str()).collect();
        // The space takes the Latin settings, which equal the Hangul ones here: one run.
        assert_eq!(t0, ["가나 ", "a"]);
        assert!(lines[0].runs[1].style.bold && !lines[0].runs[0].style.bold);
        assert_eq!(
            lines[1].runs.len(),
            2,
            "'b' (Latin) and '다' (Hangul); \\r dropped"
        );
        assert!(!lines[0].last && lines[1].last);
    }

    #[test]
    fn boundaries_from_spanned_cells() {
        // Row 0: one cell over both columns (200); row 1: 80 + 120.
        let b = boundaries(2, &[(0, 2, 200), (0, 1, 80), (1, 1, 120)]);
        assert_eq!(b, [0, 80, 200]);
        // Hostile: spans past the count are ignored, nothing overflows.
        let b = boundaries(1, &[(0, 5, i32::MAX), (0, 1, i32::MAX), (1, 1, 10)]);
        assert_eq!(b, [0, i32::MAX]);
    }

    #[test]
    fn only_the_wanted_page_keeps_items() {
        let mut p = Pages::new(Some(2));
        for n in 1..=3 {
            p.push(n, Item::Line(Line::default())).unwrap();
        }
        assert_eq!(p.count(), 3);
        let kept: Vec<usize> = p.layout.pages.iter().map(|p| p.items.len()).collect();
        assert_eq!(kept, [0, 1, 0]);
        assert!(p.open(MAX_PAGES + 1).is_err());
    }
}
