//! Page images from a page layout (`crate::layout`): SVG with the text kept as text (each
//! character's position given, so it can be searched and checked word by word), and PNG
//! rasterised from that SVG in Rust (usvg + tiny-skia, fonts from `fonts`). Nothing from the
//! document is executed or referenced: text and names are escaped, pictures embedded as data
//! URIs.
//!
//! Units: the SVG's user unit is the point (HWPUNIT / 100); its size is given in millimetres.

pub mod fonts;

use crate::error::{Error, ErrorCode, Result};
use crate::layout::{Align, Border, Face, Item, Line, Page, Picture, Rect, Script, Stroke};
use fonts::{Fonts, Measurer};
use std::fmt::Write;

/// Pages larger than this (HWPUNIT; 10 m) are refused: no paper is that big.
const MAX_PAGE_SIDE: i32 = 10_000 * 7200 / 254;
/// Pixels a PNG may have (about 8000 × 8000); a larger request is refused unless `max_side`
/// brings it down.
const MAX_PIXELS: u64 = 64_000_000;
/// Picture bytes embedded per page, in all.
const MAX_PICTURE_BYTES: usize = 64 << 20;
/// Characters drawn per page (a dense page holds 5,000; the rest of a hostile page is left out).
const MAX_CHARS: usize = 400_000;

/// Where a picture's bytes come from (by bin data name).
pub type PictureSource<'a> = &'a dyn Fn(&str) -> Option<Vec<u8>>;

fn pt(v: f32) -> String {
    let r = (v * 100.0).round() / 100.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r}")
    }
}

fn hu(v: i32) -> f32 {
    v as f32 / 100.0
}

/// Whether XML 1.0 allows the character in text.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Text and attribute values escaped for XML; characters XML cannot hold left out.
pub fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if xml_char(c) => out.push(c),
            _ => {}
        }
    }
}

fn color(c: u32) -> String {
    format!("#{:06x}", c & 0xFF_FFFF)
}

fn check_page(page: &Page) -> Result<()> {
    if page.width <= 0
        || page.height <= 0
        || page.width > MAX_PAGE_SIDE
        || page.height > MAX_PAGE_SIDE
    {
        return Err(Error::too_large(format!(
            "the page is {} × {} mm: beyond what a page can be (up to 10 m a side)",
            page.width / 283,
            page.height / 283
        )));
    }
    Ok(())
}

/// The page as SVG. `faces`: the layout's faces; `pictures`: the bytes of a bin data item.
pub fn svg(
    page: &Page,
    faces: &[Face],
    fonts: &Fonts,
    pictures: PictureSource<'_>,
) -> Result<String> {
    check_page(page)?;
    let (w, h) = (hu(page.width), hu(page.height));
    let mut out = String::with_capacity(4096 + page.items.len() * 160);
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xml:space="preserve" width="{}mm" height="{}mm" viewBox="0 0 {} {}">"#,
        pt(page.width as f32 * 25.4 / 7200.0),
        pt(page.height as f32 * 25.4 / 7200.0),
        pt(w),
        pt(h)
    );
    let _ = write!(
        out,
        r##"<rect width="{}" height="{}" fill="#ffffff"/>"##,
        pt(w),
        pt(h)
    );
    let visible = |x: i32, y: i32, iw: i32, ih: i32| {
        x < page.width
            && y < page.height
            && x.saturating_add(iw.max(0)) > 0
            && y.saturating_add(ih.max(0)) > 0
    };
    // Fills and pictures first, then borders, then text: text is never hidden under a cell's fill.
    let mut picture_bytes = 0usize;
    for item in &page.items {
        match item {
            Item::Rect(r) if visible(r.x, r.y, r.width, r.height) => fill(r, &mut out),
            Item::Picture(p) if visible(p.x, p.y, p.width, p.height) => {
                picture(p, pictures, &mut picture_bytes, &mut out)
            }
            _ => {}
        }
    }
    for item in &page.items {
        if let Item::Rect(r) = item {
            if visible(r.x, r.y, r.width, r.height) {
                borders(r, &mut out);
            }
        }
    }
    let mut measurer = fonts.measurer();
    let mut chars = 0usize;
    for item in &page.items {
        if let Item::Line(l) = item {
            if chars > MAX_CHARS {
                break;
            }
            if visible(
                l.x,
                l.baseline - l.height.max(0),
                l.width.max(1),
                l.height.max(1) * 2,
            ) {
                chars += line(l, faces, fonts, &mut measurer, &mut out);
            }
        }
    }
    out.push_str("</svg>");
    Ok(out)
}

