//! The OWPML reader (KS X 6101, the vocabulary of HWPX parts) that HWPX and HWPML share: HWPX
//! stores OWPML parts in a zip, HWPML's single XML file is translated into the same
//! vocabulary, and both are read into the model here, so the two formats share one mapping.
//!
//! - `header`: the header part (char/para properties, styles, numbering, bullets; each entry
//!   read on demand, the model's list of styles when first asked for);
//! - `section`: a section part, streamed into blocks;
//! - `xml`: the iterative, depth-bounded XML walk they share.

pub mod header;
pub mod layout;
pub mod section;
pub mod xml;
