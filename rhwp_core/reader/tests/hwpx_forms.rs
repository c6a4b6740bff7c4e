//! Forms in real HWPX documents of the shared corpus (skipped when it is absent, a failure
//! under CI): click-here and other fields, named cells, form controls, memos and tracked
//! changes, checked against what the documents' XML holds.

use rhwp_reader::model::{Block, Document, Field, FormControl, Paragraph, TableCell};
use rhwp_reader::text::document_text;
use rhwp_reader::{read, Options};

mod common;
use common::corpus_dir;

fn doc(name: &str) -> Option<Document> {
    let path = corpus_dir()?.join("hwpx").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let options = Options {
        strict: true,
        ..Options::default()
    };
    Some(read(&bytes, &options).unwrap_or_else(|e| panic!("{name}: {e}")))
}

fn visit(doc: &mut Document, f: &mut impl FnMut(&Block)) {
    doc.for_each_block_mut(&mut |b| f(b));
}

fn paragraphs(doc: &mut Document) -> Vec<Paragraph> {
    let mut out = Vec::new();
    visit(doc, &mut |b| {
        if let Block::Paragraph(p) = b {
            out.push(p.clone());
        }
    });
    out
}

fn fields(doc: &mut Document) -> Vec<(Paragraph, Field)> {
    let mut out = Vec::new();
    for p in paragraphs(doc) {
        for f in &p.fields {
            out.push((p.clone(), f.clone()));
        }
    }
    out
}

fn cells(doc: &mut Document) -> Vec<TableCell> {
    let mut out = Vec::new();
    visit(doc, &mut |b| {
        if let Block::Table(t) = b {
            out.extend(t.cells.iter().cloned());
        }
    });
    out
}

fn controls(doc: &mut Document) -> Vec<FormControl> {
    let mut out = Vec::new();
    visit(doc, &mut |b| {
        if let Block::FormControl(c) = b {
            out.push(c.clone());
        }
    });
    out
}

/// The text `[start, end)` of a paragraph, in chars.
fn span(p: &Paragraph, f: &Field) -> String {
    p.text
        .chars()
        .skip(f.start as usize)
        .take((f.end - f.start) as usize)
        .collect()
}

#[test]
fn click_here_filled_and_empty() {
    let Some(mut filled) = doc("pyhwpx-clickhere_gold_filled.hwpx") else {
        return;
    };
    let fs = fields(&mut filled);
    assert_eq!(fs.len(), 1);
    let (p, f) = &fs[0];
    assert_eq!(f.kind, "click_here");
    assert_eq!(f.name.as_deref(), Some("NAMETEXT_THREE"));
    assert_eq!(f.guide.as_deref(), Some("DIRTEXT_ONE"));
    assert!(f.editable);
    assert_eq!(f.value, "FILLED_VALUE_X");
    assert_eq!(p.text, "S111 P0 CONTRACT PROBE FILLED_VALUE_X");
    assert_eq!((f.start, f.end), (23, 37));
    assert_eq!(span(p, f), f.value);

    let mut empty = doc("pyhwpx-clickhere_gold_empty.hwpx").unwrap();
    let fs = fields(&mut empty);
    assert_eq!(fs.len(), 1);
    let (p, f) = &fs[0];
    assert_eq!(f.kind, "click_here");
    assert_eq!(f.name.as_deref(), Some("NAMETEXT_THREE"));
    assert_eq!(f.guide.as_deref(), Some("DIRTEXT_ONE"));
    // Never filled in (dirty="0"): the guide 한글 stores in its place is not the value; the
    // text shows the blank as `[name: guide]` (model's show_empty_fields), the field spans it.
    assert_eq!(f.value, "");
    assert_eq!(
        p.text,
        "S111 P0 CONTRACT PROBE [NAMETEXT_THREE: DIRTEXT_ONE]"
    );
    assert_eq!((f.start, f.end), (23, 52));
    assert_eq!(
        document_text(&empty, true).matches("DIRTEXT_ONE").count(),
        1
    );
}

