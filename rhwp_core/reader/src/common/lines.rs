//! Line-layout bookkeeping the formats that store their last layout share (HWP 5.0's line
//! segments, OWPML's `lineseg`): the pages a table cell and a table run on to.

/// The lines of a table cell (or any list laid out in a box of its own): their vertical
/// positions are relative to the cell, and start again near 0 where the cell runs on to the
/// next page (a row split by a page break). A fall back to the same or an earlier column
/// (horizontal position) is a new page; a fall to a column further right is the cell's next
/// column. Tables nested in the cell add their own pages.
#[derive(Debug, Default, Clone, Copy)]
pub struct CellLines {
    /// Lines counted (a cell of several lines may be cut between them at a page's end).
    pub count: u32,
    /// Pages the cell runs on to beyond the one it starts on.
    pub extra: u32,
    prev: Option<(i32, i32)>,
    /// The last line's vertical position (on the cell's last page).
    pub last: Option<i32>,
}

impl CellLines {
    #[inline]
    pub fn line(&mut self, vpos: i32, hpos: i32) {
        self.count = self.count.saturating_add(1);
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

/// How far above the page's end a table's last laid-out height may stop and still be one that
/// the page break cut (a row that did not fit leaves this much at most, about a line and a half
/// of 10-point text; HWPUNIT).
pub const BREAK_SLACK: i64 = 2_000;

/// How a table that flows with the text sits on its first page, from its object properties.
#[derive(Debug, Clone, Copy)]
pub struct TableAnchor {
    /// Treated as a character (its top is its line's).
    pub inline: bool,
    /// Placed relative to its paragraph (else to the page or paper: it does not flow).
    pub paragraph_relative: bool,
    pub vertical_offset: i64,
    /// The height it was last laid out with (on its first page when it runs on).
    pub stored_height: i64,
}

impl TableAnchor {
    /// Where the table's top is on its first page, anchored on a line at `line_vpos` (with
    /// `room_above` it between the line before and it, when known), when its
    /// rows need laying out against a body `body` high: None when it does not flow with the
    /// text (placed on the page or the paper, it stays where it is put, even past the body) or
    /// ends clear above the page's end (all on this page, whatever heights its cells were
    /// given: a cell's stored height can exceed what its row was laid out at).
    pub fn top(&self, line_vpos: i64, room_above: Option<i64>, body: i64) -> Option<i64> {
        let top = if self.inline {
            line_vpos
        } else if self.paragraph_relative {
            // Text flows above and below such a table: an anchor line with room above it (from
            // the line before) for the whole table was pushed below it, so the table lies
            // wholly above it on this page. (One that moved to the next page leaves no room:
            // its anchor line follows the line before.)
            let needs = self.vertical_offset.saturating_add(self.stored_height);
            if room_above.is_some_and(|room| room >= needs) {
                return None;
            }
            line_vpos + self.vertical_offset
        } else {
            return None;
        };
        (top.saturating_add(self.stored_height)
            .saturating_add(BREAK_SLACK)
            >= body)
            .then_some(top)
    }
}

/// Where a table anchored on a line goes: the pages it adds after that line's page (the more of
/// what its cells' lines show and what its rows' heights against the page show), where its
/// content ends on its last page, the page (from its first) each row starts on when it runs
/// on, and whether the page count moves on by it at all: a table beside the text (not a
/// character) that moves whole to the next page leaves the text after its anchor on this page,
/// whose lines then show the page themselves.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TablePlacement {
    pub extra: u32,
    pub last: Option<i32>,
    pub row_pages: Option<Vec<u32>>,
    pub counts: bool,
}

impl TablePlacement {
    /// From the cells' lines (`TablePages::finish`) and the rows laid out (`TableRows::layout`).
    pub fn new(lines: (u32, Option<i32>), rows: Option<RowPages>, inline: bool) -> Self {
        let (mut extra, mut last) = lines;
        if let Some(r) = rows.as_ref().filter(|r| r.extra > extra) {
            extra = r.extra;
            last = Some(r.end.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32);
        }
        let moved_whole = rows
            .as_ref()
            .is_some_and(|r| r.row_page.iter().all(|&p| p == extra));
        let row_pages = rows
            .filter(|_| extra > 0)
            .map(|r| r.row_page.iter().map(|&p| p.min(extra)).collect());
        Self {
            extra,
            last,
            row_pages,
            counts: inline || !moved_whole,
        }
    }
}

/// A row of a table as the authoring program last sized it, for laying the table out on pages:
/// the height its cells were given (a cell's stored height is its laid-out height) and whether
/// it is a header row that repeats at the top of each page the table runs on to.
#[derive(Debug, Default, Clone, Copy)]
struct RowSize {
    height: i64,
    header: bool,
    /// A cell of the row has more than one line: where the table may break inside rows, the
    /// row is cut between lines at the page's end instead of moving whole.
    splittable: bool,
}

/// Where a table's rows go when a page is full: rows that do not fit on what is left of the page
/// move wholly to the next one, below the repeated header rows. This is what the cells' own
/// line positions cannot show (a row that moves keeps its lines' positions, relative to the
/// cell), so a long table of one-line rows would otherwise count as one page.
#[derive(Debug, Default)]
pub struct TableRows {
    rows: Vec<RowSize>,
    /// Cells spanning several rows: (first row, row after the last, height).
    spans: Vec<(u32, u32, i64)>,
}

/// A table's rows laid out on pages: the page (counted from the table's first, 0) each row
/// starts on, the pages the table adds, and where its content ends on its last page.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RowPages {
    pub row_page: Vec<u32>,
    pub extra: u32,
    pub end: i64,
}

