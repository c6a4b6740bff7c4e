use super::*;
use crate::layout::{CharStyle, Run};
use std::path::PathBuf;

fn shipped_fonts() -> std::sync::Arc<Fonts> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../rhwp_mcp_tools_render/src/rhwp_mcp_tools_render/fonts");
    Fonts::load(&[dir])
}

fn page_with(items: Vec<Item>) -> Page {
    Page {
        width: 59_528,
        height: 84_188,
        items,
    }
}

fn text_line(text: &str, width: i32, align: Align, last: bool) -> Line {
    Line {
        x: 8504,
        baseline: 10_000,
        width,
        height: 1600,
        align,
        last,
        runs: vec![Run {
            text: text.into(),
            style: CharStyle::default(),
        }],
    }
}

fn no_pictures(_: &str) -> Option<Vec<u8>> {
    None
}

#[test]
fn text_is_escaped_and_xml_invalid_characters_dropped() {
    let fonts = shipped_fonts();
    let line = text_line("<a href='x'>&\u{1}\"가</a>", 42_520, Align::Left, true);
    let svg = svg(
        &page_with(vec![Item::Line(line)]),
        &[],
        &fonts,
        &no_pictures,
    )
    .unwrap();
    assert!(
        svg.contains("&lt;a href=&apos;x&apos;&gt;&amp;&quot;가&lt;/a&gt;"),
        "{svg}"
    );
    assert!(!svg.contains('\u{1}'));
    assert!(!svg.contains("<a"));
    // A hostile face name cannot close the attribute.
    let faces = [Face {
        name: "\"/><script>alert(1)</script>".into(),
        serif: None,
    }];
    let mut line = text_line("x", 42_520, Align::Left, true);
    line.runs[0].style.face = 0;
    // Face names map to shipped families; the name never reaches the SVG.
    let svg = super::svg(
        &page_with(vec![Item::Line(line)]),
        &faces,
        &fonts,
        &no_pictures,
    )
    .unwrap();
    assert!(!svg.contains("<script"));
}

/// The x positions of a `<text>` element's characters.
fn xs(svg: &str) -> Vec<f32> {
    let at = svg.find("<text").unwrap();
    let x = &svg[at..];
    let x = &x[x.find(" x=\"").unwrap() + 4..];
    x[..x.find('"').unwrap()]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect()
}

#[test]
fn justified_lines_fill_their_width_and_last_lines_do_not() {
    let fonts = shipped_fonts();
    let body = "가나다 라마바 사아자 차카타";
    let width = 30_000;
    let full = svg(
        &page_with(vec![Item::Line(text_line(
            body,
            width,
            Align::Justify,
            false,
        ))]),
        &[],
        &fonts,
        &no_pictures,
    )
    .unwrap();
    let last = svg(
        &page_with(vec![Item::Line(text_line(
            body,
            width,
            Align::Justify,
            true,
        ))]),
        &[],
        &fonts,
        &no_pictures,
    )
    .unwrap();
    let (a, b) = (xs(&full), xs(&last));
    assert_eq!(a.len(), body.chars().count());
    assert_eq!(a[0], 85.04);
    // The last character of the stretched line ends at the segment's right edge (10 pt wide).
    let right = 85.04 + 300.0;
    assert!((a[a.len() - 1] + 10.0 - right).abs() < 0.6, "{a:?}");
    assert!(b[b.len() - 1] + 10.0 < right - 50.0, "{b:?}");
    // Centred text sits in the middle.
    let centred = svg(
        &page_with(vec![Item::Line(text_line(
            "가",
            width,
            Align::Center,
            true,
        ))]),
        &[],
        &fonts,
        &no_pictures,
    )
    .unwrap();
    assert!((xs(&centred)[0] - (85.04 + 150.0 - 5.0)).abs() < 0.6);
}

#[test]
fn hostile_pages_are_bounded() {
    let fonts = shipped_fonts();
    let huge = Page {
        width: i32::MAX,
        height: 84_188,
        items: vec![],
    };
    assert_eq!(
        svg(&huge, &[], &fonts, &no_pictures).unwrap_err().code,
        ErrorCode::TooLarge
    );
    // Items far off the page are left out; negative positions are clipped, not an error.
    let mut off = text_line("멀리", 1000, Align::Left, true);
    off.x = -2_000_000_000;
    let mut neg = text_line("음수", 1000, Align::Left, true);
    neg.baseline = -500;
    let rect = Rect {
        x: i32::MIN,
        y: i32::MIN,
        width: i32::MAX,
        height: i32::MAX,
        fill: Some(0xFF0000),
        borders: [Border::default(); 4],
    };
    let page = page_with(vec![Item::Line(off), Item::Line(neg), Item::Rect(rect)]);
    let s = svg(&page, &[], &fonts, &no_pictures).unwrap();
    assert!(!s.contains("멀리"));
    let image = png(&s, &fonts, 96, None).unwrap();
    assert!(image.starts_with(b"\x89PNG"));
    // A million characters: drawn up to the bound, quickly.
    let many = text_line(&"가".repeat(1_000_000), 42_520, Align::Left, true);
    let started = std::time::Instant::now();
    let s = svg(
        &page_with(vec![Item::Line(many)]),
        &[],
        &fonts,
        &no_pictures,
    )
    .unwrap();
    assert!(started.elapsed().as_secs() < 20);
    assert!(s.len() < 40 << 20);
    // Pixels: too many is too_large, max_side brings it down.
    let s = svg(&page_with(vec![]), &[], &fonts, &no_pictures).unwrap();
    assert_eq!(
        png(&s, &fonts, 2400, None).unwrap_err().code,
        ErrorCode::TooLarge
    );
    assert!(png(&s, &fonts, 2400, Some(500)).is_ok());
    assert_eq!(
        png(&s, &fonts, 0, None).unwrap_err().code,
        ErrorCode::InvalidInput
    );
}

#[test]
fn png_size_follows_dpi_and_max_side() {
    let fonts = shipped_fonts();
    let s = svg(
        &page_with(vec![Item::Line(text_line(
            "가나다 abc",
            42_520,
            Align::Justify,
            true,
        ))]),
        &[],
        &fonts,
        &no_pictures,
    )
    .unwrap();
    let size = |png: &[u8]| {
        (
            u32::from_be_bytes(png[16..20].try_into().unwrap()),
            u32::from_be_bytes(png[20..24].try_into().unwrap()),
        )
    };
    // A4 at 96 dpi: 794 × 1123.
    assert_eq!(size(&png(&s, &fonts, 96, None).unwrap()), (794, 1123));
    let (w, h) = size(&png(&s, &fonts, 96, Some(400)).unwrap());
    assert!((399..=400).contains(&h) && w < h, "{w}x{h}");
}

#[test]
fn pictures_embed_as_data_uris_of_known_types_only() {
    let fonts = shipped_fonts();
    let pic = |bin: &str| {
        Item::Picture(Picture {
            x: 1000,
            y: 1000,
            width: 5000,
            height: 5000,
            bin: bin.into(),
        })
    };
    let source = |name: &str| match name {
        "a.png" => Some(b"\x89PNG\r\n\x1a\nrest".to_vec()),
        "b.js" => Some(b"<script>alert(1)</script>".to_vec()),
        _ => None,
    };
    let s = svg(
        &page_with(vec![pic("a.png"), pic("b.js"), pic("missing")]),
        &[],
        &fonts,
        &source,
    )
    .unwrap();
    assert_eq!(s.matches("<image").count(), 1);
    assert!(s.contains("data:image/png;base64,iVBORw0KGgpyZXN0"));
    assert!(!s.contains("script"));
}
