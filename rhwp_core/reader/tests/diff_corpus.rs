//! Comparing documents (`rhwp_reader::diff`) on real files: a document against itself and
//! against its twin in another format (Hancom's own conversion) shows no change of text or
//! tables; synthetic edits of every kind made to a copy of an HWPX section are found exactly,
//! and nowhere else.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{corpus_dir, fixtures};
use rhwp_reader::bin_data::picture_digests;
use rhwp_reader::diff::{compare, Comparison, Scope, Side, DEFAULT_WORK};
use rhwp_reader::{read, Options, Password};
use std::path::Path;

fn options(password: Option<&str>) -> Options {
    Options {
        password: password.map(Password::from),
        ..Options::default()
    }
}

/// Compare two documents given as bytes, pictures by content.
fn compare_bytes(a: &[u8], pa: Option<&str>, b: &[u8], pb: Option<&str>) -> Comparison {
    compare_scoped(a, pa, b, pb, Scope::Body)
}

fn compare_scoped(
    a: &[u8],
    pa: Option<&str>,
    b: &[u8],
    pb: Option<&str>,
    scope: Scope,
) -> Comparison {
    let (oa, ob) = (options(pa), options(pb));
    let (da, db) = (read(a, &oa).unwrap(), read(b, &ob).unwrap());
    let (ha, hb) = (picture_digests(&da, a, &oa), picture_digests(&db, b, &ob));
    compare(
        &Side {
            pictures: ha.as_ref(),
            ..Side::new(&da)
        },
        &Side {
            pictures: hb.as_ref(),
            ..Side::new(&db)
        },
        scope,
        DEFAULT_WORK,
    )
    .unwrap()
}

fn compare_files(
    a: &Path,
    pa: Option<&str>,
    b: &Path,
    pb: Option<&str>,
    scope: Scope,
) -> Comparison {
    compare_scoped(
        &std::fs::read(a).unwrap(),
        pa,
        &std::fs::read(b).unwrap(),
        pb,
        scope,
    )
}

/// The changes, one line each, for a failure message.
fn listed(c: &Comparison) -> String {
    c.changes
        .iter()
        .take(20)
        .map(|c| {
            let text = |p: &Option<rhwp_reader::diff::Place>| {
                p.as_ref()
                    .map(|p| format!("#{} {:.60}", p.address.block, p.text))
                    .unwrap_or_default()
            };
            format!(
                "{} [{}] → [{}] {:?}\n",
                c.kind,
                text(&c.old),
                text(&c.new),
                c.diff
            )
        })
        .collect()
}

/// The twin pairs of the corpus and the fixtures: (old, password, new, password).
fn twins() -> Vec<(
    std::path::PathBuf,
    Option<String>,
    std::path::PathBuf,
    Option<String>,
)> {
    let mut out = Vec::new();
    let pairs = fixtures().join("pairs");
    out.push((
        pairs.join("rhwp-chart-clustered-column.hwp"),
        None,
        pairs.join("rhwp-chart-clustered-column.hwpx"),
        None,
    ));
    let Some(root) = corpus_dir() else { return out };
    for entry in std::fs::read_dir(root.join("legacy-hwp3/twins")).unwrap() {
        let twin = entry.unwrap().path();
        let name = twin.file_name().unwrap().to_string_lossy().into_owned();
        let stem = name.split('.').next().unwrap();
        out.push((
            root.join(format!("legacy-hwp3/{stem}.hwp")),
            None,
            twin,
            None,
        ));
    }
    for entry in std::fs::read_dir(root.join("hml/twins")).unwrap() {
        let twin = entry.unwrap().path();
        let name = twin.file_name().unwrap().to_string_lossy().into_owned();
        let stem = name.split('.').next().unwrap();
        out.push((root.join(format!("hml/{stem}.hml")), None, twin, None));
    }
    let passwords = std::fs::read_to_string(root.join("encrypted/PASSWORDS.tsv")).unwrap();
    for line in passwords.lines().skip(1) {
        let (file, password) = line.split_once('\t').unwrap();
        let twin = root.join("encrypted/twins").join(file);
        if twin.exists() {
            out.push((
                root.join("encrypted").join(file),
                Some(password.to_string()),
                twin,
                None,
            ));
        }
    }
    out.sort();
    out
}

