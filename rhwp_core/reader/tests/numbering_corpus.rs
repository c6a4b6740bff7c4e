//! Paragraph and outline numbers on corpus documents whose paragraphs are named after the
//! number 한글 shows (`2-1` under `2.`, `개요1-2`...): `extract_text` writes each one in front of
//! its paragraph as the document's numbering definitions make it. Skipped without the corpus
//! (failed in CI), as the other corpus tests.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::{read, text, Options};

mod common;
use common::corpus_dir;

fn lines(name: &str) -> Option<Vec<String>> {
    let Some(dir) = corpus_dir() else {
        assert!(std::env::var_os("CI").is_none(), "corpus missing in CI");
        return None;
    };
    let bytes = std::fs::read(dir.join(name)).expect("read corpus file");
    let doc = read(&bytes, &Options::default()).expect("read document");
    Some(
        text::document_text(&doc, false)
            .lines()
            .map(str::to_string)
            .collect(),
    )
}

/// `expected` appear in this order among the lines (others may come between).
fn assert_in_order(lines: &[String], expected: &[&str]) {
    let mut at = 0;
    for e in expected {
        match lines[at..].iter().position(|l| l == e) {
            Some(i) => at += i + 1,
            None => panic!("{e:?} not found after line {at}: {:?}", &lines[at..]),
        }
    }
}

/// pyhwp's lists sample (HWP 5.0): bullets, a numbered list continued after a heading
/// ("번호 이어짐"), a new one ("새 번호": I/A/1 styles), outline headings (`^1.` `^2.` `^3)`),
/// a second outline numbering (`제^1장`, `제^2절`, `제^3항`).
#[test]
fn hwp5_lists() {
    let Some(lines) = lines("hwp/pyhwp-lists.hwp") else {
        return;
    };
    assert_in_order(
        &lines,
        &[
            "● 1",
            "• 1",
            "1. 1",
            "2. 2",
            "가. 2-1",
            "3. 3",
            "가. 3-1",
            "나. 3-2",
            "1) 3-2-1",
            "3) 3-2-3",
            "4. 4",
            "5. 5",
            "가. 5-1",
            "I. 1",
            "II. 2",
            "A. 2-1",
            "III. 3",
            "B. 3-2",
            "3. 3-2-3",
            "IV. 4",
            "1. 1",
            "가. 2-1",
            "1) 3-2-1",
            "5. 5",
            "제1장 1",
            "제1절 2-1",
            "제2절 3-2",
            "제3항 3-2-3",
            "제4장 4",
        ],
    );
}

/// hwpxlib's ParaHead sample (HWPX): bullets, a numbering with `^1.^2.^3.^4.` levels where
/// level 4 comes straight after level 1, outline headings (`^1.`, `^2.` in Hangul, `^3)`).
#[test]
fn hwpx_para_head() {
    let Some(lines) = lines("hwpx/hwpxlib-ParaHead.hwpx") else {
        return;
    };
    assert_in_order(
        &lines,
        &[
            "● 글머리1-1",
            "■ 글머리2-1",
            "1. 번호1",
            "3. 번호3",
            "3.1. 번호3-1",
            "3.2. 번호3-2",
            "4. 번호4",
            "4.1.1.1. 번호-4-1-1-1",
            "4.1.1.2. 번호-4-1-1-2",
            "4.1.2. 번호-4-1-2",
            "4.1.2.1. 번호-4-1-2-1",
            "1. 개요1",
            "가. 개요1-1",
            "다. 개요1-3",
            "2. 개요2",
            "가. 개요2-1",
            "1) 개요2-1-1",
        ],
    );
}

/// 한글's own table of contents in the document lists the outline headings with their
/// numbers: the headings themselves show the same.
#[test]
fn hwpx_outline_matches_hancom_toc() {
    let Some(lines) = lines("hwpx/pyhwpx-hancom-native-toc-B.hwpx") else {
        return;
    };
    for (toc, heading) in [
        ("1. 개요 첫 번째\t1", "1. 개요 첫 번째"),
        ("4. 개요 네 번째\t3", "4. 개요 네 번째"),
    ] {
        assert!(lines.iter().any(|l| l == toc), "{toc:?}");
        assert!(lines.iter().any(|l| l == heading), "{heading:?}");
    }
}
