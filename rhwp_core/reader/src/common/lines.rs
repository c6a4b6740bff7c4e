//! Line-layout bookkeeping the formats that store their last layout share (HWP 5.0's line
//! segments, OWPML's `lineseg`): the pages a table cell and a table run on to.

/// The lines of a table cell (or any list laid out in a box of its own): their vertical
/// positions are relative to the cell, and start again near 0 where the cell runs on to the
/// next page (a row split by a page break). A fall back to the same or an earlier column
/// (horizontal position) is a new page; a fall to a column further right is the cell's next
/// column. Tables nested in the cell add their own pages.
#[derive(Debug, Default, Clone, Copy)]
pub struct CellLines {
    /// Pages the cell runs on to beyond the one it starts on.
    pub extra: u32,
    prev: Option<(i32, i32)>,
    /// The last line's vertical position (on the cell's last page).
    pub last: Option<i32>,
}

impl CellLines {
    #[inline]
    pub fn line(&mut self, vpos: i32, hpos: i32) {
        if let Some((pv, ph)) = self.prev {
            if vpos < pv && hpos <= ph {
                self.extra += 1;
            }
        }
        self.prev = Some((vpos, hpos));
        self.last = Some(vpos);
    }

    /// A table nested in the cell, anchored on the line just counted, ran on `extra` pages.
    pub fn table(&mut self, extra: u32, last: Option<i32>) {
        if extra > 0 {
            self.extra += extra;
            let v = last.unwrap_or(0);
            self.prev = Some((v, i32::MAX));
            self.last = Some(v);
        }
    }
}

/// The cells of one table that run on to further pages: the pages the table adds. Cells of one
/// row (and a cell spanning rows, in those rows) run on together, so a page break is counted
/// once however many cells show it: the most pages any set of cells with disjoint rows shows.
#[derive(Debug, Default)]
pub struct TablePages {
    /// (first row, row after the last, pages added, last line's position) of cells that add pages.
    cells: Vec<(u32, u32, u32, Option<i32>)>,
}

impl TablePages {
    pub fn cell(&mut self, row: u32, row_span: u32, lines: &CellLines) {
        if lines.extra > 0 {
            let end = row.saturating_add(row_span.max(1));
            self.cells.push((row, end, lines.extra, lines.last));
        }
    }

    /// Pages the table adds, and where its last page's content ends.
    pub fn finish(mut self) -> (u32, Option<i32>) {
        match self.cells.len() {
            0 => return (0, None),
            1 => return (self.cells[0].2, self.cells[0].3),
            _ => {}
        }
        // Weighted interval scheduling over row ranges, by end row.
        self.cells.sort_unstable_by_key(|c| (c.1, c.0));
        let mut best: Vec<(u32, Option<i32>)> = Vec::with_capacity(self.cells.len() + 1);
        best.push((0, None));
        for (i, &(start, _, extra, last)) in self.cells.iter().enumerate() {
            let before = self.cells[..i].partition_point(|c| c.1 <= start);
            let with = best[before].0 + extra;
            let prev = best[i];
            best.push(if with > prev.0 { (with, last) } else { prev });
        }
        best[self.cells.len()]
    }
}
