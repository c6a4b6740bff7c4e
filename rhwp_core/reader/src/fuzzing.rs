//! Entry points for the fuzz targets (`fuzz/fuzz_targets/`) and for replaying what they found
//! (`tests/fuzz_regressions.rs`), and the scaling check the tests hold every format to
//! (`assert_linear`): each takes raw fuzzer bytes, reaches one layer of a reader
//! directly (skipping the container where forging it would waste the fuzzer's time), and
//! exercises the text, summary, heading-level, Markdown and HTML views on whatever was read.
//! Any outcome but a panic is fine.

use crate::common::format::FuzzLayer;
use crate::formats::FORMATS;
use crate::limits::Options;
use crate::model::Document;
use crate::password::Password;
use crate::{summary, text, views};

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

/// Whole files, any format (target `read`).
fn read_file(data: &[u8], options: &Options) {
    if let Ok(doc) = crate::formats::read(data, options) {
        exercise(&doc);
    }
}

/// Every fuzz target: `read` (whole files), `decrypt` (the decryption paths), and the layers
/// each format in the table of formats names.
pub fn targets() -> Vec<&'static str> {
    let layers = FORMATS
        .iter()
        .flat_map(|f| f.fuzz_layers)
        .map(|layer| layer.target);
    ["read", "decrypt"].into_iter().chain(layers).collect()
}

/// Run the fuzz target named `target` on `data`; an unknown name reads `data` as a whole file.
pub fn run(target: &str, data: &[u8], options: &Options) {
    match target {
        "decrypt" => decrypt(data, options),
        _ => match layer(target) {
            Some(layer) => {
                if let Some(doc) = (layer.run)(data, options) {
                    exercise(&doc);
                }
            }
            None => read_file(data, options),
        },
    }
}

fn layer(target: &str) -> Option<&'static FuzzLayer> {
    FORMATS
        .iter()
        .flat_map(|f| f.fuzz_layers)
        .find(|layer| layer.target == target)
}

/// The decryption paths (target `decrypt`), with the password `pw`: the first byte picks the
/// scheme, the rest is its input — 0: an HWP 3.x encrypted body (DES, inflate, trailer);
/// 1: an HWP 5.0 stream (CFB-1, then the DocInfo check and inflation); 2: an HWPX manifest
/// (`META-INF/manifest.xml`) followed, after a NUL, by a part to decrypt under its first
/// entry; anything else: a whole file read with the password. Bounds as `options.limits`.
fn decrypt(data: &[u8], options: &Options) {
    const SCHEMES: [&str; 3] = ["hwp3_decrypt", "hwp5_decrypt", "hwpx_decrypt"];
    let Some((&scheme, rest)) = data.split_first() else {
        return;
    };
    match SCHEMES
        .get(usize::from(scheme))
        .and_then(|target| layer(target))
    {
        Some(layer) => {
            let _ = (layer.run)(rest, options);
        }
        None => {
            let options = Options {
                password: Some(Password::from("pw")),
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
    // Linear work gives about 8×, quadratic about 64×; the bound sits at half of quadratic's
    // because 8× the data outgrows the caches: serialising 600 KB of JSON in a debug build
    // takes ×16–25 the time of 80 KB on this machine, with no quadratic pass in it.
    const MAX_GROWTH: f64 = 32.0;
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
        ("json", |d| {
            serde_json::to_string(d).map_or(0, |json| json.len())
        }),
    ];
    let timings = |n: usize| -> Vec<(&str, f64)> {
        let bytes = build(n);
        let doc = crate::formats::read(&bytes, &Options::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
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
                crate::formats::read(&bytes, &Options::default())
                    .map_or(0, |doc| doc.sections.len())
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
    // machine, so a run over the bound is measured again (a real blow-up is over it every time).
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
    // A busy machine (other builds and tests on two cores) stretches single runs by several
    // times; up to three more rounds, each keeping the fastest time seen, before a verdict.
    for _ in 0..3 {
        if over(&rows).is_empty() {
            break;
        }
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
