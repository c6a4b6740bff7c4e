//! The HWPX zip package: opening it, finding parts by name, and inflating
//! them under the limits of `Options` (entry count, per-entry and total
//! inflated size, compression ratio).
//!
//! Sizes declared in the zip headers are never trusted: every part is read
//! through `take(limit + 1)`, so a lying header cannot make us inflate more
//! than the limit. Parts are looked up by exact name only; nothing is ever
//! extracted to disk, so `..` in entry names cannot escape anywhere.

use crate::limits::Limits;
use crate::{Error, Result};
use std::io::{Cursor, Read};
use zip::result::ZipError;
use zip::ZipArchive;

/// The media type a Hancom HWPX package declares in its `mimetype` entry.
pub const HWPX_MIMETYPE: &str = "application/hwp+zip";
pub const CONTENT_HPF: &str = "Contents/content.hpf";

pub struct Package<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    limits: Limits,
    /// Bytes inflated so far, across all parts.
    inflated_total: u64,
}

fn zip_error(e: ZipError, what: &str) -> Error {
    match e {
        ZipError::UnsupportedArchive(msg) => Error::unsupported(
            format!("{what}: unsupported zip feature ({msg})"),
            "Save the document again in Hancom Office as HWPX (a plain, unencrypted package), then try again.",
        ),
        ZipError::CompressionMethodNotSupported(m) => Error::unsupported(
            format!("{what}: zip compression method {m} is not supported (HWPX uses deflate)"),
            "Save the document again in Hancom Office as HWPX, then try again.",
        ),
        ZipError::InvalidPassword => Error::unsupported(
            format!("{what}: the package is password-protected"),
            "Remove the password in Hancom Office (File > Document Security) and save again.",
        ),
        other => Error::corrupt(format!("{what}: damaged zip package ({other})")),
    }
}

impl<'a> Package<'a> {
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<Self> {
        let archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| zip_error(e, "opening the package"))?;
        if archive.len() as u64 > limits.max_entries {
            return Err(Error::too_large(format!(
                "the package holds {} entries (limit {})",
                archive.len(),
                limits.max_entries
            )));
        }
        // Nothing is extracted, but entry names reach the model (bin data names) and
        // whoever acts on it: a name that climbs out of the package is refused outright.
        if let Some(name) = archive.file_names().flatten().find(|n| escapes_package(n)) {
            let shown: String = name.chars().take(120).collect();
            return Err(Error::corrupt(format!(
                "the package holds an entry named \"{shown}\" that points outside the package (path traversal)"
            )));
        }
        Ok(Package { archive, limits: *limits, inflated_total: 0 })
    }

    pub fn has(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// All entry names (directories included), in central-directory order.
    pub fn names(&self) -> Vec<String> {
        self.archive.file_names().filter_map(|n| n.ok().map(|n| n.into_owned())).collect()
    }

    /// Stored (compressed) size of an entry from the zip directory, without
    /// reading it (bin data, whose contents we never need).
    pub fn stored_size(&self, name: &str) -> Option<u64> {
        let index = self.archive.index_for_name(name)?;
        self.archive.by_index_data(index).ok().map(|e| e.compressed_size())
    }

    /// Inflate one part, bounded by the limits. `Ok(None)` when it is absent.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(index) = self.archive.index_for_name(name) else {
            return Ok(None);
        };
        let remaining_total = self.limits.max_total_bytes.saturating_sub(self.inflated_total);
        let ratio_limit = self.limits.max_compression_ratio;
        let ratio_floor = self.limits.ratio_floor_bytes;
        let mut entry = self.archive.by_index(index).map_err(|e| zip_error(e, name))?;
        let stored = entry.compressed_size();
        // The ratio bound is enforced while inflating too: past the floor, a
        // part may not grow beyond `ratio` times its stored size, so a bomb
        // is cut short instead of being inflated up to the size limit.
        let ratio_cap = ratio_floor.max(stored.saturating_mul(ratio_limit));
        let limit = self.limits.max_stream_bytes.min(remaining_total).min(ratio_cap);
        // Pre-size from the declared size, but never beyond the limit: the
        // header may lie, the `take` below is what actually bounds us.
        let mut out = Vec::with_capacity(entry.size().min(limit).min(64 << 20) as usize);
        let mut reader = (&mut entry).take(limit.saturating_add(1));
        reader.read_to_end(&mut out).map_err(|e| {
            Error::corrupt(format!("{name}: cannot inflate the part ({e})"))
        })?;
        let inflated = out.len() as u64;
        if inflated > limit && limit == ratio_cap {
            return Err(Error::too_large(format!(
                "{name} inflates to more than {limit} bytes from {stored} stored bytes \
                 (compression ratio above {ratio_limit}: a zip bomb?)"
            )));
        }
        if inflated > limit {
            return Err(Error::too_large(format!(
                "{name} inflates to more than {limit} bytes (per-part limit {}, total limit {})",
                self.limits.max_stream_bytes, self.limits.max_total_bytes
            )));
        }
        if inflated > ratio_floor && inflated / stored.max(1) > ratio_limit {
            return Err(Error::too_large(format!(
                "{name} inflates {inflated} bytes from {stored} stored bytes (ratio above {ratio_limit}: a zip bomb?)"
            )));
        }
        self.inflated_total += inflated;
        Ok(Some(out))
    }
}

/// An entry name that is absolute (`/etc`, `C:\\x`) or has a `..` segment.
fn escapes_package(name: &str) -> bool {
    let b = name.as_bytes();
    name.starts_with(['/', '\\'])
        || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
        || name.split(['/', '\\']).any(|segment| segment == "..")
}

/// Is the zip an HWPX package? Its `mimetype` entry says so, or (writers that
/// omit or misspell it) it holds `Contents/content.hpf` or a section part.
pub fn check_is_hwpx(pkg: &mut Package<'_>) -> Result<()> {
    let mimetype = match pkg.read("mimetype") {
        Ok(m) => m,
        Err(e) if e.code == crate::ErrorCode::TooLarge => return Err(e),
        Err(_) => None,
    };
    if let Some(m) = &mimetype {
        if String::from_utf8_lossy(m).trim() == HWPX_MIMETYPE {
            return Ok(());
        }
    }
    if pkg.has(CONTENT_HPF) || pkg.has("Contents/section0.xml") {
        return Ok(());
    }
    let what = match &mimetype {
        Some(m) => format!("its mimetype is \"{}\"", String::from_utf8_lossy(m).trim().chars().take(80).collect::<String>()),
        None => "it has no mimetype entry and no Contents/content.hpf".to_string(),
    };
    Err(Error::unsupported(
        format!("a zip file that is not an HWPX package ({what})"),
        "Pass an HWPX document (a zip whose mimetype is application/hwp+zip) or an HWP 5.0 file; \
         other zip-based formats (DOCX, ODT, plain archives) are not read here.",
    ))
}
