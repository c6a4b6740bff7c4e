//! rhwp-reader: HWP 5.0 (binary) and HWPX (OWPML) documents into one model.
//!
//! Layers, each depending only on those below it:
//! - `hwp5` (compound file → records → model), `hwpx` (zip → XML → model), `hwp3`
//!   (한글 3.x: header → raw-deflate body → paragraph lists → model) and `hwpml` (HWPML 2.x:
//!   one XML file → the HWPX section parser → model);
//! - `model` (the document), `text` and `summary` (views computed natively);
//! - `error` and `limits` (shared by everything).
//!
//! No Python here: `cargo test` and the fuzz target drive it directly.

pub mod bin_data;
pub mod chart;
pub mod common;
pub mod deferred;
pub mod error;
pub mod fuzzing;
pub mod hwp3;
pub mod hwp5;
pub mod hwpml;
pub mod hwpx;
pub mod limits;
pub mod model;
pub mod numbering;
pub mod owpml;
pub mod password;
pub mod summary;
pub mod text;
pub mod views;

pub use error::{Error, ErrorCode, Result};
pub use limits::{Limits, Options};
pub use model::Document;
pub use password::Password;

/// What the first bytes say a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sniffed {
    /// OLE2 compound file: HWP 5.0 (checked further by its FileHeader).
    CompoundFile,
    /// Zip: HWPX when its `mimetype` says so.
    Zip,
    /// HWP 3.x ("HWP Document File V3.00"); older "HWP Document File V1/V2" too (refused by `hwp3`).
    Hwp3,
    /// HWPML, the single-file XML format (`.hml`, or an HWPML saved under `.hwp`/`.xml`):
    /// UTF-8 or UTF-16 text whose root element is `HWPML`.
    Hwpml,
    /// A document locked inside a DRM / document-security wrapper (the name of the product):
    /// the bytes inside are encrypted by the product's client, which no reader can open.
    Drm(&'static str),
    Empty,
    Other,
}

/// The leading bytes of the document-security wrappers Korean offices put around HWP/HWPX
/// files (keeping the file's name and extension), with the product each names.
const DRM_WRAPPERS: &[(&[u8], &str)] = &[
    (b"\x9b DRMONE", "Fasoo DRM"),
    (b"<!-- FasooSecureContainer", "Fasoo DRM"),
    (b"SCDSA", "SoftCamp Document Security"),
];

const CFB_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

pub fn sniff(bytes: &[u8]) -> Sniffed {
    if bytes.is_empty() {
        return Sniffed::Empty;
    }
    if bytes.starts_with(CFB_MAGIC) {
        return Sniffed::CompoundFile;
    }
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        return Sniffed::Zip;
    }
    if bytes.starts_with(b"HWP Document File") {
        return Sniffed::Hwp3;
    }
    if let Some((_, product)) = DRM_WRAPPERS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
    {
        return Sniffed::Drm(product);
    }
    // The root element follows the XML declaration and perhaps a DOCTYPE; UTF-16 is
    // decoded for the look.
    let head = hwpml::decode::head_text(bytes, 4096);
    if head.contains("<HWPML") {
        return Sniffed::Hwpml;
    }
    Sniffed::Other
}

/// Read a document from its bytes; the format is sniffed, never taken from a file name.
pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    let mut doc = match sniff(bytes) {
        Sniffed::CompoundFile => hwp5::read(bytes, options),
        Sniffed::Zip => hwpx::read(bytes, options),
        Sniffed::Hwp3 => hwp3::read(bytes, options),
        Sniffed::Hwpml => hwpml::read(bytes, options),
        Sniffed::Drm(product) => Err(Error::unsupported(
            format!("the document is locked by {product} (a document-security wrapper around the file): its contents are encrypted for that product's client"),
            "Open it in Hancom Office on a PC where the DRM client is installed and save an unprotected copy (or ask the sender for one); DRM-wrapped files cannot be read without that client.",
        )),
        Sniffed::Empty => Err(Error::corrupt("the file is empty (0 bytes)")),
        Sniffed::Other => Err(Error::unsupported(
            "not an HWP, HWPX or HWPML document (no compound-file or zip signature, no HWP 3.x signature, no HWPML root)",
            "Pass an HWP 5.0 or 3.x (.hwp), HWPX (.hwpx) or HWPML (.hml) file; other formats (PDF, DOCX, images, text) are not read here.",
        )),
    }?;
    doc.drop_plain_runs();
    Ok(doc)
}

/// Read with a panic guard: a bug in a reader becomes an error, never an abort.
pub fn read_guarded(bytes: &[u8], options: &Options) -> Result<Document> {
    match std::panic::catch_unwind(|| read(bytes, options)) {
        Ok(r) => r,
        Err(_) => Err(Error {
            code: ErrorCode::CorruptDocument,
            message: "the reader hit an internal inconsistency on this file (a bug in rhwp_core; please report it)".into(),
            suggestion: "Try saving the document again in Hancom Office; report the file to the rhwp-mcp issue tracker.".into(),
        }),
    }
}