#[test]
fn click_here_forms_blank_and_submitted() {
    let Some(mut blank) = doc("pyhwpx-A_form.hwpx") else {
        return;
    };
    let mut submitted = doc("pyhwpx-B_submitted.hwpx").unwrap();
    let blank = fields(&mut blank);
    let submitted = fields(&mut submitted);
    assert_eq!(blank.len(), 20);
    assert_eq!(submitted.len(), 18);
    assert!(blank.iter().all(|(_, f)| f.kind == "click_here"));
    // Two fields of the blank form were filled in (dirty="1"); the other 18 hold their guide.
    assert_eq!(blank.iter().filter(|(_, f)| f.value.is_empty()).count(), 18);
    assert!(blank
        .iter()
        .filter(|(_, f)| f.value.is_empty())
        .all(|(p, f)| f.guide.is_some()
            && span(p, f).starts_with('[')
            && span(p, f).ends_with(']')));
    let find = |fs: &[(Paragraph, Field)], guide: &str| {
        fs.iter()
            .find(|(_, f)| f.guide.as_deref() == Some(guide))
            .cloned()
            .unwrap_or_else(|| panic!("no field with guide {guide}"))
    };
    let (p, f) = find(&blank, "과목명");
    assert_eq!(f.value, "");
    // Its name is its guide: shown once.
    assert_eq!(span(&p, &f), "[과목명]");
    let filled: Vec<_> = blank.iter().filter(|(_, f)| !f.value.is_empty()).collect();
    assert_eq!(filled[0].1.guide.as_deref(), Some("몇"));
    assert_eq!(filled[0].1.value, "1");
    for (p, f) in filled {
        assert_eq!(span(p, f), f.value);
    }
    for (guide, value) in [
        ("과목명", "정보"),
        ("번호", "16"),
        ("월", "4"),
        ("요일", "수"),
    ] {
        let (p, f) = find(&submitted, guide);
        assert_eq!(f.value, value, "{guide}");
        assert_eq!(span(&p, &f), value, "{guide}");
    }
}

#[test]
fn click_here_guides_from_the_command_and_multi_paragraph_fields() {
    let Some(mut finder) = doc("hwpxlib-TestFinder.hwpx") else {
        return;
    };
    let fs = fields(&mut finder);
    let names: Vec<_> = fs.iter().filter_map(|(_, f)| f.name.clone()).collect();
    assert!(names.contains(&"필드1".to_string()), "{names:?}");
    // Only `Command` is stored here: `Direction:wstring:3:필드1`.
    let (_, f) = fs
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some("필드1"))
        .unwrap();
    assert_eq!(f.guide.as_deref(), Some("필드1"));
    assert_eq!(f.value, "");

    let mut mot = doc("hwpxlib-mot.hwpx").unwrap();
    let body: Vec<_> = fields(&mut mot)
        .into_iter()
        .filter(|(_, f)| f.name.as_deref() == Some("본문"))
        .collect();
    // One field over ten paragraphs, listed in each (dirty: its text is the value).
    assert!(body.len() > 1, "{}", body.len());
    assert_eq!(
        body[0].1.guide.as_deref(),
        Some("이곳을 마우스로 누르고 본문 내용을 입력하세요.")
    );
    assert!(body[0].1.value.contains("문화체육관광부"));
    assert!(body
        .last()
        .unwrap()
        .1
        .value
        .ends_with("※ 현장 사진 별도 배포 예정"));
    for (p, f) in &body {
        assert_eq!(&span(p, f), &f.value);
    }
}

#[test]
fn other_field_kinds() {
    let Some(mut merge) = doc("pyhwpx-mailmerge_display_fields.hwpx") else {
        return;
    };
    let fs = fields(&mut merge);
    assert_eq!(fs.len(), 2);
    let (p, f) = &fs[0];
    assert_eq!(f.kind, "mail_merge");
    assert_eq!(f.name.as_deref(), Some("name"));
    assert_eq!(f.value, "{{name}}");
    assert!(!f.editable);
    assert_eq!(span(p, f), "{{name}}");

    let mut toc = doc("pyhwpx-hancom-native-toc-B.hwpx").unwrap();
    let fs = fields(&mut toc);
    let kinds: Vec<&str> = fs.iter().map(|(_, f)| f.kind.as_str()).collect();
    assert!(kinds.contains(&"table_of_contents"), "{kinds:?}");
    let (_, xref) = fs
        .iter()
        .find(|(_, f)| f.kind == "cross_reference")
        .unwrap();
    assert_eq!(xref.value, "3");
    // Hyperlinks stay runs' links, not fields.
    assert!(!kinds.contains(&"other"), "{kinds:?}");
}

