//! The table of formats: every format the reader reads, in the order their first bytes are
//! tried. `read`, `sniff`, bin data, the summary's format names and the fuzz targets go
//! through it; adding a format is its folder (stating its `common::format::Format`) and one
//! entry here.

use crate::common::bin_data::Lookup;
use crate::common::fill::{self, Output, Value};
pub use crate::common::format::{Format, Sniffed, Writer};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::limits::Options;
use crate::model::{self, Document};

/// Every format, in sniffing order.
pub static FORMATS: &[&Format] = &[
    &crate::hwp5::FORMAT,
    &crate::hwpx::FORMAT,
    &crate::hwp3::FORMAT,
    &crate::hwpml::FORMAT,
];

/// The leading bytes of the document-security wrappers Korean offices put around HWP/HWPX
/// files (keeping the file's name and extension), with the product each names. None starts
/// like a format's signature; they are told before HWPML, whose root element may come late.
const DRM_WRAPPERS: &[(&[u8], &str)] = &[
    (b"\x9b DRMONE", "Fasoo DRM"),
    (b"<!-- FasooSecureContainer", "Fasoo DRM"),
    (b"SCDSA", "SoftCamp Document Security"),
];

/// The format whose first bytes `bytes` has, if any.
fn sniffed_format(bytes: &[u8]) -> Option<&'static Format> {
    if bytes.is_empty()
        || DRM_WRAPPERS
            .iter()
            .any(|(magic, _)| bytes.starts_with(magic))
    {
        return None;
    }
    FORMATS.iter().copied().find(|f| (f.sniff)(bytes))
}

/// What the first bytes say a file is.
pub fn sniff(bytes: &[u8]) -> Sniffed {
    if bytes.is_empty() {
        return Sniffed::Empty;
    }
    if let Some((_, product)) = DRM_WRAPPERS
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
    {
        return Sniffed::Drm(product);
    }
    sniffed_format(bytes).map_or(Sniffed::Other, |f| f.sniffed)
}

/// Read a document from its bytes; the format is sniffed, never taken from a file name.
pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    let mut doc = match sniffed_format(bytes) {
        Some(format) => (format.read)(bytes, options),
        None => Err(not_read(bytes)),
    }?;
    doc.drop_plain_runs();
    crate::common::private_use::show_private_use(&mut doc);
    Ok(doc)
}

/// Why a file no format claims is not read.
fn not_read(bytes: &[u8]) -> Error {
    match sniff(bytes) {
        Sniffed::Drm(product) => Error::unsupported(
            format!("the document is locked by {product} (a document-security wrapper around the file): its contents are encrypted for that product's client"),
            "Open it in Hancom Office on a PC where the DRM client is installed and save an unprotected copy (or ask the sender for one); DRM-wrapped files cannot be read without that client.",
        ),
        Sniffed::Empty => Error::corrupt("the file is empty (0 bytes)"),
        _ => Error::unsupported(
            "not an HWP, HWPX or HWPML document (no compound-file or zip signature, no HWP 3.x signature, no HWPML root)",
            "Pass an HWP 5.0 or 3.x (.hwp), HWPX (.hwpx) or HWPML (.hml) file; other formats (PDF, DOCX, images, text) are not read here.",
        ),
    }
}

/// The bin data item named `name` of the document in `bytes`, by its sniffed format; a file no
/// format claims is refused as `read` refuses it.
pub fn bin_data(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    match sniffed_format(bytes) {
        Some(format) => (format.bin_data)(bytes, name, options),
        None => Err(not_read(bytes)),
    }
}

/// Fill the form in `bytes` (its format sniffed) with `values`: the new document and the plan.
/// A format without a writer is refused (`unsupported_format`) with why and the way out.
pub fn fill(bytes: &[u8], values: &[(String, Value)], options: &Options) -> Result<Output> {
    let Some(format) = sniffed_format(bytes) else {
        return Err(not_read(bytes));
    };
    match format.writer {
        Writer::Fills(fill) => fill(bytes, values, options),
        Writer::Refuses(why) => Err(fill::not_writable(format.name, why)),
    }
}

/// The pages of the document in `bytes` as its format stored their layout; with `want`, only
/// that page's items are kept (the count is every page's). A format whose layout is not read
/// yet is `unsupported_format`.
pub fn layout(bytes: &[u8], options: &Options, want: Option<u32>) -> Result<Layout> {
    match sniffed_format(bytes) {
        Some(format) => match format.layout {
            Some(layout) => layout(bytes, options, want),
            None => Err(Error::unsupported(
                format!("page layout is not read for {} documents yet", format.name),
                "Save the document as HWP 5.0 (.hwp) or HWPX (.hwpx) in 한글 to render its pages.",
            )),
        },
        None => Err(not_read(bytes)),
    }
}

/// The name of a model's format (`"hwp"`, `"hwpx"`...), as the summary gives it.
pub fn name(format: model::Format) -> &'static str {
    FORMATS
        .iter()
        .find(|f| f.model == format)
        .map_or("", |f| f.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_format_has_one_entry_and_names_are_unique() {
        let all = [
            model::Format::Hwp,
            model::Format::Hwpx,
            model::Format::Hwp3,
            model::Format::Hwpml,
        ];
        for format in all {
            assert_eq!(
                FORMATS.iter().filter(|f| f.model == format).count(),
                1,
                "{format:?}"
            );
        }
        let names: std::collections::HashSet<_> = FORMATS.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), FORMATS.len());
        assert_eq!(name(model::Format::Hwp3), "hwp3");
        let targets = crate::fuzzing::targets();
        let unique: std::collections::HashSet<_> = targets.iter().collect();
        assert_eq!(unique.len(), targets.len(), "{targets:?}");
    }

    #[test]
    fn refusals_are_said_as_before() {
        assert_eq!(sniff(b""), Sniffed::Empty);
        assert_eq!(
            sniff(b"SCDSA\x00rest"),
            Sniffed::Drm("SoftCamp Document Security")
        );
        assert_eq!(sniff(b"%PDF-1.7"), Sniffed::Other);
        let options = Options::default();
        let drm = read(b"\x9b DRMONE....", &options).unwrap_err();
        assert_eq!(drm.code, crate::ErrorCode::UnsupportedFormat);
        assert!(drm
            .message
            .starts_with("the document is locked by Fasoo DRM"));
        let empty = bin_data(b"", "BIN0001.png", &options).unwrap_err();
        assert_eq!(empty.message, "the file is empty (0 bytes)");
    }
}
