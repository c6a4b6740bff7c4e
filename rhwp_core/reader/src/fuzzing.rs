//! Entry points for the fuzz targets (`fuzz/fuzz_targets/`) and for replaying what they found
//! (`tests/fuzz_regressions.rs`), and the scaling check the tests hold every format to
//! (`assert_linear`): each takes raw fuzzer bytes, reaches one layer of a reader
//! directly (skipping the container where forging it would waste the fuzzer's time), and
//! exercises the text, summary, heading-level, Markdown and HTML views on whatever was read.
//! Any outcome but a panic is fine.

use crate::model::{Document, Format};
use crate::{hwp5, hwpx, owpml, summary, text, views, Options};

fn exercise(doc: &Document) {
    let _ = text::document_text(doc, true);
    let _ = summary::summarize(doc);
    // Read when first asked for (HWPX): the IR asks.
    let _ = doc.styles.get().len();
    // The views every document the server sees goes through: the heading levels (outline
    // styles, table of contents, numbering ladder), the outline, Markdown and HTML (with
    // the furniture, notes and memos), and single blocks as a chunk renders them.
    let levels = views::heading_levels(doc);
    let _ = views::outline_headings(doc);
    let _ = views::render_markdown_with_levels(doc, true, &levels);
    let _ = views::render_html_with_levels(doc, true, true, &levels);
    if let Some(section) = doc.sections.first() {
        let blocks: Vec<_> = section.blocks.iter().take(4).collect();
        let _ = views::render_block_markdown(doc, &blocks);
    }
}

/// Whole files, either format (target `read`).
pub fn read_file(data: &[u8], options: &Options) {
    if let Ok(doc) = crate::read(data, options) {
        exercise(&doc);
    }
}

/// HWP 5.0 record streams as if already inflated (target `hwp5_records`): a little-endian u16
/// length of the DocInfo part, that many bytes of DocInfo records, then one section's records.
pub fn hwp5_records(data: &[u8], options: &Options) {
    use hwp5::{body::PageTracker, doc_info, record};
    let [a, b, rest @ ..] = data else { return };
    let (info_bytes, section_bytes) =
        rest.split_at((u16::from_le_bytes([*a, *b]) as usize).min(rest.len()));
    let info = match record::frame(info_bytes, options.limits.max_records) {
        Ok(records) => doc_info::parse(info_bytes, &records),
        Err(_) => doc_info::DocInfo::default(),
    };
    let mut pages = PageTracker::default();
    if let Ok((section, furniture)) =
        hwp5::read_section(section_bytes, &info, options, 0, &mut pages)
    {
        let mut doc = Document::new(Format::Hwp);
        doc.sections.push(section);
        doc.furniture = furniture;
        exercise(&doc);
    }
}

/// One HWPX section part without the zip, read with `header` and no bin data.
fn hwpx_section_with(data: &[u8], options: &Options, header: &owpml::header::Header) {
    use owpml::section;
    let bins = std::collections::HashMap::new();
    let charts = std::collections::HashMap::new();
    let input = section::SectionInput {
        charts: &charts,
        index: 0,
        part: "Contents/section0.xml",
        header,
        bins: &bins,
        limits: &options.limits,
    };
    let mut state = section::DocState::default();
    if let Ok(out) = section::parse(data, &input, &mut state) {
        let mut doc = Document::new(Format::Hwpx);
        doc.sections.push(out.section);
        doc.furniture = out.furniture;
        exercise(&doc);
    }
}

/// One HWPX section part with an empty header (target `hwpx_section`).
pub fn hwpx_section(data: &[u8], options: &Options) {
    hwpx_section_with(data, options, &owpml::header::Header::default());
}

/// header.xml and a section together (target `hwpx_parts`): a little-endian u32 length of the
/// header part, that many bytes of header.xml, then the section's XML.
pub fn hwpx_parts(data: &[u8], options: &Options) {
    let [a, b, c, d, rest @ ..] = data else {
        return;
    };
    let (head, section) =
        rest.split_at((u32::from_le_bytes([*a, *b, *c, *d]) as usize).min(rest.len()));
    let header = owpml::header::parse(head, &options.limits).unwrap_or_default();
    // Every entry, not only those the section refers to (entries are read on demand).
    for id in 0..64 {
        let _ = header.char_style(Some(id));
        let _ = header.heading(Some(id));
        let _ = header.numbering(id);
        let _ = header.bullet(id);
        let _ = header.style_name(Some(id));
    }
    let _ = header.style_list().get().len();
    hwpx_section_with(section, options, &header);
}

/// HWP 3.x body bytes as if already inflated (target `hwp3_body`): font names, styles, the
/// paragraph list and the extra blocks, behind a fixed uncompressed 3.x header.
pub fn hwp3_body(data: &[u8], options: &Options) {
    if let Ok(doc) = crate::hwp3::read(&crate::hwp3::with_body(data, false), options) {
        exercise(&doc);
    }
}

/// An HWPML document's bytes (target `hwpml`): read as HWPML whatever the first bytes say
/// (so mutations of the prolog still reach the reader), then every bin data item it lists is
/// decoded (base64, inflation), as `get_image` would.
pub fn hwpml(data: &[u8], options: &Options) {
    if let Ok(doc) = crate::hwpml::read(data, options) {
        exercise(&doc);
        for item in doc.bin_data.iter().take(16) {
            let _ = crate::hwpml::bin_data::item(data, &item.name, options);
        }
    }
}