/// Rows a table can have in either format (HWP 5.0 stores the count in 16 bits).
const MAX_ROWS: u32 = 65_536;
/// Pages one row may run over: a bound against a hostile height, far beyond any real cell.
const MAX_PAGES_PER_ROW: i64 = 1_000;

impl TableRows {
    pub fn new(rows: u32) -> Self {
        Self {
            rows: vec![RowSize::default(); rows.min(MAX_ROWS) as usize],
            spans: Vec::new(),
        }
    }

    /// One cell: its first row, rows spanned, stored height, whether it is a header cell, and
    /// how many lines it holds.
    pub fn cell(&mut self, row: u32, row_span: u32, height: u32, header: bool, lines: u32) {
        let Some(size) = self.rows.get_mut(row as usize) else {
            return;
        };
        let height = i64::from(height);
        if row_span <= 1 {
            size.height = size.height.max(height);
            size.header |= header;
            size.splittable |= lines > 1;
        } else {
            let end = row.saturating_add(row_span).min(self.rows.len() as u32);
            self.spans.push((row, end, height));
            for r in &mut self.rows[row as usize..end as usize] {
                r.header |= header;
                r.splittable |= lines > 1;
            }
        }
    }

    /// Lay the rows out from `top` (the table's top on its first page, from the top of the body
    /// area) on pages whose body is `body` high; `splits`: the table may break at a page's end
    /// (else it moves whole to the next page when it does not fit), `inside_rows`: and inside a
    /// row, between its lines (else between rows only); `repeat_header`: the table
    /// repeats its leading header rows on each further page. None when there is nothing to lay
    /// out.
    pub fn layout(
        mut self,
        top: i64,
        body: i64,
        splits: bool,
        inside_rows: bool,
        repeat_header: bool,
    ) -> Option<RowPages> {
        if self.rows.is_empty() || body <= 0 {
            return None;
        }
        if !splits {
            let height: i64 = self.rows.iter().map(|r| r.height).sum();
            let moves = top > 0 && top + height > body;
            let end = if moves { height } else { top.max(0) + height };
            return Some(RowPages {
                row_page: vec![u32::from(moves); self.rows.len()],
                extra: u32::from(moves),
                end,
            });
        }
        // A cell spanning rows taller than those rows together: the rest goes to its last row.
        self.spans.sort_unstable_by_key(|s| s.1);
        for &(first, end, height) in &self.spans {
            let (first, end) = (first as usize, end as usize);
            if end <= first {
                continue;
            }
            let have: i64 = self.rows[first..end].iter().map(|r| r.height).sum();
            if height > have {
                self.rows[end - 1].height += height - have;
            }
        }
        let header: i64 = if repeat_header {
            self.rows
                .iter()
                .take_while(|r| r.header)
                .map(|r| r.height)
                .sum()
        } else {
            0
        };
        // A header taller than half the page would leave no room: 한글 stops repeating it.
        let header = if header * 2 > body { 0 } else { header };
        let mut row_page = Vec::with_capacity(self.rows.len());
        let mut page: u32 = 0;
        let mut at = top.max(0);
        for row in &self.rows {
            // A row that does not fit moves to the next page, unless nothing (but the repeated
            // header) is above it there already: then it is split over the pages it needs.
            let fresh = if page == 0 { 0 } else { header };
            let cut = inside_rows && row.splittable;
            if at + row.height > body && at > fresh && !cut {
                page = page.saturating_add(1);
                at = header;
            }
            row_page.push(page);
            at += row.height;
            // A row taller than the page runs on over the pages it needs.
            if at > body {
                let room = (body - header).max(1);
                let over = ((at - body + room - 1) / room).min(MAX_PAGES_PER_ROW);
                page = page.saturating_add(over as u32);
                at = header + (at - body - (over - 1) * room);
            }
        }
        Some(RowPages {
            row_page,
            extra: page,
            end: at,
        })
    }
}

