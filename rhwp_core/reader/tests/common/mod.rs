//! Helpers shared by the integration tests: where the corpus is, what code each kind of
//! bad file must get, and how to build HWP 5.0 records by hand.
#![allow(dead_code)] // each test crate uses its own subset

use rhwp_reader::ErrorCode;
use std::path::{Path, PathBuf};

/// The repository's licence-noted fixtures (tests/fixtures).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The shared corpus: $RHWP_CORPUS, `../shared/corpus` beside the checkout, or /work/shared/corpus.
/// Missing locally: `None` (corpus tests skip); missing in CI (env CI set): a failure.
pub fn corpus_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("RHWP_CORPUS").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")),
        Some(PathBuf::from("/work/shared/corpus")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("hwp").is_dir() && p.join("hwpx").is_dir());
    if found.is_none() {
        if std::env::var_os("CI").is_some() {
            panic!("corpus not found: set RHWP_CORPUS to the directory holding hwp/, hwpx/, bad/ and MANIFEST.tsv");
        }
        eprintln!("corpus not found: corpus tests skipped (set RHWP_CORPUS)");
    }
    found
}

/// The codes DESIGN §4 calls for, by the kind of hostile file
/// (as `tools/corpus_report.py::expected_codes` judges them).
pub fn expected_codes(name: &str) -> &'static [ErrorCode] {
    let n = name.to_ascii_lowercase();
    let has = |keys: &[&str]| keys.iter().any(|k| n.contains(k));
    if has(&["hwp3-signature"]) {
        // An HWP 3.x signature with no body: 3.x documents are read, so this one is damaged.
        &[ErrorCode::CorruptDocument]
    } else if has(&["password"]) {
        // A password the test does not give: the caller must be asked for it.
        &[ErrorCode::PasswordRequired]
    } else if has(&["png-renamed", "text-renamed", "zip-not-hwpx"]) {
        &[ErrorCode::UnsupportedFormat]
    } else if has(&["empty", "ole-magic-only"]) {
        &[ErrorCode::UnsupportedFormat, ErrorCode::CorruptDocument]
    } else if has(&["truncated", "bitflip", "missing-section"]) {
        &[ErrorCode::CorruptDocument]
    } else if has(&["zip-bomb", "deep-nesting"]) {
        &[ErrorCode::TooLarge, ErrorCode::CorruptDocument]
    } else {
        &[
            ErrorCode::UnsupportedFormat,
            ErrorCode::CorruptDocument,
            ErrorCode::TooLarge,
        ]
    }
}

// Record tags (HWPTAG_BEGIN = 16) used by the hand-built documents.
pub const PARA_HEADER: u16 = 66;
pub const PARA_TEXT: u16 = 67;
pub const PARA_LINE_SEG: u16 = 69;
pub const CTRL_HEADER: u16 = 71;
pub const LIST_HEADER: u16 = 72;
pub const TABLE: u16 = 77;

/// One record: header (tag, level, size; 0xFFF + u32 for large ones) and data.
pub fn record(tag: u16, level: u16, data: &[u8]) -> Vec<u8> {
    let size = data.len() as u32;
    let mut v = ((tag as u32) | ((level as u32) << 10) | (size.min(0xFFF) << 20))
        .to_le_bytes()
        .to_vec();
    if size >= 0xFFF {
        v.extend_from_slice(&size.to_le_bytes());
    }
    v.extend_from_slice(data);
    v
}

pub fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect()
}

/// An HWP 5.0 compound file: `FileHeader` with the given property flags (bit 0: compressed),
/// `DocInfo` and `BodyText/Section0..` holding the given bytes as they are (deflate them first
/// for a compressed file).
pub fn hwp_file(flags: u32, doc_info: &[u8], sections: &[&[u8]]) -> Vec<u8> {
    use std::io::{Cursor, Write};
    let mut cfb =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new())).unwrap();
    let mut header = vec![0u8; 256];
    header[..17].copy_from_slice(b"HWP Document File");
    header[32..36].copy_from_slice(&0x0500_0304u32.to_le_bytes());
    header[36..40].copy_from_slice(&flags.to_le_bytes());
    cfb.create_stream("FileHeader")
        .unwrap()
        .write_all(&header)
        .unwrap();
    cfb.create_stream("DocInfo")
        .unwrap()
        .write_all(doc_info)
        .unwrap();
    cfb.create_storage("BodyText").unwrap();
    for (i, section) in sections.iter().enumerate() {
        cfb.create_stream(format!("BodyText/Section{i}"))
            .unwrap()
            .write_all(section)
            .unwrap();
    }
    cfb.flush().unwrap();
    cfb.into_inner().into_inner()
}
