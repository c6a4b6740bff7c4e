//! The HWPX zip package: opening it, finding parts by name, and inflating
//! them under the limits of `Options` (entry count, per-entry and total
//! inflated size, compression ratio).
//!
//! Sizes declared in the zip headers are never trusted: every part is read
//! through `take(limit + 1)`, so a lying header cannot make us inflate more
//! than the limit. Nothing is ever extracted to disk, so `..` in entry names cannot escape
//! anywhere (and such names are refused).
//!
//! Part names are looked up as 한글 reads them: exactly first, then by `canonical_name`
//! (`\\` as `/`, a leading `./` dropped, case ignored), so a package a form-filling tool
//! wrote on Windows (`Contents\\section0.xml`) reads like Hancom's own; `names()` gives the
//! canonical names.
//!
//! A password-protected package (`encryption`) is read like a plain one once `unlock`ed: its
//! encrypted parts are decrypted by `read`, for every caller (the document reader, bin data).

use super::encryption::{self, KeyCache, Manifest};
use crate::limits::Limits;
use crate::{Error, Password, Result};
use flate2::{Decompress, FlushDecompress, Status};
use std::collections::HashMap;
use std::io::{Cursor, Read};
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

/// The media type a Hancom HWPX package declares in its `mimetype` entry.
pub const HWPX_MIMETYPE: &str = "application/hwp+zip";
pub const CONTENT_HPF: &str = "Contents/content.hpf";

pub struct Package<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    /// The whole package, for slicing parts' data out of it in place.
    bytes: &'a [u8],
    limits: Limits,
    /// Bytes inflated so far, across all parts.
    inflated_total: u64,
    /// One raw-deflate state for every part (reset between parts): setting
    /// one up costs more than inflating a small part. Taken from the thread's
    /// spare on first use and handed back when the package is dropped, so a
    /// run of documents sets one up once per thread.
    inflater: Option<Decompress>,
    /// Entry index by canonical name, built on the first lookup an exact name misses.
    canonical: std::cell::OnceCell<HashMap<String, usize>>,
    /// Set by `unlock` on a password-protected package.
    unlocked: Option<Unlocked>,
}

/// What reading a password-protected package needs: which parts are encrypted and how, the
/// password, the keys derived so far.
struct Unlocked {
    manifest: Manifest,
    password: Password,
    keys: KeyCache,
}

/// A part name as 한글 resolves it: backslashes are separators, `./` segments and a leading
/// `/` add nothing, and case does not matter (Windows file-name semantics).
pub fn canonical_name(name: &str) -> String {
    let unified = name.replace('\\', "/");
    let mut out = String::with_capacity(unified.len());
    for segment in unified.split('/').filter(|s| !s.is_empty() && *s != ".") {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(segment);
    }
    if unified.ends_with('/') && !out.is_empty() {
        out.push('/');
    }
    out.to_lowercase()
}

/// The name to show and look up for a stored entry name: separators as `/`, `./` segments
/// gone, case kept (what `names()` lists).
fn display_name(name: &str) -> String {
    if !name.contains('\\') && !name.starts_with("./") && !name.contains("/./") {
        return name.to_string();
    }
    let unified = name.replace('\\', "/");
    let kept: Vec<&str> = unified.split('/').filter(|s| *s != ".").collect();
    kept.join("/")
}

thread_local! {
    static SPARE_INFLATER: std::cell::Cell<Option<Decompress>> = const { std::cell::Cell::new(None) };
}

impl Drop for Package<'_> {
    fn drop(&mut self) {
        if let Some(inflater) = self.inflater.take() {
            // During thread teardown the slot may be gone: the state is then simply freed.
            let _ = SPARE_INFLATER.try_with(|spare| spare.set(Some(inflater)));
        }
    }
}

/// Output room beyond a part's declared size: zlib's fast decoding loop runs only while
/// at least one longest match (258 bytes) fits.
const FAST_PATH_ROOM: usize = 258 + 1;

