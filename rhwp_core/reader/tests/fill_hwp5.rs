//! Filling HWP 5.0 table cells (named, or beside a label): the value becomes the cell's
//! paragraphs, the records stay consistent, every stream but the changed section is kept.

#![allow(clippy::unwrap_used, clippy::expect_used)]
use rhwp_reader::common::fill::Value;
use rhwp_reader::formats::fill;
use rhwp_reader::model::{for_each_block, Block};
use rhwp_reader::{read, Options};

mod common;
use common::{record, utf16, CTRL_HEADER, LIST_HEADER, TABLE};

const PARA_HEADER: u16 = 66;
const PARA_TEXT: u16 = 67;
const PARA_CHAR_SHAPE: u16 = 68;
const PARA_LINE_SEG: u16 = 69;

fn text(v: &str) -> Value {
    Value::Text(v.into())
}

/// The regulatory-review form (규제심사안): named cells, label cells, a table in a cell.
fn review_form() -> Vec<u8> {
    std::fs::read(common::fixtures().join("hwp/rhwp-nested-cell-pagination.hwp")).unwrap()
}

use common::streams;

/// Call `f` on every block of the document read from `bytes`, nested ones too.
fn visit(bytes: &[u8], f: &mut impl FnMut(&Block)) {
    let doc = read(bytes, &Options::default()).unwrap();
    for section in &doc.sections {
        for_each_block(&section.blocks, f);
    }
}

/// Every table cell of the document as (row, col, name, paragraph texts), tables in cells too.
fn cells(bytes: &[u8]) -> Vec<(u32, u32, Option<String>, Vec<String>)> {
    let mut out = Vec::new();
    visit(bytes, &mut |b| {
        if let Block::Table(t) = b {
            for c in &t.cells {
                let lines = c
                    .blocks
                    .iter()
                    .filter_map(|b| match b {
                        Block::Paragraph(p) => Some(p.text.clone()),
                        _ => None,
                    })
                    .collect();
                out.push((c.row, c.col, c.field_name.clone(), lines));
            }
        }
    });
    out
}

fn assert_only_section_changed(blank: &[u8], filled: &[u8]) {
    let (a, b) = (streams(blank), streams(filled));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        if k != "BodyText/Section0" {
            assert_eq!(v, &b[k], "{k} changed");
        }
    }
    assert_ne!(a["BodyText/Section0"], b["BodyText/Section0"]);
}

#[test]
fn named_and_labelled_cells_of_a_real_form_are_filled_and_nothing_else_changes() {
    let blank = review_form();
    let values = [
        // A named cell holding text: replaced, as the HWPX writer replaces it.
        (
            "reg_nm_cnts2".to_string(),
            text("사실확인 기능 보완\n둘째 줄"),
        ),
        // Labels in a table inside a cell: the empty cell below each (the right one is full).
        ("현행".to_string(), text("a<b & c>d\t탭 漢字 😀")),
        ("개정안".to_string(), text("")),
    ];
    let out = fill(&blank, &values, &Options::default()).unwrap();
    assert!(out.plan.unmatched.is_empty(), "{:?}", out.plan);
    assert!(out.plan.ambiguous.is_empty(), "{:?}", out.plan);
    let kinds: Vec<&str> = out.plan.filled.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, ["cell", "label", "label"]);
    assert_eq!(
        out.plan.filled[0].before,
        "공익침해행위 피신고자 등에 대한 사실확인 기능 보완"
    );
    let nested = &out.plan.filled[1].address.cells;
    assert_eq!(nested.len(), 2, "a table in a cell: {nested:?}");
    assert_eq!((nested[1].row, nested[1].col), (1, 0), "below the label");
    assert_eq!(out.changed_parts, vec!["BodyText/Section0".to_string()]);
    let filled = out.bytes.unwrap();
    assert_only_section_changed(&blank, &filled);

    let (before, after) = (cells(&blank), cells(&filled));
    assert_eq!(before.len(), after.len());
    let named = after
        .iter()
        .find(|c| c.2.as_deref() == Some("reg_nm_cnts2"))
        .unwrap();
    assert_eq!(named.3, ["사실확인 기능 보완", "둘째 줄"]);
    assert!(after
        .iter()
        .any(|c| (c.0, c.1) == (1, 0) && c.3 == ["a<b & c>d\t탭 漢字 😀"]));
    let changed: Vec<_> = before
        .iter()
        .zip(&after)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.2.clone())
        .collect();
    assert_eq!(changed.len(), 2, "only the two written cells: {changed:?}");

    // The same values again: the cells hold them already, nothing is written.
    let again = fill(&filled, &values, &Options::default()).unwrap();
    assert!(again.bytes.is_none());
    assert_eq!(again.plan.filled[0].before, "사실확인 기능 보완\n둘째 줄");
}

