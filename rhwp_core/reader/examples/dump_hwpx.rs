//! Dump what the HWPX reader makes of a file:
//! `cargo run --release --example dump_hwpx -- FILE [--json] [--strict] [--time N]`
//! prints the document text (furniture included), or the model as JSON, or
//! the error; `--time N` parses N times and prints the mean time per parse + text.
//!
//! `dump_hwpx --bench DIR_OR_FILE...` times parse + text per document the way
//! benches/bench_readers.py does (file read from disk, one warm-up, then repeats
//! until 0.2 s or 50 runs; the median is the document's time), prints one
//! `name<TAB>bytes<TAB>median_ms` line per document and a summary (median
//! document, aggregate MB/s, the two largest documents).

#[path = "common/mod.rs"]
mod common;

use rhwp_reader::{read, text::document_text, Options};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn bench(inputs: &[&String]) {
    let files = common::hwpx_files(inputs.iter().map(|s| s.as_str()));
    let options = Options::default();
    let parse_text = |path: &PathBuf| -> usize {
        let Ok(bytes) = std::fs::read(path) else {
            return 0;
        };
        read(&bytes, &options)
            .map(|doc| document_text(&doc, true).len())
            .unwrap_or(0)
    };
    let mut rows: Vec<(String, u64, f64)> = Vec::new();
    for path in &files {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        std::hint::black_box(parse_text(path));
        let mut times = Vec::new();
        let begin = Instant::now();
        while times.len() < 50 && begin.elapsed() < Duration::from_millis(200) {
            let start = Instant::now();
            std::hint::black_box(parse_text(path));
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        println!("{name}\t{size}\t{median:.4}");
        rows.push((name, size, median));
    }
    if rows.is_empty() {
        return;
    }
    let total_ms: f64 = rows.iter().map(|r| r.2).sum();
    let total_bytes: u64 = rows.iter().map(|r| r.1).sum();
    let mut medians: Vec<f64> = rows.iter().map(|r| r.2).collect();
    medians.sort_by(f64::total_cmp);
    rows.sort_by_key(|r| std::cmp::Reverse(r.1));
    eprintln!(
        "{} documents: median {:.3} ms, total {:.1} ms, {:.1} MB/s; largest: {} {:.2} ms, {} {:.2} ms",
        medians.len(),
        medians[medians.len() / 2],
        total_ms,
        total_bytes as f64 / 1e6 / (total_ms / 1000.0),
        rows[0].0,
        rows[0].2,
        rows.get(1).map(|r| r.0.as_str()).unwrap_or(""),
        rows.get(1).map(|r| r.2).unwrap_or(0.0),
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--bench") {
        bench(&args.iter().skip(1).collect::<Vec<_>>());
        return;
    }
    let Some(path) = args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<u32>().is_err())
    else {
        eprintln!("usage: dump_hwpx FILE [--json] [--strict] [--time N]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let options = Options {
        strict: args.iter().any(|a| a == "--strict"),
        ..Options::default()
    };
    if let Some(i) = args.iter().position(|a| a == "--time") {
        // The machine may be shared: report the best of five batches.
        let n: u32 = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(100)
            .max(1);
        let mut best = f64::MAX;
        let mut chars = 0;
        for _ in 0..5 {
            let start = Instant::now();
            for _ in 0..n {
                if let Ok(doc) = read(&bytes, &options) {
                    chars = document_text(&doc, true).len();
                }
            }
            best = best.min(start.elapsed().as_secs_f64() * 1000.0 / n as f64);
        }
        println!(
            "{path}: {best:.3} ms per parse + text (best of 5 x {n} runs, {chars} bytes of text)"
        );
        return;
    }
    match read(&bytes, &options) {
        Ok(doc) => {
            if args.iter().any(|a| a == "--json") {
                println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
            } else {
                println!("{}", document_text(&doc, true));
            }
            for w in &doc.warnings {
                eprintln!("warning: {w}");
            }
        }
        Err(e) => {
            println!(
                "error: {} — {}\nsuggestion: {}",
                e.code.as_str(),
                e.message,
                e.suggestion
            );
            std::process::exit(1);
        }
    }
}