/// Parts declared larger than this are always read through the zip crate
/// (`inflate_in_place` allocates the declared size up front).
const IN_PLACE_MAX_BYTES: u64 = 64 << 20;

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
        let archive =
            ZipArchive::new(Cursor::new(bytes)).map_err(|e| zip_error(e, "opening the package"))?;
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
        Ok(Package {
            archive,
            bytes,
            limits: *limits,
            inflated_total: 0,
            inflater: None,
            canonical: std::cell::OnceCell::new(),
            unlocked: None,
        })
    }

    /// Open a package as `options` say: with their password, an encrypted package is
    /// unlocked (see `unlock`); without one it opens as any other.
    pub fn open_with(bytes: &'a [u8], options: &crate::Options) -> Result<Self> {
        let mut pkg = Package::open(bytes, &options.limits)?;
        if let Some(password) = &options.password {
            pkg.unlock(password)?;
        }
        Ok(pkg)
    }

    /// Read the package's encryption manifest and keep `password` to decrypt its encrypted
    /// parts as they are read. A package without encrypted parts ignores the password. A
    /// scheme we cannot undo is `unsupported_format`; a wrong password shows on the first
    /// encrypted part read (`password_required`).
    pub fn unlock(&mut self, password: &Password) -> Result<()> {
        let Some(bytes) = self.read(encryption::MANIFEST)? else {
            return Ok(());
        };
        let manifest = encryption::parse_manifest(&bytes, &self.limits)?;
        if !manifest.is_empty() {
            self.unlocked = Some(Unlocked {
                manifest,
                password: password.clone(),
                keys: KeyCache::default(),
            });
        }
        Ok(())
    }

    /// Whether `unlock` found encrypted parts.
    pub fn is_unlocked(&self) -> bool {
        self.unlocked.is_some()
    }

    /// The entry of a part name, as `canonical_name` resolves it when the exact name misses.
    fn index_of(&self, name: &str) -> Option<usize> {
        if let Some(index) = self.archive.index_for_name(name) {
            return Some(index);
        }
        let archive = &self.archive;
        let map = self.canonical.get_or_init(|| {
            let mut map = HashMap::new();
            for (index, n) in archive.file_names().enumerate() {
                if let Ok(n) = n {
                    // The first entry of a name wins, as the exact lookup's would.
                    map.entry(canonical_name(&n)).or_insert(index);
                }
            }
            map
        });
        map.get(&canonical_name(name)).copied()
    }

    pub fn has(&self, name: &str) -> bool {
        self.index_of(name).is_some()
    }

    /// All entry names (directories included), in central-directory order, with `/` as the
    /// separator whatever the writer used.
    pub fn names(&self) -> Vec<String> {
        self.archive
            .file_names()
            .filter_map(|n| n.ok().map(|n| display_name(&n)))
            .collect()
    }

    /// Stored (compressed) size of an entry from the zip directory, without
    /// reading it (bin data, whose contents we never need).
    pub fn stored_size(&self, name: &str) -> Option<u64> {
        let index = self.index_of(name)?;
        self.archive
            .by_index_data(index)
            .ok()
            .map(|e| e.compressed_size())
    }

    /// Inflate one part, bounded by the limits. `Ok(None)` when it is absent.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>> {
        let Some(index) = self.index_of(name) else {
            return Ok(None);
        };
        let remaining_total = self
            .limits
            .max_total_bytes
            .saturating_sub(self.inflated_total);
        let ratio_limit = self.limits.max_compression_ratio;
        let ratio_floor = self.limits.ratio_floor_bytes;
        let stored = self
            .archive
            .by_index_data(index)
            .map_err(|e| zip_error(e, name))?
            .compressed_size();
        // The ratio bound is enforced while inflating too: past the floor, a
        // part may not grow beyond `ratio` times its stored size, so a bomb
        // is cut short instead of being inflated up to the size limit.
        let ratio_cap = ratio_floor.max(stored.saturating_mul(ratio_limit));
        let limit = self
            .limits
            .max_stream_bytes
            .min(remaining_total)
            .min(ratio_cap);
        let out = match self.inflate_in_place(index, limit) {
            Some(out) => out,
            None => {
                let mut entry = self
                    .archive
                    .by_index(index)
                    .map_err(|e| zip_error(e, name))?;
                // Pre-size from the declared size, but never beyond the limit: the
                // header may lie, the `take` below is what actually bounds us.
                let mut out = Vec::with_capacity(entry.size().min(limit).min(64 << 20) as usize);
                let mut reader = (&mut entry).take(limit.saturating_add(1));
                reader.read_to_end(&mut out).map_err(|e| {
                    Error::corrupt(format!("{name}: cannot inflate the part ({e})"))
                })?;
                out
            }
        };
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
        let out = match self.unlocked.as_mut() {
            Some(u) => match u.manifest.part(name) {
                Some(cipher) => {
                    // The ciphertext is deflated data: its plaintext is bounded like an
                    // inflated part's (per part, total, ratio to the stored bytes).
                    let max = limit.min(remaining_total.saturating_sub(inflated));
                    let plain =
                        encryption::decrypt_part(name, cipher, out, &u.password, &mut u.keys, max)?;
                    self.inflated_total += plain.len() as u64;
                    plain
                }
                None => out,
            },
            None => out,
        };
        self.inflated_total += inflated;
        Ok(Some(out))
    }

    /// The common case, read without the zip crate's reader stack: a plain
    /// stored or deflated part whose data lies inside the package, inflated
    /// from its bytes in place by one reused inflater into a buffer of its
    /// declared size. `None` when anything is unusual (encryption, another
    /// method, a stream that does not end within its stored bytes, more
    /// output than declared or than `limit`, a CRC mismatch): the caller
    /// then reads the part through the zip crate, which gives the same bytes
    /// when this succeeds and reports the problem when it does not.
    fn inflate_in_place(&mut self, index: usize, limit: u64) -> Option<Vec<u8>> {
        let part = self.raw_part(index)?;
        // A part declared larger than it may be is refused or read by the zip crate; filling a
        // buffer up to the limit here first would inflate a bomb twice.
        if part.declared > limit {
            return None;
        }
        let data = self.bytes.get(part.start..)?.get(..part.stored)?;
        let inflater = self.inflater.get_or_insert_with(spare_inflater);
        decode(part.method, data, part.declared, part.crc, inflater)
    }

    /// Where a part's stored bytes are and how to decode them; `None` for encrypted parts.
    fn raw_part(&mut self, index: usize) -> Option<RawPart> {
        let entry = self.archive.by_index_raw(index).ok()?;
        if entry.encrypted() {
            return None;
        }
        Some(RawPart {
            method: entry.compression(),
            declared: entry.size(),
            stored: usize::try_from(entry.compressed_size()).ok()?,
            crc: entry.crc32(),
            start: usize::try_from(entry.data_start()?).ok()?,
        })
    }

    /// A small part's stored bytes, copied out of the package so it can be decoded later
    /// (`DetachedPart::read`), after the package is gone; `None` when the package does not
    /// hold it plainly (absent, encrypted, stored bytes over `max_stored`).
    pub fn detach(&mut self, name: &str, max_stored: usize) -> Option<DetachedPart> {
        if self
            .unlocked
            .as_ref()
            .is_some_and(|u| u.manifest.part(name).is_some())
        {
            return None;
        }
        let index = self.index_of(name)?;
        let part = self.raw_part(index)?;
        if part.stored > max_stored {
            return None;
        }
        let data = self.bytes.get(part.start..)?.get(..part.stored)?.to_vec();
        Some(DetachedPart { part, data })
    }
}