#[test]
fn a_cell_holding_a_table_is_not_written_and_an_unknown_label_is_unmatched() {
    let out = fill(
        &review_form(),
        &[
            ("cmpar_chart".to_string(), text("x")),
            ("없는 항목".to_string(), text("x")),
            ("reg_nm_cnts2".to_string(), Value::Flag(true)),
        ],
        &Options::default(),
    );
    assert_eq!(
        out.err().map(|e| e.code),
        Some(rhwp_reader::ErrorCode::InvalidInput),
        "true/false is no cell text"
    );
    let out = fill(
        &review_form(),
        &[
            ("cmpar_chart".to_string(), text("x")),
            ("없는 항목".to_string(), text("x")),
        ],
        &Options::default(),
    )
    .unwrap();
    assert!(out.bytes.is_none());
    assert_eq!(out.plan.unmatched, ["cmpar_chart", "없는 항목"]);
    assert!(out.plan.warnings[0].contains("not only text"));
}

/// A paragraph at `level` with its header's character count, optional text (ending in 13),
/// a character shape and a line segment, as 한글 writes them.
fn paragraph(level: u16, line: &str, last: bool, shape: u32) -> Vec<u8> {
    let units = line.encode_utf16().count() as u32 + 1;
    let mut head = vec![0u8; 24];
    let count = units | if last { 0x8000_0000 } else { 0 };
    head[..4].copy_from_slice(&count.to_le_bytes());
    head[8..10].copy_from_slice(&3u16.to_le_bytes()); // paragraph shape
    head[12..14].copy_from_slice(&1u16.to_le_bytes());
    head[16..18].copy_from_slice(&1u16.to_le_bytes());
    head[18..22].copy_from_slice(&0x8000_0007u32.to_le_bytes());
    let mut v = record(PARA_HEADER, level, &head);
    if !line.is_empty() {
        let mut t = utf16(line);
        t.extend_from_slice(&13u16.to_le_bytes());
        v.extend(record(PARA_TEXT, level + 1, &t));
    }
    v.extend(char_shapes(level + 1, &[(0, shape)]));
    v.extend(record(PARA_LINE_SEG, level + 1, &[0u8; 36]));
    v
}

/// A PARA_CHAR_SHAPE record at `level`: (position, shape id) pairs.
fn char_shapes(level: u16, shapes: &[(u32, u32)]) -> Vec<u8> {
    let data: Vec<u8> = shapes
        .iter()
        .flat_map(|(p, id)| [p.to_le_bytes(), id.to_le_bytes()].concat())
        .collect();
    record(PARA_CHAR_SHAPE, level, &data)
}

/// A cell's LIST_HEADER (4-byte paragraph count, property, address, spans) and its paragraphs.
fn cell(level: u16, row: u16, col: u16, spans: (u16, u16), lines: &[&str]) -> Vec<u8> {
    named_cell(level, row, col, spans, lines, None)
}

