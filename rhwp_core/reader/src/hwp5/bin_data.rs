//! HWP 5.0's bin data: the compound-file stream `BinData/<name>`. Whether it is raw-deflate
//! compressed is said per item by the DocInfo `BIN_DATA` record's attribute (spec 표 17/18,
//! bits 4–5: 0 = as the document (the FileHeader's compressed flag), 1 = always, 2 = never).
//! Writers do not always honour it, so the stored bytes are checked against the formats such
//! items hold and the other reading is tried when the declared one does not fit
//! (`decode_stream`). Distribution (배포용) documents encrypt only their `ViewText` sections:
//! their `BinData` streams are stored like any other document's, so nothing is decrypted here.

use super::container::Container;
use super::{doc_info, record};
use crate::common::bin_data::{media_type, Lookup};
use crate::{ErrorCode, Options, Result};

/// One DocInfo `BIN_DATA` entry: the model's item and its attribute word.
struct Entry {
    item: crate::model::BinData,
    attribute: u16,
}

/// Attribute bits 4–5 (spec 표 18): how the item's stream is compressed.
const COMPRESSION_SHIFT: u16 = 4;
const COMPRESSION_ALWAYS: u16 = 1;
const COMPRESSION_NEVER: u16 = 2;

pub fn item(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    // A password-protected document's streams are decrypted by the container as they are read.
    let (mut container, header) = Container::open_document(bytes, options)?;
    let entries = doc_info_entries(&mut container, header.compressed, options)?;
    let streams: Vec<String> = container
        .stream_names("BinData")
        .into_iter()
        .map(|(n, _)| n)
        .collect();

    // The model's names come from DocInfo; compound-file names compare case-insensitively.
    let entry = entries.iter().find(|e| e.item.name == name).or_else(|| {
        entries
            .iter()
            .find(|e| e.item.name.eq_ignore_ascii_case(name))
    });
    if let Some(e) = entry.filter(|e| e.item.storage == "link") {
        return Ok(Lookup::Linked {
            target: e.item.name.clone(),
        });
    }
    let wanted = entry.map_or(name, |e| e.item.name.as_str());
    let stream = streams
        .iter()
        .find(|s| s.as_str() == wanted)
        .or_else(|| streams.iter().find(|s| s.eq_ignore_ascii_case(wanted)));
    let Some(stream) = stream else {
        return Ok(Lookup::Unknown {
            stored: stored_names(&entries, &streams),
        });
    };
    let compressed = match entry.map(|e| (e.attribute >> COMPRESSION_SHIFT) & 0b11) {
        Some(COMPRESSION_ALWAYS) => true,
        Some(COMPRESSION_NEVER) => false,
        _ => header.compressed,
    };
    let path = format!("BinData/{stream}");
    let data = decode_stream(&mut container, &path, compressed)?;
    Ok(Lookup::Found {
        name: entry.map_or_else(|| stream.clone(), |e| e.item.name.clone()),
        data,
    })
}

/// The `BIN_DATA` entries of DocInfo with their attribute words. A DocInfo that cannot be read
/// leaves none (the streams are still found by name, compressed as the document says), as the
/// document reader goes on without it; only a limit exceeded is an error.
fn doc_info_entries(
    container: &mut Container,
    compressed: bool,
    options: &Options,
) -> Result<Vec<Entry>> {
    let data = match container.read_stream("DocInfo", compressed) {
        Ok(data) => data,
        Err(e) if e.code == ErrorCode::TooLarge => return Err(e.context("DocInfo")),
        Err(_) => return Ok(Vec::new()),
    };
    let records = match record::frame(&data, options.limits.max_records) {
        Ok(records) => records,
        Err(e) if e.code == ErrorCode::TooLarge => return Err(e.context("DocInfo")),
        Err(_) => return Ok(Vec::new()),
    };
    // `doc_info::parse` names the items (one per BIN_DATA record, in record order); the
    // attribute word is the first field of the same records.
    let info = doc_info::parse(&data, &records);
    let attributes = records
        .iter()
        .filter(|r| r.tag == record::tag::BIN_DATA)
        .map(|r| record::Reader::new(r.data(&data)).u16());
    Ok(info
        .bin_data
        .into_iter()
        .zip(attributes)
        .map(|(item, attribute)| Entry { item, attribute })
        .collect())
}

/// What an HWP document holds, as the model names it: each embedded DocInfo item whose
/// stream exists, then any stream no item names.
fn stored_names(entries: &[Entry], streams: &[String]) -> Vec<String> {
    let mut out: Vec<String> = entries
        .iter()
        .filter(|e| e.item.storage != "link")
        .filter(|e| streams.iter().any(|s| s.eq_ignore_ascii_case(&e.item.name)))
        .map(|e| e.item.name.clone())
        .collect();
    for s in streams {
        if !out.iter().any(|n| n.eq_ignore_ascii_case(s)) {
            out.push(s.clone());
        }
    }
    out
}

/// A `BinData/` stream's content. The declared compression is tried first; when the stored
/// bytes are themselves a recognised item (a writer that stored what it declared compressed,
/// or the reverse), the reading that yields a recognised item wins:
///
/// | declared   | stored bytes recognised | result |
/// |------------|-------------------------|--------|
/// | compressed | no                      | inflated (damage is an error) |
/// | compressed | yes                     | inflated if that is recognised too, else stored |
/// | stored     | yes                     | stored |
/// | stored     | no                      | inflated if that succeeds and is recognised, else stored |
///
/// The same question the chart reader answers for OLE items (`super::name_charts`: a compound
/// file right after the length means stored), asked of every format bin data holds.
pub fn decode_stream(container: &mut Container, path: &str, compressed: bool) -> Result<Vec<u8>> {
    let raw = container.read_raw(path)?;
    let raw_known = media_type(&raw).is_some();
    if compressed {
        match container.inflate_accounted(&raw, path) {
            Ok(out) if !raw_known || media_type(&out).is_some() => Ok(out),
            Ok(_) => Ok(raw),
            Err(e) if e.code == ErrorCode::TooLarge => Err(e),
            Err(_) if raw_known => Ok(raw),
            Err(e) => Err(e),
        }
    } else if raw_known {
        Ok(raw)
    } else {
        match container.inflate_accounted(&raw, path) {
            Ok(out) if media_type(&out).is_some() => Ok(out),
            Err(e) if e.code == ErrorCode::TooLarge => Err(e),
            _ => Ok(raw),
        }
    }
}
