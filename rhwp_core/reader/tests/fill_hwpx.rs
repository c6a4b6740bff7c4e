//! Filling HWPX forms: the value lands where 한글 puts it, nothing else in the package changes.

#![allow(clippy::unwrap_used, clippy::expect_used)]
use rhwp_reader::common::fill::Value;
use rhwp_reader::formats::fill;
use rhwp_reader::{read, Options};
use std::io::Read;

mod common;

fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/forms")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn part(bytes: &[u8], name: &str) -> String {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut out = String::new();
    zip.by_name(name).unwrap().read_to_string(&mut out).unwrap();
    out
}

/// Every entry's name, method, CRC and stored bytes, in order.
fn entries(bytes: &[u8]) -> Vec<(String, String, u32, Vec<u8>)> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut e = zip.by_index_raw(i).unwrap();
            let mut raw = Vec::new();
            e.read_to_end(&mut raw).unwrap();
            (
                e.name().unwrap().to_string(),
                format!("{:?}", e.compression()),
                e.crc32(),
                raw,
            )
        })
        .collect()
}

fn text(v: &str) -> Value {
    Value::Text(v.into())
}

#[test]
fn a_click_here_field_is_filled_as_hangul_fills_it() {
    let blank = fixture("pyhwpx-clickhere_gold_empty.hwpx");
    let gold = fixture("pyhwpx-clickhere_gold_filled.hwpx");
    let out = fill(
        &blank,
        &[("NAMETEXT_THREE".into(), text("FILLED_VALUE_X"))],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(out.plan.filled.len(), 1);
    assert_eq!(out.plan.filled[0].before, "");
    assert_eq!(out.changed_parts, vec!["Contents/section0.xml".to_string()]);
    let filled = out.bytes.unwrap();
    // 한글's own fill, less the line layout we drop so that 한글 lays the paragraph out again.
    let ours = part(&filled, "Contents/section0.xml");
    let hangul = part(&gold, "Contents/section0.xml");
    let without_layout = |s: &str| {
        let a = s.find("<hp:linesegarray>").unwrap();
        let b = s.find("</hp:linesegarray>").unwrap() + "</hp:linesegarray>".len();
        format!("{}{}", &s[..a], &s[b..])
    };
    let last_para = |s: &str| s[s.rfind("<hp:p ").unwrap()..].to_string();
    assert_eq!(last_para(&ours), without_layout(&last_para(&hangul)));
    // Every other entry as it was, in its order; mimetype first and stored.
    let (before, after) = (entries(&blank), entries(&filled));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.0, a.0);
        if a.0 != "Contents/section0.xml" {
            assert_eq!(b, a, "{}", a.0);
        }
    }
    assert_eq!(after[0].0, "mimetype");
    assert_eq!(after[0].1, "Stored");
    // Our reader reads the value back, with no guide left.
    let doc = read(&filled, &Options::default()).unwrap();
    let got = rhwp_reader::text::document_text(&doc, true);
    assert!(got.contains("FILLED_VALUE_X"), "{got}");
    assert!(!got.contains("DIRTEXT_ONE"), "{got}");
}

#[test]
fn values_are_escaped_and_a_refill_changes_nothing() {
    let blank = fixture("pyhwpx-clickhere_gold_empty.hwpx");
    let value = "a<b & c>\td\n둘째 줄 漢字 😀";
    let values = [("NAMETEXT_THREE".to_string(), text(value))];
    let once = fill(&blank, &values, &Options::default())
        .unwrap()
        .bytes
        .unwrap();
    let section = part(&once, "Contents/section0.xml");
    assert!(section.contains(
        "<hp:t>a&lt;b &amp; c&gt;<hp:tab width=\"4000\" leader=\"0\" type=\"1\"/>d<hp:lineBreak/>둘째 줄 漢字 😀</hp:t>"
    ));
    let doc = read(&once, &Options::default()).unwrap();
    assert!(rhwp_reader::text::document_text(&doc, true).contains("a<b & c>\td\n둘째 줄 漢字 😀"));
    let twice = fill(&once, &values, &Options::default()).unwrap();
    assert_eq!(twice.plan.filled[0].before, value);
    // The same value again changes no byte: there is nothing to write.
    assert!(twice.bytes.is_none());
    assert!(section.contains("dirty=\"1\""));
}