/// A cell as `cell`, with a field name (after the fixed part, flag 0xFF and a parameter set).
fn named_cell(
    level: u16,
    row: u16,
    col: u16,
    spans: (u16, u16),
    lines: &[&str],
    name: Option<&str>,
) -> Vec<u8> {
    let mut d = (lines.len() as u32).to_le_bytes().to_vec();
    d.extend_from_slice(&[0u8; 4]);
    for x in [col, row, spans.1, spans.0] {
        d.extend_from_slice(&x.to_le_bytes());
    }
    d.extend_from_slice(&[0u8; 22]);
    if let Some(name) = name {
        d.push(0xFF);
        d.extend(common::name_set(name));
    }
    let mut v = record(LIST_HEADER, level, &d);
    for (k, line) in lines.iter().enumerate() {
        v.extend(paragraph(level, line, k + 1 == lines.len(), 5 + row as u32));
    }
    v
}

/// A table control at `level` (in a paragraph at `level - 1`): its CTRL_HEADER, TABLE and cells.
fn table(level: u16, rows: u16, cols: u16, cells: Vec<u8>) -> Vec<u8> {
    let mut v = common::ctrl_header(level, b"tbl ", &[0u8; 40]);
    let mut t = vec![0u8; 4];
    t.extend_from_slice(&rows.to_le_bytes());
    t.extend_from_slice(&cols.to_le_bytes());
    t.extend_from_slice(&[0u8; 10]);
    v.extend(record(TABLE, level + 1, &t));
    v.extend(cells);
    v
}

/// A paragraph at `level` holding one table (its extended control character).
fn table_paragraph(level: u16, last: bool, tbl: Vec<u8>) -> Vec<u8> {
    let mut head = vec![0u8; 24];
    head[..4].copy_from_slice(&(9u32 | if last { 0x8000_0000 } else { 0 }).to_le_bytes());
    head[4..8].copy_from_slice(&(1u32 << 11).to_le_bytes());
    let mut v = record(PARA_HEADER, level, &head);
    let mut t = common::ctrl_char(11, b"tbl ");
    t.extend_from_slice(&13u16.to_le_bytes());
    v.extend(record(PARA_TEXT, level + 1, &t));
    v.extend(tbl);
    v
}

/// A 신청서: an outer table whose cell (1,0) holds an inner table; a label over two merged
/// columns; an empty cell whose paragraph has no text record.
fn application_form() -> Vec<u8> {
    let inner = table(
        3,
        1,
        2,
        [
            cell(4, 0, 0, (1, 1), &["연락처"]),
            cell(4, 0, 1, (1, 1), &[""]),
        ]
        .concat(),
    );
    let outer_cells = [
        cell(2, 0, 0, (1, 2), &["신 청 인 :"]),
        named_cell(2, 0, 2, (1, 1), &[""], Some("applicant")),
        {
            let mut c = common::record(LIST_HEADER, 2, &{
                let mut d = 1u32.to_le_bytes().to_vec();
                d.extend_from_slice(&[0u8; 4]);
                for x in [0u16, 1, 3, 1] {
                    d.extend_from_slice(&x.to_le_bytes());
                }
                d.extend_from_slice(&[0u8; 22]);
                d
            });
            c.extend(table_paragraph(2, true, inner));
            c
        },
    ]
    .concat();
    let outer = table(1, 2, 3, outer_cells);
    let mut section = paragraph(0, "신청서", false, 0);
    section.extend(table_paragraph(0, false, outer));
    section.extend(paragraph(0, "끝", true, 0));
    common::hwp_file(0, &[], &[&section])
}

/// The records of a section stream: (tag, level, data).
fn records(section: &[u8]) -> Vec<(u16, u16, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= section.len() {
        let word = u32::from_le_bytes(section[at..at + 4].try_into().unwrap());
        let (tag, level) = ((word & 0x3FF) as u16, ((word >> 10) & 0x3FF) as u16);
        let mut size = (word >> 20) as usize;
        at += 4;
        if size == 0xFFF {
            size = u32::from_le_bytes(section[at..at + 4].try_into().unwrap()) as usize;
            at += 4;
        }
        out.push((tag, level, section[at..at + size].to_vec()));
        at += size;
    }
    out
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap())
}

