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
pub mod formats;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod hwp3;
pub mod hwp5;
pub mod hwpml;
pub mod hwpx;
pub mod limits;
pub mod model;
pub mod numbering;
pub mod outline;
pub mod owpml;
pub mod password;
pub mod summary;
pub mod text;
pub mod views;

pub use error::{Error, ErrorCode, Result};
pub use formats::{read, sniff, Sniffed};
pub use limits::{Limits, Options};
pub use model::Document;
pub use password::Password;

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
