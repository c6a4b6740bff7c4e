//! rhwp-reader: HWP 5.0, HWP 3.x, HWPX and HWPML documents into one model.
//!
//! Layers, top to bottom; each names only those below it (`tests/architecture.rs` holds the
//! arrows: no cycle, a format named by the table alone):
//! - the entry points: `lib.rs` (`read`, `read_guarded`, `sniff`), `bin_data` (one item of a
//!   document's bin data) and, behind the `fuzzing` feature, `fuzzing` (the fuzz targets and
//!   the scaling check the tests use);
//! - the views over a document: `views` (Markdown, HTML), `summary`, `outline` (the
//!   headings, which the views use) and `diff` (what changed between two documents: blocks
//!   aligned, text by character, tables by cell);
//! - `formats`: the table of formats, the one place that names every format; `read`, `sniff`,
//!   bin data, the summary's format names and the fuzz targets go through it;
//! - the formats, siblings that never name one another, each in its folder stating its
//!   `common::format::Format`: `hwp5` (compound file → records → model), `hwp3` (한글 3.x:
//!   header → raw-deflate body → paragraph lists → model), `hwpx` (zip → OWPML parts → model)
//!   and `hwpml` (HWPML 2.x: one XML file, translated to OWPML → model). Adding a format is a
//!   folder and an entry in `formats::FORMATS`;
//! - what the formats share, naming none of them: `owpml` (the OWPML header and section reader
//!   and its XML walk, for HWPX and HWPML), `text` (the plain text of the model), `chart`,
//!   `numbering`, `common` (what a format is, `Format`; the compound file, inflate, table line
//!   bookkeeping, dates, Python's string rules);
//! - `model` (the document, its fields and character formatting), `deferred`, `limits`,
//!   `password` and `error` at the bottom.
//!
//! No Python here: `cargo test` and the fuzz targets drive it directly.

pub mod bin_data;
pub mod chart;
pub mod common;
pub mod deferred;
pub mod diff;
pub mod error;
pub mod formats;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod hwp3;
pub mod hwp5;
pub mod hwpml;
pub mod hwpx;
pub mod layout;
pub mod limits;
pub mod model;
pub mod numbering;
pub mod outline;
pub mod owpml;
pub mod password;
pub mod render;
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
