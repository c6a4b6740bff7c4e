//! Tracked changes (변경 내용 추적) in HWP 5.0, from hand-built records laid out as Hancom
//! Office writes them (FileHeader bit 14; `BodyText` with the final text only; `ViewText`
//! with the deleted text back and PARA_RANGE_TAG entries 0x10 inserted / 0x11 deleted naming
//! DocInfo `HWPTAG_TRACK_CHANGE` records from 1; `HWPTAG_TRACK_CHANGE_AUTHOR` names).
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::model::{Block, Document, Paragraph};
use rhwp_reader::{read, Options};

mod common;
use common::{record, utf16, PARA_HEADER, PARA_TEXT};

const PARA_RANGE_TAG: u16 = 70;
const TRACK_CHANGE: u16 = 96;
const TRACK_CHANGE_AUTHOR: u16 = 97;
const TRACKED: u32 = 1 << 14;

/// A TRACK_CHANGE record: kind, year..minute, author id, ten unknown bytes (26 in all).
fn track_change(kind: u32, minute: u16) -> Vec<u8> {
    let mut v = kind.to_le_bytes().to_vec();
    for x in [2026u16, 6, 15, 4, minute, 1] {
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.extend([0u8; 10]);
    record(TRACK_CHANGE, 1, &v)
}

fn author(name: &str) -> Vec<u8> {
    let mut v = (name.encode_utf16().count() as u32).to_le_bytes().to_vec();
    v.extend(utf16(name));
    v.extend([1, 0, 0, 0, 0, 0, 0, 0]);
    record(TRACK_CHANGE_AUTHOR, 1, &v)
}

fn doc_info() -> Vec<u8> {
    let mut v = track_change(0x11, 30);
    v.extend(track_change(0x10, 31));
    v.extend(author("Tester"));
    v
}

/// One paragraph of `text` (then its end), with range tags `(start, end, tag)`.
fn section(text: &str, ranges: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut v = record(PARA_HEADER, 0, &[0u8; 22]);
    let mut t = utf16(text);
    t.extend_from_slice(&13u16.to_le_bytes());
    v.extend(record(PARA_TEXT, 1, &t));
    if !ranges.is_empty() {
        let d: Vec<u8> = ranges
            .iter()
            .flat_map(|&(s, e, tag)| [s, e, tag].into_iter().flat_map(u32::to_le_bytes))
            .collect();
        v.extend(record(PARA_RANGE_TAG, 1, &d));
    }
    v
}

/// An uncompressed HWP 5.0 file with `BodyText/Section0` and `ViewText/Section0`.
fn file(flags: u32, body: &[u8], view: &[u8]) -> Vec<u8> {
    common::hwp_streams(
        0x0501_0100,
        flags,
        &[
            ("DocInfo", &doc_info()),
            ("BodyText/Section0", body),
            ("ViewText/Section0", view),
        ],
    )
}

fn first_paragraph(doc: &Document) -> &Paragraph {
    doc.sections[0]
        .blocks
        .iter()
        .find_map(|b| match b {
            Block::Paragraph(p) => Some(p),
            _ => None,
        })
        .expect("a paragraph")
}

const VIEW_RANGES: &[(u32, u32, u32)] = &[(2, 5, 0x1100_0001), (5, 8, 0x1000_0002)];

#[test]
fn deleted_text_is_a_run_only_and_inserted_text_is_marked() {
    let bytes = file(
        TRACKED,
        &section("A new!", &[]),
        &section("A oldnew!", VIEW_RANGES),
    );
    let doc = read(&bytes, &Options::default()).unwrap();
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let p = first_paragraph(&doc);
    assert_eq!(p.text, "A new!");
    let runs: Vec<(&str, Option<&str>)> = p
        .runs
        .iter()
        .map(|r| (r.text.as_str(), r.change.as_ref().map(|c| c.kind.as_str())))
        .collect();
    assert_eq!(
        runs,
        [
            ("A ", None),
            ("old", Some("deleted")),
            ("new", Some("inserted")),
            ("!", None)
        ]
    );
    let deleted = p.runs[1].change.as_ref().unwrap();
    assert_eq!(deleted.author.as_deref(), Some("Tester"));
    assert_eq!(deleted.time.as_deref(), Some("2026-06-15T04:30"));
    let inserted = p.runs[2].change.as_ref().unwrap();
    assert_eq!(inserted.time.as_deref(), Some("2026-06-15T04:31"));
    assert_eq!(p.provenance.char_end, 6);
}

#[test]
fn a_paragraph_all_deleted_keeps_its_deleted_run() {
    let bytes = file(
        TRACKED,
        &section("", &[]),
        &section("gone", &[(0, 4, 0x1100_0001)]),
    );
    let doc = read(&bytes, &Options::default()).unwrap();
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let p = first_paragraph(&doc);
    assert_eq!(p.text, "");
    assert_eq!(p.runs.len(), 1);
    assert_eq!(p.runs[0].text, "gone");
    assert_eq!(p.runs[0].change.as_ref().unwrap().kind, "deleted");
}

#[test]
fn a_view_that_is_not_the_body_is_not_read() {
    let bytes = file(
        TRACKED,
        &section("A new!", &[]),
        &section("B oldnew!", VIEW_RANGES),
    );
    let doc = read(&bytes, &Options::default()).unwrap();
    assert_eq!(first_paragraph(&doc).text, "A new!");
    assert!(first_paragraph(&doc)
        .runs
        .iter()
        .all(|r| r.change.is_none()));
    assert!(
        doc.warnings.iter().any(|w| w.contains("tracked changes")),
        "{:?}",
        doc.warnings
    );
}

#[test]
fn without_the_tracked_changes_flag_view_text_is_ignored() {
    let bytes = file(
        0,
        &section("A new!", &[]),
        &section("A oldnew!", VIEW_RANGES),
    );
    let doc = read(&bytes, &Options::default()).unwrap();
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let p = first_paragraph(&doc);
    assert_eq!(p.text, "A new!");
    assert!(p.runs.iter().all(|r| r.change.is_none()));
}

/// The corpus's one HWP document with tracked changes (an inserted paragraph end, nothing a
/// run can show): its `ViewText` is read (it matches the `BodyText`), with no warning.
#[test]
fn corpus_document_with_tracked_changes_reads_its_view() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let path = dir.join("hwp/rhwp-ftc-market-structure-2017.hwp");
    let Ok(bytes) = std::fs::read(&path) else {
        return;
    };
    let doc = read(&bytes, &Options::default()).unwrap();
    assert!(
        !doc.warnings.iter().any(|w| w.contains("tracked changes")),
        "{:?}",
        doc.warnings
    );
}