#[test]
fn named_cells() {
    let Some(mut table) = doc("hwpxlib-Table.hwpx") else {
        return;
    };
    let names: Vec<String> = cells(&mut table)
        .into_iter()
        .filter_map(|c| c.field_name)
        .collect();
    assert!(!names.is_empty());
    let mut finder = doc("hwpxlib-TestFinder.hwpx").unwrap();
    assert!(cells(&mut finder).iter().any(|c| c.field_name.is_some()));
}

#[test]
fn form_controls() {
    let Some(mut buttons) = doc("hwpxlib-SimpleButtons.hwpx") else {
        return;
    };
    let cs = controls(&mut buttons);
    let kinds: Vec<&str> = cs.iter().map(|c| c.control.as_str()).collect();
    assert_eq!(kinds, ["button", "checkbox", "radio"]);
    assert_eq!(cs[0].caption.as_deref(), Some("명령 단추1"));
    assert_eq!(cs[0].name.as_deref(), Some("PushButton1"));
    assert_eq!(cs[0].checked, None);
    assert_eq!(cs[1].caption.as_deref(), Some("선택 상자1"));
    assert_eq!(cs[1].name.as_deref(), Some("CheckBox1"));
    assert_eq!(cs[1].checked, Some(false));
    assert_eq!(cs[2].caption.as_deref(), Some("라디오 단추1"));
    assert_eq!(cs[2].checked, Some(false));

    let mut edit = doc("hwpxlib-SimpleEdit.hwpx").unwrap();
    let cs = controls(&mut edit);
    assert_eq!(cs.len(), 1);
    assert_eq!(cs[0].control, "edit");
    assert_eq!(cs[0].name.as_deref(), Some("Edit1"));
    assert_eq!(cs[0].value.as_deref(), Some("1234"));

    let mut combo = doc("hwpxlib-SimpleComboBox.hwpx").unwrap();
    let cs = controls(&mut combo);
    assert_eq!(cs.len(), 1);
    assert_eq!(cs[0].control, "combo_box");
    assert_eq!(cs[0].name.as_deref(), Some("ComboBox1"));
    assert_eq!(cs[0].value, None);
}

#[test]
fn memos_are_furniture_not_text() {
    let Some(mut notes) = doc("pyhwpx-note_example.hwpx") else {
        return;
    };
    let memos: Vec<_> = notes
        .furniture
        .iter()
        .filter(|f| f.kind == "memo")
        .cloned()
        .collect();
    assert_eq!(memos.len(), 5);
    let first = &memos[0];
    assert_eq!(first.author.as_deref(), Some("user"));
    assert_eq!(first.date.as_deref(), Some("2024-09-27T11:20:21Z"));
    assert_eq!(first.anchor_text.as_deref(), Some("참가"));
    let Some(Block::Paragraph(p)) = first.blocks.first() else {
        panic!("memo without a paragraph");
    };
    assert_eq!(p.text, "11월 4일(화)까지 제출 바랍니다.");
    // The memo in the cell "내용".
    let second = &memos[1];
    assert_eq!(second.anchor_text.as_deref(), Some("내용"));
    // Memos come after every other piece of furniture.
    let first_memo = notes
        .furniture
        .iter()
        .position(|f| f.kind == "memo")
        .unwrap();
    assert!(notes.furniture[first_memo..]
        .iter()
        .all(|f| f.kind == "memo"));
    // No memo text in the body: not in any paragraph, not in any cell.
    let body: String = notes
        .sections
        .iter()
        .map(|s| {
            let mut t = String::new();
            rhwp_reader::text::push_blocks(&s.blocks, &mut t);
            t
        })
        .collect();
    assert!(
        body.contains("2025년 동아리 체험전시회 참가 신청서"),
        "{body}"
    );
    assert!(!body.contains("제출 바랍니다"));
    assert!(!body.contains("구체적으로 적기"));
    for c in cells(&mut notes) {
        let mut t = String::new();
        rhwp_reader::text::push_blocks(&c.blocks, &mut t);
        assert!(!t.contains("구체적으로 적기"), "{t}");
    }

    let mut review = doc("pyhwpx-error__20251107__test_re.hwpx").unwrap();
    let n = review.furniture.iter().filter(|f| f.kind == "memo").count();
    assert_eq!(n, 56);
    for memo in review.furniture.iter().filter(|f| f.kind == "memo") {
        let mut t = String::new();
        rhwp_reader::text::push_blocks(&memo.blocks, &mut t);
        let body: String = review
            .sections
            .iter()
            .map(|s| {
                let mut b = String::new();
                rhwp_reader::text::push_blocks(&s.blocks, &mut b);
                b
            })
            .collect();
        if t.trim().chars().count() > 8 {
            assert!(!body.contains(t.trim()), "memo text in the body: {t}");
        }
    }
    let _ = paragraphs(&mut review);
}

