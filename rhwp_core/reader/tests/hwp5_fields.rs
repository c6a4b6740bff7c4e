//! Fields, form objects, memos and named cells in HWP 5.0: hand-built records (the format as
//! documented and as the corpus's click-here files hold it) and the corpus files themselves.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::model::{Block, Document, Field, FormControl};
use rhwp_reader::{read, Options};

mod common;
use common::{
    click_here_command, ctrl_char, field_ctrl, name_set, record, text_paragraph as paragraph,
    utf16, wstring, CTRL_HEADER, LIST_HEADER, MEMO_LIST, TABLE,
};

const FORM_OBJECT: u16 = 91;
const GUIDE: &str = "이곳을 마우스로 누르고 내용을 입력하세요.";

/// A field-end character (inline, 8 units).
fn field_end() -> Vec<u8> {
    ctrl_char(4, b"%clk")
}

fn read_doc(sections: &[Vec<u8>]) -> Document {
    let sections: Vec<&[u8]> = sections.iter().map(Vec::as_slice).collect();
    let bytes = common::hwp_file(0, &[], &sections);
    read(
        &bytes,
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .unwrap()
}

fn paragraphs(blocks: &[Block]) -> Vec<&rhwp_reader::model::Paragraph> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph(p) => Some(p),
            _ => None,
        })
        .collect()
}

#[test]
fn click_here_fields_name_guide_value() {
    // "이름: [홍길동]." then an empty click-here field alone in a paragraph.
    let mut text = utf16("이름: ");
    text.extend(ctrl_char(3, b"%clk"));
    text.extend(utf16("홍길동"));
    text.extend(field_end());
    text.extend(utf16("."));
    let mut s = paragraph(0, &text);
    s.extend(field_ctrl(
        1,
        b"%clk",
        0x8001,
        &click_here_command(GUIDE),
        0,
        Some("성명"),
    ));
    let mut empty = ctrl_char(3, b"%clk");
    empty.extend(field_end());
    s.extend(paragraph(0, &empty));
    s.extend(field_ctrl(
        1,
        b"%clk",
        0,
        &click_here_command("날짜"),
        0,
        Some("date"),
    ));
    let doc = read_doc(&[s]);
    let ps = paragraphs(&doc.sections[0].blocks);
    assert_eq!(
        ps.len(),
        2,
        "the paragraph holding only an empty field is kept"
    );
    assert_eq!(ps[0].text, "이름: 홍길동.");
    let f = &ps[0].fields[0];
    assert_eq!(f.kind, "click_here");
    assert_eq!(f.name.as_deref(), Some("성명"));
    assert_eq!(f.guide.as_deref(), Some(GUIDE));
    assert!(f.editable);
    assert_eq!((f.value.as_str(), f.start, f.end), ("홍길동", 4, 7));
    // The empty field shows its name and guide in its place (model's show_empty_fields).
    assert_eq!(ps[1].text, "[date: 날짜]");
    let f = &ps[1].fields[0];
    assert_eq!(
        (f.name.as_deref(), f.guide.as_deref()),
        (Some("date"), Some("날짜"))
    );
    assert_eq!(
        (f.value.as_str(), f.start, f.end, f.editable),
        ("", 0, 10, false)
    );
}

#[test]
fn a_field_spanning_paragraphs_holds_their_text() {
    let mut first = utf16("가 ");
    first.extend(ctrl_char(3, b"%clk"));
    first.extend(utf16("하나"));
    let mut s = paragraph(0, &first);
    s.extend(field_ctrl(
        1,
        b"%clk",
        1,
        &click_here_command(GUIDE),
        0,
        Some("긴"),
    ));
    s.extend(paragraph(0, &utf16("둘")));
    let mut last = utf16("셋");
    last.extend(field_end());
    last.extend(utf16(" 끝"));
    s.extend(paragraph(0, &last));
    let doc = read_doc(&[s]);
    let ps = paragraphs(&doc.sections[0].blocks);
    assert_eq!(ps.len(), 3);
    // Listed in each paragraph over the part it holds; the later parts marked continued.
    assert_eq!(
        common::field_parts(&doc.sections[0].blocks),
        [
            ("하나", 2, 4, false),
            ("둘", 0, 1, true),
            ("셋", 0, 1, true)
        ]
    );
    assert!(ps
        .iter()
        .flat_map(|p| &p.fields)
        .all(|f| f.name.as_deref() == Some("긴") && f.guide.as_deref() == Some(GUIDE)));
}

