//! Replays every input the fuzzer ever broke the reader with (fuzz/regressions/),
//! plus deterministic mutations of the fixtures: no input may panic.

use std::path::{Path, PathBuf};

mod common;
use common::XorShift;

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn read_must_not_panic(name: &str, bytes: &[u8]) {
    let options = rhwp_reader::Options::default();
    let outcome = std::panic::catch_unwind(|| {
        if let Ok(doc) = rhwp_reader::read(bytes, &options) {
            let _ = rhwp_reader::text::document_text(&doc, true);
        }
    });
    assert!(outcome.is_ok(), "reader panicked on {name}");
}

/// Replay an input the way the fuzz target named by its file-name prefix
/// consumed it (`hwp5_records-*`, `hwpx_section-*`, `hwpx_parts-*`, `hwpml-*`, `decrypt-*`, any
/// target `fuzzing::targets` lists; anything else whole-file).
fn replay(name: &str, bytes: &[u8]) {
    use rhwp_reader::fuzzing;
    let options = rhwp_reader::Options::default();
    // The target is the file name's prefix up to its first '-' when that names one.
    let target = name
        .split_once('-')
        .map(|(prefix, _)| prefix)
        .filter(|prefix| fuzzing::targets().contains(prefix))
        .unwrap_or("read");
    let outcome = std::panic::catch_unwind(|| fuzzing::run(target, bytes, &options));
    assert!(outcome.is_ok(), "reader panicked on {name}");
}

#[test]
fn fuzz_regressions_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    for f in files_in(&dir) {
        let Some(name) = f.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            continue;
        };
        if name == ".keep" {
            continue;
        }
        let bytes = std::fs::read(&f).expect("regression file readable");
        let started = std::time::Instant::now();
        replay(&name, &bytes);
        // Slow inputs are bugs too (a hostile file must be refused fast); the bound is
        // loose because this runs unoptimised, where the reader is ~10x slower.
        let took = started.elapsed();
        // A hang guard (debug build, loaded machine), not a benchmark.
        assert!(
            took < std::time::Duration::from_secs(20),
            "{name} took {took:?}"
        );
    }
}

#[test]
fn mutated_fixtures_do_not_panic() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut documents = 0;
    for sub in ["hwp", "hwpx", "hml"] {
        for f in files_in(&fixtures.join(sub)) {
            let original = std::fs::read(&f).expect("fixture readable");
            documents += 1;
            for round in 0..24 {
                let mut bytes = original.clone();
                match round % 4 {
                    // Flip a few bits anywhere.
                    0 => {
                        for _ in 0..8 {
                            let i = rng.below(bytes.len());
                            bytes[i] ^= 1 << rng.below(8);
                        }
                    }
                    // Truncate.
                    1 => bytes.truncate(rng.below(bytes.len())),
                    // Overwrite a run with 0xFF (huge sizes and counts).
                    2 => {
                        let i = rng.below(bytes.len());
                        let end = (i + 16).min(bytes.len());
                        bytes[i..end].iter_mut().for_each(|b| *b = 0xFF);
                    }
                    // Zero a run (empty sizes, null ids).
                    _ => {
                        let i = rng.below(bytes.len());
                        let end = (i + 64).min(bytes.len());
                        bytes[i..end].iter_mut().for_each(|b| *b = 0);
                    }
                }
                read_must_not_panic(&format!("{} mutation {round}", f.display()), &bytes);
            }
        }
    }
    assert!(documents >= 10, "fixtures missing: found {documents}");
}