/// The lines of one endnote (미주), laid out in a list of its own: vertical positions are
/// relative to the note. Each line's height and advance (the next line's position less its own,
/// or its height where the positions fall back: where 한글 carried the note on to a next column
/// when it last laid it out, which depends on where the note then started).
#[derive(Debug, Default)]
pub struct NoteLines {
    lines: Vec<(i32, i32)>,
    prev: Option<(i32, i32)>,
}

impl NoteLines {
    pub fn line(&mut self, vpos: i32, height: i32) {
        if let Some((pv, ph)) = self.prev {
            let advance = if vpos > pv {
                vpos.saturating_sub(pv)
            } else {
                ph
            };
            self.lines.push((ph, advance));
        }
        self.prev = Some((vpos, height.max(0)));
    }
}

/// How endnotes flow where they are printed: the body height of a column, the columns of a
/// page, the room above the first note (the separator line's margins) and between notes.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoteFlow {
    pub height: i64,
    pub columns: u32,
    pub separator: i64,
    pub spacing: i64,
}

/// Endnotes waiting to be printed: 한글 prints them after the last line of the document (or of
/// the section, as the endnote shape says), in the columns in effect there, one after another
/// with the shape's spacing between them, line by line: a line that does not fit below the one
/// before starts the next column.
#[derive(Debug, Default)]
pub struct Endnotes {
    /// Every waiting note's lines: height, advance, and whether it is a note's first line.
    lines: Vec<(i32, i32, bool)>,
    /// Where each waiting note's lines start in `lines`, in order.
    notes: Vec<usize>,
}

impl Endnotes {
    pub fn push(&mut self, mut note: NoteLines) {
        if let Some((_, height)) = note.prev.take() {
            note.lines.push((height, height));
        }
        let first = self.lines.len();
        self.notes.push(first);
        self.lines
            .extend(note.lines.into_iter().map(|(h, a)| (h, a, false)));
        if let Some(line) = self.lines.get_mut(first) {
            line.2 = true;
        }
    }

    /// Lay out the waiting notes (`flow`) and say, for each in order, the page (counted from the
    /// current one, 0) its first line is printed on.
    pub fn flow_notes(&mut self, bottom: i64, column: u32, flow: NoteFlow) -> (u32, Vec<u32>) {
        let notes = std::mem::take(&mut self.notes);
        let mut column_of_line = Vec::new();
        let added = self.flow_with(bottom, column, flow, &mut column_of_line);
        let per_page = u64::from(flow.columns.max(1));
        let page_of = |line: usize| -> u32 {
            let column = column_of_line
                .get(line)
                .or(column_of_line.last())
                .copied()
                .unwrap_or(u64::from(column));
            u32::try_from(column / per_page).unwrap_or(u32::MAX)
        };
        (added, notes.into_iter().map(page_of).collect())
    }

    /// Lay out the waiting notes from `bottom` (where the body's last line ends, relative to the
    /// top of column `column` of its page): the pages they add. Unknown body height adds none.
    pub fn flow(&mut self, bottom: i64, column: u32, flow: NoteFlow) -> u32 {
        self.notes.clear();
        self.flow_with(bottom, column, flow, &mut Vec::new())
    }

