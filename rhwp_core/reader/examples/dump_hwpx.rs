//! Dump what the HWPX reader makes of a file:
//! `cargo run --release --example dump_hwpx -- FILE [--json] [--strict] [--time N]`
//! prints the document text (furniture included), or the model as JSON, or
//! the error; `--time N` parses N times and prints the mean time per parse + text.

use rhwp_reader::{read, text::document_text, Options};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--") && a.parse::<u32>().is_err()) else {
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
    let options = Options { strict: args.iter().any(|a| a == "--strict"), ..Options::default() };
    if let Some(i) = args.iter().position(|a| a == "--time") {
        // The machine may be shared: report the best of five batches.
        let n: u32 = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(100).max(1);
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
        println!("{path}: {best:.3} ms per parse + text (best of 5 x {n} runs, {chars} bytes of text)");
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
            println!("error: {} — {}\nsuggestion: {}", e.code.as_str(), e.message, e.suggestion);
            std::process::exit(1);
        }
    }
}
