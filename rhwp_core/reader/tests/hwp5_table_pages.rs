//! A table laid out over pages (HWP 5.0): its rows' pages from their heights against the page
//! (rows that move wholly to the next page show in no cell's line positions), each cell's blocks
//! on their row's page, and what of the table is printed on a given page.
// Tests over a fixture that must read: a failed expect stops the test with the reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use rhwp_reader::model::{Block, Table};
use rhwp_reader::{read, Options};
use std::path::Path;

/// Hancom's HwpCtrl action table: one 313-row table of one-line rows with a repeated header,
/// from page 2 to page 13 of 16 (the PDF 한글 2022 saved of it).
fn action_table() -> (Option<u32>, Table) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hwp/rhwp-hwpctl-action-table.hwp");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = read(&bytes, &Options::default()).expect("the fixture reads");
    let table = doc
        .sections
        .iter()
        .flat_map(|s| s.blocks.iter())
        .find_map(|b| match b {
            Block::Table(t) if t.rows > 300 => Some(t.clone()),
            _ => None,
        })
        .expect("the action table");
    (doc.pages, table)
}

fn cell_page(table: &Table, i: usize) -> Option<u32> {
    table.cells[i]
        .blocks
        .iter()
        .find_map(|b| b.provenance().page)
}

#[test]
fn the_rows_are_laid_out_over_the_pages_hancom_prints() {
    let (pages, table) = action_table();
    assert_eq!(pages, Some(16));
    assert_eq!(table.provenance.page, Some(2));
    assert_eq!(Block::Table(table.clone()).last_page(), Some(13));
    // Row by row the page never goes back, and every page from 2 to 13 holds rows.
    let mut seen = Vec::new();
    let mut last = 0;
    for (i, cell) in table.cells.iter().enumerate() {
        let page = cell_page(&table, i).expect("a cell's blocks carry their page");
        assert!(page >= last, "row {} on page {page} after {last}", cell.row);
        last = page;
        if seen.last() != Some(&page) {
            seen.push(page);
        }
    }
    assert_eq!(seen, (2..=13).collect::<Vec<_>>());
}

#[test]
fn a_page_keeps_the_rows_printed_on_it() {
    let (_, table) = action_table();
    let mut all = Vec::new();
    for page in 2..=13 {
        let kept = table.cells_on_pages(&[page]).expect("the table has pages");
        assert!(!kept.is_empty(), "page {page}");
        // The rows of one page are one run of rows, every cell of them on that page.
        assert!(kept.windows(2).all(|w| w[1] == w[0] + 1), "page {page}");
        assert!(kept.iter().all(|&i| cell_page(&table, i) == Some(page)));
        all.extend(kept);
    }
    // Over all its pages, every cell once.
    assert_eq!(all, (0..table.cells.len()).collect::<Vec<_>>());
    // The block cut to a page: those cells, no caption past the first page.
    let Block::Table(part) = Block::Table(table.clone()).on_pages(&[3, 4]) else {
        panic!("a table stays a table");
    };
    assert_eq!(
        part.cells.len(),
        table.cells_on_pages(&[3]).map_or(0, |c| c.len())
            + table.cells_on_pages(&[4]).map_or(0, |c| c.len())
    );
    assert!(part.caption.is_empty() && part.rows == table.rows);
    // A page the table is not on keeps nothing of it.
    assert_eq!(table.cells_on_pages(&[14]).map(|c| c.len()), Some(0));
}