    /// `flow`, noting the column (counted from the current page's first) each line lands in.
    fn flow_with(
        &mut self,
        bottom: i64,
        column: u32,
        flow: NoteFlow,
        column_of_line: &mut Vec<u64>,
    ) -> u32 {
        let lines = std::mem::take(&mut self.lines);
        if lines.is_empty() || flow.height <= 0 {
            return 0;
        }
        let mut y = bottom.max(0) + flow.separator.max(0);
        let mut columns = u64::from(column);
        for (k, &(height, advance, first)) in lines.iter().enumerate() {
            // The spacing lies between notes: none above the first.
            if first && k > 0 {
                y += flow.spacing.max(0);
            }
            if y > 0 && y + i64::from(height) > flow.height {
                columns += 1;
                y = 0;
            }
            column_of_line.push(columns);
            y += i64::from(advance.max(0));
        }
        u32::try_from(columns / u64::from(flow.columns.max(1))).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(heights: &[(u32, bool)]) -> TableRows {
        let mut t = TableRows::new(heights.len() as u32);
        for (i, &(h, header)) in heights.iter().enumerate() {
            t.cell(i as u32, 1, h, header, 1);
        }
        t
    }

    /// A note of `n` lines, each `h` high and `h + gap` apart.
    fn note(n: i32, h: i32, gap: i32) -> NoteLines {
        let mut note = NoteLines::default();
        for k in 0..n {
            note.line(k * (h + gap), h);
        }
        note
    }

    const NOTE_FLOW: NoteFlow = NoteFlow {
        height: 10_000,
        columns: 2,
        separator: 500,
        spacing: 1_000,
    };

    #[test]
    fn each_endnote_is_on_the_page_its_first_line_prints_on() {
        let mut notes = Endnotes::default();
        // Columns of 10,000 (two a page), from the top of a fresh column of page 0: a note of
        // 12 lines fills a column and two more; the next starts in column 1 (page 0); one of
        // 20 lines then reaches column 3; the last starts there, on page 1.
        notes.push(note(12, 1_000, 0));
        notes.push(note(20, 1_000, 0));
        notes.push(note(1, 1_000, 0));
        let flow = NoteFlow {
            separator: 0,
            spacing: 0,
            ..NOTE_FLOW
        };
        let (added, pages) = notes.flow_notes(0, 0, flow);
        assert_eq!((added, pages), (1, vec![0, 0, 1]));
        // A flow with no note waiting says nothing.
        assert_eq!(notes.flow_notes(0, 0, flow), (0, vec![]));
    }

    #[test]
    fn endnotes_that_fit_below_the_body_add_no_page() {
        let mut notes = Endnotes::default();
        notes.push(note(3, 1_000, 200));
        notes.push(note(2, 1_000, 200));
        // 500 + 3,400 + 1,000 + 2,200 = 7,100 below a body ending at 2,000: 9,100 fits.
        assert_eq!(notes.flow(2_000, 0, NOTE_FLOW), 0);
        // Flowed once: nothing waits any more.
        assert_eq!(notes.flow(9_000, 1, NOTE_FLOW), 0);
    }

    #[test]
    fn endnotes_flow_line_by_line_through_the_columns_of_next_pages() {
        let mut notes = Endnotes::default();
        // 30 lines of 1,000 (advance 1,000): three columns of ten from a fresh column.
        notes.push(note(30, 1_000, 0));
        // From the second column's bottom (9,500 + 500 leaves no room): the lines fill the
        // third, fourth and fifth columns, the fifth being the first of page 3.
        assert_eq!(notes.flow(9_500, 1, NOTE_FLOW), 2);
        // One column a page: each column is a page.
        let mut notes = Endnotes::default();
        notes.push(note(30, 1_000, 0));
        let one = NoteFlow {
            columns: 1,
            ..NOTE_FLOW
        };
        assert_eq!(notes.flow(0, 0, one), 3);
    }

    #[test]
    fn a_stored_fall_inside_a_note_is_not_a_column_break_of_its_own() {
        // 한글 carried this note to a next column when it last laid it out (positions fall back
        // to 0); printed at the top of a fresh column both parts fit in one.
        let mut note = NoteLines::default();
        for v in [0, 1_000, 2_000, 0, 1_000] {
            note.line(v, 1_000);
        }
        let mut notes = Endnotes::default();
        notes.push(note);
        assert_eq!(
            notes.flow(
                0,
                0,
                NoteFlow {
                    columns: 1,
                    ..NOTE_FLOW
                }
            ),
            0
        );
    }

    #[test]
    fn the_spacing_lies_between_notes_and_unknown_height_adds_nothing() {
        let mut notes = Endnotes::default();
        for _ in 0..4 {
            notes.push(note(2, 1_000, 0));
        }
        // 4 x 2,000 + 3 x 1,000 = 11,000 from a column's top: over one column of 10,000.
        let one = NoteFlow {
            columns: 1,
            separator: 0,
            ..NOTE_FLOW
        };
        assert_eq!(notes.flow(0, 0, one), 1);
        let mut notes = Endnotes::default();
        notes.push(note(200, 1_000, 0));
        assert_eq!(
            notes.flow(
                0,
                0,
                NoteFlow {
                    height: 0,
                    ..NOTE_FLOW
                }
            ),
            0
        );
        // A note with no line at all is no note.
        let mut notes = Endnotes::default();
        notes.push(NoteLines::default());
        assert_eq!(notes.flow(9_999, 1, NOTE_FLOW), 0);
    }

    #[test]
    fn rows_that_fit_stay_on_the_first_page() {
        let laid =
            rows(&[(100, true), (200, false), (300, false)]).layout(50, 1000, true, false, true);
        assert_eq!(
            laid,
            Some(RowPages {
                row_page: vec![0, 0, 0],
                extra: 0,
                end: 650
            })
        );
    }

    #[test]
    fn a_row_that_does_not_fit_moves_below_the_repeated_header() {
        // Header 100, then rows of 400: 100+400+400 = 900 fits in 1000, the next does not.
        let laid = rows(&[
            (100, true),
            (400, false),
            (400, false),
            (400, false),
            (400, false),
        ])
        .layout(0, 1000, true, false, true);
        let laid = laid.expect("laid out");
        assert_eq!(laid.row_page, vec![0, 0, 0, 1, 1]);
        assert_eq!(laid.extra, 1);
        assert_eq!(laid.end, 100 + 400 + 400);
        // Without the repeated header the next page starts at its top.
        let laid = rows(&[
            (100, true),
            (400, false),
            (400, false),
            (400, false),
            (400, false),
        ])
        .layout(0, 1000, true, false, false)
        .expect("laid out");
        assert_eq!(laid.end, 800);
    }

    #[test]
    fn the_table_starts_where_its_anchor_is() {
        let laid = rows(&[(300, false), (300, false)])
            .layout(800, 1000, true, false, false)
            .expect("laid out");
        // Its first row does not fit below the anchor: the table starts on the next page.
        assert_eq!(laid.row_page, vec![1, 1]);
        assert_eq!(laid.extra, 1);
        assert_eq!(laid.end, 600);
    }

    #[test]
    fn a_row_of_several_lines_is_cut_where_rows_may_break() {
        let two_rows = || {
            let mut t = TableRows::new(2);
            t.cell(0, 1, 600, false, 1);
            t.cell(1, 1, 600, false, 5);
            t
        };
        let laid = two_rows()
            .layout(0, 1000, true, true, false)
            .expect("laid out");
        // The second row starts on the first page and its rest (200) goes on to the next.
        assert_eq!(laid.row_page, vec![0, 0]);
        assert_eq!((laid.extra, laid.end), (1, 200));
        let laid = two_rows()
            .layout(0, 1000, true, false, false)
            .expect("laid out");
        assert_eq!(laid.row_page, vec![0, 1]);
        assert_eq!((laid.extra, laid.end), (1, 600));
    }

    #[test]
    fn a_table_that_does_not_break_moves_whole() {
        let laid = rows(&[(300, false), (300, false)])
            .layout(500, 1000, false, false, false)
            .expect("laid out");
        assert_eq!(laid.row_page, vec![1, 1]);
        assert_eq!((laid.extra, laid.end), (1, 600));
        let laid = rows(&[(300, false), (300, false)])
            .layout(100, 1000, false, false, false)
            .expect("laid out");
        assert_eq!((laid.extra, laid.end), (0, 700));
    }

    #[test]
    fn a_cell_spanning_rows_makes_its_last_row_taller() {
        let mut t = TableRows::new(3);
        t.cell(0, 1, 100, false, 1);
        t.cell(1, 1, 100, false, 1);
        t.cell(2, 1, 100, false, 1);
        t.cell(0, 2, 950, false, 1);
        let laid = t.layout(0, 1000, true, false, false).expect("laid out");
        assert_eq!(laid.row_page, vec![0, 0, 1]);
    }

    #[test]
    fn hostile_sizes_are_bounded() {
        let laid = rows(&[(u32::MAX, false), (u32::MAX, false)])
            .layout(0, 1, true, false, false)
            .expect("laid out");
        assert!(laid.extra <= 2 * MAX_PAGES_PER_ROW as u32 + 1);
        assert_eq!(TableRows::new(0).layout(0, 1000, true, false, false), None);
        assert_eq!(rows(&[(5, false)]).layout(0, 0, true, false, false), None);
        // Cells naming rows the table does not have are ignored.
        let mut t = TableRows::new(1);
        t.cell(7, 1, 100, false, 1);
        t.cell(0, 9, 100, false, 1);
        assert!(t.layout(0, 1000, true, false, false).is_some());
    }

    fn anchor(inline: bool, paragraph_relative: bool) -> TableAnchor {
        TableAnchor {
            inline,
            paragraph_relative,
            vertical_offset: 300,
            stored_height: 6_000,
        }
    }

    #[test]
    fn a_table_flowing_with_the_text_starts_at_its_line() {
        // As a character: at its line's top; relative to its paragraph: offset from there.
        assert_eq!(anchor(true, false).top(60_000, None, 64_000), Some(60_000));
        assert_eq!(anchor(false, true).top(60_000, None, 64_000), Some(60_300));
        // Placed on the page or the paper: it stays where it is put.
        assert_eq!(anchor(false, false).top(60_000, None, 64_000), None);
        // Ending clear above the page's end: all on this page, no rows to lay out.
        assert_eq!(anchor(true, false).top(10_000, None, 64_000), None);
    }

    #[test]
    fn a_table_lies_above_an_anchor_line_pushed_below_it() {
        // Text above and below: 6,500 free above the anchor line holds the 6,300 the table
        // needs, so 한글 laid it out there, on this page.
        assert_eq!(anchor(false, true).top(62_000, Some(6_500), 64_000), None);
        // No such room (the line follows the one before): the table starts at the line.
        assert_eq!(
            anchor(false, true).top(62_000, Some(800), 64_000),
            Some(62_300)
        );
        // A table set as a character is in its line, never above it.
        assert_eq!(
            anchor(true, false).top(62_000, Some(9_000), 64_000),
            Some(62_000)
        );
    }

    #[test]
    fn a_placement_takes_the_more_pages_of_lines_and_rows() {
        let rows = |row_page: Vec<u32>, extra: u32| RowPages {
            row_page,
            extra,
            end: 500,
        };
        // Rows show more pages than the lines: theirs, with each row's page.
        let placed = TablePlacement::new((0, None), Some(rows(vec![0, 1, 2], 2)), true);
        assert_eq!(
            placed,
            TablePlacement {
                extra: 2,
                last: Some(500),
                row_pages: Some(vec![0, 1, 2]),
                counts: true
            }
        );
        // Lines show more: theirs, the rows' pages capped at them.
        let placed = TablePlacement::new((3, Some(7)), Some(rows(vec![0, 1, 2], 2)), true);
        assert_eq!((placed.extra, placed.last), (3, Some(7)));
        // All on one page: no row pages.
        let placed = TablePlacement::new((0, None), Some(rows(vec![0, 0], 0)), true);
        assert_eq!(placed.row_pages, None);
        // Beside the text and moved whole to the next page: the text after it shows the page.
        let placed = TablePlacement::new((0, None), Some(rows(vec![1, 1], 1)), false);
        assert!(!placed.counts && placed.row_pages == Some(vec![1, 1]));
        assert!(TablePlacement::new((0, None), Some(rows(vec![1, 1], 1)), true).counts);
    }
}
