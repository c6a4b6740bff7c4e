//! Where an HWPX read spends its time, phase by phase, against the raw floor
//! (benches/README.md "Where the rest goes"):
//!
//!     cargo run --release -p rhwp-reader --example phases -- FILE_OR_DIR...
//!
//! Each phase is timed alone, in a loop of its own (one warm-up, then repeats
//! until 0.1 s or 200 runs; the median), on inputs prepared beforehand, so the
//! phases add up to about the whole read without timing each other's caches:
//!
//! - `file`: reading the file from disk;
//! - `zip`: opening the package (central directory, entry-name checks);
//! - `inflate content`: inflating header.xml and the sections (what the floor pays);
//! - `inflate other`: the small parts the floor does not read (mimetype,
//!   META-INF/manifest.xml, content.hpf, version.xml);
//! - `content.hpf`, `header.xml`, `sections`: walking each part into the model (the header's
//!   character/paragraph properties, numberings and bullets are read on demand, while the
//!   sections refer to them: that reading counts in `sections`);
//! - `text`: the plain text from the model;
//! - `read+text`: the whole `rhwp_reader::read` + text, for comparison (what the phases leave
//!   out: bin-data items from the zip directory, copying metadata and styles into the model,
//!   freeing it).
//!
//! Prints one line per file, the sum of each phase over all files, and each phase's share of
//! `read+text` for the median document.

#[path = "common/mod.rs"]
mod common;

use rhwp_reader::hwpx::{content, package::Package};
use rhwp_reader::owpml::{header, section};
use rhwp_reader::{read, text::document_text, Options};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const BUDGET: Duration = Duration::from_millis(100);
const MAX_REPEATS: usize = 200;

/// Median microseconds of `f` (one warm-up call first).
fn time<T>(mut f: impl FnMut() -> T) -> f64 {
    std::hint::black_box(f());
    let mut times = Vec::new();
    let begin = Instant::now();
    while times.len() < MAX_REPEATS && begin.elapsed() < BUDGET {
        let start = Instant::now();
        std::hint::black_box(f());
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

const PHASES: [&str; 9] = [
    "file",
    "zip",
    "inflate content",
    "inflate other",
    "content.hpf",
    "header.xml",
    "sections",
    "text",
    "read+text",
];

const OTHER_PARTS: [&str; 4] = [
    "mimetype",
    "META-INF/manifest.xml",
    "Contents/content.hpf",
    "version.xml",
];

fn phases(path: &PathBuf) -> Option<[f64; PHASES.len()]> {
    let options = Options::default();
    let limits = &options.limits;
    let bytes = std::fs::read(path).ok()?;
    let doc = read(&bytes, &options).ok()?;
    let mut pkg = Package::open(&bytes, limits).ok()?;
    let names = pkg.names();
    let sections: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with("Contents/section") && n.ends_with(".xml"))
        .cloned()
        .collect();
    let header_xml = pkg.read("Contents/header.xml").ok()??;
    let hpf = pkg.read("Contents/content.hpf").ok().flatten();
    let section_xml: Vec<Vec<u8>> = sections
        .iter()
        .filter_map(|s| pkg.read(s).ok().flatten())
        .collect();
    header::parse(&header_xml, limits).ok()?;
    let bins = HashMap::new();
    let charts = HashMap::new();

    let mut out = [0.0; PHASES.len()];
    out[0] = time(|| std::fs::read(path).map(|b| b.len()));
    out[1] = time(|| Package::open(&bytes, limits).is_ok());
    out[2] = time(|| {
        let mut pkg = Package::open(&bytes, limits).ok();
        let mut n = 0;
        if let Some(pkg) = pkg.as_mut() {
            for name in
                std::iter::once("Contents/header.xml").chain(sections.iter().map(|s| s.as_str()))
            {
                n += pkg.read(name).ok().flatten().map_or(0, |v| v.len());
            }
        }
        n
    }) - out[1];
    out[3] = time(|| {
        let mut pkg = Package::open(&bytes, limits).ok();
        let mut n = 0;
        if let Some(pkg) = pkg.as_mut() {
            for name in OTHER_PARTS {
                n += pkg.read(name).ok().flatten().map_or(0, |v| v.len());
            }
        }
        n
    }) - out[1];
    out[4] = hpf
        .as_ref()
        .map_or(0.0, |h| time(|| content::parse(h, limits).is_ok()));
    out[5] = time(|| header::parse(&header_xml, limits).is_ok());
    // A fresh header each time: the entries a section refers to are read on demand, during the
    // sections (the header's own walk, timed above, is taken back out).
    out[6] = time(|| {
        let Ok(hdr) = header::parse(&header_xml, limits) else {
            return 0;
        };
        let mut state = section::DocState::default();
        let mut n = 0;
        for (index, xml) in section_xml.iter().enumerate() {
            let input = section::SectionInput {
                charts: &charts,
                index: index as u32,
                part: "Contents/section.xml",
                header: &hdr,
                bins: &bins,
                limits,
            };
            n += section::parse(xml, &input, &mut state).map_or(0, |s| s.section.blocks.len());
        }
        n
    }) - out[5];
    out[7] = time(|| document_text(&doc, true).len());
    out[8] = time(|| {
        std::fs::read(path)
            .ok()
            .and_then(|b| read(&b, &options).ok())
            .map(|d| document_text(&d, true).len())
    });
    Some(out)
}

fn main() {
    let files = common::hwpx_files(std::env::args().skip(1));
    let mut total = [0.0; PHASES.len()];
    let mut rows: Vec<[f64; PHASES.len()]> = Vec::new();
    println!("file\t{}", PHASES.join("\t"));
    for path in &files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match phases(path) {
            Some(p) => {
                let cells: Vec<String> = p.iter().map(|t| format!("{t:.1}")).collect();
                println!("{name}\t{}", cells.join("\t"));
                for (t, v) in total.iter_mut().zip(p) {
                    *t += v;
                }
                rows.push(p);
            }
            None => println!("{name}\t(not read)"),
        }
    }
    let cells: Vec<String> = total.iter().map(|t| format!("{t:.1}")).collect();
    println!("TOTAL µs\t{}", cells.join("\t"));
    // Each phase's share of the whole read, per document; the median over documents.
    let whole = PHASES.len() - 1;
    let medians: Vec<String> = (0..PHASES.len())
        .map(|k| {
            let mut shares: Vec<f64> = rows.iter().map(|r| r[k] / r[whole]).collect();
            shares.sort_by(f64::total_cmp);
            shares
                .get(shares.len() / 2)
                .map_or_else(String::new, |m| format!("{:.0}%", m * 100.0))
        })
        .collect();
    println!("median share\t{}", medians.join("\t"));
}