/// Twins that differ, and why: each such pair's changes must be exactly these.
///
/// - `rhwp-hwp3-sample10` against its HWPX: Hancom's conversion wrote two U+FFFD (a character
///   its converter lost) where the 3.x file holds one private-use symbol (U+F080F, a box-drawing
///   rule) in a line of rules; the HWP 5.0 twins of the other 3.x files keep every character.
///   The documents differ there, so the comparison says so: that one character, nowhere else.
///   The comparison reads the text as shown, so the symbol is the heavy rule `━` 한글 draws for
///   U+F080F (the stored code point stays in the paragraph's `stored_text`).
fn known_difference(a: &Path, b: &Path, c: &Comparison) -> bool {
    let hwpx = b.extension().is_some_and(|e| e == "hwpx");
    if a.ends_with("rhwp-hwp3-sample10.hwp") && hwpx {
        let [change] = &c.changes[..] else {
            return false;
        };
        let changed: Vec<(&str, &str)> = change
            .diff
            .iter()
            .flat_map(|d| &d.spans)
            .filter(|s| s.op != "equal")
            .map(|s| (s.op, s.text.as_str()))
            .collect();
        return change.kind == "modified"
            && changed == [("delete", "━"), ("insert", "\u{FFFD}\u{FFFD}")];
    }
    false
}

#[test]
fn twins_compare_unchanged() {
    let mut failures = String::new();
    for (a, pa, b, pb) in twins() {
        let c = compare_files(&a, pa.as_deref(), &b, pb.as_deref(), Scope::All);
        if !c.changes.is_empty() && !known_difference(&a, &b, &c) {
            failures.push_str(&format!(
                "{} vs {}: {} changes\n{}\n",
                a.display(),
                b.display(),
                c.changes.len(),
                listed(&c)
            ));
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// The package `hwpx` with its part `name` replaced by what `edit` makes of it.
fn edited(hwpx: &[u8], name: &str, edit: impl FnOnce(Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(hwpx)).unwrap();
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).unwrap();
        let mut body = Vec::new();
        entry.read_to_end(&mut body).unwrap();
        parts.push((entry.name().unwrap().to_string(), body));
    }
    let mut edit = Some(edit);
    for (n, body) in &mut parts {
        if n == name {
            *body = (edit.take().unwrap())(std::mem::take(body));
        }
    }
    assert!(edit.is_none(), "no part {name}");
    let entries: Vec<(&str, &[u8])> = parts
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    common::zip_package(&entries)
}

/// The section XML with `from` replaced by `to`, exactly once.
fn replaced(hwpx: &[u8], from: &str, to: &str) -> Vec<u8> {
    edited(hwpx, "Contents/section0.xml", |xml| {
        let xml = String::from_utf8(xml).unwrap();
        assert_eq!(xml.matches(from).count(), 1, "{from}");
        xml.replacen(from, to, 1).into_bytes()
    })
}

/// The section XML of an HWPX package.
fn section_xml(hwpx: &[u8]) -> String {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(hwpx)).unwrap();
    let mut xml = String::new();
    zip.by_name("Contents/section0.xml")
        .unwrap()
        .read_to_string(&mut xml)
        .unwrap();
    xml
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join("hwpx").join(name)).unwrap()
}

/// One change expected: its kind and the block (old, new) it is at.
fn only(c: &Comparison) -> &rhwp_reader::diff::Change {
    assert_eq!(c.changes.len(), 1, "{}", listed(c));
    &c.changes[0]
}

fn spans(change: &rhwp_reader::diff::Change) -> Vec<(&str, &str)> {
    change
        .diff
        .as_ref()
        .unwrap()
        .spans
        .iter()
        .filter(|s| s.op != "equal")
        .map(|s| (s.op, s.text.as_str()))
        .collect()
}

const IRB: &str = "pyhwpx-irb_form_filled.hwpx";

#[test]
fn a_document_against_itself_has_no_change() {
    for name in [
        IRB,
        "hwpxlib-SimplePicture.hwpx",
        "pyhwpx-clickhere_gold_filled.hwpx",
    ] {
        let bytes = fixture(name);
        let c = compare_bytes(&bytes, None, &bytes, None);
        assert!(c.changes.is_empty(), "{name}: {}", listed(&c));
        assert!(c.summary.unchanged > 0);
    }
}

#[test]
fn a_character_and_a_word_inside_a_paragraph() {
    let old = fixture(IRB);
    let new = replaced(
        &old,
        "연구계획서 (IRB 승인신청용)",
        "연구계획서 (IRB 승인신청서)",
    );
    let c = compare_bytes(&old, None, &new, None);
    let ch = only(&c);
    assert_eq!(
        (ch.kind, spans(ch)),
        ("modified", vec![("delete", "용"), ("insert", "서")])
    );
    assert_eq!(ch.new.as_ref().unwrap().address.text_offset, Some(15));
    assert_eq!(ch.new.as_ref().unwrap().address.block, 0);

    let new = replaced(&old, "* 위 내용이 사실과", "* 위 기재 사항이 사실과");
    let c = compare_bytes(&old, None, &new, None);
    let ch = only(&c);
    assert_eq!(spans(ch), vec![("delete", "내용"), ("insert", "기재 사항")]);
}