#[test]
fn cells_by_name_and_by_label_and_unknown_keys() {
    let form = fixture("hwpxlib-Table.hwpx");
    let out = fill(
        &form,
        &[("no such key".into(), text("x"))],
        &Options::default(),
    )
    .unwrap();
    assert_eq!(out.plan.unmatched, vec!["no such key".to_string()]);
    assert!(out.bytes.is_none());
}

#[test]
fn formats_without_a_writer_are_refused_with_the_way_out() {
    let hwp = fixture("hwplib-getting_clickhere_text.hwp");
    let err = match fill(&hwp, &[("a".into(), text("b"))], &Options::default()) {
        Err(e) => e,
        Ok(_) => return, // the HWP 5.0 writer exists: its own tests cover it
    };
    assert_eq!(err.code, rhwp_reader::ErrorCode::UnsupportedFormat);
    assert!(err.suggestion.contains("HWPX"));
}

/// Every click-here field and named cell of every corpus HWPX form filled with a value that
/// needs escaping: the package always reads back, every value in its text.
#[test]
fn corpus_forms_filled_with_awkward_values_read_back() {
    let Some(dir) = common::corpus_dir() else {
        return;
    };
    let mut filled = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir.join("hwpx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(doc) = read(&bytes, &Options::default()) else {
            continue;
        };
        let mut names = std::collections::BTreeSet::new();
        let mut doc = doc;
        doc.for_each_block_mut(&mut |b| match b {
            rhwp_reader::model::Block::Paragraph(p) => {
                for f in &p.fields {
                    if f.kind == "click_here" {
                        if let Some(n) = &f.name {
                            names.insert(n.clone());
                        }
                    }
                }
            }
            rhwp_reader::model::Block::Table(t) => {
                for c in &t.cells {
                    if let Some(n) = &c.field_name {
                        names.insert(n.clone());
                    }
                }
            }
            _ => {}
        });
        if names.is_empty() {
            continue;
        }
        let values: Vec<(String, Value)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), Value::Text(format!("값{i} <&> 漢 😀"))))
            .collect();
        let out = fill(&bytes, &values, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Some(new) = out.bytes else { continue };
        let back =
            read(&new, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = rhwp_reader::text::document_text(&back, true);
        for f in &out.plan.filled {
            assert!(text.contains(&f.after), "{}: {}", path.display(), f.key);
        }
        filled += out.plan.filled.len();
    }
    assert!(filled > 0);
}

use common::streams;

#[test]
fn hwp5_click_here_fields_are_filled_and_every_other_stream_kept() {
    let form = fixture("hwplib-getting_clickhere_text.hwp");
    let blank = read(&form, &Options::default()).unwrap();
    let mut names = Vec::new();
    let mut doc = blank;
    doc.for_each_block_mut(&mut |b| {
        if let rhwp_reader::model::Block::Paragraph(p) = b {
            for f in &p.fields {
                if f.kind == "click_here" {
                    names.push(f.name.clone().unwrap_or_default());
                }
            }
        }
    });
    names.dedup();
    assert!(!names.is_empty());
    let values: Vec<(String, Value)> = names
        .iter()
        .map(|n| (n.clone(), text(&format!("값 {n} <&> 😀\n둘째"))))
        .collect();
    let out = fill(&form, &values, &Options::default()).unwrap();
    assert_eq!(out.changed_parts, vec!["BodyText/Section0".to_string()]);
    // A field over several paragraphs holding a picture is not written: said, not guessed.
    assert_eq!(out.plan.unmatched, vec!["long".to_string()]);
    assert!(out
        .plan
        .warnings
        .iter()
        .all(|w| w.contains("holds an object")));
    let filled_keys: Vec<&str> = out.plan.filled.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(
        filled_keys,
        ["필드1", "필드2", "Table필드1", "멀티라인누름틀"]
    );
    assert_eq!(
        (
            out.plan.filled[3].span_before,
            out.plan.filled[3].span_after
        ),
        (3, 2),
        "three paragraphs become the value's two lines"
    );
    assert_eq!(
        out.plan.filled[2].address.cells.len(),
        1,
        "the field in a table says its cell"
    );
    let filled = out.bytes.unwrap();
    let (a, b) = (streams(&form), streams(&filled));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        if k != "BodyText/Section0" {
            assert_eq!(v, &b[k], "{k}");
        }
    }
    let mut back = read(&filled, &Options::default()).unwrap();
    let mut got = Vec::new();
    back.for_each_block_mut(&mut |b| {
        if let rhwp_reader::model::Block::Paragraph(p) = b {
            for f in &p.fields {
                if f.kind == "click_here" {
                    got.push((f.name.clone().unwrap_or_default(), f.value.clone()));
                }
            }
        }
    });
    for f in &out.plan.filled {
        // A field over paragraphs is read as a part per paragraph.
        let parts: Vec<&str> = got
            .iter()
            .filter(|(n, _)| *n == f.key)
            .map(|(_, v)| v.as_str())
            .collect();
        assert!(
            parts.contains(&f.after.as_str()) || parts.join("\n") == f.after,
            "{}: {got:?}",
            f.key
        );
    }
}

