//! HWPX (OWPML): zip package → XML parts → model.
use crate::{Document, Options, Result, Error};

pub fn read(_bytes: &[u8], _options: &Options) -> Result<Document> {
    Err(Error::unsupported("HWPX reading is not built yet", "Wait for the HWPX reader."))
}
