//! Print a document's text (or its model as JSON, or its error).
//! `cargo run --release --example dump -- FILE [--json] [--body] [--time N]`
//! `--body` leaves furniture out; `--time N` reads it N times and prints the mean time;
//! `--outline` prints the outline: each heading's top-level block, level and line.
use rhwp_reader::{read, text, Options};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: dump FILE [--json] [--body] [--time N] [--outline]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let options = Options::default();
    if let Some(i) = args.iter().position(|a| a == "--time") {
        let n: u32 = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(100);
        let start = Instant::now();
        let mut chars = 0usize;
        let mut best = f64::MAX;
        for _ in 0..n {
            let t = Instant::now();
            if let Ok(doc) = read(&bytes, &options) {
                chars += text::document_text(&doc, true).len();
            }
            best = best.min(t.elapsed().as_secs_f64() * 1000.0);
        }
        let per = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
        // The minimum is the figure least disturbed by other load on the machine.
        println!(
            "{path}: mean {per:.4} ms, min {best:.4} ms per parse+text ({} bytes of text)",
            chars / n.max(1) as usize
        );
        return;
    }
    match read(&bytes, &options) {
        Ok(doc) if args.iter().any(|a| a == "--outline") => {
            let blocks: Vec<_> = doc.sections.iter().flat_map(|s| &s.blocks).collect();
            for h in rhwp_reader::views::outline_headings(&doc) {
                let line = h
                    .nested
                    .clone()
                    .or_else(|| blocks.get(h.block).map(|b| text::block_text(b)))
                    .unwrap_or_default();
                let line: String = line.split_whitespace().collect::<Vec<_>>().join(" ");
                println!("{}\t{}\t{}", h.block, h.level, line);
            }
        }
        Ok(doc) if args.iter().any(|a| a == "--json") => {
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        Ok(doc) => {
            println!(
                "{}",
                text::document_text(&doc, !args.iter().any(|a| a == "--body"))
            );
            for w in &doc.warnings {
                eprintln!("warning: {w}");
            }
        }
        Err(e) => {
            println!(
                "error {}: {}\nsuggestion: {}",
                e.code.as_str(),
                e.message,
                e.suggestion
            );
            std::process::exit(1);
        }
    }
}