fn fill(r: &Rect, out: &mut String) {
    if let Some(c) = r.fill {
        let _ = write!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            pt(hu(r.x)),
            pt(hu(r.y)),
            pt(hu(r.width.max(0))),
            pt(hu(r.height.max(0))),
            color(c)
        );
    }
}

fn borders(r: &Rect, out: &mut String) {
    let (x0, y0) = (hu(r.x), hu(r.y));
    let (x1, y1) = (
        hu(r.x.saturating_add(r.width)),
        hu(r.y.saturating_add(r.height)),
    );
    let sides = [
        (x0, y0, x0, y1),
        (x1, y0, x1, y1),
        (x0, y0, x1, y0),
        (x0, y1, x1, y1),
    ];
    for (b, (ax, ay, bx, by)) in r.borders.iter().zip(sides) {
        stroke_line(b, (ax, ay, bx, by), out);
    }
}

fn stroke_line(b: &Border, (ax, ay, bx, by): (f32, f32, f32, f32), out: &mut String) {
    let dash = match b.stroke {
        Stroke::None => return,
        Stroke::Solid => "",
        Stroke::Dash => r#" stroke-dasharray="3 2""#,
        Stroke::Dot => r#" stroke-dasharray="1 1""#,
        Stroke::Double => "",
    };
    let width = hu(b.width.clamp(1, 2000)) * if b.stroke == Stroke::Double { 2.0 } else { 1.0 };
    let _ = write!(
        out,
        r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{dash}/>"#,
        pt(ax),
        pt(ay),
        pt(bx),
        pt(by),
        color(b.color),
        pt(width.max(0.1))
    );
}

/// The image type of picture bytes when an SVG viewer shows it (raster pictures; a metafile or
/// an OLE object is left out).
fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    crate::common::bin_data::media_type(bytes).filter(|m| {
        matches!(
            *m,
            "image/png" | "image/jpeg" | "image/gif" | "image/bmp" | "image/webp"
        )
    })
}

