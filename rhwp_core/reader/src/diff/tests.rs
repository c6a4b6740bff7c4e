use super::*;
use crate::model::testing::{cell, doc, para};
use crate::model::{Provenance, Table};

fn table(rows: &[&[&str]]) -> Block {
    let mut cells = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, text) in row.iter().enumerate() {
            cells.push(cell(r as u32, c as u32, text));
        }
    }
    Block::Table(Table {
        rows: rows.len() as u32,
        cols: rows.first().map_or(0, |r| r.len()) as u32,
        cells,
        caption: Vec::new(),
        provenance: Provenance::default(),
    })
}

fn run(a: &Document, b: &Document) -> Comparison {
    let (sa, sb) = (Side::new(a), Side::new(b));
    compare(&sa, &sb, Scope::Body, DEFAULT_WORK).unwrap()
}

fn kinds(c: &Comparison) -> Vec<&'static str> {
    c.changes.iter().map(|c| c.kind).collect()
}

#[test]
fn a_document_against_itself_has_no_change() {
    let d = doc(vec![para("가"), para("나"), table(&[&["a", "b"]])]);
    let c = run(&d, &d);
    assert!(c.changes.is_empty());
    assert_eq!(c.summary.unchanged, 3);
}

#[test]
fn inserted_deleted_modified_and_moved_blocks() {
    let old = doc(vec![
        para("제1조 목적"),
        para("이 규정은 계약 절차를 정한다."),
        para("삭제될 문단입니다."),
        para("제2조 정의"),
        para("옮겨질 문단: 부칙의 내용"),
        para("끝"),
    ]);
    let new = doc(vec![
        para("옮겨질 문단: 부칙의 내용"),
        para("제1조 목적"),
        para("이 규칙은 계약 절차를 정한다."),
        para("제2조 정의"),
        para("새로 들어온 전혀 다른 글"),
        para("끝"),
    ]);
    let c = run(&old, &new);
    assert_eq!(
        kinds(&c),
        ["moved", "modified", "deleted", "inserted"],
        "{c:#?}"
    );
    let m = &c.changes[1];
    let spans = &m.diff.as_ref().unwrap().spans;
    assert_eq!(spans[1].text, "정");
    assert_eq!(spans[2].text, "칙");
    assert_eq!(m.old.as_ref().unwrap().address.block, 1);
    assert_eq!(m.new.as_ref().unwrap().address.block, 2);
    assert_eq!(m.new.as_ref().unwrap().address.text_offset, Some(3));
    assert_eq!(c.changes[2].old.as_ref().unwrap().address.block, 2);
}

#[test]
fn tables_cell_by_cell_with_rows_and_columns() {
    let old = doc(vec![table(&[
        &["품명", "수량"],
        &["연필", "10"],
        &["지우개", "5"],
    ])]);
    let cell = doc(vec![table(&[
        &["품명", "수량"],
        &["연필", "12"],
        &["지우개", "5"],
    ])]);
    let c = run(&old, &cell);
    let t = c.changes[0].diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(t.cells.len(), 1);
    assert_eq!(
        (
            t.cells[0].old.as_ref().unwrap().row,
            t.cells[0].old.as_ref().unwrap().col
        ),
        (1, 1)
    );

    let row = doc(vec![table(&[
        &["품명", "수량"],
        &["연필", "10"],
        &["자", "1"],
        &["지우개", "5"],
    ])]);
    let c = run(&old, &row);
    let t = c.changes[0].diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(
        (indices(&t.rows_inserted), t.cells.len()),
        (vec![2], 0),
        "{t:#?}"
    );

    let col = doc(vec![table(&[
        &["품명", "단가", "수량"],
        &["연필", "100", "10"],
        &["지우개", "300", "5"],
    ])]);
    let c = run(&old, &col);
    let t = c.changes[0].diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(
        (indices(&t.columns_inserted), t.cells.len()),
        (vec![1], 0),
        "{t:#?}"
    );
}

#[test]
fn every_paragraph_changed_stays_bounded() {
    let old = doc((0..20_000)
        .map(|i| para(&format!("문단 {i} 원래 내용")))
        .collect());
    let new = doc((0..20_000)
        .map(|i| para(&format!("문단 {i} 바뀐 내용")))
        .collect());
    let t = std::time::Instant::now();
    let c = run(&old, &new);
    assert_eq!(c.summary.modified, 20_000);
    assert!(t.elapsed().as_secs() < 10);
}

#[test]
fn ten_thousand_moved_blocks_stay_bounded() {
    let n = 10_000usize;
    let old = doc((0..n).map(|i| para(&format!("블록 {i}"))).collect());
    // A fixed shuffle: i * 7919 mod n visits every index once (7919 is prime, n is not its multiple).
    let new = doc((0..n)
        .map(|i| para(&format!("블록 {}", i * 7919 % n)))
        .collect());
    let c = run(&old, &new);
    assert_eq!(c.summary.unchanged + c.summary.moved, n);
    assert_eq!(
        c.summary.inserted + c.summary.deleted + c.summary.modified,
        0
    );
}

#[test]
fn a_selection_compares_only_its_blocks_at_their_whole_document_addresses() {
    let old = doc(vec![para("가"), para("나"), para("다"), para("라")]);
    let new = doc(vec![para("가"), para("나!"), para("다"), para("마")]);
    let (body_a, body_b): (&[usize], &[usize]) = (&[1, 2], &[1, 2]);
    let side = |d, body| Side {
        only: Some(Selection {
            body,
            furniture: &[],
        }),
        ..Side::new(d)
    };
    let c = compare(
        &side(&old, body_a),
        &side(&new, body_b),
        Scope::Body,
        DEFAULT_WORK,
    )
    .unwrap();
    assert_eq!(kinds(&c), ["modified"]);
    assert_eq!(c.changes[0].new.as_ref().unwrap().address.block, 1);
    assert_eq!(c.summary.unchanged, 1);
}

#[test]
fn furniture_is_compared_with_scope_all_at_its_iter_blocks_offset() {
    let furnished = |note: &str| {
        let mut d = doc(vec![para("본문")]);
        for (kind, blocks) in [
            ("header", vec![para("머리말"), para("둘째 줄")]),
            ("footnote", vec![para(note)]),
        ] {
            d.furniture.push(crate::model::Furniture {
                kind: kind.into(),
                applies_to: None,
                number: None,
                author: None,
                date: None,
                anchor_text: None,
                blocks,
                provenance: Provenance::default(),
            });
        }
        d
    };
    let (old, new) = (furnished("각주 내용"), furnished("각주 내용을 고침"));
    assert!(
        run(&old, &new).changes.is_empty(),
        "the body alone by default"
    );
    let c = compare(&Side::new(&old), &Side::new(&new), Scope::All, DEFAULT_WORK).unwrap();
    assert_eq!(kinds(&c), ["modified"]);
    let at = &c.changes[0].new.as_ref().unwrap().address;
    assert_eq!(
        (at.scope, at.kind.as_str(), at.block),
        ("furniture", "footnote", 2)
    );
}

#[test]
fn a_budget_too_small_is_too_large_not_a_hang() {
    let old = doc((0..2000).map(|i| para(&format!("가 {i}"))).collect());
    let new = doc((0..2000).map(|i| para(&format!("나 {i}"))).collect());
    let (sa, sb) = (Side::new(&old), Side::new(&new));
    let e = compare(&sa, &sb, Scope::Body, 10_000).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
}

/// The indices of some rows or columns.
fn indices(lines: &[Line]) -> Vec<u32> {
    lines.iter().map(|l| l.index).collect()
}
