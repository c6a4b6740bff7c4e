//! HWPML's bin data: `TAIL/BINDATASTORAGE/BINDATA Id=… Encoding="Base64" Compress=…`, the
//! item's bytes in base64 (line breaks and spaces allowed), raw-deflate compressed first when
//! `Compress` says so. The `Size` attribute is not the decoded length (Hancom writes the
//! stored stream's size), so it is never trusted to size anything: the decoded length is
//! bounded by `Limits::max_stream_bytes` instead. Decoded only when an item is asked for.

use crate::common::bin_data::{media_type, Lookup};
use crate::owpml::xml::{attrs, parse_u32, start_tag, Skipped, Span};
use crate::{Error, Options, Result};
use std::collections::HashMap;

/// The model's name of an embedded item, as Hancom names the same item in HWP 5.0.
pub fn item_name(data_id: u32, extension: Option<&str>) -> String {
    match extension {
        Some(ext) => format!("BIN{data_id:04X}.{ext}"),
        None => format!("BIN{data_id:04X}"),
    }
}

/// Per `BINDATA` id, the stored size: the decoded length of its base64 (before inflation).
pub fn stored_sizes(text: &str, spans: &[Span]) -> HashMap<u32, u64> {
    let mut sizes = HashMap::new();
    for &(a, b) in spans {
        let Some(element) = text.as_bytes().get(a..b) else {
            continue;
        };
        let Some((_, tag)) = start_tag(element) else {
            continue;
        };
        let [id] = attrs(&tag, ["Id"]);
        let Some(id) = id.and_then(|v| parse_u32(&v)) else {
            continue;
        };
        let payload = content(element);
        let digits = payload
            .iter()
            .filter(|c| !c.is_ascii_whitespace() && **c != b'=')
            .count() as u64;
        sizes.insert(id, digits * 3 / 4);
    }
    sizes
}

/// The character data of an element given as its bytes (between its start and end tags).
fn content(element: &[u8]) -> &[u8] {
    let Some(gt) = element.iter().position(|&c| c == b'>') else {
        return &[];
    };
    if gt > 0 && element[gt - 1] == b'/' {
        return &[];
    }
    let end = element
        .iter()
        .rposition(|&c| c == b'<')
        .unwrap_or(element.len());
    element.get(gt + 1..end.max(gt + 1)).unwrap_or_default()
}

/// The item the model names `name` in the HWPML document `bytes`.
pub fn item(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    let limits = &options.limits;
    let text = super::decode::text(bytes, options.strict, limits)?;
    // Only HEAD is read; the body is jumped over.
    let ix = super::index::index(&text, limits, Skipped::Unchecked)?;
    let mut doc_bins = Vec::new();
    super::bin_items(&ix.bin_items, &text, &ix.bin_data, &mut doc_bins);
    let found = doc_bins.iter().position(|b| b.name == name).or_else(|| {
        doc_bins
            .iter()
            .position(|b| b.name.eq_ignore_ascii_case(name))
    });
    let Some(k) = found else {
        return Ok(Lookup::Unknown {
            stored: doc_bins.into_iter().map(|b| b.name).collect(),
        });
    };
    let (model, item) = (&doc_bins[k], &ix.bin_items[k]);
    if model.storage == "link" {
        return Ok(Lookup::Linked {
            target: model.name.clone(),
        });
    }
    let wanted = item.data_id.unwrap_or(model.id);
    for &(a, b) in &ix.bin_data {
        let Some(element) = text.as_bytes().get(a..b) else {
            continue;
        };
        let Some((_, tag)) = start_tag(element) else {
            continue;
        };
        let [id, encoding, compress] = attrs(&tag, ["Id", "Encoding", "Compress"]);
        if id.and_then(|v| parse_u32(&v)) != Some(wanted) {
            continue;
        }
        if encoding.is_some_and(|e| !e.eq_ignore_ascii_case("Base64")) {
            return Err(Error::unsupported(
                format!("HWPML: bin data item {name} is stored in an encoding other than base64"),
                "Open the document in Hancom Office and save it as HWPX or HWP 5.0.",
            ));
        }
        let max = usize::try_from(limits.max_stream_bytes).unwrap_or(usize::MAX);
        let raw = decode_base64(content(element), max)?;
        let compressed = compress
            .as_deref()
            .map(|c| matches!(c.trim(), "true" | "1"));
        let data = match compressed {
            Some(true) => crate::common::inflate::inflate(&raw, limits.max_stream_bytes)?,
            Some(false) => raw,
            // Unsaid: stored as is when the bytes are a format bin data holds, else try inflating.
            None if media_type(&raw).is_some() => raw,
            None => crate::common::inflate::inflate(&raw, limits.max_stream_bytes).unwrap_or(raw),
        };
        return Ok(Lookup::Found {
            name: model.name.clone(),
            data,
        });
    }
    Err(Error::corrupt(format!(
        "HWPML: bin data item {name} is listed but its BINDATA {wanted} is not stored"
    )))
}

/// Base64 (standard alphabet, padding optional, whitespace ignored), at most `max` bytes out.
pub fn decode_base64(input: &[u8], max: usize) -> Result<Vec<u8>> {
    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let mut out = Vec::with_capacity((input.len() / 4 * 3).min(max));
    let (mut acc, mut bits, mut ended) = (0u32, 0u32, false);
    for &c in input {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            ended = true;
            continue;
        }
        let v = match value(c) {
            Some(v) if !ended => v,
            _ => {
                return Err(Error::corrupt(
                    "HWPML: bin data is not valid base64 (a character outside its alphabet, or data after the padding)",
                ))
            }
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
            if out.len() > max {
                return Err(Error::too_large(format!(
                    "HWPML: a bin data item decodes to more than the {max}-byte limit"
                )));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_with_whitespace_and_padding() {
        assert_eq!(decode_base64(b"aGVs\r\nbG8=", 100).unwrap(), b"hello");
        assert_eq!(decode_base64(b"aGVsbG8", 100).unwrap(), b"hello");
        assert_eq!(decode_base64(b"", 100).unwrap(), b"");
    }

    #[test]
    fn bad_base64_and_bounds() {
        assert_eq!(
            decode_base64(b"aGV*", 100).unwrap_err().code,
            crate::ErrorCode::CorruptDocument
        );
        assert_eq!(
            decode_base64(b"aG8=aGV", 100).unwrap_err().code,
            crate::ErrorCode::CorruptDocument
        );
        assert_eq!(
            decode_base64(b"aGVsbG8=", 3).unwrap_err().code,
            crate::ErrorCode::TooLarge
        );
    }
}
