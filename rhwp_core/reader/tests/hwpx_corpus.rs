//! The HWPX reader over real documents: the checked-in fixtures (always),
//! the shared corpus (when present: `RHWP_CORPUS`, default
//! /work/shared/corpus; with `CI` set, a missing corpus is a failure), the
//! hostile files of `bad/`, and packages built here to exercise which error code
//! each gets (missing sections, no content.hpf, not HWPX at all).
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::model::{Block, Document};
use rhwp_reader::text::document_text;
use rhwp_reader::{read, read_guarded, ErrorCode, Options};
use std::path::Path;

mod common;
use common::{corpus_dir as corpus, expected_codes, files, fixtures, strict};

fn read_file(path: &Path, options: &Options) -> rhwp_reader::Result<Document> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read(&bytes, options)
}

fn check_bad(dir: &Path) -> usize {
    let mut n = 0;
    for path in files(dir, "hwpx") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(&path).unwrap();
        for options in [Options::default(), strict()] {
            let started = std::time::Instant::now();
            match read_guarded(&bytes, &options) {
                Ok(_) => panic!("{name}: read, but it should be refused"),
                Err(e) => {
                    assert!(
                        expected_codes(&name).contains(&e.code),
                        "{name}: got {} ({})",
                        e.code.as_str(),
                        e.message
                    );
                    assert!(!e.suggestion.is_empty(), "{name}: no suggestion");
                }
            }
            assert!(
                started.elapsed().as_secs() < 5,
                "{name}: refused too slowly"
            );
        }
        n += 1;
    }
    n
}

#[test]
fn bad_fixtures_get_the_right_code() {
    assert!(
        check_bad(&fixtures().join("bad")) > 0,
        "no bad .hwpx fixtures found"
    );
}

#[test]
fn bad_corpus_gets_the_right_code() {
    if let Some(c) = corpus() {
        check_bad(&c.join("bad"));
    }
}

/// Every document reads in strict mode; where another reader found words, so do we
/// (readers that print placeholders such as `[그림]` for pictures are not asked).
fn check_documents(dir: &Path, reference: Option<&Path>) -> usize {
    let mut n = 0;
    for path in files(dir, "hwpx") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut doc = read_file(&path, &strict()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!doc.sections.is_empty(), "{name}: no section");
        assert!(
            doc.warnings.is_empty(),
            "{name}: warnings {:?}",
            doc.warnings
        );
        let text = document_text(&doc, true);
        if let Some(reference) = reference {
            let others_found_words = ["unhwp", "rhwp"].iter().any(|r| {
                std::fs::read_to_string(reference.join(r).join("hwpx").join(format!("{name}.txt")))
                    .is_ok_and(|t| t.chars().any(char::is_alphanumeric))
            });
            // An empty click-here field holds no text; other readers print its guide.
            let mut guides = false;
            doc.for_each_block_mut(&mut |b| {
                if let Block::Paragraph(p) = b {
                    guides |= p.fields.iter().any(|f| f.guide.is_some());
                }
            });
            if others_found_words {
                assert!(
                    text.chars().any(char::is_alphanumeric) || guides,
                    "{name}: no text, others found some"
                );
            }
        }
        // Provenance: every section-level block points at a paragraph of its section.
        for s in &doc.sections {
            for b in &s.blocks {
                let p = b.provenance();
                assert_eq!(p.section, s.index, "{name}");
                assert!(
                    p.paragraph < s.paragraph_count.max(1),
                    "{name}: paragraph {} of {}",
                    p.paragraph,
                    s.paragraph_count
                );
                assert!(
                    p.page.is_none() || doc.pages.is_some(),
                    "{name}: page without a page count"
                );
            }
        }
        serde_json::to_string(&doc).unwrap();
        n += 1;
    }
    n
}

#[test]
fn fixture_documents_read() {
    assert!(
        check_documents(&fixtures().join("hwpx"), None) > 0,
        "no .hwpx fixtures found"
    );
}

#[test]
fn corpus_documents_read() {
    if let Some(c) = corpus() {
        let reference = c
            .parent()
            .map(|p| p.join("corpus-reference"))
            .filter(|p| p.is_dir());
        assert!(check_documents(&c.join("hwpx"), reference.as_deref()) > 0);
    }
}

