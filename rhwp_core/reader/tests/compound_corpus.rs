//! The reader's compound-file layer (`common::compound`) against the `cfb` crate, a strict
//! reader, on every compound file of the corpus (HWP 5.0 documents, damaged and
//! password-protected ones, the OLE objects' embedded compound files) and the repository's
//! fixtures: every file the crate opens opens here with no warning, with the same streams,
//! each byte for byte the same.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::common::compound::{Compound, SIGNATURE};
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

mod common;

fn compound_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            compound_files(&path, out);
        } else if std::fs::read(&path).is_ok_and(|b| b.starts_with(&SIGNATURE)) {
            out.push(path);
        }
    }
}

/// Every stream of the compound file as the crate reads it (path without the leading `/`).
fn crate_streams(bytes: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut cfb = cfb::CompoundFile::open(Cursor::new(bytes)).ok()?;
    let paths: Vec<String> = cfb
        .walk()
        .filter(|e| e.is_stream())
        .map(|e| {
            e.path()
                .to_string_lossy()
                .trim_start_matches('/')
                .to_string()
        })
        .collect();
    let mut out = Vec::new();
    for path in paths {
        let mut data = Vec::new();
        cfb.open_stream(&path).ok()?.read_to_end(&mut data).ok()?;
        out.push((path, data));
    }
    Some(out)
}

/// Embedded compound files compared.
static EMBEDDED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The crate's and this reader's streams of one file, compared; a difference is pushed.
fn compare(name: &str, bytes: &[u8], failures: &mut Vec<String>) -> bool {
    let Some(expected) = crate_streams(bytes) else {
        return false;
    };
    let ours = match Compound::open(bytes, 100_000) {
        Ok(c) => c,
        Err(e) => {
            failures.push(format!("{name}: refused ({e})"));
            return true;
        }
    };
    if !ours.warnings().is_empty() {
        failures.push(format!("{name}: warnings {:?}", ours.warnings()));
    }
    for (path, data) in &expected {
        match ours.read_stream(path) {
            Ok(got) if &got == data => {}
            Ok(got) => failures.push(format!(
                "{name}/{path}: {} bytes differ from the crate's {}",
                got.len(),
                data.len()
            )),
            Err(e) => failures.push(format!("{name}/{path}: {e}")),
        }
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let leaf = path.rsplit_once('/').map_or(path.as_str(), |(_, l)| l);
        if !ours.stream_names(dir).iter().any(|(n, _)| n == leaf) {
            failures.push(format!("{name}/{path}: not listed in {dir:?}"));
        }
    }
    // Embedded compound files (OLE objects such as charts: a 4-byte length, then the file),
    // stored or deflated.
    for (path, data) in &expected {
        if let Some(inner) = embedded(data) {
            if compare(&format!("{name}/{path}"), &inner, failures) {
                EMBEDDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
    true
}

/// The compound file an OLE bin-data stream embeds after its 4-byte length, if any.
fn embedded(data: &[u8]) -> Option<Vec<u8>> {
    if data.get(4..12) == Some(&SIGNATURE[..]) {
        return Some(data[4..].to_vec());
    }
    let mut inflated = Vec::new();
    flate2::read::DeflateDecoder::new(data)
        .take(64 << 20)
        .read_to_end(&mut inflated)
        .ok()?;
    (inflated.get(4..12) == Some(&SIGNATURE[..])).then(|| inflated[4..].to_vec())
}

#[test]
fn every_corpus_compound_file_reads_as_the_cfb_crate_reads_it() {
    let mut files = Vec::new();
    compound_files(&common::fixtures(), &mut files);
    if let Some(corpus) = common::corpus_dir() {
        compound_files(&corpus, &mut files);
        compound_files(&corpus.join("../hancom"), &mut files);
    }
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        if compare(&path.display().to_string(), &bytes, &mut failures) {
            compared += 1;
        }
    }
    eprintln!(
        "{compared} of {} compound files compared, {} embedded ones with them",
        files.len(),
        EMBEDDED.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