struct RawPart {
    method: CompressionMethod,
    declared: u64,
    stored: usize,
    crc: u32,
    start: usize,
}

/// A part's stored bytes held apart from its package (see `Package::detach`).
pub struct DetachedPart {
    part: RawPart,
    data: Vec<u8>,
}

impl DetachedPart {
    /// The part's bytes, at most `limit` of them; `None` when it does not decode to its
    /// declared size and CRC within that.
    pub fn read(&self, limit: u64) -> Option<Vec<u8>> {
        let mut inflater = spare_inflater();
        let out = decode(
            self.part.method,
            &self.data,
            self.part.declared.min(limit),
            self.part.crc,
            &mut inflater,
        );
        let _ = SPARE_INFLATER.try_with(|spare| spare.set(Some(inflater)));
        out
    }
}

/// The thread's spare inflater (one is kept between packages), or a new one.
fn spare_inflater() -> Decompress {
    SPARE_INFLATER
        .try_with(std::cell::Cell::take)
        .ok()
        .flatten()
        .unwrap_or_else(|| Decompress::new(false))
}

/// A stored or deflated part's bytes from its stored `data`, inflated into a buffer of its
/// declared size capped at `cap`; `None` on another method, a stream that does not end within
/// its stored bytes, more output than `cap`, or a CRC mismatch.
fn decode(
    method: CompressionMethod,
    data: &[u8],
    cap: u64,
    crc: u32,
    inflater: &mut Decompress,
) -> Option<Vec<u8>> {
    // The zip crate refuses output beyond the declared size; we beyond the limit too.
    if cap > IN_PLACE_MAX_BYTES {
        return None;
    }
    let out = match method {
        CompressionMethod::Stored => {
            if data.len() as u64 > cap {
                return None;
            }
            data.to_vec()
        }
        CompressionMethod::Deflated => {
            // Room past `cap` tells "too much" from "exactly enough"; 258 bytes of it (the
            // longest match) also keep the inflater on its fast path to the very end, where a
            // small part would otherwise be decoded mostly by the byte-wise slow path.
            let mut out = Vec::with_capacity(cap as usize + FAST_PATH_ROOM);
            inflater.reset(false);
            let mut input = data;
            loop {
                let (in_before, out_before) = (inflater.total_in(), inflater.total_out());
                let status = inflater
                    .decompress_vec(input, &mut out, FlushDecompress::Finish)
                    .ok()?;
                let consumed = usize::try_from(inflater.total_in() - in_before).ok()?;
                input = input.get(consumed..)?;
                if status == Status::StreamEnd {
                    break;
                }
                let stalled = consumed == 0 && inflater.total_out() == out_before;
                if stalled || out.len() == out.capacity() {
                    return None;
                }
            }
            if out.len() as u64 > cap {
                return None;
            }
            out
        }
        _ => return None,
    };
    (crc32fast::hash(&out) == crc).then_some(out)
}

