//! The raw floor of reading an HWP/HWPX document: what any reader must pay before it looks at a
//! single record or XML element. The reader's budget: stay within a small factor of it.
//!
//!     cargo run --release -p rhwp-reader --example floor -- FILE_OR_DIR...
//!
//! HWP 5.0: read the file, open the compound file, read `FileHeader` (for the compressed and
//! distribution flags), then read `DocInfo` and every `BodyText/Section*` and `ViewText/Section*`
//! stream and raw-deflate inflate it when the document is compressed. Distribution documents'
//! `ViewText` sections are AES-encrypted before they are deflated: the floor reads them but does
//! not decrypt or inflate them (counted in `encrypted_streams`), so for those the floor is low.
//! HWPX: read the file, open the zip, inflate `Contents/header.xml` and every
//! `Contents/section*.xml`.
//!
//! Per file: one warm-up, then repeats until 0.2 s are spent or 50 runs are made (the same rule as
//! benches/bench_readers.py); prints one JSON object with each file's median in microseconds.
//! A file that cannot be opened gets an `error` and the run goes on: no input makes this panic.
//!
//! Uses only the crates rhwp-reader already depends on (flate2, zip; cfb, which the reader's tests
//! build compound files with) and the standard library, so it can live in
//! `rhwp_core/reader/examples/floor.rs` without touching Cargo.toml. The reader opens compound files
//! with its own lenient layer (`common::compound`), faster than cfb on the corpus: the floor stays
//! an outside reader's cost.

use std::fs;
use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const REPEAT_BUDGET: Duration = Duration::from_millis(200);
const MAX_REPEATS: usize = 50;
/// FileHeader property bits (HWP 5.0 spec, FileHeader "속성"): bit 0 compressed, bit 2 distribution.
const FLAG_COMPRESSED: u32 = 1;
const FLAG_DISTRIBUTION: u32 = 1 << 2;
/// The property flags sit after the 32-byte signature and the 4-byte version.
const FLAGS_OFFSET: usize = 36;

#[derive(Default, Clone, Copy)]
struct Work {
    streams: usize,
    inflated_bytes: u64,
    encrypted_streams: usize,
}

fn inflate_raw(data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    out.clear();
    flate2::read::DeflateDecoder::new(data).read_to_end(out)?;
    Ok(())
}

fn floor_hwp(bytes: &[u8]) -> io::Result<Work> {
    let mut cfb = cfb::CompoundFile::open(Cursor::new(bytes))?;
    let mut header = Vec::with_capacity(256);
    cfb.open_stream("/FileHeader")?.read_to_end(&mut header)?;
    let flags = header
        .get(FLAGS_OFFSET..FLAGS_OFFSET + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "FileHeader shorter than 40 bytes",
            )
        })?;
    let compressed = flags & FLAG_COMPRESSED != 0;
    let distribution = flags & FLAG_DISTRIBUTION != 0;

    let mut streams: Vec<(PathBuf, bool)> = vec![(PathBuf::from("/DocInfo"), false)];
    for (storage, encrypted) in [("/BodyText", false), ("/ViewText", distribution)] {
        // A document without ViewText (or, oddly, BodyText) simply has no such streams.
        if let Ok(entries) = cfb.read_storage(storage) {
            streams.extend(
                entries
                    .filter(|e| e.is_stream())
                    .map(|e| (e.path().to_path_buf(), encrypted)),
            );
        }
    }

    let mut work = Work::default();
    let mut raw = Vec::new();
    let mut inflated = Vec::new();
    for (path, encrypted) in &streams {
        raw.clear();
        cfb.open_stream(path)?.read_to_end(&mut raw)?;
        work.streams += 1;
        if *encrypted {
            work.encrypted_streams += 1;
            work.inflated_bytes += raw.len() as u64;
        } else if compressed {
            inflate_raw(&raw, &mut inflated)?;
            work.inflated_bytes += inflated.len() as u64;
        } else {
            work.inflated_bytes += raw.len() as u64;
        }
    }
    Ok(work)
}

fn is_hwpx_content(name: &[u8]) -> bool {
    name == b"Contents/header.xml"
        || (name.starts_with(b"Contents/section") && name.ends_with(b".xml"))
}

fn floor_hwpx(bytes: &[u8]) -> io::Result<Work> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(io::Error::other)?;
    let wanted: Vec<usize> = zip
        .file_names_raw()
        .enumerate()
        .filter(|(_, name)| is_hwpx_content(name))
        .map(|(index, _)| index)
        .collect();
    let mut work = Work::default();
    let mut out = Vec::new();
    for index in wanted {
        out.clear();
        zip.by_index(index)
            .map_err(io::Error::other)?
            .read_to_end(&mut out)?;
        work.streams += 1;
        work.inflated_bytes += out.len() as u64;
    }
    Ok(work)
}

/// The whole floor for one file, from the path: reading the file is part of every reader's cost.
fn floor_once(path: &Path) -> io::Result<(&'static str, Work)> {
    let bytes = fs::read(path)?;
    if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
        Ok(("hwp", floor_hwp(&bytes)?))
    } else if bytes.starts_with(b"PK") {
        Ok(("hwpx", floor_hwpx(&bytes)?))
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "neither a compound file nor a zip",
        ))
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn measure(path: &Path) -> String {
    let name = json_string(&path.display().to_string());
    let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let (format, work) = match floor_once(path) {
        Ok(done) => done,
        Err(e) => {
            return format!(
                "{{\"path\":{name},\"bytes\":{size},\"error\":{}}}",
                json_string(&e.to_string())
            )
        }
    };
    let mut times: Vec<Duration> = Vec::new();
    let mut spent = Duration::ZERO;
    while times.len() < MAX_REPEATS && (spent < REPEAT_BUDGET || times.is_empty()) {
        let start = Instant::now();
        // The warm-up succeeded, so a failure here would be the disk changing under us.
        if floor_once(path).is_err() {
            break;
        }
        let took = start.elapsed();
        times.push(took);
        spent += took;
    }
    times.sort_unstable();
    let median_us = match times.len() {
        0 => 0.0,
        n if n % 2 == 1 => times[n / 2].as_secs_f64() * 1e6,
        n => (times[n / 2 - 1] + times[n / 2]).as_secs_f64() * 1e6 / 2.0,
    };
    format!(
        "{{\"path\":{name},\"format\":\"{format}\",\"bytes\":{size},\"streams\":{},\"inflated_bytes\":{},\
         \"encrypted_streams\":{},\"median_us\":{median_us:.3},\"repeats\":{}}}",
        work.streams,
        work.inflated_bytes,
        work.encrypted_streams,
        times.len()
    )
}

fn expand(arg: &Path, files: &mut Vec<PathBuf>) {
    if arg.is_dir() {
        let mut entries: Vec<PathBuf> = fs::read_dir(arg)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        entries.sort();
        for e in entries {
            expand(&e, files);
        }
    } else {
        files.push(arg.to_path_buf());
    }
}

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args_os().skip(1) {
        expand(Path::new(&arg), &mut files);
    }
    if files.is_empty() {
        eprintln!("usage: floor FILE_OR_DIR...  (prints per-file median microseconds as JSON)");
        std::process::exit(2);
    }
    let rows: Vec<String> = files.iter().map(|f| measure(f)).collect();
    println!(
        "{{\"repeat_budget_ms\":{},\"max_repeats\":{MAX_REPEATS},\"files\":[\n{}\n]}}",
        REPEAT_BUDGET.as_millis(),
        rows.join(",\n")
    );
}