/// The decryption paths (target `decrypt`), with the password `pw`: the first byte picks the
/// scheme, the rest is its input — 0: an HWP 3.x encrypted body (DES, inflate, trailer);
/// 1: an HWP 5.0 stream (CFB-1, then the DocInfo check and inflation); 2: an HWPX manifest
/// (`META-INF/manifest.xml`) followed, after a NUL, by a part to decrypt under its first
/// entry; anything else: a whole file read with the password. Bounds as `options.limits`.
pub fn decrypt(data: &[u8], options: &Options) {
    use crate::Password;
    let password = Password::from("pw");
    let Some((&scheme, rest)) = data.split_first() else {
        return;
    };
    let max = options.limits.max_stream_bytes;
    match scheme {
        0 => {
            let _ = crate::hwp3::encryption::decrypt_body(rest, &password, max);
        }
        1 => {
            let mut d = hwp5::encryption::Decryptor::new(&password);
            if let Ok(plain) = d.decrypt(rest) {
                let _ = hwp5::encryption::looks_like_doc_info(&plain);
                let _ = crate::common::inflate::inflate(&plain, max);
            }
        }
        2 => {
            let (manifest, part) = match rest.iter().position(|&b| b == 0) {
                Some(at) => (&rest[..at], &rest[at + 1..]),
                None => (rest, &[][..]),
            };
            if let Ok(m) = hwpx::encryption::parse_manifest(manifest, &options.limits) {
                if let Some((name, cipher)) = m.first() {
                    let mut keys = hwpx::encryption::KeyCache::default();
                    let _ = hwpx::encryption::decrypt_part(
                        name,
                        cipher,
                        part.to_vec(),
                        &password,
                        &mut keys,
                        max,
                    );
                }
            }
        }
        _ => {
            let options = Options {
                password: Some(password),
                ..options.clone()
            };
            read_file(rest, &options);
        }
    }
}

/// Work in proportion to the document: `build(n)` makes a file holding one structure repeated
/// `n` times (`count` reads back how many the reader saw, which must be `n`); reading it and
/// every view a tool renders (text, summary, heading levels, outline, Markdown, HTML, the model
/// as JSON) must cost far less than 64× the time at 8× the size, where a pass that compares the
/// repeated structures pairwise lands (five such denial-of-service paths were found by hand).
/// A complexity check, not a benchmark: best of three, a loose bound, a debug build's times.
/// For tests (the integration tests and the readers' unit tests); panics when the bound is broken.
pub fn assert_linear(
    name: &str,
    base: usize,
    build: impl Fn(usize) -> Vec<u8>,
    count: impl Fn(&Document) -> usize,
) {
    use std::time::Instant;
    const GROWTH: usize = 8;
    // Linear work gives about 8×, quadratic about 64×.
    const MAX_GROWTH: f64 = 24.0;
    type Op = fn(&Document) -> usize;
    let ops: [(&str, Op); 7] = [
        ("text", |d| text::document_text(d, true).len()),
        ("summary", |d| summary::summarize(d).paragraphs as usize),
        ("heading levels", |d| views::heading_levels(d).len()),
        ("outline", |d| views::outline_headings(d).len()),
        ("markdown", |d| {
            views::render_markdown_with_levels(d, true, &views::heading_levels(d))
                .0
                .len()
        }),
        ("html", |d| {
            views::render_html_with_levels(d, true, true, &views::heading_levels(d)).len()
        }),
        ("json", |d| serde_json::to_string(d).unwrap().len()),
    ];
    let timings = |n: usize| -> Vec<(&str, f64)> {
        let bytes = build(n);
        let doc =
            crate::read(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            count(&doc),
            n,
            "{name}: the reader saw another count than was built"
        );
        let best = |work: &dyn Fn() -> usize| -> f64 {
            (0..3)
                .map(|_| {
                    let started = Instant::now();
                    std::hint::black_box(work());
                    started.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min)
        };
        let mut out = vec![(
            "read",
            best(&|| {
                crate::read(&bytes, &Options::default())
                    .unwrap()
                    .sections
                    .len()
            }),
        )];
        out.extend(ops.iter().map(|(op, f)| (*op, best(&|| f(&doc)))));
        out
    };
    let growths = |small: &[(&str, f64)], large: &[(&str, f64)]| -> Vec<(String, f64, f64)> {
        small
            .iter()
            .zip(large)
            .map(|((op, s), (_, l))| (op.to_string(), *s, *l))
            .collect()
    };
    // Below 10 ms the slope is noise, not where a blow-up hides; the other tests share the
    // machine, so a run over the bound is measured once more (a real blow-up is over it again).
    let over = |rows: &[(String, f64, f64)]| -> Vec<String> {
        rows.iter()
            .filter(|(_, s, l)| *l >= 0.01 && l / s.max(1e-3) >= MAX_GROWTH)
            .map(|(op, s, l)| {
                format!(
                    "{op}: ×{:.1} ({:.1} ms → {:.1} ms)",
                    l / s.max(1e-3),
                    s * 1e3,
                    l * 1e3
                )
            })
            .collect()
    };
    let mut rows = growths(&timings(base), &timings(base * GROWTH));
    if !over(&rows).is_empty() {
        let again = growths(&timings(base), &timings(base * GROWTH));
        for (row, second) in rows.iter_mut().zip(again) {
            row.1 = row.1.min(second.1);
            row.2 = row.2.min(second.2);
        }
    }
    for (op, s, l) in &rows {
        eprintln!(
            "{name} {op}: {:.1} ms → {:.1} ms (×{:.1})",
            s * 1e3,
            l * 1e3,
            l / s.max(1e-3)
        );
    }
    let failed = over(&rows);
    assert!(
        failed.is_empty(),
        "{name}: {GROWTH}× the input cost {failed:?}"
    );
}
