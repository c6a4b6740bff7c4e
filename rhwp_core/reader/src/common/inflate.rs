//! Raw deflate (RFC 1951, no zlib header), the compression of HWP 5.0 streams, HWP 3.x
//! bodies, HWPX parts that the zip does not inflate itself (decrypted ones) and HWPML's
//! compressed bin data; every output bounded by the caller's limit.

use crate::{Error, Result};

/// The first `n` bytes (or fewer) a raw-deflate stream inflates to; the rest is not inflated.
/// Damaged input gives what was inflated before the damage.
pub fn inflate_prefix(raw: &[u8], n: usize) -> Vec<u8> {
    let mut decoder = flate2::Decompress::new(false);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let consumed = usize::try_from(decoder.total_in()).unwrap_or(usize::MAX);
        let before = out.len();
        let status = decoder.decompress_vec(
            raw.get(consumed..).unwrap_or(&[]),
            &mut out,
            flate2::FlushDecompress::None,
        );
        match status {
            Ok(flate2::Status::Ok) if out.len() > before => {}
            _ => break,
        }
    }
    out
}

/// Raw-deflate inflation, refusing to produce more than `max` bytes. The
/// decoder writes straight into the output vector (no intermediate buffer);
/// the vector starts at a typical HWP ratio and doubles, never beyond `max`.
pub fn inflate(raw: &[u8], max: u64) -> Result<Vec<u8>> {
    let mut decoder = flate2::Decompress::new(false);
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let guess = raw
        .len()
        .saturating_mul(6)
        .clamp(4096, 64 << 20)
        .min(max.saturating_add(1));
    let mut out: Vec<u8> = Vec::with_capacity(guess);
    loop {
        let consumed = decoder.total_in() as usize;
        let input = raw.get(consumed..).unwrap_or(&[]);
        let status = decoder
            .decompress_vec(input, &mut out, flate2::FlushDecompress::None)
            .map_err(|e| Error::corrupt(format!("compressed data is damaged ({e})")))?;
        if out.len() > max {
            return Err(Error::too_large(format!(
                "a stream inflates to more than the {max}-byte limit"
            )));
        }
        match status {
            flate2::Status::StreamEnd => return Ok(out),
            _ if out.len() == out.capacity() => {
                // Output full: grow (bounded by the limit plus one byte to detect overflow).
                let more = out
                    .capacity()
                    .max(4096)
                    .min(max.saturating_add(1).saturating_sub(out.len()).max(1));
                out.reserve_exact(more);
            }
            _ if decoder.total_in() as usize >= raw.len() => {
                // All input consumed without the final block: the stream was cut short.
                return Err(Error::corrupt(
                    "compressed data ends before its final block (truncated)",
                ));
            }
            _ if decoder.total_in() as usize == consumed => {
                return Err(Error::corrupt("compressed data is damaged (no progress)"));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn inflate_bounds() {
        use std::io::Write;
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&vec![0u8; 100_000]).unwrap();
        let raw = enc.finish().unwrap();
        assert_eq!(inflate(&raw, 100_000).unwrap().len(), 100_000);
        assert_eq!(inflate(&raw, 99_999).unwrap_err().code, ErrorCode::TooLarge);
        assert_eq!(
            inflate(&raw[..raw.len() / 2], 1 << 20).unwrap_err().code,
            ErrorCode::CorruptDocument
        );
    }
}