fn form_object(type_id: &[u8; 4], props: &str) -> Vec<u8> {
    let n = props.encode_utf16().count() as u32;
    let mut d = vec![type_id[3], type_id[2], type_id[1], type_id[0]];
    d.extend_from_slice(&[type_id[3], type_id[2], type_id[1], type_id[0]]);
    d.extend_from_slice(&n.to_le_bytes());
    d.extend(wstring(props));
    d
}

/// A Hancom-like property string: CommonSet (Name, GroupName), CharShapeSet, then `kind_set`.
fn form_props(name: &str, set_name: &str, kind_set: &str) -> String {
    let set = |s: &str| format!("{}:{s}", s.encode_utf16().count());
    let common = format!(
        "Name:wstring:{}:{name} ForeColor:int:0 BackColor:int:15790320 GroupName:wstring:0: TabStop:bool:1 ",
        name.encode_utf16().count()
    );
    let shape = "CharShapeID:int:0 FollowContext:bool:0 ";
    format!(
        "CommonSet:set:{} CharShapeSet:set:{} {set_name}:set:{} ",
        set(&common),
        set(shape),
        set(kind_set)
    )
}

fn wstr(key: &str, v: &str) -> String {
    format!("{key}:wstring:{}:{v}", v.encode_utf16().count())
}

/// Fields never ended run to the end of their list, each taking every paragraph's text: only
/// `MAX_OPEN_FIELDS` are open at once, the others' text is read as text only.
#[test]
fn open_fields_are_bounded() {
    use rhwp_reader::limits::MAX_OPEN_FIELDS;
    let mut first = Vec::new();
    for _ in 0..3 * MAX_OPEN_FIELDS {
        first.extend(ctrl_char(3, b"%clk"));
    }
    first.extend(utf16("하나"));
    let mut s = paragraph(0, &first);
    for i in 0..3 * MAX_OPEN_FIELDS {
        s.extend(field_ctrl(1, b"%clk", 0, "", 0, Some(&format!("f{i}"))));
    }
    s.extend(paragraph(0, &utf16("둘")));
    let doc = read_doc(&[s]);
    let ps = paragraphs(&doc.sections[0].blocks);
    assert_eq!(
        ps.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
        ["하나", "둘"]
    );
    // Each paragraph lists the part of each open field it holds, the later ones continued.
    assert_eq!(ps[0].fields.len(), MAX_OPEN_FIELDS);
    assert!(ps[0]
        .fields
        .iter()
        .all(|f| f.value == "하나" && !f.continued));
    assert_eq!(ps[1].fields.len(), MAX_OPEN_FIELDS);
    assert!(ps[1].fields.iter().all(|f| f.value == "둘" && f.continued));
}

#[test]
fn form_objects_of_every_kind() {
    let objects: Vec<([u8; 4], String)> = vec![
        (
            *b"+cbt",
            form_props(
                "Check1",
                "ButtonSet",
                &format!("{} Value:int:1 TriState:bool:0 ", wstr("Caption", "동의함")),
            ),
        ),
        (
            *b"+cbt",
            form_props(
                "Check2",
                "ButtonSet",
                &format!(
                    "{} Value:int:0 TriState:bool:0 ",
                    wstr("Caption", "동의 안 함")
                ),
            ),
        ),
        (
            *b"+rbt",
            form_props(
                "Radio1",
                "ButtonSet",
                &format!(
                    "{} {} Value:int:1 ",
                    wstr("Caption", "남"),
                    wstr("RadioGroupName", "성별")
                ),
            ),
        ),
        (
            *b"+cob",
            form_props(
                "Combo1",
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
                "Edit1",
                "EditSet",
                &format!("{} MultiLine:bool:0 ", wstr("Text", "010-1234")),
            ),
        ),
        (
            *b"+pbt",
            form_props(
                "Button1",
                "ButtonSet",
                &format!("{} ", wstr("Caption", "제출")),
            ),
        ),
    ];
    let mut text = utf16("양식 ");
    for _ in &objects {
        text.extend(ctrl_char(11, b"form"));
    }
    let mut s = paragraph(0, &text);
    for (id, props) in &objects {
        let mut common = b"mrof".to_vec();
        common.extend_from_slice(&[0u8; 42]);
        s.extend(record(CTRL_HEADER, 1, &common));
        s.extend(record(FORM_OBJECT, 2, &form_object(id, props)));
    }
    let doc = read_doc(&[s]);
    let forms: Vec<&FormControl> = doc.sections[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::FormControl(f) => Some(f),
            _ => None,
        })
        .collect();
    let got = common::form_rows(&doc.sections[0].blocks);
    assert_eq!(
        got,
        vec![
            (
                "checkbox",
                Some("Check1"),
                Some("동의함"),
                None,
                Some(true),
                None
            ),
            (
                "checkbox",
                Some("Check2"),
                Some("동의 안 함"),
                None,
                Some(false),
                None
            ),
            (
                "radio",
                Some("Radio1"),
                Some("남"),
                None,
                Some(true),
                Some("성별")
            ),
            ("combo_box", Some("Combo1"), None, Some("서울"), None, None),
            ("edit", Some("Edit1"), None, Some("010-1234"), None, None),
            ("button", Some("Button1"), Some("제출"), None, None, None),
        ]
    );
    assert_eq!(forms[0].shown(), "☑ 동의함");
    assert_eq!(forms[1].shown(), "☐ 동의 안 함");
    assert_eq!(forms[3].provenance.char_start, 3); // after "양식 "
}

