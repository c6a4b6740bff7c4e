//! HWP 5.0: compound file → records → model.
//!
//! `container` opens the compound file and inflates streams; `record` frames
//! the tag/level/size records; `doc_info` reads the shared tables; `body`
//! and `controls` turn section records into blocks; `distribution` decrypts
//! the `ViewText` sections of distribution (배포용) documents;
//! `summary_info` reads the `\x05HwpSummaryInformation` property set.

pub mod distribution;
pub mod summary_info;

use crate::{Document, Error, Options, Result};

pub fn read(_bytes: &[u8], _options: &Options) -> Result<Document> {
    Err(Error::unsupported("HWP 5.0 reading is not built yet", "Wait for the HWP 5.0 reader."))
}
