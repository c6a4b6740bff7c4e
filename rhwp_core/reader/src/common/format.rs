//! What a format is to the reader: how its first bytes are told, how it is read into the model,
//! how one item of its bin data is fetched. Each format's folder implements `Format` once; the
//! table in `crate::formats` lists them, and everything that depends on the format (`read`,
//! `sniff`, bin data, the summary's format name, the fuzz targets) goes through that table.
//! A writer (filling a form) is another field: the function beside the format's reader, or why
//! the format is not written.

use crate::common::bin_data::Lookup;
use crate::common::fill::{Output, Value};
use crate::error::Result;
use crate::layout::Layout;
use crate::limits::Options;
use crate::model::{self, Document};

/// A format's layout pass: the document's bytes, the options, the one page whose items to keep.
pub type LayoutFn = fn(&[u8], &Options, Option<u32>) -> Result<Layout>;

/// One format the reader reads: its name, how its first bytes are told, how it is read, how an
/// item of its bin data is fetched, and the layers the fuzz targets reach. A value, not a trait
/// with one implementation per format: every entry is a table row of functions, so a format's
/// folder states its row once and nothing else repeats.
pub struct Format {
    /// The format's name as the summary, the IR and the Python side give it.
    pub name: &'static str,
    /// The model's tag for documents of this format (`Document::format`).
    pub model: model::Format,
    /// What `sniff` answers for a file of this format.
    pub sniffed: Sniffed,
    /// Whether the first bytes say this format. The table asks the formats in its order, after
    /// the document-security wrappers.
    pub sniff: fn(&[u8]) -> bool,
    /// The document in the bytes, sniffed as this format.
    pub read: fn(&[u8], &Options) -> Result<Document>,
    /// The bin data item of that name of the document in the bytes, sniffed as this format.
    pub bin_data: fn(&[u8], &str, &Options) -> Result<Lookup>,
    /// How a form of this format is filled, or why it is not.
    pub writer: Writer,
    /// The pages as the document stored their layout (`crate::layout`), only the wanted page's
    /// items kept when one is given; `None` for a format whose layout is not read yet.
    pub layout: Option<LayoutFn>,
    /// The layers of this reader a fuzz target reaches directly (`crate::fuzzing`).
    #[cfg(any(test, feature = "fuzzing"))]
    pub fuzz_layers: &'static [FuzzLayer],
}

/// One layer of a reader a fuzz target reaches without the layers above it: its target name
/// and the entry point, which gives the document it read (to exercise the views on), if any.
#[cfg(any(test, feature = "fuzzing"))]
pub struct FuzzLayer {
    pub target: &'static str,
    pub run: fn(&[u8], &Options) -> Option<Document>,
}

/// Fill the document in the bytes with the keyed values.
pub type FillFn = fn(&[u8], &[(String, Value)], &Options) -> Result<Output>;

/// A format's writer: it fills forms (`crate::common::fill`), or it refuses, saying why.
pub enum Writer {
    Fills(FillFn),
    Refuses(&'static str),
}

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
