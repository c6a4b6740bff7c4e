//! Hand-built HWP 5.0 compound files: structure (tables, notes, links, pages),
//! limits (nesting, record counts, claimed sizes), lenient vs strict reading,
//! and no panic on mutated real files.

use rhwp_reader::model::Block;
use rhwp_reader::{read, text, ErrorCode, Limits, Options};

mod common;
use common::{
    cell, ctrl_char, ctrl_header, record, utf16, LIST_HEADER, PARA_HEADER, PARA_LINE_SEG,
    PARA_TEXT, TABLE,
};

fn para_header(level: u16, break_type: u8) -> Vec<u8> {
    let mut d = vec![0u8; 22];
    d[11] = break_type;
    record(PARA_HEADER, level, &d)
}

/// A paragraph at `level` with `text` (UTF-16 bytes incl. control chars) and optional line segs.
fn paragraph(level: u16, text: &[u8], lines: &[(u32, i32)], break_type: u8) -> Vec<u8> {
    let mut v = para_header(level, break_type);
    let mut t = text.to_vec();
    t.extend_from_slice(&13u16.to_le_bytes());
    v.extend(record(PARA_TEXT, level + 1, &t));
    if !lines.is_empty() {
        let mut segs = Vec::new();
        for &(start, vpos) in lines {
            let mut s = [0u8; 36];
            s[..4].copy_from_slice(&start.to_le_bytes());
            s[4..8].copy_from_slice(&vpos.to_le_bytes());
            segs.extend_from_slice(&s);
        }
        v.extend(record(PARA_LINE_SEG, level + 1, &segs));
    }
    v
}

fn hwp(sections: &[Vec<u8>], flags: u32) -> Vec<u8> {
    let sections: Vec<&[u8]> = sections.iter().map(Vec::as_slice).collect();
    common::hwp_file(flags, &[], &sections)
}

