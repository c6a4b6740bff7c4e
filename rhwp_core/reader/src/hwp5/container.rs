//! The compound-file container of an HWP 5.0 document: the `FileHeader`
//! stream and reading (and, when the document is compressed, inflating)
//! the other streams, every size bounded by `Options::limits`.
//!
//! Compressed streams are raw deflate (RFC 1951, no zlib header).

use super::encryption::{self, Decryptor};
use crate::common::compound::Compound;
use crate::common::inflate::{inflate, inflate_prefix};
use crate::limits::Limits;
use crate::{Error, Options, Result};

/// `FileHeader` property bits (spec "파일 인식 정보", 속성).
const FLAG_COMPRESSED: u32 = 1 << 0;
const FLAG_PASSWORD: u32 = 1 << 1;
const FLAG_DISTRIBUTION: u32 = 1 << 2;
/// 변경 추적 문서: `ViewText` then holds the body with its tracked changes marked.
const FLAG_TRACK_CHANGES: u32 = 1 << 14;

const SIGNATURE: &[u8] = b"HWP Document File";

#[derive(Debug, Clone, Copy)]
pub struct FileHeader {
    /// 0xMMnnPPrr: major, minor, patch, revision.
    pub version: u32,
    pub compressed: bool,
    pub distribution: bool,
    /// A document with tracked changes (property bit 14).
    pub track_changes: bool,
    /// Password-protected (property bit 1); how, by `encrypt_version` (offset 44).
    pub encrypted: bool,
    pub encrypt_version: u32,
}

impl FileHeader {
    pub fn version_string(&self) -> String {
        let v = self.version;
        format!(
            "{}.{}.{}.{}",
            v >> 24,
            (v >> 16) & 0xFF,
            (v >> 8) & 0xFF,
            v & 0xFF
        )
    }

    /// Parse the 256-byte `FileHeader` stream of a document read without its password: a
    /// password-protected one is `password_required` (`Container::open_document` opens those).
    pub fn parse(data: &[u8]) -> Result<FileHeader> {
        let header = FileHeader::parse_any(data)?;
        if header.encrypted {
            return Err(Error::password_required(
                "the HWP document is password-protected (문서 암호)",
            ));
        }
        Ok(header)
    }

    /// Parse the 256-byte `FileHeader` stream (only its first 48 bytes matter here).
    fn parse_any(data: &[u8]) -> Result<FileHeader> {
        if data.len() < 40 {
            return Err(Error::corrupt(format!(
                "FileHeader stream is {} bytes, expected 256",
                data.len()
            )));
        }
        if !data.starts_with(SIGNATURE) {
            return Err(Error::unsupported(
                "a compound file whose FileHeader is not an HWP 5.0 signature (not an HWP document)",
                "Pass an HWP 5.0 (.hwp) or HWPX (.hwpx) file.",
            ));
        }
        let version = u32::from_le_bytes([data[32], data[33], data[34], data[35]]);
        let flags = u32::from_le_bytes([data[36], data[37], data[38], data[39]]);
        let encrypt_version = data
            .get(44..48)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if version >> 24 != 5 && flags & FLAG_PASSWORD == 0 {
            return Err(Error::unsupported(
                format!("HWP version {} is not 5.x", version >> 24),
                "Open it in Hancom Office and save it as HWP 5.0 (.hwp) or HWPX (.hwpx).",
            ));
        }
        Ok(FileHeader {
            version,
            compressed: flags & FLAG_COMPRESSED != 0,
            distribution: flags & FLAG_DISTRIBUTION != 0,
            track_changes: flags & FLAG_TRACK_CHANGES != 0,
            encrypted: flags & FLAG_PASSWORD != 0,
            encrypt_version,
        })
    }
}

/// An opened compound file plus the running total of inflated bytes.
pub struct Container<'a> {
    compound: Compound<'a>,
    limits: Limits,
    total: u64,
    /// A password-protected document's decryptor (`open_document`): the streams it encrypts
    /// are decrypted as they are read, for every caller.
    decryptor: Option<Decryptor>,
}

impl<'a> Container<'a> {
    /// Open the compound file leniently (`Compound`): what it read past is in `warnings`.
    pub fn open(bytes: &'a [u8], limits: Limits) -> Result<Self> {
        Ok(Container {
            compound: Compound::open(bytes, limits.max_entries)?,
            limits,
            total: 0,
            decryptor: None,
        })
    }

    /// The damage the compound file was read past, for the document's warnings.
    pub fn warnings(&self) -> &[String] {
        self.compound.warnings()
    }

