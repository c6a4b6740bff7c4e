//! Page layout and page images on hostile input: mutated fixtures never panic, and layouts that
//! say absurd things (a page kilometres wide, lines far off the page, a million line segments)
//! end in a typed error or a bounded, clipped page.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use rhwp_reader::render::{render_page, Format};
use rhwp_reader::{ErrorCode, Options};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const PAGE_DEF: u16 = 73;

fn fonts() -> Vec<PathBuf> {
    vec![PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../rhwp_mcp_tools_render/src/rhwp_mcp_tools_render/fonts")]
}

fn seg(start: u32, vpos: i32, x: i32, width: i32) -> Vec<u8> {
    let mut v = Vec::new();
    for n in [start as i32, vpos, 1000, 1000, 850, 600, x, width, 0] {
        v.extend_from_slice(&n.to_le_bytes());
    }
    v
}

/// One section: a section definition with `page` (width, height, margins...) and a paragraph
/// of `text` with the line segments `segs`.
fn document(page: [u32; 9], text: &str, segs: &[u8]) -> Vec<u8> {
    let mut t = ctrl_char(2, b"secd");
    t.extend(utf16(text));
    let mut section = text_paragraph(0, &t);
    section.extend(record(PARA_LINE_SEG, 1, segs));
    section.extend(ctrl_header(1, b"secd", &[0u8; 32]));
    let mut def: Vec<u8> = page.iter().flat_map(|v| v.to_le_bytes()).collect();
    def.extend_from_slice(&0u32.to_le_bytes());
    section.extend(record(PAGE_DEF, 2, &def));
    hwp_file(0, &[], &[&section])
}

const A4: [u32; 9] = [59_528, 84_188, 8_504, 8_504, 5_668, 4_252, 4_252, 4_252, 0];

#[test]
fn a_synthetic_page_renders_its_text() {
    let doc = document(A4, "가나다 라마", &seg(0, 0, 0, 42_520));
    let svg = render_page(&doc, &Options::default(), 1, Format::Svg, &fonts()).unwrap();
    let svg = String::from_utf8(svg.bytes).unwrap();
    assert!(svg.contains(">가나다 라마<"), "{svg}");
    let err = render_page(&doc, &Options::default(), 2, Format::Svg, &fonts()).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.contains("pages 1 to 1"), "{}", err.message);
}

#[test]
fn a_page_kilometres_wide_is_too_large() {
    let mut page = A4;
    page[0] = 1 << 30;
    page[1] = 1 << 30;
    let doc = document(page, "넓다", &seg(0, 0, 0, 1000));
    let err = render_page(&doc, &Options::default(), 1, Format::Svg, &fonts()).unwrap_err();
    assert_eq!(err.code, ErrorCode::TooLarge);
}

#[test]
fn lines_off_the_page_are_clipped_and_many_segments_bounded() {
    // Far off to the left and above: left out, the page still renders.
    let mut segs = seg(0, i32::MIN, i32::MIN, i32::MAX);
    segs.extend(seg(1, -5000, -99_999, 1000));
    let doc = document(A4, "멀리 있다", &segs);
    let png = render_page(
        &doc,
        &Options::default(),
        1,
        Format::Png {
            dpi: 96,
            max_side: None,
        },
        &fonts(),
    )
    .unwrap();
    assert!(png.bytes.starts_with(b"\x89PNG"));
    // 200,000 segments over one paragraph's text: bounded time.
    let text = "가".repeat(1000);
    let segs: Vec<u8> = (0..200_000u32)
        .flat_map(|k| seg(k % 1000, (k % 60) as i32 * 1000, 0, 42_520))
        .collect();
    let doc = document(A4, &text, &segs);
    let started = Instant::now();
    let result = render_page(&doc, &Options::default(), 1, Format::Svg, &fonts());
    assert!(started.elapsed() < Duration::from_secs(60));
    if let Err(e) = result {
        assert!(matches!(
            e.code,
            ErrorCode::TooLarge | ErrorCode::InvalidInput
        ));
    }
}

#[test]
fn mutated_fixtures_never_panic_in_layout_or_render() {
    let fixtures = fixtures();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let mut documents = 0;
    for sub in ["hwp", "hwpx"] {
        for f in files(&fixtures.join(sub), sub) {
            let original = std::fs::read(&f).unwrap();
            documents += 1;
            for round in 0..8 {
                let mut bytes = original.clone();
                if round > 0 {
                    for _ in 0..8 {
                        let i = next(bytes.len());
                        bytes[i] ^= 1 << next(8);
                    }
                }
                let started = Instant::now();
                let run = std::panic::catch_unwind(|| {
                    if let Ok(layout) =
                        rhwp_reader::formats::layout(&bytes, &Options::default(), None)
                    {
                        assert!(!layout.pages.is_empty() || layout.estimated);
                    }
                    let _ = render_page(&bytes, &Options::default(), 1, Format::Svg, &fonts());
                });
                assert!(run.is_ok(), "{} mutation {round} panicked", f.display());
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "{} mutation {round}",
                    f.display()
                );
            }
        }
    }
    assert!(documents >= 8, "fixtures missing: {documents}");
}
