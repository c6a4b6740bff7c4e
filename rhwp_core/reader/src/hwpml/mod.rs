//! HWPML 2.x (`.hml`, 한글's single-file XML format, versions 2.1 to 2.91) → model.
//!
//! `HWPML` holds `HEAD` (summary, settings, the mapping table of fonts, shapes, numberings
//! and styles), `BODY/SECTION/P/TEXT/CHAR` with every control inside `TEXT`, and `TAIL`
//! (`BINDATASTORAGE/BINDATA`: base64 bin data, optionally raw-deflate compressed; `SCRIPTCODE`).
//!
//! - `decode`: the bytes as UTF-8 text (UTF-8 with or without BOM, UTF-16 either order; a
//!   `DOCTYPE`'s declared entities expanded, bounded);
//! - `index`: one walk that reads `HEAD` (its tables restated in OWPML's vocabulary for the
//!   OWPML header reader) and lists where the sections and bin data lie;
//! - `body`: each section, its elements renamed onto OWPML's and built by the OWPML section
//!   parser (`crate::owpml`, one mapping to the model for HWPX and HWPML);
//! - `bin_data`: an item's bytes, decoded from base64 only when asked for (`get_image`).
//!
//! HWPML carries no cached line layout, so `Document.pages` is `None` (unknown), as for any
//! document without one. Scripts are never run, nor read.

pub mod bin_data;
mod body;
pub mod decode;
#[cfg(any(test, feature = "fuzzing"))]
mod fuzz;
pub mod index;

use crate::deferred::Deferred;
use crate::model::{BinData, Document, Format};
use crate::owpml::header::{self, Header};
use crate::owpml::section::{BinRef, DocState, SectionInput};
use crate::owpml::xml::Skipped;
use crate::{Error, ErrorCode, Options, Result};
use index::BinItem;
use std::collections::HashMap;

pub fn read(bytes: &[u8], options: &Options) -> Result<Document> {
    let limits = &options.limits;
    let text = decode::text(bytes, options.strict, limits)?;
    let skipped = if options.strict {
        Skipped::Checked
    } else {
        Skipped::Unchecked
    };
    let ix = index::index(&text, limits, skipped)?;
    let mut doc = Document::new(Format::Hwpml);
    doc.metadata = ix.metadata.clone();
    doc.version = Deferred::known(ix.version.clone());
    let bins = bin_items(&ix.bin_items, &text, &ix.bin_data, &mut doc.bin_data);

    let header = match header::parse(ix.header.as_bytes(), limits) {
        Ok(h) => h,
        Err(e) if options.strict || e.code == ErrorCode::TooLarge => return Err(e),
        Err(e) => {
            doc.warnings.push(format!(
                "HEAD/MAPPINGTABLE could not be read ({e}); formatting ignored"
            ));
            Header::default()
        }
    };
    if ix.sections.is_empty() {
        return Err(Error::corrupt(
            "the HWPML document holds no body section (BODY/SECTION)",
        ));
    }
    let charts = HashMap::new();
    let mut state = DocState::default();
    // Memos go after all other furniture (headers, footers, notes), in document order.
    let mut memos = Vec::new();
    let mut last_error = None;
    for (k, &(a, b)) in ix.sections.iter().enumerate() {
        let part = format!("BODY/SECTION[{k}]");
        let input = SectionInput {
            index: doc.sections.len() as u32,
            part: &part,
            header: &header,
            bins: &bins,
            charts: &charts,
            limits,
        };
        let section_text = text.get(a..b).unwrap_or_default();
        let before = state.clone();
        match body::read(section_text, &input, &mut state) {
            Ok(out) => {
                doc.sections.push(out.section);
                doc.furniture.extend(out.furniture);
                memos.extend(out.memos);
            }
            Err(e) if options.strict || e.code == ErrorCode::TooLarge => return Err(e),
            Err(e) => {
                // A failed section must not leave its page and list counts behind.
                state = before;
                doc.warnings.push(format!("section {part} skipped: {e}"));
                last_error = Some(e);
            }
        }
    }
    doc.furniture.append(&mut memos);
    if doc.sections.is_empty() {
        let why = last_error.map(|e| e.message).unwrap_or_default();
        return Err(Error::corrupt(format!(
            "no body section of the HWPML document could be read ({why})"
        )));
    }
    doc.pages = state.has_layout.then_some(state.page.max(1));
    doc.styles = header.style_list();
    Ok(doc)
}

/// The model's bin-data table from `BINDATALIST`, and the references pictures make to it
/// (`BinItem` = the item's 1-based position). Embedded items are named as Hancom names them
/// in HWP 5.0 (`BIN0001.jpg`, from the `BINDATA` id), linked ones by their path.
fn bin_items(
    items: &[BinItem],
    text: &str,
    stored: &[crate::owpml::xml::Span],
    out: &mut Vec<BinData>,
) -> HashMap<String, BinRef> {
    let sizes = bin_data::stored_sizes(text, stored);
    let mut refs = HashMap::new();
    for (k, item) in items.iter().enumerate() {
        let id = k as u32 + 1;
        let linked = item.kind.eq_ignore_ascii_case("Link");
        let extension = item
            .format
            .as_deref()
            .map(|f| f.trim().to_ascii_lowercase())
            .filter(|f| !f.is_empty())
            .or_else(|| {
                let path = item.path.as_deref()?;
                let (_, ext) = path.rsplit_once('.')?;
                Some(ext.to_ascii_lowercase())
            });
        // The name keeps the format as written (`BIN0001.OLE`), as HWP 5.0 names it.
        let written = item
            .format
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty());
        let name = match (linked, item.data_id, &item.path) {
            (true, _, Some(path)) => path.clone(),
            (_, Some(data), _) => bin_data::item_name(data, written),
            _ => bin_data::item_name(id, written),
        };
        let size = item.data_id.and_then(|d| sizes.get(&d).copied());
        out.push(BinData {
            id,
            storage: if linked {
                "link"
            } else if item.kind.eq_ignore_ascii_case("Storage") {
                "storage"
            } else {
                "embedding"
            }
            .into(),
            name: name.clone(),
            extension,
            size,
        });
        refs.insert(id.to_string(), BinRef { id, name });
    }
    refs
}

/// HWPML's entry in the table of formats (`crate::formats`).
pub static FORMAT: crate::common::format::Format = crate::common::format::Format {
    name: "hwpml",
    model: Format::Hwpml,
    sniffed: crate::common::format::Sniffed::Hwpml,
    sniff,
    read,
    bin_data: bin_data::item,
    writer: crate::common::format::Writer::Refuses("HWPML (.hml) is read, not written"),
    layout: None,
    #[cfg(any(test, feature = "fuzzing"))]
    fuzz_layers: fuzz::LAYERS,
};

/// Whether the first bytes are HWPML's: the root element follows the XML declaration and
/// perhaps a DOCTYPE; UTF-16 is decoded for the look.
fn sniff(bytes: &[u8]) -> bool {
    decode::head_text(bytes, 4096).contains("<HWPML")
}