#[test]
fn tracked_changes_cost_in_proportion() {
    // n units of "abc" deleted then "def" inserted: the body holds "def " n times.
    rhwp_reader::fuzzing::assert_linear(
        "tracked changes in one paragraph",
        300,
        |n| {
            let ranges: Vec<(u32, u32, u32)> = (0..n as u32)
                .flat_map(|k| {
                    [
                        (7 * k, 7 * k + 3, 0x1100_0001),
                        (7 * k + 3, 7 * k + 6, 0x1000_0002),
                    ]
                })
                .collect();
            file(
                TRACKED,
                &section(&"def ".repeat(n), &[]),
                &section(&"abcdef ".repeat(n), &ranges),
            )
        },
        |doc| {
            first_paragraph(doc)
                .runs
                .iter()
                .filter(|r| r.change.as_ref().is_some_and(|c| c.kind == "deleted"))
                .count()
        },
    );
    rhwp_reader::fuzzing::assert_linear(
        "tracked changes, one per paragraph",
        300,
        |n| {
            let body: Vec<u8> = (0..n).flat_map(|_| section("def", &[])).collect();
            let view: Vec<u8> = (0..n)
                .flat_map(|_| section("abcdef", &[(0, 3, 0x1100_0001), (3, 6, 0x1000_0002)]))
                .collect();
            file(TRACKED, &body, &view)
        },
        |doc| {
            doc.sections[0]
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Paragraph(p) => Some(p),
                    _ => None,
                })
                .filter(|p| {
                    p.runs
                        .iter()
                        .any(|r| r.change.as_ref().is_some_and(|c| c.kind == "deleted"))
                })
                .count()
        },
    );
}