#[test]
fn a_multi_line_value_becomes_paragraphs_with_consistent_records() {
    let blank = application_form();
    let out = fill(
        &blank,
        &[
            ("신청인".to_string(), text("홍길동\n\n서울\t종로")),
            ("연락처".to_string(), text("010-1234-5678")),
        ],
        &Options::default(),
    )
    .unwrap();
    assert!(out.plan.unmatched.is_empty(), "{:?}", out.plan);
    let by_key: Vec<_> = out
        .plan
        .filled
        .iter()
        .map(|f| (f.key.as_str(), f.address.cells.clone()))
        .collect();
    assert_eq!(by_key[0].1.len(), 1);
    assert_eq!(
        (by_key[0].1[0].row, by_key[0].1[0].col),
        (0, 2),
        "past the label's two merged columns"
    );
    assert_eq!(by_key[1].1.len(), 2, "the inner table's cell");
    let filled = out.bytes.unwrap();
    let section = streams(&filled)["BodyText/Section0"].clone();
    let recs = records(&section);
    // The merged label's neighbour: its LIST_HEADER counts three paragraphs now.
    let list = recs
        .iter()
        .position(|r| r.0 == LIST_HEADER && r.2[8..12] == [2, 0, 0, 0])
        .unwrap();
    assert_eq!(u32_at(&recs[list].2, 0), 3);
    let paras: Vec<usize> = (list + 1..recs.len())
        .take_while(|&j| recs[j].1 > 2 || recs[j].0 == PARA_HEADER)
        .filter(|&j| recs[j].0 == PARA_HEADER)
        .collect();
    assert_eq!(paras.len(), 3);
    let counts: Vec<u32> = paras.iter().map(|&j| u32_at(&recs[j].2, 0)).collect();
    assert_eq!(
        counts,
        [4, 1, 0x8000_0000 | 13],
        "text + end; only the last is last"
    );
    assert_eq!(
        u32_at(&recs[paras[2]].2, 4),
        1 << 9,
        "the tab in the control mask"
    );
    for &j in &paras {
        let head = &recs[j].2;
        assert_eq!(head[8..10], [3, 0], "the paragraph shape kept");
        assert_eq!(head[12..14], [1, 0], "one character shape");
        assert_eq!(head[16..18], [0, 0], "no line layout");
    }
    let children: Vec<u16> = recs[paras[0]..paras[1]].iter().map(|r| r.0).collect();
    assert_eq!(children, [PARA_HEADER, PARA_TEXT, PARA_CHAR_SHAPE]);
    let children: Vec<u16> = recs[paras[1]..paras[2]].iter().map(|r| r.0).collect();
    assert_eq!(
        children,
        [PARA_HEADER, PARA_CHAR_SHAPE],
        "an empty line has no text"
    );
    assert_eq!(
        u32_at(&recs[paras[0] + 2].2, 4),
        5,
        "the shape the cell had at its start"
    );
    let mut tab = utf16("서울");
    for u in [9u16, 0, 0, 0, 0, 0, 0, 9] {
        tab.extend_from_slice(&u.to_le_bytes());
    }
    tab.extend(utf16("종로"));
    tab.extend_from_slice(&13u16.to_le_bytes());
    assert_eq!(recs[paras[2] + 1].2, tab);

    let after = cells(&filled);
    assert!(after
        .iter()
        .any(|c| c.3 == ["홍길동", "", "서울\t종로"] || c.3 == ["홍길동", "서울\t종로"]));
    assert!(after.iter().any(|c| c.3 == ["010-1234-5678"]));
    // Every paragraph outside the two cells reads as before.
    let texts = |b: &[u8]| -> Vec<Vec<String>> {
        cells(b)
            .into_iter()
            .filter(|c| !c.3.iter().all(String::is_empty))
            .map(|c| c.3)
            .collect()
    };
    assert_eq!(texts(&blank).len() + 2, texts(&filled).len());

    // Emptying the cell again gives one empty paragraph, as 한글 writes an empty cell.
    let emptied = fill(
        &filled,
        &[("applicant".to_string(), text(""))],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(emptied.plan.filled[0].kind, "cell");
    let recs = records(&streams(&emptied.bytes.unwrap())["BodyText/Section0"]);
    let list = recs
        .iter()
        .position(|r| r.0 == LIST_HEADER && r.2[8..12] == [2, 0, 0, 0])
        .unwrap();
    assert_eq!(u32_at(&recs[list].2, 0), 1);
    assert_eq!(recs[list + 1].0, PARA_HEADER);
    assert_eq!(u32_at(&recs[list + 1].2, 0), 0x8000_0001);
    assert_eq!(recs[list + 2].0, PARA_CHAR_SHAPE);
    assert_eq!(recs[list + 3].0, LIST_HEADER, "the next cell follows");
}

#[test]
fn a_label_found_twice_is_ambiguous() {
    let doubled = {
        let t = table(
            1,
            1,
            4,
            [
                cell(2, 0, 0, (1, 1), &["성명"]),
                cell(2, 0, 1, (1, 1), &[""]),
                cell(2, 0, 2, (1, 1), &["성 명"]),
                cell(2, 0, 3, (1, 1), &[""]),
            ]
            .concat(),
        );
        let section = table_paragraph(0, true, t);
        common::hwp_file(0, &[], &[&section])
    };
    let out = fill(
        &doubled,
        &[("성명".to_string(), text("홍길동"))],
        &Options::default(),
    )
    .unwrap();
    assert!(out.bytes.is_none());
    assert_eq!(out.plan.ambiguous.len(), 1);
    assert_eq!(out.plan.ambiguous[0].candidates.len(), 2);
    let _ = CTRL_HEADER;
}

const FORM_OBJECT: u16 = 91;

fn wstr(key: &str, v: &str) -> String {
    format!("{key}:wstring:{}:{v}", v.encode_utf16().count())
}

/// A Hancom-like property string: CommonSet (Name), CharShapeSet, then the kind's set; every
/// set's length in UTF-16 units.
fn form_props(name: &str, set_name: &str, kind_set: &str) -> String {
    let set = |s: &str| format!("{}:{s}", s.encode_utf16().count());
    let common = format!(
        "{} ForeColor:int:0 GroupName:wstring:0: TabStop:bool:1 ",
        wstr("Name", name)
    );
    format!(
        "CommonSet:set:{} CharShapeSet:set:{} {set_name}:set:{} ",
        set(&common),
        set("CharShapeID:int:0 FollowContext:bool:0 "),
        set(kind_set)
    )
}

/// A FORM_OBJECT payload: the type id twice, the string's length (u16, two zero bytes), the
/// string (u16 length + UTF-16).
fn form_object(type_id: &[u8; 4], props: &str) -> Vec<u8> {
    let n = props.encode_utf16().count() as u32;
    let mut d = vec![type_id[3], type_id[2], type_id[1], type_id[0]];
    d.extend_from_slice(&[type_id[3], type_id[2], type_id[1], type_id[0]]);
    d.extend_from_slice(&n.to_le_bytes());
    d.extend(common::wstring(props));
    d
}

/// A section of one paragraph holding the given form objects (type id, property string).
fn form_section(objects: &[([u8; 4], String)]) -> Vec<u8> {
    let mut text = utf16("양식 ");
    for _ in objects {
        text.extend(common::ctrl_char(11, b"form"));
    }
    text.extend_from_slice(&13u16.to_le_bytes());
    let mut head = vec![0u8; 24];
    head[..4].copy_from_slice(&(0x8000_0000 | (text.len() / 2) as u32).to_le_bytes());
    let mut s = record(PARA_HEADER, 0, &head);
    s.extend(record(PARA_TEXT, 1, &text));
    for (id, props) in objects {
        let mut common = b"mrof".to_vec();
        common.extend_from_slice(&[0u8; 42]);
        s.extend(record(CTRL_HEADER, 1, &common));
        s.extend(record(FORM_OBJECT, 2, &form_object(id, props)));
    }
    s
}

fn controls(bytes: &[u8]) -> Vec<(String, String, Option<bool>, Option<String>)> {
    let mut out = Vec::new();
    visit(bytes, &mut |b| {
        if let Block::FormControl(f) = b {
            out.push((
                f.control.clone(),
                f.name.clone().unwrap_or_default(),
                f.checked,
                f.value.clone(),
            ));
        }
    });
    out
}

#[test]
fn form_controls_are_set_in_their_property_strings() {
    let button = |name: &str, caption: &str, value: u8, group: Option<&str>| {
        let group = group.map_or(String::new(), |g| format!("{} ", wstr("RadioGroupName", g)));
        form_props(
            name,
            "ButtonSet",
            &format!("{} {group}Value:int:{value} ", wstr("Caption", caption)),
        )
    };
    let objects = vec![
        (*b"+cbt", button("동의", "동의함", 0, None)),
        (*b"+rbt", button("남", "남", 1, Some("성별"))),
        (*b"+rbt", button("여", "여", 0, Some("성별"))),
        (
            *b"+cob",
            form_props(
                "지역",
                "ComboBoxSet",
                &format!(
                    "ListBoxRows:int:4 {} EditEnable:bool:1 ",
                    wstr("Text", "서울")
                ),
            ),
        ),
        (
            *b"+edt",
            form_props(
                "전화",
                "EditSet",
                &format!("{} MultiLine:bool:0 ", wstr("Text", "")),
            ),
        ),
        // A checkbox whose properties hold no Value item: not set, said.
        (
            *b"+cbt",
            form_props("빈칸", "ButtonSet", &format!("{} ", wstr("Caption", "x"))),
        ),
    ];
    let blank = common::hwp_file(0, &[], &[&form_section(&objects)]);
    let values = [
        ("동의".to_string(), Value::Flag(true)),
        ("여".to_string(), Value::Flag(true)),
        ("지역".to_string(), text("부산광역시 해운대구")),
        ("전화".to_string(), text("010-1234-5678 <&> 😀")),
        ("빈칸".to_string(), Value::Flag(true)),
    ];
    let out = fill(&blank, &values, &Options::default()).unwrap();
    let kinds: Vec<(&str, &str)> = out
        .plan
        .filled
        .iter()
        .map(|f| (f.kind, f.before.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("checkbox", "false"),
            ("radio", "false"),
            ("combo_box", "서울"),
            ("edit", "")
        ]
    );
    assert_eq!(out.plan.unmatched, ["빈칸"]);
    assert!(
        out.plan.warnings[0].contains("no Value item"),
        "{:?}",
        out.plan
    );
    let filled = out.bytes.unwrap();
    let got = controls(&filled);
    assert_eq!(got[0].2, Some(true));
    assert_eq!(
        (got[1].2, got[2].2),
        (Some(false), Some(true)),
        "one of a group"
    );
    assert_eq!(got[3].3.as_deref(), Some("부산광역시 해운대구"));
    assert_eq!(got[4].3.as_deref(), Some("010-1234-5678 <&> 😀"));
    // The sets around each changed item are re-counted: every item after them still reads.
    let doc = read(&filled, &Options::default()).unwrap();
    let mut captions = Vec::new();
    for_each_block(&doc.sections[0].blocks, &mut |b| {
        if let Block::FormControl(f) = b {
            captions.push(f.caption.clone());
        }
    });
    assert_eq!(captions[0].as_deref(), Some("동의함"));
    let section = streams(&filled)["BodyText/Section0"].clone();
    let mut keys = Vec::new();
    for (tag, _, data) in records(&section) {
        if tag == FORM_OBJECT {
            let n = u16::from_le_bytes([data[8], data[9]]) as usize;
            assert_eq!(u16::from_le_bytes([data[12], data[13]]) as usize, n);
            assert_eq!(data.len(), 14 + 2 * n, "the string's two lengths agree");
            let props = String::from_utf16(
                &data[14..]
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            keys.extend(
                rhwp_reader::hwp5::fields::properties(&props)
                    .into_iter()
                    .map(|(k, _)| k),
            );
        }
    }
    // The items after a changed one, in its set and after it, still read.
    for after in ["MultiLine", "EditEnable", "TabStop", "FollowContext"] {
        assert!(keys.iter().any(|k| k == after), "{after}: {keys:?}");
    }
    // Unticking: the checkbox's Value goes back to 0; the same values again change nothing.
    let again = fill(&filled, &values[..4], &Options::default()).unwrap();
    assert!(again.bytes.is_none());
    let off = fill(
        &filled,
        &[("동의".to_string(), Value::Flag(false))],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(controls(&off.bytes.unwrap())[0].2, Some(false));
}

/// Paragraphs at `level` over which a click-here field "본문" runs: "앞 " + begin + the guide's
/// first line, a middle line, the last line + end + " 뒤"; then "끝". The last is the list's last.
fn spanning_field(level: u16) -> (Vec<u8>, usize) {
    let mut first = utf16("앞 ");
    first.extend(common::ctrl_char(3, b"%clk"));
    first.extend(utf16("안내 첫 줄"));
    let mut last = utf16("안내 끝 줄");
    last.extend(common::ctrl_char(4, b"%clk"));
    last.extend(utf16(" 뒤"));
    let with_end = |t: &[u8]| {
        let mut t = t.to_vec();
        t.extend_from_slice(&13u16.to_le_bytes());
        t
    };
    let header = |units: usize, last: bool| {
        let mut head = vec![0u8; 24];
        head[..4]
            .copy_from_slice(&(units as u32 | if last { 0x8000_0000 } else { 0 }).to_le_bytes());
        head[8..10].copy_from_slice(&3u16.to_le_bytes());
        head[12..14].copy_from_slice(&1u16.to_le_bytes());
        head
    };
    let mut v = Vec::new();
    let t = with_end(&first);
    v.extend(record(PARA_HEADER, level, &header(t.len() / 2, false)));
    v.extend(record(PARA_TEXT, level + 1, &t));
    // The guide's red italic (shape 9) from the begin on; the value must take shape 2.
    v.extend(char_shapes(level + 1, &[(0, 2), (11, 9)]));
    v.extend(record(PARA_LINE_SEG, level + 1, &[0u8; 36]));
    v.extend(common::field_ctrl(
        level + 1,
        b"%clk",
        0,
        &common::click_here_command("본문을 입력"),
        0,
        Some("본문"),
    ));
    v.extend(paragraph(level, "안내 둘째 줄", false, 9));
    let t = with_end(&last);
    v.extend(record(PARA_HEADER, level, &header(t.len() / 2, false)));
    v.extend(record(PARA_TEXT, level + 1, &t));
    v.extend(char_shapes(level + 1, &[(0, 9), (6, 2)]));
    v.extend(paragraph(level, "끝", true, 2));
    (v, 4)
}

/// The form filled with `value` in its field "본문".
fn fill_body(form: &[u8], value: &str) -> rhwp_reader::common::fill::Output {
    fill(form, &[("본문".into(), text(value))], &Options::default()).unwrap()
}

fn click_here_values(bytes: &[u8]) -> Vec<String> {
    let doc = read(bytes, &Options::default()).unwrap();
    let mut parts = Vec::new();
    for section in &doc.sections {
        for_each_block(&section.blocks, &mut |b| {
            if let Block::Paragraph(p) = b {
                for f in &p.fields {
                    if f.name.as_deref() == Some("본문") {
                        parts.push(f.value.clone());
                    }
                }
            }
        });
    }
    parts
}

fn all_paragraphs(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    visit(bytes, &mut |b| {
        if let Block::Paragraph(p) = b {
            out.push(p.text.clone());
        }
    });
    out
}

#[test]
fn a_field_over_paragraphs_gets_a_paragraph_per_line_in_the_section_and_in_a_cell() {
    let (section, _) = spanning_field(0);
    let blank = common::hwp_file(0, &[], &[&section]);
    let one = fill_body(&blank, "한 줄 <값>");
    let entry = &one.plan.filled[0];
    assert_eq!((entry.span_before, entry.span_after), (3, 1));
    let filled = one.bytes.unwrap();
    assert_eq!(all_paragraphs(&filled), ["앞 한 줄 <값> 뒤", "끝"]);
    assert_eq!(click_here_values(&filled), ["한 줄 <값>"]);
    let recs = records(&streams(&filled)["BodyText/Section0"]);
    let heads: Vec<u32> = recs
        .iter()
        .filter(|r| r.0 == PARA_HEADER)
        .map(|r| u32_at(&r.2, 0))
        .collect();
    assert_eq!(heads, [2 + 8 + 7 + 8 + 2 + 1, 0x8000_0002]);
    let shapes = &recs.iter().find(|r| r.0 == PARA_CHAR_SHAPE).unwrap().2;
    let shapes: Vec<(u32, u32)> = shapes
        .chunks_exact(8)
        .map(|c| (u32_at(c, 0), u32_at(c, 4)))
        .collect();
    assert_eq!(
        shapes,
        [(0, 2)],
        "the value takes the begin's shape, not the guide's"
    );
    let second = recs.iter().rposition(|r| r.0 == PARA_HEADER).unwrap();
    assert!(
        recs[..second].iter().all(|r| r.0 != PARA_LINE_SEG),
        "no stale layout left on the edited paragraph"
    );

    let many = fill_body(&blank, "첫째\n\n셋째 😀");
    assert_eq!(many.plan.filled[0].span_after, 3);
    let filled = many.bytes.unwrap();
    // The model keeps no empty paragraph; the records hold it.
    assert_eq!(all_paragraphs(&filled), ["앞 첫째", "셋째 😀 뒤", "끝"]);
    let recs = records(&streams(&filled)["BodyText/Section0"]);
    assert_eq!(recs.iter().filter(|r| r.0 == PARA_HEADER).count(), 4);
    assert_eq!(
        click_here_values(&filled).join("\n").replace("\n\n", "\n"),
        "첫째\n셋째 😀"
    );
    let again = fill_body(&filled, "첫째\n\n셋째 😀");
    assert!(
        again.bytes.is_none(),
        "the same value again changes nothing"
    );
    assert_eq!(again.plan.filled[0].before, "첫째\n\n셋째 😀");

    // The same field in a table cell: the cell's LIST_HEADER counts its paragraphs anew.
    let (inner, count) = spanning_field(2);
    let mut list = (count as u32).to_le_bytes().to_vec();
    list.extend_from_slice(&[0u8; 4]);
    for x in [0u16, 0, 1, 1] {
        list.extend_from_slice(&x.to_le_bytes());
    }
    list.extend_from_slice(&[0u8; 22]);
    let mut cell_records = record(LIST_HEADER, 2, &list);
    cell_records.extend(inner);
    let section = table_paragraph(0, true, table(1, 1, 1, cell_records));
    let blank = common::hwp_file(0, &[], &[&section]);
    let out = fill_body(&blank, "가\n나\n다\n라");
    assert_eq!(out.plan.filled[0].address.cells.len(), 1);
    let filled = out.bytes.unwrap();
    let recs = records(&streams(&filled)["BodyText/Section0"]);
    let list = recs.iter().position(|r| r.0 == LIST_HEADER).unwrap();
    assert_eq!(u32_at(&recs[list].2, 0), 5, "4 lines + 끝");
    let lasts: Vec<bool> = recs[list..]
        .iter()
        .filter(|r| r.0 == PARA_HEADER && r.1 == 2)
        .map(|r| u32_at(&r.2, 0) & 0x8000_0000 != 0)
        .collect();
    assert_eq!(lasts, [false, false, false, false, true]);
    assert_eq!(
        all_paragraphs(&filled),
        ["앞 가", "나", "다", "라 뒤", "끝"]
    );
}