#[test]
fn memos_are_furniture_not_body_text() {
    // "검토 [대상 문구] 끝" with a memo field; the memo's text follows the last paragraph.
    let mut text = utf16("검토 ");
    text.extend(ctrl_char(3, b"%%me"));
    text.extend(utf16("대상 문구"));
    text.extend(ctrl_char(4, b"%%me"));
    text.extend(utf16(" 끝"));
    let mut s = paragraph(0, &text);
    s.extend(field_ctrl(1, b"%%me", 0, "", 1, None));
    s.extend(record(MEMO_LIST, 1, &1u32.to_le_bytes()));
    s.extend(record(
        LIST_HEADER,
        1,
        &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ));
    s.extend(paragraph(1, &utf16("2분기 수치로 고칠 것")));
    let doc = read_doc(&[s]);
    let text = rhwp_reader::text::document_text(&doc, false);
    assert!(!text.contains("2분기"), "memo text left the body: {text:?}");
    let ps = paragraphs(&doc.sections[0].blocks);
    assert_eq!(ps.len(), 1);
    assert_eq!(ps[0].text, "검토 대상 문구 끝");
    assert!(ps[0].fields.is_empty(), "a memo is not a field");
    let memo = doc.furniture.last().expect("memo furniture");
    assert_eq!(memo.kind, "memo");
    assert_eq!(memo.anchor_text.as_deref(), Some("대상 문구"));
    assert_eq!(
        (memo.provenance.char_start, memo.provenance.char_end),
        (3, 8)
    );
    assert_eq!(paragraphs(&memo.blocks)[0].text, "2분기 수치로 고칠 것");
}

#[test]
fn named_cells() {
    let mut s = paragraph(0, &ctrl_char(11, b"tbl "));
    s.extend(record(CTRL_HEADER, 1, b" lbt"));
    let mut table = vec![0u8; 4];
    table.extend_from_slice(&1u16.to_le_bytes());
    table.extend_from_slice(&2u16.to_le_bytes());
    s.extend(record(TABLE, 2, &table));
    for (col, name) in [(0u16, Some("reg_title")), (1, None)] {
        let mut d = vec![1, 0, 0, 0, 0, 0, 0, 0];
        for x in [col, 0, 1, 1] {
            d.extend_from_slice(&x.to_le_bytes());
        }
        d.extend_from_slice(&[0u8; 22]); // size, margins, border fill, text width
        if let Some(name) = name {
            d.push(0xFF);
            d.extend(name_set(name));
        } else {
            d.extend_from_slice(&[0u8; 13]);
        }
        s.extend(record(LIST_HEADER, 2, &d));
        s.extend(paragraph(2, &utf16("칸")));
    }
    let doc = read_doc(&[s]);
    let Some(Block::Table(t)) = doc.sections[0].blocks.first() else {
        panic!("a table")
    };
    let names: Vec<Option<&str>> = t.cells.iter().map(|c| c.field_name.as_deref()).collect();
    assert_eq!(names, vec![Some("reg_title"), None]);
}

// ---- corpus ----