fn fixture(name: &str) -> Document {
    read_file(&fixtures().join("hwpx").join(name), &strict())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn table_spans_and_cells() {
    let doc = fixture("hwpxlib-SimpleTable.hwpx");
    let Some(Block::Table(t)) = doc.sections[0].blocks.iter().find(|b| b.kind() == "table") else {
        panic!("no table")
    };
    assert_eq!((t.rows, t.cols), (3, 3));
    let first = &t.cells[0];
    assert_eq!(
        (first.row, first.col, first.row_span, first.col_span),
        (0, 0, 2, 2)
    );
    assert_eq!(blocks_text(&first.blocks), "1");
    assert_eq!(doc.pages, Some(1));
    assert!(doc.sections[0]
        .page
        .as_ref()
        .is_some_and(|p| p.width == 59528 && !p.landscape));
}

#[test]
fn header_footer_is_furniture() {
    let doc = fixture("hwpxlib-HeaderFooter.hwpx");
    let header = doc
        .furniture
        .iter()
        .find(|f| f.kind == "header")
        .expect("a header");
    assert_eq!(header.applies_to.as_deref(), Some("both"));
    assert!(blocks_text(&header.blocks).contains("머리말"));
    assert!(doc.furniture.iter().any(|f| f.kind == "footer"));
    let body = document_text(&doc, false);
    assert!(
        !body.contains("머리말 테스트"),
        "header text leaked into the body"
    );
}

#[test]
fn footnotes_are_numbered_and_referenced() {
    let doc = fixture("rhwp-footnote-01.hwpx");
    let notes: Vec<_> = doc
        .furniture
        .iter()
        .filter(|f| f.kind == "footnote")
        .collect();
    assert!(!notes.is_empty());
    assert_eq!(notes[0].number, Some(1));
    let refs: usize = doc
        .sections
        .iter()
        .flat_map(|s| &s.blocks)
        .map(|b| match b {
            Block::Paragraph(p) => p.note_refs.len(),
            _ => 0,
        })
        .sum::<usize>();
    assert!(refs > 0, "no note reference in the body paragraphs");
}

#[test]
fn equation_keeps_its_script_and_carries_latex() {
    let doc = fixture("hwpxlib-SimpleEquation.hwpx");
    let eq = doc.sections[0].blocks.iter().find_map(|b| match b {
        Block::Equation(e) => Some(e),
        _ => None,
    });
    let eq = eq.expect("an equation block");
    assert_eq!(
        eq.script,
        r#"{"123"} over {123 sqrt {3466}} sum _{34} ^{12}"#
    );
    assert_eq!(
        eq.latex.as_deref(),
        Some(r"\frac{\text{123}}{123 \sqrt{3466}} \sum_{34}^{12}")
    );
}

#[test]
fn text_in_shapes_is_read() {
    let doc = fixture("hwpxlib-RectInPara.hwpx");
    assert!(doc.sections[0]
        .blocks
        .iter()
        .any(|b| matches!(b, Block::Shape(s) if !s.blocks.is_empty())));
}

#[test]
fn minimal_package_without_header_or_manifest() {
    // pyhwpx writes neither header.xml nor META-INF/manifest.xml, and hrefs relative to Contents/.
    let doc = fixture("pyhwpx-irb_form_filled.hwpx");
    let text = document_text(&doc, true);
    assert!(text.contains("연구계획서") && text.contains("홍길동"));
    assert_eq!(doc.pages, None, "no line segments: page count unknown");
}

// --- packages built here -------------------------------------------------------------------

const SECTION: &str = r#"<?xml version="1.0" encoding="UTF-8"?><hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run><hp:t>TEXT</hp:t></hp:run></hp:p></hs:sec>"#;

fn hpf(sections: &[&str]) -> String {
    let items: String = sections
        .iter()
        .map(|s| {
            format!(r#"<opf:item id="{s}" href="Contents/{s}.xml" media-type="application/xml"/>"#)
        })
        .collect();
    let refs: String = sections
        .iter()
        .map(|s| format!(r#"<opf:itemref idref="{s}"/>"#))
        .collect();
    format!(
        r#"<?xml version="1.0"?><opf:package xmlns:opf="http://www.idpf.org/2007/opf/"><opf:metadata><opf:title>T</opf:title></opf:metadata><opf:manifest>{items}</opf:manifest><opf:spine>{refs}</opf:spine></opf:package>"#
    )
}

fn package(entries: &[(&str, String)]) -> Vec<u8> {
    common::zip_package(entries)
}

fn section(text: &str) -> String {
    SECTION.replace("TEXT", text)
}

#[test]
fn spine_order_wins_over_names() {
    let bytes = package(&[
        ("mimetype", "application/hwp+zip".into()),
        ("Contents/content.hpf", hpf(&["section1", "section0"])),
        ("Contents/section0.xml", section("둘째")),
        ("Contents/section1.xml", section("첫째")),
    ]);
    let doc = read(&bytes, &strict()).unwrap();
    assert_eq!(document_text(&doc, true), "첫째\n둘째");
    assert_eq!(doc.metadata.title.as_deref(), Some("T"));
}

#[test]
fn a_listed_section_that_is_missing() {
    let bytes = package(&[
        ("mimetype", "application/hwp+zip".into()),
        ("Contents/content.hpf", hpf(&["section0", "section1"])),
        ("Contents/section0.xml", section("있음")),
    ]);
    assert_eq!(
        read(&bytes, &strict()).unwrap_err().code,
        ErrorCode::CorruptDocument
    );
    let doc = read(&bytes, &Options::default()).unwrap();
    assert_eq!(document_text(&doc, true), "있음");
    assert_eq!(doc.warnings.len(), 1);
}

#[test]
fn a_damaged_section_is_skipped_when_lenient() {
    let bytes = package(&[
        ("mimetype", "application/hwp+zip".into()),
        ("Contents/content.hpf", hpf(&["section0", "section1"])),
        ("Contents/section0.xml", section("좋음")),
        (
            "Contents/section1.xml",
            "<hs:sec><hp:p><hp:run><hp:t>깨짐</hp:x>".into(),
        ),
    ]);
    assert_eq!(
        read(&bytes, &strict()).unwrap_err().code,
        ErrorCode::CorruptDocument
    );
    let doc = read(&bytes, &Options::default()).unwrap();
    assert_eq!(document_text(&doc, true), "좋음");
    assert!(doc.warnings[0].contains("section1"));
}

#[test]
fn without_content_hpf_sections_go_in_number_order() {
    let bytes = package(&[
        ("mimetype", "application/hwp+zip".into()),
        ("Contents/section10.xml", section("열")),
        ("Contents/section2.xml", section("둘")),
    ]);
    let doc = read(&bytes, &Options::default()).unwrap();
    assert_eq!(document_text(&doc, true), "둘\n열");
    assert!(!doc.warnings.is_empty());
}

#[test]
fn a_zip_that_is_not_hwpx() {
    let bytes = package(&[
        ("mimetype", "application/vnd.oasis.opendocument.text".into()),
        ("content.xml", "<x/>".into()),
    ]);
    let err = read(&bytes, &Options::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnsupportedFormat);
    assert!(!err.suggestion.is_empty());
}

#[test]
fn inflation_limits_are_enforced() {
    let big = section(&"가".repeat(200_000));
    let bytes = package(&[
        ("mimetype", "application/hwp+zip".into()),
        ("Contents/content.hpf", hpf(&["section0"])),
        ("Contents/section0.xml", big),
    ]);
    let mut options = Options::default();
    options.limits.max_stream_bytes = 100_000;
    assert_eq!(
        read(&bytes, &options).unwrap_err().code,
        ErrorCode::TooLarge
    );
    let mut options = Options::default();
    options.limits.max_entries = 2;
    assert_eq!(
        read(&bytes, &options).unwrap_err().code,
        ErrorCode::TooLarge
    );
    let mut options = Options::default();
    options.limits.ratio_floor_bytes = 1000;
    options.limits.max_compression_ratio = 5;
    assert_eq!(
        read(&bytes, &options).unwrap_err().code,
        ErrorCode::TooLarge
    );
}

#[test]
fn damaged_bytes_never_panic() {
    let bytes = std::fs::read(fixtures().join("hwpx/hwpxlib-SimpleTable.hwpx")).unwrap();
    let mut cut = 0;
    while cut < bytes.len() {
        let _ = read_guarded(&bytes[..cut], &Options::default());
        cut += 53;
    }
    // Flip bytes across the file (the zip's CRC catches most; the rest must still be handled).
    for i in (0..bytes.len()).step_by(41) {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0xA5;
        match std::panic::catch_unwind(|| read(&damaged, &Options::default())) {
            Ok(_) => {}
            Err(_) => panic!("panic with byte {i} flipped"),
        }
    }
}

fn blocks_text(blocks: &[Block]) -> String {
    let mut out = String::new();
    rhwp_reader::text::push_blocks(blocks, &mut out);
    out
}