#[test]
fn form_controls_are_set_and_read_back() {
    let opts = Options::default();
    let buttons = fixture("hwpxlib-SimpleButtons.hwpx");
    let out = fill(
        &buttons,
        &[
            ("CheckBox1".into(), Value::Flag(true)),
            ("RadioButton1".into(), Value::Flag(true)),
        ],
        &opts,
    )
    .unwrap();
    let kinds: Vec<&str> = out.plan.filled.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, ["checkbox", "radio"]);
    assert_eq!(out.plan.filled[0].before, "false");
    let section = part(out.bytes.as_ref().unwrap(), "Contents/section0.xml");
    assert!(section.contains(r#"<hp:checkBtn caption="선택 상자1" value="CHECKED""#));
    assert!(section.contains(r#"<hp:radioBtn caption="라디오 단추1" value="CHECKED""#));
    assert!(section.contains(r#"<hp:btn caption="명령 단추1" value="UNCHECKED""#));
    let refused = fill(&buttons, &[("CheckBox1".into(), text("yes"))], &opts);
    assert_eq!(
        refused.err().map(|e| e.code),
        Some(rhwp_reader::ErrorCode::InvalidInput)
    );

    let edit = fixture("hwpxlib-SimpleEdit.hwpx");
    let out = fill(&edit, &[("Edit1".into(), text("5 < 6 & \"7\""))], &opts).unwrap();
    assert_eq!(out.plan.filled[0].before, "1234");
    let section = part(out.bytes.as_ref().unwrap(), "Contents/section0.xml");
    assert!(section.contains("<hp:text>5 &lt; 6 &amp; &quot;7&quot;</hp:text>"));

    let combo = fixture("hwpxlib-SimpleComboBox.hwpx");
    let out = fill(&combo, &[("ComboBox1".into(), text("직접 입력"))], &opts).unwrap();
    let section = part(out.bytes.as_ref().unwrap(), "Contents/section0.xml");
    assert!(section.contains(r#"selectedValue="직접 입력""#));
    read(&out.bytes.unwrap(), &opts).unwrap();
}

#[test]
fn hwp5_refill_with_the_same_values_changes_nothing() {
    let form = fixture("hwplib-getting_clickhere_text.hwp");
    let values = [
        ("필드1".to_string(), text("첫 줄\n둘째\t칸 😀")),
        ("필드2".to_string(), text("")),
        ("Table필드1".to_string(), text("표 <안>")),
    ];
    let once = fill(&form, &values, &Options::default()).unwrap();
    assert_eq!(once.plan.filled.len(), 3);
    let filled = once.bytes.unwrap();
    let twice = fill(&filled, &values, &Options::default()).unwrap();
    let before: Vec<&str> = twice
        .plan
        .filled
        .iter()
        .map(|f| f.before.as_str())
        .collect();
    assert_eq!(before, ["첫 줄\n둘째\t칸 😀", "", "표 <안>"]);
    assert!(
        twice.bytes.is_none(),
        "the same values again: nothing to write"
    );
}