#[test]
fn tracked_changes() {
    let Some(mut doc) = doc("hwpxlib-ChangeTrack.hwpx") else {
        return;
    };
    let ps = paragraphs(&mut doc);
    let p = &ps[0];
    // `변경<del> 추적</del> \t<ins>인간은</ins>`
    assert_eq!(p.text, "변경 \t인간은");
    let deleted: Vec<_> = p
        .runs
        .iter()
        .filter(|r| r.change.as_ref().is_some_and(|c| c.kind == "deleted"))
        .collect();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0].text, " 추적");
    let change = deleted[0].change.as_ref().unwrap();
    assert_eq!(change.author.as_deref(), Some("fff"));
    assert_eq!(change.time.as_deref(), Some("2023-02-07T10:21:00Z"));
    let inserted: Vec<_> = p
        .runs
        .iter()
        .filter(|r| r.change.as_ref().is_some_and(|c| c.kind == "inserted"))
        .collect();
    assert_eq!(inserted.len(), 1);
    assert_eq!(inserted[0].text, "인간은");
    // The runs that are not deleted make up the text.
    let shown: String = p
        .runs
        .iter()
        .filter(|r| r.change.as_ref().is_none_or(|c| c.kind != "deleted"))
        .map(|r| r.text.as_str())
        .collect();
    assert_eq!(shown, p.text);
}

/// A field over several paragraphs is listed in each paragraph over the part it holds, the later
/// parts marked continued — the same parts as HWP 5.0's (`hwp5_fields.rs`).
#[test]
fn a_field_over_several_paragraphs_is_listed_in_each_part() {
    let section = r#"<hs:sec xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph" xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"><hp:p><hp:run><hp:t>앞 </hp:t><hp:ctrl><hp:fieldBegin id="7" type="CLICK_HERE" name="본문" editable="1" dirty="1"><hp:parameters cnt="0" name=""/></hp:fieldBegin></hp:ctrl><hp:t>하나</hp:t></hp:run></hp:p>
        <hp:p><hp:run><hp:t>둘</hp:t></hp:run></hp:p>
        <hp:p><hp:run><hp:t>셋</hp:t><hp:ctrl><hp:fieldEnd beginIDRef="7"/></hp:ctrl><hp:t> 끝</hp:t></hp:run></hp:p></hs:sec>"#;
    let bytes = common::zip_package(&[
        ("mimetype", "application/hwp+zip"),
        ("Contents/section0.xml", section),
    ]);
    let doc = read(&bytes, &Options::default()).unwrap();
    assert_eq!(
        common::field_parts(&doc.sections[0].blocks),
        [
            ("하나", 2, 4, false),
            ("둘", 0, 1, true),
            ("셋", 0, 1, true)
        ]
    );
}