/// An entry name that is absolute (`/etc`, `C:\\x`) or has a `..` segment.
fn escapes_package(name: &str) -> bool {
    let b = name.as_bytes();
    name.starts_with(['/', '\\'])
        || (b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic())
        || name.split(['/', '\\']).any(|segment| segment == "..")
}

/// Whether the package's parts are encrypted (a password-protected HWPX): its
/// `META-INF/manifest.xml` then carries `encryption-data` for them. A part read from such a
/// package is ciphertext, so callers ask this when what they read makes no sense.
pub fn is_encrypted(pkg: &mut Package<'_>) -> Result<bool> {
    let Some(bytes) = pkg.read("META-INF/manifest.xml")? else {
        return Ok(false);
    };
    Ok(String::from_utf8_lossy(&bytes).contains("encryption-data"))
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
        Some(m) => format!(
            "its mimetype is \"{}\"",
            String::from_utf8_lossy(m)
                .trim()
                .chars()
                .take(80)
                .collect::<String>()
        ),
        None => "it has no mimetype entry and no Contents/content.hpf".to_string(),
    };
    Err(Error::unsupported(
        format!("a zip file that is not an HWPX package ({what})"),
        "Pass an HWPX document (a zip whose mimetype is application/hwp+zip) or an HWP 5.0 file; \
         other zip-based formats (DOCX, ODT, plain archives) are not read here.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, &[u8], CompressionMethod)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, content, method) in entries {
            let options = zip::write::SimpleFileOptions::default().compression_method(*method);
            w.start_file(*name, options).unwrap();
            w.write_all(content).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    /// The part as the zip crate's reader gives it (the reference).
    fn through_zip(bytes: &[u8], name: &str) -> std::result::Result<Vec<u8>, String> {
        let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        archive
            .by_name(name)
            .map_err(|e| e.to_string())?
            .read_to_end(&mut out)
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    #[test]
    fn in_place_reads_what_the_zip_crate_reads() {
        let big: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("<p id=\"{i}\"/>").into_bytes())
            .collect();
        let bytes = zip_of(&[
            ("stored", b"application/hwp+zip", CompressionMethod::Stored),
            ("deflated", &big, CompressionMethod::Deflated),
            ("empty", b"", CompressionMethod::Deflated),
        ]);
        let mut pkg = Package::open(&bytes, &Limits::default()).unwrap();
        for name in ["stored", "deflated", "empty"] {
            let index = pkg.archive.index_for_name(name).unwrap();
            let direct = pkg.inflate_in_place(index, u64::MAX).expect(name);
            assert_eq!(Ok(direct.clone()), through_zip(&bytes, name), "{name}");
            assert_eq!(pkg.read(name).unwrap(), Some(direct));
        }
        // Beyond the limit the in-place path declines (the zip path reports it).
        let index = pkg.archive.index_for_name("deflated").unwrap();
        assert!(pkg.inflate_in_place(index, big.len() as u64 - 1).is_none());
    }

    /// A detached part decodes, after its package is gone, to what the package reads; too many
    /// stored bytes are not kept, too much output is refused.
    #[test]
    fn detached_parts_read_what_the_package_reads() {
        let text = b"<hv:HCFVersion major=\"5\" minor=\"1\"/>".repeat(30);
        let bytes = zip_of(&[
            ("stored", &text, CompressionMethod::Stored),
            ("deflated", &text, CompressionMethod::Deflated),
        ]);
        let mut pkg = Package::open(&bytes, &Limits::default()).unwrap();
        let parts: Vec<DetachedPart> = ["stored", "deflated"]
            .iter()
            .map(|name| pkg.detach(name, 4096).expect(name))
            .collect();
        assert!(
            pkg.detach("stored", 100).is_none(),
            "more stored bytes than allowed"
        );
        assert!(pkg.detach("absent", 4096).is_none());
        drop(pkg);
        for part in &parts {
            assert_eq!(part.read(u64::MAX).as_deref(), Some(&text[..]));
            assert!(part.read(text.len() as u64 - 1).is_none());
        }
    }

    #[test]
    fn a_damaged_part_is_left_to_the_zip_crate() {
        let content = b"<hs:sec>some text that deflates</hs:sec>".repeat(20);
        let good = zip_of(&[(
            "Contents/section0.xml",
            &content,
            CompressionMethod::Deflated,
        )]);
        // Corrupt the CRC in the central directory (and the local header):
        // the zip crate refuses the part, and so must we.
        let crc = crc32fast::hash(&content).to_le_bytes();
        let mut bad = good.clone();
        for at in 0..bad.len().saturating_sub(4) {
            if bad[at..at + 4] == crc {
                bad[at] ^= 0xff;
            }
        }
        let reference = through_zip(&bad, "Contents/section0.xml");
        assert!(reference.is_err());
        let mut pkg = Package::open(&bad, &Limits::default()).unwrap();
        let index = pkg.archive.index_for_name("Contents/section0.xml").unwrap();
        assert!(pkg.inflate_in_place(index, u64::MAX).is_none());
        let err = pkg.read("Contents/section0.xml").unwrap_err();
        assert!(err.message.contains("checksum"), "{}", err.message);
        // Truncated deflate data: declined, then reported by the zip path.
        let mut cut = good.clone();
        let start = Package::open(&good, &Limits::default())
            .unwrap()
            .archive
            .by_index_raw(0)
            .unwrap()
            .data_start()
            .unwrap() as usize;
        for b in cut.iter_mut().skip(start + 4).take(8) {
            *b = 0xff;
        }
        let mut pkg = Package::open(&cut, &Limits::default()).unwrap();
        assert!(pkg.inflate_in_place(0, u64::MAX).is_none());
        assert!(pkg.read("Contents/section0.xml").is_err());
    }
}
