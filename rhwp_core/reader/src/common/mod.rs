//! What several formats (and the layers above them) share, naming no format: what a format is
//! to the reader (`format`) and what its bin data answers (`bin_data`), the compound file
//! (MS-CFB) documents and their embedded objects are stored in (`compound`), raw deflate
//! (`inflate`), the line-layout bookkeeping of tables that run on to further pages (`lines`),
//! dates as documents write them (`dates`), packed character tables (`packed_chars`) and the
//! private-use characters shown as 한글 draws them (`private_use`), and Python's string rules (`chars`, over
//! `unicode_tables`) that the text and the views follow.

pub mod bin_data;
pub mod chars;
pub mod compound;
pub mod dates;
pub mod equation;
pub mod fill;
pub mod format;
pub mod inflate;
pub mod lines;
pub mod packed_chars;
pub mod private_use;
// Generated data (rhwp_core/scripts/gen_view_unicode_tables.py), kept in the generator's
// compact layout.
#[rustfmt::skip]
mod unicode_tables;
