//! HWP 5.0: compound file → records → model.
use crate::{Document, Options, Result, Error};

pub fn read(_bytes: &[u8], _options: &Options) -> Result<Document> {
    Err(Error::unsupported("HWP 5.0 reading is not built yet", "Wait for the HWP 5.0 reader."))
}