fn base64(bytes: &[u8], out: &mut String) {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(T[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

fn picture(p: &Picture, pictures: PictureSource<'_>, used: &mut usize, out: &mut String) {
    let Some(bytes) = pictures(&p.bin) else {
        return;
    };
    let Some(mime) = image_mime(&bytes) else {
        return;
    };
    if used.saturating_add(bytes.len()) > MAX_PICTURE_BYTES {
        return;
    }
    *used += bytes.len();
    let _ = write!(
        out,
        r#"<image x="{}" y="{}" width="{}" height="{}" preserveAspectRatio="none" xlink:href="data:{mime};base64,"#,
        pt(hu(p.x)),
        pt(hu(p.y)),
        pt(hu(p.width.max(0))),
        pt(hu(p.height.max(0)))
    );
    base64(&bytes, out);
    out.push_str(r#""/>"#);
}

/// One character placed: its run, the character, its x and advance (points).
struct Placed {
    run: usize,
    c: char,
    x: f32,
    advance: f32,
}

/// Draw one line: every character at its x (measured with the fonts drawn with, the line
/// stretched or aligned in its segment as 한글 does). Returns the characters drawn.
fn line(l: &Line, faces: &[Face], fonts: &Fonts, m: &mut Measurer<'_>, out: &mut String) -> usize {
    let families: Vec<String> = l
        .runs
        .iter()
        .map(|r| {
            let face = faces.get(r.style.face as usize);
            fonts.family_for(
                face.map_or("", |f| f.name.as_str()),
                face.and_then(|f| f.serif),
            )
        })
        .collect();
    let mut placed: Vec<Placed> = Vec::new();
    let mut x = 0.0f32;
    let mut shown = String::new();
    for (k, run) in l.runs.iter().enumerate() {
        let s = &run.style;
        let size = hu(s.size);
        let ratio = f32::from(s.ratio) / 100.0;
        // 자간: a share of each character's own width (negative: tighter).
        let spacing = 1.0 + f32::from(s.spacing) / 100.0;
        for stored in run.text.chars() {
            // The layout keeps the stored characters; Hancom's private-use symbols and old
            // Hangul are drawn as the text shows them.
            shown.clear();
            match crate::common::private_use::shown(stored) {
                Some(s) => s.push_to(&mut shown),
                None => shown.push(stored),
            }
            for c in shown.chars() {
                let advance = if c == '\t' {
                    // Default tab stops every 40 pt from the line's start.
                    let next = ((x / 40.0).floor() + 1.0) * 40.0;
                    next - x
                } else {
                    m.advance(&families[k], s.bold, c) * size * ratio * spacing
                };
                placed.push(Placed {
                    run: k,
                    c,
                    x,
                    advance,
                });
                x += advance;
            }
        }
    }
    // Trailing spaces take no room (the line breaks there).
    let content = placed
        .iter()
        .rposition(|p| !p.c.is_whitespace())
        .map_or(0, |i| i + 1);
    let natural = placed
        .get(content.wrapping_sub(1))
        .map_or(0.0, |p| p.x + p.advance);
    let width = hu(l.width.max(0));
    // A line our fonts make longer than 한글's is narrowed as a whole (glyphs and gaps alike,
    // as 장평 would), never overlapped.
    let squeeze = if natural > width && width > 0.0 && content > 0 {
        width / natural
    } else {
        1.0
    };
    if squeeze < 1.0 {
        for p in placed.iter_mut() {
            p.x *= squeeze;
            p.advance *= squeeze;
        }
    }
    let stretch = match l.align {
        Align::Justify => !l.last,
        Align::Distribute => true,
        _ => false,
    } && squeeze == 1.0;
    let natural = natural * squeeze;
    let start = match l.align {
        Align::Right => width - natural,
        Align::Center => (width - natural) / 2.0,
        _ => 0.0,
    }
    .max(0.0);
    if stretch && content > 1 && width > 0.0 {
        let extra = width - natural;
        let gaps: Vec<usize> = (0..content - 1).filter(|&i| placed[i].c == ' ').collect();
        // Extra room goes to the spaces when there are some, else to every gap.
        let (shares, per_gap): (Vec<usize>, bool) = if !gaps.is_empty() {
            (gaps, true)
        } else {
            ((0..content - 1).collect(), false)
        };
        let each = extra / shares.len().max(1) as f32;
        let mut shift = 0.0f32;
        let mut next = shares.iter().peekable();
        for (i, p) in placed.iter_mut().enumerate() {
            p.x += shift;
            if next.peek().is_some_and(|&&g| g == i) {
                next.next();
                shift += each;
                if per_gap {
                    p.advance += each;
                }
            }
        }
    }
    let x0 = hu(l.x) + start;
    let base = hu(l.baseline);
    // One <text> per run, every character's x given.
    let mut i = 0;
    while i < placed.len() {
        let k = placed[i].run;
        let j = placed[i..]
            .iter()
            .position(|p| p.run != k)
            .map_or(placed.len(), |n| i + n);
        text_run(
            &placed[i..j],
            &l.runs[k].style,
            &families[k],
            (x0, base, squeeze),
            out,
        );
        i = j;
    }
    placed.len()
}

/// One run's characters as a `<text>`; `squeeze` narrows its glyphs (a line too long for our
/// fonts).
fn text_run(
    chars: &[Placed],
    s: &crate::layout::CharStyle,
    family: &str,
    (x0, base, squeeze): (f32, f32, f32),
    out: &mut String,
) {
    let size = hu(s.size);
    let full = match s.script {
        Script::Normal => size,
        _ => size / 0.7,
    };
    let y = base
        + f32::from(s.offset) / 100.0 * full
        + match s.script {
            Script::Super => -0.35 * full,
            Script::Sub => 0.15 * full,
            Script::Normal => 0.0,
        };
    let ratio = f32::from(s.ratio) / 100.0 * squeeze;
    let drawn: Vec<&Placed> = chars.iter().filter(|p| p.c != '\t').collect();
    if drawn.is_empty() {
        return;
    }
    let xs: Vec<String> = drawn.iter().map(|p| pt((x0 + p.x) / ratio)).collect();
    out.push_str("<text");
    if (ratio - 1.0).abs() > 0.005 {
        let _ = write!(out, r#" transform="matrix({} 0 0 1 0 0)""#, pt(ratio));
    }
    let _ = write!(out, r#" x="{}" y="{}" font-family=""#, xs.join(" "), pt(y));
    escape(family, out);
    let _ = write!(out, r#"" font-size="{}""#, pt(size));
    if s.bold {
        out.push_str(r#" font-weight="bold""#);
    }
    if s.italic {
        out.push_str(r#" font-style="italic""#);
    }
    if s.color != 0 {
        let _ = write!(out, r#" fill="{}""#, color(s.color));
    }
    out.push('>');
    let text: String = drawn.iter().map(|p| p.c).collect();
    escape(&text, out);
    out.push_str("</text>");
    let (first, last) = (
        chars[0].x,
        chars[chars.len() - 1].x + chars[chars.len() - 1].advance,
    );
    let (a, b) = (x0 + first, x0 + last);
    let thick = (size * 0.06).max(0.3);
    if s.underline {
        let _ = write!(
            out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"/>"#,
            pt(a),
            pt(y + size * 0.12),
            pt(b),
            pt(y + size * 0.12),
            color(s.color),
            pt(thick)
        );
    }
    if s.strike {
        let _ = write!(
            out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"/>"#,
            pt(a),
            pt(y - size * 0.32),
            pt(b),
            pt(y - size * 0.32),
            color(s.color),
            pt(thick)
        );
    }
}

/// Rasterise the SVG of a page: `dpi` pixels per inch, the longer side at most `max_side`.
pub fn png(svg: &str, fonts: &Fonts, dpi: u32, max_side: Option<u32>) -> Result<Vec<u8>> {
    use resvg::{tiny_skia, usvg};
    if !(1..=2400).contains(&dpi) {
        return Err(invalid(format!("dpi {dpi} is outside 1..=2400")));
    }
    let options = usvg::Options {
        fontdb: fonts.db.clone(),
        font_family: fonts::SERIF.to_string(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options)
        .map_err(|e| Error::corrupt(format!("the page's SVG did not parse: {e}")))?;
    let size = tree.size();
    // usvg sizes the tree in CSS pixels (96 per inch) from the SVG's millimetres.
    let mut scale = dpi as f32 / 96.0;
    let (w, h) = (size.width() * scale, size.height() * scale);
    if let Some(side) = max_side {
        if side == 0 {
            return Err(invalid("max_side must be at least 1".into()));
        }
        let longer = w.max(h);
        if longer > side as f32 {
            scale *= side as f32 / longer;
        }
    }
    let (pw, ph) = (
        (size.width() * scale).ceil().max(1.0) as u64,
        (size.height() * scale).ceil().max(1.0) as u64,
    );
    if pw.saturating_mul(ph) > MAX_PIXELS {
        return Err(Error::too_large(format!(
            "a {pw} × {ph} pixel image is more than {MAX_PIXELS} pixels: lower dpi or set max_side"
        )));
    }
    let mut pixmap = tiny_skia::Pixmap::new(pw as u32, ph as u32)
        .ok_or_else(|| Error::too_large(format!("a {pw} × {ph} pixel image cannot be made")))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| Error::corrupt(format!("the PNG could not be encoded: {e}")))
}

/// What to render a page as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Svg,
    Png { dpi: u32, max_side: Option<u32> },
}

/// A rendered page and what the layout said of it.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub bytes: Vec<u8>,
    pub page_count: u32,
    /// The document stored no line layout: positions were estimated.
    pub estimated: bool,
}

/// Page `page` (1-based) of the document in `bytes`, drawn with the fonts in `font_dirs`.
/// A page outside the document is `invalid_input` naming the pages there are; a document that
/// stored no line layout is `invalid_input` saying so (its pages are not known).
pub fn render_page(
    bytes: &[u8],
    options: &crate::limits::Options,
    page: u32,
    format: Format,
    font_dirs: &[std::path::PathBuf],
) -> Result<Rendered> {
    let layout = crate::formats::layout(bytes, options, Some(page))?;
    if layout.estimated {
        return Err(invalid(
            "the document stores no line layout (it was written by a program, not laid out by 한글), so its pages are not known; open and save it in 한글 to render it".into(),
        ));
    }
    let count = layout.pages.len() as u32;
    let Some(p) = page
        .checked_sub(1)
        .and_then(|i| layout.pages.get(i as usize))
    else {
        return Err(invalid(format!(
            "page {page} is not in the document: pages 1 to {count}"
        )));
    };
    let fonts = Fonts::load(font_dirs);
    if fonts.is_empty() {
        return Err(invalid(format!(
            "no font files (.ttf, .otf, .ttc) in {}: pass the render pack's fonts folder or RHWP_FONT_DIR",
            font_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        )));
    }
    let pictures = |name: &str| match crate::formats::bin_data(bytes, name, options) {
        Ok(crate::common::bin_data::Lookup::Found { data, .. }) => Some(data),
        _ => None,
    };
    let svg_text = svg(p, &layout.faces, &fonts, &pictures)?;
    let out = match format {
        Format::Svg => svg_text.into_bytes(),
        Format::Png { dpi, max_side } => png(&svg_text, &fonts, dpi, max_side)?,
    };
    Ok(Rendered {
        bytes: out,
        page_count: count,
        estimated: layout.estimated,
    })
}

fn invalid(message: String) -> Error {
    Error {
        code: ErrorCode::InvalidInput,
        message,
        suggestion: ErrorCode::InvalidInput.default_suggestion().into(),
    }
}

#[cfg(test)]
mod tests;