fn all_fields(doc: &Document) -> Vec<Field> {
    fn walk(blocks: &[Block], out: &mut Vec<Field>) {
        for b in blocks {
            match b {
                Block::Paragraph(p) => {
                    for f in &p.fields {
                        let chars: Vec<char> = p.text.chars().collect();
                        let span: String = chars[f.start as usize..f.end as usize].iter().collect();
                        // A value, or an unfilled click-here field shown as its `[name: guide]`.
                        let blank =
                            f.value.is_empty() && span.starts_with('[') && span.ends_with(']');
                        assert!(f.value.starts_with(&span) || blank, "{f:?} spans {span:?}");
                        out.push(f.clone());
                    }
                }
                Block::Table(t) => t.cells.iter().for_each(|c| walk(&c.blocks, out)),
                Block::Shape(s) => walk(&s.blocks, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    doc.sections.iter().for_each(|s| walk(&s.blocks, &mut out));
    out
}

fn corpus(name: &str) -> Option<Document> {
    let dir = common::corpus_dir()?;
    let bytes = std::fs::read(dir.join("hwp").join(name)).expect("corpus file");
    Some(read(&bytes, &Options::default()).expect("corpus file reads"))
}

fn named_values(fields: &[Field]) -> Vec<(&str, &str, &str)> {
    fields
        .iter()
        .map(|f| {
            (
                f.kind.as_str(),
                f.name.as_deref().unwrap_or(""),
                f.value.as_str(),
            )
        })
        .collect()
}

/// (kind, name, value) of each field, the parts of a field over several paragraphs joined
/// with line breaks (as the form listing shows it).
fn joined_values(fields: &[Field]) -> Vec<(&str, &str, String)> {
    let mut out: Vec<(&str, &str, String)> = Vec::new();
    for f in fields {
        match out.last_mut() {
            Some(last) if f.continued => {
                last.2.push('\n');
                last.2.push_str(&f.value);
            }
            _ => out.push((
                f.kind.as_str(),
                f.name.as_deref().unwrap_or(""),
                f.value.clone(),
            )),
        }
    }
    out
}

#[test]
fn corpus_click_here_fields() {
    let Some(doc) = corpus("hwplib-getting_clickhere_text.hwp") else {
        return;
    };
    let fields = all_fields(&doc);
    assert!(fields
        .iter()
        .all(|f| f.guide.as_deref() == Some(GUIDE) && f.editable));
    let got = joined_values(&fields);
    assert_eq!(
        &got[..4],
        &[
            ("click_here", "필드1", "테스트 누름틀".to_string()),
            ("click_here", "필드2", "1234567".to_string()),
            ("click_here", "Table필드1", "테이블안".to_string()),
            (
                "click_here",
                "멀티라인누름틀",
                "여러줄 문자열1\n여러줄 문자열2\n여러줄 문자열3   ".to_string()
            ),
        ]
    );
    assert_eq!(got[4].1, "long");
    assert!(got[4].2.starts_with("Start 롱 누름틀롱 누름틀"));

    let Some(doc) = corpus("hwplib-setting-fields.hwp") else {
        return;
    };
    let fields = all_fields(&doc);
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_deref().unwrap()).collect();
    assert_eq!(
        names,
        ["필드1", "필드2", "필드1", "필드2", "필드1", "필드2", "필드1"]
    );
    // Property 0x1: editable, not modified; the text between the field's ends is the guide, so
    // the fields are unfilled: no value, and the text shows each as `[name: guide]`.
    assert!(fields.iter().all(|f| f.kind == "click_here"
        && f.editable
        && f.value.is_empty()
        && f.guide.as_deref() == Some(GUIDE)));
    let text = rhwp_reader::text::document_text(&doc, false);
    assert!(text.contains(&format!("[필드1: {GUIDE}]")), "{text}");

    let Some(doc) = corpus("hwplib-finding-all-field.hwp") else {
        return;
    };
    let fields = all_fields(&doc);
    let got = joined_values(&fields)
        .into_iter()
        .map(|(_, n, v)| (n, v))
        .collect::<Vec<_>>();
    assert_eq!(got[0], ("필드A", "우리집".to_string()));
    assert_eq!(got[1], ("필드A", "강아지 \n복실강아지".to_string()));
    assert_eq!(got.len(), 5);
}

#[test]
fn corpus_other_fields_and_named_cells() {
    let Some(doc) = corpus("rhwp-nested-cell-pagination.hwp") else {
        return;
    };
    let fields = all_fields(&doc);
    let got = named_values(&fields);
    assert_eq!(
        got,
        [
            ("formula", "", "23,504"),
            ("formula", "", "23,179"),
            ("formula", "", "574"),
            ("formula", "", "13,381"),
            ("formula", "", "9,224"),
        ]
    );
    let mut names = Vec::new();
    doc.for_each_block_ref(&mut names);
    assert_eq!(names.len(), 31);
    assert_eq!(names[0], "reg_smry_tit_t");
    assert_eq!(names[1], "reg_smry_tit_1");

    let Some(doc) = corpus("rhwp-ftc-market-structure-2017.hwp") else {
        return;
    };
    let fields = all_fields(&doc);
    let got = named_values(&fields);
    assert!(
        got.contains(&("bookmark", "RANGE!B2:E8", "2016")),
        "{got:?}"
    );
    assert!(got.contains(&("other", "", "")), "{got:?}");

    let Some(doc) = corpus("hwplib-etc.hwp") else {
        return;
    };
    let fields = all_fields(&doc);
    assert_eq!(named_values(&fields), [("other", "", "나다")]);
    assert!(doc.furniture.iter().all(|f| f.kind != "memo"));
}

trait CellNames {
    fn for_each_block_ref(&self, names: &mut Vec<String>);
}

impl CellNames for Document {
    fn for_each_block_ref(&self, names: &mut Vec<String>) {
        fn walk(blocks: &[Block], names: &mut Vec<String>) {
            for b in blocks {
                match b {
                    Block::Table(t) => {
                        for c in &t.cells {
                            if let Some(n) = &c.field_name {
                                names.push(n.clone());
                            }
                            walk(&c.blocks, names);
                        }
                    }
                    Block::Shape(s) => walk(&s.blocks, names),
                    _ => {}
                }
            }
        }
        self.sections.iter().for_each(|s| walk(&s.blocks, names));
    }
}

// ---- work in proportion to the document (rhwp_reader::fuzzing::assert_linear) ----

fn field_count(doc: &Document) -> usize {
    all_fields(doc).iter().filter(|f| !f.continued).count()
}

#[test]
fn fields_and_memos_cost_in_proportion() {
    let hwp = |s: Vec<u8>| common::hwp_file(0, &[], &[&s]);
    // Field i's characters (begin, value, end) and its control record.
    let field_text = |i: usize| {
        let mut text = ctrl_char(3, b"%clk");
        text.extend(utf16(&format!("값{i}")));
        text.extend(field_end());
        text
    };
    let field_record = |i: usize| {
        let name = format!("칸{i}");
        field_ctrl(1, b"%clk", 1, &click_here_command(GUIDE), 0, Some(&name))
    };
    rhwp_reader::fuzzing::assert_linear(
        "click-here fields, one per paragraph",
        300,
        |n| {
            let mut s = Vec::new();
            for i in 0..n {
                s.extend(paragraph(0, &field_text(i)));
                s.extend(field_record(i));
            }
            hwp(s)
        },
        field_count,
    );
    rhwp_reader::fuzzing::assert_linear(
        "click-here fields in one paragraph",
        300,
        |n| {
            let text: Vec<u8> = (0..n).flat_map(field_text).collect();
            let mut s = paragraph(0, &text);
            s.extend((0..n).flat_map(field_record));
            hwp(s)
        },
        field_count,
    );
    rhwp_reader::fuzzing::assert_linear(
        "one field over many paragraphs",
        300,
        |n| {
            let mut first = ctrl_char(3, b"%clk");
            first.extend(utf16("시작"));
            let mut s = paragraph(0, &first);
            s.extend(field_ctrl(
                1,
                b"%clk",
                1,
                &click_here_command(GUIDE),
                0,
                Some("긴"),
            ));
            for i in 1..n - 1 {
                s.extend(paragraph(0, &utf16(&format!("이어지는 값 {i}"))));
            }
            let mut last = utf16("끝");
            last.extend(field_end());
            s.extend(paragraph(0, &last));
            hwp(s)
        },
        |doc| all_fields(doc).len(),
    );
    rhwp_reader::fuzzing::assert_linear(
        "memos",
        300,
        |n| {
            let mut s = Vec::new();
            for i in 0..n {
                let mut text = ctrl_char(3, b"%%me");
                text.extend(utf16(&format!("표시된 글 {i}")));
                text.extend(ctrl_char(4, b"%%me"));
                s.extend(paragraph(0, &text));
                s.extend(field_ctrl(1, b"%%me", 0, "", i as u32 + 1, None));
                s.extend(record(MEMO_LIST, 1, &(i as u32 + 1).to_le_bytes()));
                s.extend(record(
                    LIST_HEADER,
                    1,
                    &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                ));
                s.extend(paragraph(1, &utf16(&format!("메모 {i}"))));
            }
            hwp(s)
        },
        |doc| doc.furniture.iter().filter(|f| f.kind == "memo").count(),
    );
}
