//! The HWPML reader as a fuzz target reaches it (`crate::fuzzing`).

use crate::common::format::FuzzLayer;
use crate::limits::Options;
use crate::model::Document;

pub(super) static LAYERS: &[FuzzLayer] = &[FuzzLayer {
    target: "hwpml",
    run: document,
}];

/// A document's bytes (target `hwpml`): read as HWPML whatever the first bytes say (so
/// mutations of the prolog still reach the reader), then every bin data item it lists is
/// decoded (base64, inflation), as `get_image` would.
fn document(data: &[u8], options: &Options) -> Option<Document> {
    let doc = super::read(data, options).ok()?;
    for item in doc.bin_data.iter().take(16) {
        let _ = super::bin_data::item(data, &item.name, options);
    }
    Some(doc)
}