#[test]
fn a_paragraph_inserted_and_deleted() {
    let old = fixture(IRB);
    let para = "<hp:p><hp:run><hp:t>제출일: 2024년 2월 1일</hp:t></hp:run></hp:p>";
    let new = replaced(
        &old,
        "<hp:tbl rowCnt=\"5\"",
        &format!("{para}<hp:tbl rowCnt=\"5\""),
    );
    let c = compare_bytes(&old, None, &new, None);
    let ch = only(&c);
    assert_eq!(ch.kind, "inserted");
    assert_eq!(ch.new.as_ref().unwrap().text, "제출일: 2024년 2월 1일");
    assert_eq!(ch.new.as_ref().unwrap().address.block, 1);
    // The other way round: deleted, at the same place of the old document.
    let c = compare_bytes(&new, None, &old, None);
    let ch = only(&c);
    assert_eq!(
        (ch.kind, ch.old.as_ref().unwrap().address.block),
        ("deleted", 1)
    );
}

/// The first `<hp:tbl …>…</hp:tbl>` of the section that holds `marker`.
fn table_xml<'x>(xml: &'x str, marker: &str) -> (usize, &'x str) {
    let at = xml.find(marker).unwrap();
    let start = xml[..at].rfind("<hp:tbl").unwrap();
    let end = at + xml[at..].find("</hp:tbl>").unwrap() + "</hp:tbl>".len();
    (start, &xml[start..end])
}

#[test]
fn a_cell_a_row_and_a_column() {
    let old = fixture(IRB);
    // A cell.
    let new = replaced(&old, "<hp:t>홍길동</hp:t>", "<hp:t>홍길순</hp:t>");
    let c = compare_bytes(&old, None, &new, None);
    let ch = only(&c);
    let table = ch.diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(table.cells.len(), 1);
    let cell = &table.cells[0];
    assert_eq!(
        (
            cell.old.as_ref().unwrap().row,
            cell.old.as_ref().unwrap().col
        ),
        (1, 1)
    );
    assert_eq!(cell.new.as_ref().unwrap().text, "홍길순");
    assert!(table.rows_inserted.is_empty() && table.columns_inserted.is_empty());

    // A row deleted (the second of five).
    let xml = section_xml(&old);
    let (_, tbl) = table_xml(&xml, "홍길동");
    let row_start = tbl[..tbl.find("홍길동").unwrap()].rfind("<hp:tr>").unwrap();
    let row_end = row_start + tbl[row_start..].find("</hp:tr>").unwrap() + "</hp:tr>".len();
    let without =
        format!("{}{}", &tbl[..row_start], &tbl[row_end..]).replace("rowCnt=\"5\"", "rowCnt=\"4\"");
    let new = replaced(&old, tbl, &without);
    let c = compare_bytes(&old, None, &new, None);
    let table = only(&c).diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(
        (indices(&table.rows_deleted), table.cells.len()),
        (vec![1], 0),
        "{table:?}"
    );
    let c = compare_bytes(&new, None, &old, None);
    let table = only(&c).diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(
        (indices(&table.rows_inserted), table.cells.len()),
        (vec![1], 0),
        "{table:?}"
    );

    // A column inserted after the first: a cell added to every row.
    let cell =
        |text: &str| format!("<hp:tc><hp:p><hp:run><hp:t>{text}</hp:t></hp:run></hp:p></hp:tc>");
    let mut wider = String::new();
    for (k, row) in tbl.split("</hp:tr>").enumerate() {
        if k > 0 {
            wider.push_str("</hp:tr>");
        }
        match row.find("</hp:tc>") {
            Some(first) if row.contains("<hp:tr>") => {
                let first = first + "</hp:tc>".len();
                wider.push_str(&row[..first]);
                wider.push_str(&cell(&format!("비고 {k}")));
                wider.push_str(&row[first..]);
            }
            _ => wider.push_str(row),
        }
    }
    let wider = wider.replace("colCnt=\"2\"", "colCnt=\"3\"");
    let new = replaced(&old, tbl, &wider);
    let c = compare_bytes(&old, None, &new, None);
    let table = only(&c).diff.as_ref().unwrap().table.as_ref().unwrap();
    assert_eq!(
        (indices(&table.columns_inserted), table.cells.len()),
        (vec![1], 0),
        "{table:?}"
    );
}

