//! Read one file N times (read + text), for profiling the reader without Python around it:
//!
//!     cargo build --release -p rhwp-reader --example read_repeat
//!     perf record --call-graph dwarf target/release/examples/read_repeat FILE 50
//!
//! Prints the time per read and the rate in MB of the file per second.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: read_repeat FILE [TIMES]");
        std::process::exit(2);
    };
    let times: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50)
        .max(1);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let options = rhwp_reader::Options::default();
    let started = std::time::Instant::now();
    let mut chars = 0;
    for _ in 0..times {
        match rhwp_reader::read(&bytes, &options) {
            Ok(doc) => chars += rhwp_reader::text::document_text(&doc, true).len(),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(1);
            }
        }
    }
    let per = started.elapsed().as_secs_f64() / times as f64;
    println!(
        "{:.2} ms per read, {:.1} MB/s ({} bytes of text per read)",
        per * 1e3,
        bytes.len() as f64 / per / 1e6,
        chars / times
    );
}
