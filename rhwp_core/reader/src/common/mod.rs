//! What several formats (and the layers above them) share, naming no format: raw deflate
//! (`inflate`), the line-layout bookkeeping of tables that run on to further pages (`lines`),
//! and Python's string rules (`chars`, over `unicode_tables`) that the text and the views
//! follow.

pub mod bin_data;
pub mod chars;
pub mod dates;
pub mod inflate;
pub mod lines;
// Generated data (rhwp_core/scripts/gen_view_unicode_tables.py), kept in the generator's
// compact layout.
#[rustfmt::skip]
mod unicode_tables;