#[test]
fn a_section_moved() {
    let old = fixture(IRB);
    let xml = section_xml(&old);
    // The first table (연구과제명 ...) moved after the second one (연구목적 ...).
    let (_, first) = table_xml(&xml, "연구과제명");
    let (_, second) = table_xml(&xml, "연구목적");
    let new = edited(&old, "Contents/section0.xml", |_| {
        xml.replacen(first, "@FIRST@", 1)
            .replacen(second, &format!("{second}{first}"), 1)
            .replacen("@FIRST@", "", 1)
            .into_bytes()
    });
    let c = compare_bytes(&old, None, &new, None);
    let ch = only(&c);
    assert_eq!(ch.kind, "moved", "{}", listed(&c));
    assert!(ch.old.as_ref().unwrap().text.starts_with("연구과제명"));
    assert_eq!(
        (
            ch.old.as_ref().unwrap().address.block,
            ch.new.as_ref().unwrap().address.block
        ),
        (1, 2)
    );
}

#[test]
fn a_picture_swapped_is_found_by_its_content() {
    let old = fixture("hwpxlib-SimplePicture.hwpx");
    // Same name, same size, other bytes: only the content tells.
    let new = edited(&old, "BinData/image1.jpg", |mut jpg| {
        let n = jpg.len();
        jpg[n / 2..n / 2 + 64].iter_mut().for_each(|b| *b ^= 0x5A);
        jpg
    });
    let c = compare_bytes(&old, None, &new, None);
    assert_eq!(c.summary.pictures_compared_by, "content");
    let ch = only(&c);
    assert_eq!(ch.kind, "modified");
    assert!(ch.diff.as_ref().unwrap().picture_replaced);
    assert_eq!(ch.old.as_ref().unwrap().address.kind, "picture");
}

#[test]
fn a_field_value_by_name() {
    let old = fixture("pyhwpx-clickhere_gold_filled.hwpx");
    let new = replaced(
        &old,
        "<hp:t>FILLED_VALUE_X</hp:t>",
        "<hp:t>FILLED_VALUE_Y</hp:t>",
    );
    let c = compare_bytes(&old, None, &new, None);
    let ch = only(&c);
    let diff = ch.diff.as_ref().unwrap();
    assert_eq!(spans(ch), vec![("delete", "X"), ("insert", "Y")]);
    assert_eq!(diff.fields.len(), 1, "{diff:?}");
    assert_eq!(diff.fields[0].name, "NAMETEXT_THREE");
    assert_eq!(diff.fields[0].old.as_deref(), Some("FILLED_VALUE_X"));
    assert_eq!(diff.fields[0].new.as_deref(), Some("FILLED_VALUE_Y"));
}

/// Every readable corpus document, read twice, compares unchanged with itself (all scopes):
/// the comparison is deterministic and reports nothing where there is nothing.
#[test]
fn every_corpus_document_against_itself() {
    let Some(root) = corpus_dir() else { return };
    let mut failures = String::new();
    for (dir, ext) in [
        ("hwp", "hwp"),
        ("hwpx", "hwpx"),
        ("hml", "hml"),
        ("legacy-hwp3", "hwp"),
    ] {
        for f in common::files(&root.join(dir), ext) {
            let bytes = std::fs::read(&f).unwrap();
            if read(&bytes, &Options::default()).is_err() {
                continue;
            }
            let c = compare_scoped(&bytes, None, &bytes, None, Scope::All);
            if !c.changes.is_empty() {
                failures.push_str(&format!("{}: {}\n", f.display(), listed(&c)));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// The indices of some rows or columns.
fn indices(lines: &[rhwp_reader::diff::Line]) -> Vec<u32> {
    lines.iter().map(|l| l.index).collect()
}

/// One side's picture bytes alone do not make its pictures differ from the other's: both sides
/// are then compared by name and size.
#[test]
fn pictures_by_content_on_both_sides_or_neither() {
    let bytes = fixture("hwpxlib-SimplePicture.hwpx");
    let doc = read(&bytes, &Options::default()).unwrap();
    let digests = picture_digests(&doc, &bytes, &Options::default());
    assert!(digests.as_ref().is_some_and(|d| !d.is_empty()));
    let with = Side {
        pictures: digests.as_ref(),
        ..Side::new(&doc)
    };
    let c = compare(&with, &Side::new(&doc), Scope::All, DEFAULT_WORK).unwrap();
    assert!(c.changes.is_empty(), "{}", listed(&c));
    assert_eq!(c.summary.pictures_compared_by, "name_and_size");
}