    /// Open an HWP 5.0 document as `options` say: the container and its `FileHeader`. A
    /// password-protected document needs `options.password` (else `password_required`) and
    /// the scheme current 한글 writes (EncryptVersion 4; older ones are `unsupported_format`);
    /// a wrong password is `password_required`, told from `DocInfo`'s first record.
    pub fn open_document(bytes: &'a [u8], options: &Options) -> Result<(Self, FileHeader)> {
        let mut container = Container::open(bytes, options.limits)?;
        if !container.exists("FileHeader") {
            // Not found in a damaged compound file: the damage, not another kind of document.
            if let Some(damage) = container.warnings().first() {
                return Err(Error::corrupt(format!(
                    "no FileHeader stream found in a damaged compound file ({damage})"
                )));
            }
            return Err(Error::unsupported(
                "a compound file without an HWP FileHeader stream (another OLE document, e.g. .doc/.xls?)",
                "Pass an HWP 5.0 (.hwp) or HWPX (.hwpx) file.",
            ));
        }
        let header = FileHeader::parse_any(&container.read_raw("FileHeader")?)?;
        if !header.encrypted {
            return Ok((container, header));
        }
        let version = header.encrypt_version;
        let Some(password) = &options.password else {
            // Without a password the caller is asked for one whatever the scheme; the message
            // says when even the right one would not open it here.
            let scheme = if version == encryption::SUPPORTED_VERSION {
                String::new()
            } else {
                format!(
                    "; its scheme (EncryptVersion {version}, older than 한글 2007's) is one rhwp_core cannot decrypt"
                )
            };
            return Err(Error::password_required(format!(
                "the HWP document is password-protected (문서 암호){scheme}"
            )));
        };
        if version != encryption::SUPPORTED_VERSION {
            return Err(Error::unsupported(
                format!(
                    "the HWP document is password-protected with EncryptVersion {version}, an older scheme                      rhwp_core cannot decrypt (it reads EncryptVersion 4, what 한글 2007 and later write)"
                ),
                "Open it in Hancom Office with its password and save it again (a current version                  re-encrypts it with the scheme rhwp_core reads), or without a password.",
            ));
        }
        container.decryptor = Some(Decryptor::new(password));
        // The check: DocInfo's first record. Its first bytes decrypt alone (CFB runs forward).
        let stored = container.read_stored("DocInfo")?;
        let head = stored.get(..512).unwrap_or(&stored);
        let plain = match container.decryptor.as_mut() {
            Some(d) => d.decrypt(head)?,
            None => Vec::new(),
        };
        let first = if header.compressed {
            inflate_prefix(&plain, 8)
        } else {
            plain
        };
        if !encryption::looks_like_doc_info(&first) {
            return Err(encryption::wrong_password());
        }
        Ok((container, header))
    }

    /// The limits this container was opened with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    pub fn exists(&self, path: &str) -> bool {
        self.compound.is_stream(path)
    }

    /// Names of the streams directly inside storage `dir` (e.g. `BodyText`).
    pub fn stream_names(&self, dir: &str) -> Vec<(String, u64)> {
        self.compound.stream_names(dir)
    }

    fn account(&mut self, n: u64, what: &str) -> Result<()> {
        self.total = self.total.saturating_add(n);
        if self.total > self.limits.max_total_bytes {
            return Err(Error::too_large(format!(
                "{what}: the document's streams exceed {} bytes in total",
                self.limits.max_total_bytes
            )));
        }
        Ok(())
    }

    /// The stored bytes of a stream, bounded by the per-stream limit; decrypted when the
    /// document is password-protected and the stream is one it encrypts.
    pub fn read_raw(&mut self, path: &str) -> Result<Vec<u8>> {
        let stored = self.read_stored(path)?;
        match self.decryptor.as_mut() {
            Some(d) if encryption::is_encrypted_stream(path) => d.decrypt(&stored),
            _ => Ok(stored),
        }
    }

    /// The bytes of a stream as stored, bounded by the per-stream limit.
    fn read_stored(&mut self, path: &str) -> Result<Vec<u8>> {
        let max = self.limits.max_stream_bytes;
        let claimed = self.compound.stream_len(path).unwrap_or(0);
        if claimed > max {
            return Err(Error::too_large(format!(
                "{path}: stream of {claimed} bytes exceeds the {max}-byte limit"
            )));
        }
        let out = self.compound.read_stream(path)?;
        self.account(out.len() as u64, path)?;
        Ok(out)
    }

    /// A stream's content: read, then inflated when `compressed`.
    pub fn read_stream(&mut self, path: &str, compressed: bool) -> Result<Vec<u8>> {
        let raw = self.read_raw(path)?;
        if !compressed {
            return Ok(raw);
        }
        self.inflate_accounted(&raw, path)
    }

    /// Inflate a stream's bytes (or decrypted `ViewText` bytes), bounded by the per-stream
    /// limit and, past `ratio_floor_bytes`, by the compression ratio: deflate reaches ~1000:1
    /// on repetitive data, so without the ratio bound a 260 KB file inflated a 255 MiB
    /// section (1 GB of memory, 2 s) and a 1 MB file four of them. Real HWP streams stay far
    /// below 200:1; a bomb is cut off after `ratio × stored` bytes instead.
    pub fn inflate_accounted(&mut self, raw: &[u8], what: &str) -> Result<Vec<u8>> {
        let ratio = self.limits.max_compression_ratio;
        let ratio_cap = self
            .limits
            .ratio_floor_bytes
            .max((raw.len() as u64).saturating_mul(ratio));
        let max = self.limits.max_stream_bytes.min(ratio_cap);
        let out = inflate(raw, max).map_err(|e| {
            if e.code == crate::ErrorCode::TooLarge && max < self.limits.max_stream_bytes {
                Error::too_large(format!(
                    "the stream inflates to more than {max} bytes from {} stored bytes \
                     (compression ratio above {ratio}: a decompression bomb?)",
                    raw.len()
                ))
            } else {
                e.context(what)
            }
        })?;
        self.account(out.len() as u64, what)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn header(flags: u32, version: u32) -> Vec<u8> {
        let mut h = vec![0u8; 256];
        h[..SIGNATURE.len()].copy_from_slice(SIGNATURE);
        h[32..36].copy_from_slice(&version.to_le_bytes());
        h[36..40].copy_from_slice(&flags.to_le_bytes());
        h
    }

    #[test]
    fn header_flags() {
        let h = FileHeader::parse(&header(0b101, 0x0500_0304)).unwrap();
        assert!(h.compressed && h.distribution);
        assert_eq!(h.version_string(), "5.0.3.4");
        let e = FileHeader::parse(&header(0b10, 0x0500_0304)).unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired);
        assert!(e.suggestion.contains("password"));
        assert_eq!(
            FileHeader::parse(&[0; 10]).unwrap_err().code,
            ErrorCode::CorruptDocument
        );
    }
}