#[test]
fn table_notes_link_and_pages() {
    let mut text = utf16("see ");
    let mut link_cmd = vec![0u8; 5];
    let cmd = utf16("http\\://example.com;1;0;0;");
    link_cmd.extend_from_slice(&((cmd.len() / 2) as u16).to_le_bytes());
    link_cmd.extend(cmd);
    text.extend(ctrl_char(3, b"%hlk"));
    text.extend(utf16("site"));
    text.extend(ctrl_char(4, b"%hlk"));
    text.extend(ctrl_char(17, b"fn  "));
    text.extend(ctrl_char(11, b"tbl "));
    let mut s = paragraph(0, &text, &[(0, 0)], 0);
    s.extend(ctrl_header(1, b"%hlk", &link_cmd));
    s.extend(ctrl_header(1, b"fn  ", &7u32.to_le_bytes()));
    s.extend(record(LIST_HEADER, 2, &[1, 0, 0, 0, 0, 0, 0, 0]));
    s.extend(paragraph(2, &utf16("note"), &[], 0));
    s.extend(ctrl_header(1, b"tbl ", &[0; 40]));
    let mut table = vec![0u8; 4];
    table.extend_from_slice(&1u16.to_le_bytes());
    table.extend_from_slice(&2u16.to_le_bytes());
    s.extend(record(TABLE, 2, &table));
    s.extend(cell(2, 0, 1, paragraph(2, &utf16("B"), &[], 0)));
    s.extend(cell(2, 0, 0, paragraph(2, &utf16("A"), &[], 0)));
    // Second paragraph on a new page (vertical position falls back).
    let mut tabbed = utf16("next");
    tabbed.extend(ctrl_char(9, &[0; 4])); // a tab is an inline control: 8 units
    tabbed.extend(utf16("page"));
    s.extend(paragraph(0, &tabbed, &[(0, 5000), (12, 0)], 0));

    let doc = read(
        &hwp(&[s], 0),
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .unwrap();
    let blocks = &doc.sections[0].blocks;
    let Block::Paragraph(p) = &blocks[0] else {
        panic!("{blocks:?}")
    };
    assert_eq!(p.text, "see site");
    assert_eq!(
        p.runs
            .iter()
            .find(|r| r.text == "site")
            .and_then(|r| r.link.as_deref()),
        Some("http://example.com")
    );
    assert_eq!(p.note_refs[0].number, 7);
    assert_eq!(p.note_refs[0].offset, 8);
    let Block::Table(t) = &blocks[1] else {
        panic!("{blocks:?}")
    };
    assert_eq!((t.rows, t.cols, t.cells.len()), (1, 2, 2));
    assert_eq!(text::block_text(&blocks[1]), "A\nB");
    assert_eq!(doc.furniture[0].kind, "footnote");
    let Block::Paragraph(p2) = &blocks[2] else {
        panic!()
    };
    assert_eq!(p2.text, "next\tpage");
    assert_eq!(p2.provenance.paragraph, 1);
    assert_eq!(doc.pages, Some(2));
    assert_eq!(
        text::document_text(&doc, true),
        "see site\nA\nB\nnext\tpage\nnote"
    );
}

/// A paragraph whose line segments are `(start, vpos, hpos)`.
fn paragraph_at(level: u16, text: &[u8], lines: &[(u32, i32, i32)], break_type: u8) -> Vec<u8> {
    let mut v = paragraph(level, text, &[], break_type);
    let mut segs = Vec::new();
    for &(start, vpos, hpos) in lines {
        let mut s = [0u8; 36];
        s[..4].copy_from_slice(&start.to_le_bytes());
        s[4..8].copy_from_slice(&vpos.to_le_bytes());
        s[24..28].copy_from_slice(&hpos.to_le_bytes());
        s[32..36].copy_from_slice(&0x60000u32.to_le_bytes());
        segs.extend_from_slice(&s);
    }
    v.extend(record(PARA_LINE_SEG, level + 1, &segs));
    v
}

fn cell_spanning(level: u16, row: u16, col: u16, rows: u16, inner: Vec<u8>) -> Vec<u8> {
    let mut d = vec![1, 0, 0, 0, 0, 0, 0, 0];
    for x in [col, row, 1, rows] {
        d.extend_from_slice(&x.to_le_bytes());
    }
    let mut v = record(LIST_HEADER, level, &d);
    v.extend(inner);
    v
}

#[test]
fn tables_running_on_and_explicit_breaks_make_pages() {
    let cell_lines = |row: u16, col: u16, rows: u16, lines: &[(i32, i32)]| {
        let lines: Vec<(u32, i32, i32)> = lines.iter().map(|&(v, h)| (0, v, h)).collect();
        cell_spanning(
            2,
            row,
            col,
            rows,
            paragraph_at(2, &utf16(&format!("c{row}{col}")), &lines, 0),
        )
    };
    let mut s = paragraph_at(0, &utf16("one"), &[(0, 0, 0)], 0);
    s.extend(paragraph_at(0, &ctrl_char(11, b"tbl "), &[(0, 5000, 0)], 0));
    s.extend(ctrl_header(1, b"tbl ", &[0; 40]));
    let mut table = vec![0u8; 4];
    table.extend_from_slice(&2u16.to_le_bytes());
    table.extend_from_slice(&3u16.to_le_bytes());
    s.extend(record(TABLE, 2, &table));
    // Row 0: two cells restart together (one break); a cell spanning both rows restarts once.
    s.extend(cell_lines(
        0,
        0,
        1,
        &[(0, 0), (60000, 0), (0, 0), (2000, 0)],
    ));
    s.extend(cell_lines(0, 1, 1, &[(0, 0), (50000, 0), (0, 0)]));
    s.extend(cell_lines(
        0,
        2,
        2,
        &[(0, 0), (30000, 0), (0, 0), (9000, 0)],
    ));
    // Row 1: two columns in one cell (no page), two restarts in the other.
    s.extend(cell_lines(
        1,
        0,
        1,
        &[(0, 0), (40000, 0), (0, 20000), (40000, 20000)],
    ));
    let restarts = [(0, 0), (60000, 0), (0, 0), (60000, 0), (0, 0), (1000, 0)];
    s.extend(cell_lines(1, 1, 1, &restarts));
    // On the table's last page, below where its content ended.
    s.extend(paragraph_at(0, &utf16("after"), &[(0, 4000, 0)], 0));
    // An explicit page break (0x04) whose line does not fall back, then one that also does.
    s.extend(paragraph_at(0, &utf16("broken"), &[(0, 6000, 0)], 0x04));
    s.extend(paragraph_at(0, &utf16("again"), &[(0, 0, 0)], 0x04));
    s.extend(paragraph_at(0, &utf16("same"), &[(0, 1500, 0)], 0));
    let doc = read(
        &hwp(&[s], 0),
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .unwrap();
    let pages: Vec<(String, Option<u32>)> = doc.sections[0]
        .blocks
        .iter()
        .map(|b| match b {
            Block::Paragraph(p) => (p.text.clone(), p.provenance.page),
            Block::Table(t) => {
                for c in &t.cells {
                    for b in &c.blocks {
                        let Block::Paragraph(p) = b else { panic!() };
                        assert_eq!(p.provenance.page, t.provenance.page, "cells: table's page");
                    }
                }
                ("table".into(), t.provenance.page)
            }
            _ => ("?".into(), None),
        })
        .collect();
    let expect = |s: &str, p: u32| (s.to_string(), Some(p));
    assert_eq!(
        pages,
        vec![
            expect("one", 1),
            expect("table", 1),
            expect("after", 4),
            expect("broken", 5),
            expect("again", 6),
            expect("same", 6)
        ]
    );
    assert_eq!(doc.pages, Some(6));
}

#[test]
fn no_layout_means_unknown_pages() {
    let s = paragraph(0, &utf16("x"), &[], 0);
    let doc = read(&hwp(&[s], 0), &Options::default()).unwrap();
    assert_eq!(doc.pages, None);
}

fn nested_tables(depth: usize) -> Vec<u8> {
    // Table d's paragraph sits at level 2d, its control at 2d+1, its TABLE, cell list and the
    // cell's paragraphs at 2d+2.
    let mut inner = paragraph((depth * 2) as u16, &utf16("deep"), &[], 0);
    for d in (0..depth).rev() {
        let level = (d * 2) as u16;
        let mut p = paragraph(level, &ctrl_char(11, b"tbl "), &[], 0);
        p.extend(ctrl_header(level + 1, b"tbl ", &[0; 40]));
        p.extend(record(TABLE, level + 2, &[0, 0, 0, 0, 1, 0, 1, 0]));
        p.extend(cell(level + 2, 0, 0, inner));
        inner = p;
    }
    inner
}

#[test]
fn nesting_depth_is_bounded() {
    let ok = read(&hwp(&[nested_tables(5)], 0), &Options::default()).unwrap();
    assert!(text::document_text(&ok, true).contains("deep"));
    let limits = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let e = read(
        &hwp(&[nested_tables(5)], 0),
        &Options {
            strict: false,
            limits,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
    // Deeper than the level field allows (300 tables): refused, no stack overflow.
    let e = read(&hwp(&[nested_tables(300)], 0), &Options::default()).unwrap_err();
    assert!(
        matches!(e.code, ErrorCode::TooLarge | ErrorCode::CorruptDocument),
        "{e}"
    );
}

#[test]
fn claimed_sizes_and_record_counts() {
    // A record claiming 2 GB in a tiny section.
    let mut s = paragraph(0, &utf16("ok"), &[], 0);
    s.extend_from_slice(&((67u32) | (1 << 10) | (0xFFF << 20)).to_le_bytes());
    s.extend_from_slice(&2_000_000_000u32.to_le_bytes());
    let e = read(&hwp(&[s.clone()], 0), &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
    // Lenient: one damaged section among two is skipped with a warning; strict: error.
    let good = paragraph(0, &utf16("fine"), &[], 0);
    let doc = read(&hwp(&[good.clone(), s], 0), &Options::default()).unwrap();
    assert_eq!(doc.sections.len(), 1);
    assert_eq!(doc.warnings.len(), 1);
    let bad = read(
        &hwp(&[good.clone(), vec![1, 2, 3]], 0),
        &Options {
            strict: true,
            ..Options::default()
        },
    );
    assert_eq!(bad.unwrap_err().code, ErrorCode::CorruptDocument);
    // Record-count limit.
    let many: Vec<u8> = (0..50)
        .flat_map(|_| paragraph(0, &utf16("x"), &[], 0))
        .collect();
    let limits = Limits {
        max_records: 20,
        ..Limits::default()
    };
    let e = read(
        &hwp(&[many], 0),
        &Options {
            strict: false,
            limits,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
}

#[test]
fn compressed_flag_requires_deflate() {
    // Flag says compressed but the section is plain records: damaged.
    let s = paragraph(0, &utf16("x"), &[], 0);
    let e = read(&hwp(&[s], 1), &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
}

#[test]
fn mutated_real_files_never_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hwp");
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in [
        "hwplib-etc.hwp",
        "hwplib-getting_clickhere_text.hwp",
        "rhwp-nested-cell-pagination.hwp",
    ] {
        let Ok(original) = std::fs::read(root.join(name)) else {
            continue;
        };
        for round in 0..150 {
            let mut bytes = original.clone();
            match round % 3 {
                0 => {
                    for _ in 0..4 {
                        let i = (next() as usize) % bytes.len();
                        bytes[i] ^= 1 << (next() % 8);
                    }
                }
                1 => bytes.truncate((next() as usize) % bytes.len()),
                _ => {
                    let i = (next() as usize) % bytes.len();
                    let n = ((next() as usize) % 64).min(bytes.len() - i);
                    for b in &mut bytes[i..i + n] {
                        *b = next() as u8;
                    }
                }
            }
            // Any outcome but a panic is fine.
            let _ = read(&bytes, &Options::default());
        }
    }
}

#[test]
fn ruby_text_is_read_from_its_control() {
    // 덧말 (`tdut`, extended control 23): the base and the ruby text live in the control only.
    let mut text = utf16("앞 ");
    text.extend(ctrl_char(23, b"tdut"));
    text.extend(utf16(" 뒤"));
    let mut s = paragraph(0, &text, &[], 0);
    let mut data = Vec::new();
    for part in ["본말", "덧말"] {
        let units = utf16(part);
        data.extend_from_slice(&((units.len() / 2) as u16).to_le_bytes());
        data.extend(units);
    }
    data.extend_from_slice(&[0; 20]); // position, size ratio, option, style, alignment
    s.extend(ctrl_header(1, b"tdut", &data));
    let doc = read(
        &hwp(&[s], 0),
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(text::document_text(&doc, true), "앞 본말(덧말) 뒤");
}

#[test]
fn overlapped_characters_are_read_from_their_control() {
    // 글자 겹침 (`tcps`, extended control 23): the characters live in the control only.
    let mut text = utf16("제");
    text.extend(ctrl_char(23, b"tcps"));
    text.extend(utf16("조"));
    let mut s = paragraph(0, &text, &[], 0);
    let units = utf16("12");
    let mut data = ((units.len() / 2) as u16).to_le_bytes().to_vec();
    data.extend(units);
    data.extend_from_slice(&[1, 0xFD, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0]); // border, size, spread, shapes
    s.extend(ctrl_header(1, b"tcps", &data));
    let doc = read(
        &hwp(&[s], 0),
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(text::document_text(&doc, true), "제12조");
}

// ---- work in proportion to the document (rhwp_reader::fuzzing::assert_linear) ----

fn body_paragraphs(doc: &rhwp_reader::Document) -> usize {
    doc.sections
        .iter()
        .flat_map(|s| &s.blocks)
        .filter(|b| matches!(b, Block::Paragraph(_)))
        .count()
}

#[test]
fn paragraphs_and_sections_cost_in_proportion() {
    rhwp_reader::fuzzing::assert_linear(
        "paragraphs",
        400,
        |n| {
            let s: Vec<u8> = (0..n)
                .flat_map(|i| common::text_paragraph(0, &utf16(&format!("{i}번째 문단의 내용"))))
                .collect();
            hwp(&[s], 0)
        },
        body_paragraphs,
    );
    rhwp_reader::fuzzing::assert_linear(
        "sections",
        100,
        |n| {
            let sections: Vec<Vec<u8>> = (0..n)
                .map(|i| common::text_paragraph(0, &utf16(&format!("구역 {i}"))))
                .collect();
            hwp(&sections, 0)
        },
        |doc| doc.sections.len(),
    );
    rhwp_reader::fuzzing::assert_linear(
        "one long paragraph",
        400,
        |n| {
            hwp(
                &[common::text_paragraph(
                    0,
                    &utf16(&"긴 문단의 한 문장. ".repeat(n)),
                )],
                0,
            )
        },
        |doc| text::document_text(doc, false).matches("문장").count(),
    );
}

/// A paragraph holding one table of `rows` rows and two columns.
fn table_of(rows: usize) -> Vec<u8> {
    let mut s = common::text_paragraph(0, &ctrl_char(11, b"tbl "));
    s.extend(ctrl_header(1, b"tbl ", &[0; 40]));
    let mut table = vec![0u8; 4];
    table.extend_from_slice(&(rows as u16).to_le_bytes());
    table.extend_from_slice(&2u16.to_le_bytes());
    s.extend(record(TABLE, 2, &table));
    for r in 0..rows as u16 {
        for c in 0..2 {
            s.extend(cell(
                2,
                r,
                c,
                common::text_paragraph(2, &utf16(&format!("칸{r}-{c}"))),
            ));
        }
    }
    s
}

#[test]
fn tables_and_rows_cost_in_proportion() {
    let tables = |doc: &rhwp_reader::Document| -> Vec<(u32, u32)> {
        doc.sections[0]
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Table(t) => Some((t.rows, t.cols)),
                _ => None,
            })
            .collect()
    };
    rhwp_reader::fuzzing::assert_linear(
        "table rows",
        400,
        |n| hwp(&[table_of(n)], 0),
        |doc| tables(doc)[0].0 as usize,
    );
    rhwp_reader::fuzzing::assert_linear(
        "tables",
        200,
        |n| hwp(&[(0..n).flat_map(|_| table_of(2)).collect()], 0),
        |doc| tables(doc).len(),
    );
}

#[test]
fn notes_and_links_cost_in_proportion() {
    rhwp_reader::fuzzing::assert_linear(
        "footnotes in one paragraph",
        300,
        |n| {
            let mut text = Vec::new();
            for i in 0..n {
                text.extend(utf16(&format!("본문{i}")));
                text.extend(ctrl_char(17, b"fn  "));
            }
            let mut s = common::text_paragraph(0, &text);
            for i in 0..n {
                s.extend(ctrl_header(1, b"fn  ", &(i as u32 + 1).to_le_bytes()));
                s.extend(record(LIST_HEADER, 2, &[1, 0, 0, 0, 0, 0, 0, 0]));
                s.extend(common::text_paragraph(2, &utf16(&format!("각주 {i}"))));
            }
            hwp(&[s], 0)
        },
        |doc| {
            doc.furniture
                .iter()
                .filter(|f| f.kind == "footnote")
                .count()
        },
    );
    rhwp_reader::fuzzing::assert_linear(
        "hyperlinks in one paragraph",
        300,
        |n| {
            let mut text = Vec::new();
            for i in 0..n {
                text.extend(ctrl_char(3, b"%hlk"));
                text.extend(utf16(&format!("링크{i}")));
                text.extend(ctrl_char(4, b"%hlk"));
                text.extend(utf16(" "));
            }
            let mut s = common::text_paragraph(0, &text);
            for i in 0..n {
                let mut command = vec![0u8; 5];
                command.extend(common::wstring(&format!("http\\://example.com/{i};1;0;0;")));
                s.extend(ctrl_header(1, b"%hlk", &command));
            }
            hwp(&[s], 0)
        },
        |doc| match &doc.sections[0].blocks[0] {
            Block::Paragraph(p) => p.runs.iter().filter(|r| r.link.is_some()).count(),
            _ => 0,
        },
    );
}
