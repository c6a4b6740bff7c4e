//! Password-protected HWPX packages: OWPML (KS X 6101) §15 "암호화" encrypts package parts
//! the way ODF 1.2 Part 3 §3.4 does, and declares how in `META-INF/manifest.xml`: each
//! encrypted part's `file-entry` holds an `encryption-data` element.
//!
//! What Hancom writes, established on `corpus/encrypted/kordoc-hwpx-password-123456.hwpx`
//! against its unencrypted twin (and matching what kordoc and rhwp read):
//! - `start-key-generation` `xmldsig#sha256`: the start key is SHA-256 of the password's UTF-8;
//! - `key-derivation` `#pbkdf2` with `iteration-count` (1024), `salt` (base64) and `key-size`
//!   (32): PBKDF2 with HMAC-SHA1 (ODF's PRF) over the start key;
//! - `algorithm` `xmlenc#aes256-cbc` with `initialisation-vector` (base64): AES-256-CBC over
//!   the raw-deflated part, **without** ODF's padding: the last block is filled with zeros
//!   after the deflate stream's end, so nothing is stripped, the inflater stops at the end;
//! - `checksum-type` `#sha256-1k`: SHA-256 of the first 1024 bytes of the part **inflated**
//!   (ODF checksums the deflated bytes; Hancom does not), the check that tells a wrong
//!   password from a right one.
//!
//! Anything else a manifest may name (ODF 1.0's Blowfish CFB, Argon2, other key sizes we do
//! not recognise) is `unsupported_format` saying which; a wrong password is `password_required`
//! saying so, never quoting it. Bounds: every base64 value and the PBKDF2 work (per part and
//! per package, `limits::crypto`); decrypted parts inflate under the package's limits.

use super::package::canonical_name;
use crate::limits::{crypto as bounds, Limits};
use crate::owpml::xml;
use crate::{Error, Password, Result};
use aes::cipher::{consts::U16, BlockCipherDecrypt, KeyInit};
use sha1::Sha1;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

pub const MANIFEST: &str = "META-INF/manifest.xml";

/// The encrypted parts a manifest declares, by canonical part name.
#[derive(Debug, Default)]
pub struct Manifest {
    parts: HashMap<String, PartCipher>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Checksum {
    Sha256(Vec<u8>),
    Sha1(Vec<u8>),
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartKey {
    Sha256,
    Sha1,
}

/// How one part is encrypted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartCipher {
    key_size: usize,
    iv: [u8; 16],
    salt: Vec<u8>,
    iterations: u32,
    start_key: StartKey,
    checksum: Checksum,
    /// The part's size before encryption, when declared.
    size: Option<u64>,
}

impl Manifest {
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The first encrypted part (by canonical name order), for the fuzz target.
    pub fn first(&self) -> Option<(&str, &PartCipher)> {
        self.parts
            .iter()
            .min_by(|a, b| a.0.cmp(b.0))
            .map(|(k, v)| (k.as_str(), v))
    }

    /// How the part `name` is encrypted; `None` for a plain part.
    pub fn part(&self, name: &str) -> Option<&PartCipher> {
        self.parts.get(&canonical_name(name))
    }
}

fn unsupported(what: String) -> Error {
    Error::unsupported(
        format!("the HWPX document is password-protected with an encryption scheme rhwp_core cannot open ({what})"),
        "Open it in Hancom Office with its password and save it again without one (File > Document Security), \
         or save it with the current Hancom Office, whose scheme (AES-256, PBKDF2) is read.",
    )
}

/// The encrypted parts `META-INF/manifest.xml` declares. `Ok` with an empty manifest when it
/// declares none; `unsupported_format` for a scheme we cannot undo.
pub fn parse_manifest(bytes: &[u8], limits: &Limits) -> Result<Manifest> {
    // An entry being assembled: its attributes, then those of its encryption-data children.
    #[derive(Default)]
    struct Entry {
        path: Option<String>,
        size: Option<u64>,
        encrypted: bool,
        checksum_type: Option<String>,
        checksum: Option<String>,
        algorithm: Option<String>,
        iv: Option<String>,
        derivation: Option<String>,
        iterations: Option<String>,
        salt: Option<String>,
        key_size: Option<String>,
        start_key: Option<String>,
    }
    let mut manifest = Manifest::default();
    // `file-entry` elements do not nest: each child element belongs to the last one opened.
    let mut entries: Vec<Entry> = Vec::new();
    xml::walk(bytes, MANIFEST, 64, limits.max_records, |step, _| {
        if let xml::Step::Open { name, start, .. } = step {
            let get = |k: &str| xml::attr(start, k).map(|v| v.into_owned());
            let last = entries.last_mut();
            match (name, last) {
                ("file-entry", _) => entries.push(Entry {
                    path: get("full-path"),
                    size: get("size").and_then(|s| s.trim().parse().ok()),
                    ..Entry::default()
                }),
                ("encryption-data", Some(e)) => {
                    e.encrypted = true;
                    e.checksum_type = get("checksum-type");
                    e.checksum = get("checksum");
                }
                ("algorithm", Some(e)) => {
                    e.algorithm = get("algorithm-name");
                    e.iv = get("initialisation-vector");
                }
                ("key-derivation", Some(e)) => {
                    e.derivation = get("key-derivation-name");
                    e.iterations = get("iteration-count");
                    e.salt = get("salt");
                    e.key_size = get("key-size");
                }
                ("start-key-generation", Some(e)) => e.start_key = get("start-key-generation-name"),
                _ => {}
            }
        }
        Ok(xml::Flow::Continue)
    })
    .map_err(|e| e.context("the package's encryption manifest"))?;
    for e in entries.into_iter().filter(|e| e.encrypted) {
        let Some(path) = e.path.filter(|p| !p.is_empty()) else {
            continue;
        };
        let shown: String = path.chars().take(80).collect();
        let algorithm = e.algorithm.unwrap_or_default();
        let key_size = match algorithm.rsplit('#').next().unwrap_or_default() {
            "aes256-cbc" => 32,
            "aes192-cbc" => 24,
            "aes128-cbc" => 16,
            other => {
                return Err(unsupported(format!(
                    "{shown}: algorithm \"{}\"",
                    clip(if other.is_empty() { &algorithm } else { other })
                )))
            }
        };
        let derivation = e.derivation.unwrap_or_default();
        if !derivation.to_ascii_lowercase().ends_with("pbkdf2") {
            return Err(unsupported(format!(
                "{shown}: key derivation \"{}\"",
                clip(&derivation)
            )));
        }
        if let Some(declared) = e
            .key_size
            .as_deref()
            .and_then(|k| k.trim().parse::<usize>().ok())
        {
            if declared != key_size {
                return Err(unsupported(format!(
                    "{shown}: a {declared}-byte key for a {key_size}-byte cipher"
                )));
            }
        }
        let start_key = match e
            .start_key
            .as_deref()
            .map(|s| s.rsplit('#').next().unwrap_or(s))
        {
            Some("sha256") => StartKey::Sha256,
            // ODF 1.0/1.1 writers omit the element: the start key is then SHA-1.
            Some("sha1") | None => StartKey::Sha1,
            Some(other) => {
                return Err(unsupported(format!(
                    "{shown}: start key \"{}\"",
                    clip(other)
                )))
            }
        };
        let iterations = e
            .iterations
            .as_deref()
            .and_then(|i| i.trim().parse::<u32>().ok())
            .filter(|i| *i > 0)
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "{shown}: the encryption manifest gives no iteration count"
                ))
            })?;
        if iterations > bounds::MAX_KDF_ITERATIONS {
            return Err(Error::too_large(format!(
                "{shown}: the encryption manifest asks for {iterations} key-derivation iterations (limit {})",
                bounds::MAX_KDF_ITERATIONS
            )));
        }
        let salt = decode_base64(e.salt.as_deref().unwrap_or_default())
            .filter(|s| !s.is_empty() && s.len() <= 1024)
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "{shown}: the encryption manifest's salt is not base64"
                ))
            })?;
        let iv: [u8; 16] = decode_base64(e.iv.as_deref().unwrap_or_default())
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "{shown}: the encryption manifest's initialisation vector is not 16 bytes of base64"
                ))
            })?;
        let checksum_type = e.checksum_type.unwrap_or_default().to_ascii_lowercase();
        let checksum_bytes = e.checksum.as_deref().and_then(decode_base64);
        let checksum = match (checksum_bytes, checksum_type.rsplit(['#', '/']).next()) {
            (Some(c), Some("sha256-1k")) if c.len() == 32 => Checksum::Sha256(c),
            (Some(c), Some("sha1-1k" | "1k")) if c.len() == 20 => Checksum::Sha1(c),
            (None, _) => Checksum::None,
            (Some(_), _) => {
                return Err(unsupported(format!(
                    "{shown}: checksum \"{}\"",
                    clip(&checksum_type)
                )))
            }
        };
        manifest.parts.insert(
            canonical_name(&path),
            PartCipher {
                key_size,
                iv,
                salt,
                iterations,
                start_key,
                checksum,
                size: e.size,
            },
        );
    }
    Ok(manifest)
}

fn clip(s: &str) -> String {
    s.chars().take(80).collect()
}

/// Standard base64 (RFC 4648 §4) with optional padding and whitespace; `None` on any other
/// character. Manifest values are a few dozen bytes.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    if text.len() > 4096 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Derived keys of one package, each (salt, iterations, start key, size) once, with the
/// PBKDF2 work spent so far (bounded by `limits::crypto::MAX_KDF_ITERATIONS_TOTAL`).
#[derive(Default)]
pub struct KeyCache {
    keys: Vec<DerivedKey>,
    spent: u64,
}

/// A part key and what it was derived from.
struct DerivedKey {
    salt: Vec<u8>,
    iterations: u32,
    start_key: StartKey,
    key: Vec<u8>,
}

impl std::fmt::Debug for KeyCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyCache({} keys)", self.keys.len())
    }
}

/// The part key: PBKDF2-HMAC-SHA1 (ODF 1.2 Part 3 §3.8.10: the PRF is HMAC-SHA1) over the
/// start key (a digest of the password's UTF-8).
pub fn derive_key(
    password: &Password,
    salt: &[u8],
    iterations: u32,
    sha256_start: bool,
    size: usize,
) -> Vec<u8> {
    let start: Vec<u8> = if sha256_start {
        Sha256::digest(password.as_bytes()).to_vec()
    } else {
        Sha1::digest(password.as_bytes()).to_vec()
    };
    let mut key = vec![0u8; size];
    pbkdf2::pbkdf2_hmac::<Sha1>(&start, salt, iterations, &mut key);
    key
}

impl KeyCache {
    fn key(&mut self, password: &Password, c: &PartCipher) -> Result<&[u8]> {
        let found = self.keys.iter().position(|k| {
            k.salt == c.salt
                && k.iterations == c.iterations
                && k.start_key == c.start_key
                && k.key.len() == c.key_size
        });
        let at = match found {
            Some(at) => at,
            None => {
                self.spent = self.spent.saturating_add(u64::from(c.iterations));
                if self.spent > bounds::MAX_KDF_ITERATIONS_TOTAL {
                    return Err(Error::too_large(format!(
                        "the package's parts ask for more than {} key-derivation iterations in total",
                        bounds::MAX_KDF_ITERATIONS_TOTAL
                    )));
                }
                let key = derive_key(
                    password,
                    &c.salt,
                    c.iterations,
                    c.start_key == StartKey::Sha256,
                    c.key_size,
                );
                self.keys.push(DerivedKey {
                    salt: c.salt.clone(),
                    iterations: c.iterations,
                    start_key: c.start_key,
                    key,
                });
                self.keys.len() - 1
            }
        };
        Ok(&self.keys[at].key)
    }
}

/// CBC decryption of whole blocks (no padding removed: see the module notes).
fn cbc_decrypt(key: &[u8], iv: &[u8; 16], data: &mut [u8]) -> Option<()> {
    fn run<C: BlockCipherDecrypt<BlockSize = U16> + KeyInit>(
        key: &[u8],
        iv: &[u8; 16],
        data: &mut [u8],
    ) -> Option<()> {
        let cipher = C::new_from_slice(key).ok()?;
        let mut previous = *iv;
        for block in data.chunks_exact_mut(16) {
            let stored: [u8; 16] = (&*block).try_into().ok()?;
            let mut b = aes::cipher::Block::<C>::from(stored);
            cipher.decrypt_block(&mut b);
            block.copy_from_slice(&b);
            for (x, p) in block.iter_mut().zip(previous) {
                *x ^= p;
            }
            previous = stored;
        }
        Some(())
    }
    match key.len() {
        32 => run::<aes::Aes256>(key, iv, data),
        24 => run::<aes::Aes192>(key, iv, data),
        16 => run::<aes::Aes128>(key, iv, data),
        _ => None,
    }
}

/// Whether `plain` (the part's first bytes) matches the declared checksum.
fn checksum_matches(checksum: &Checksum, plain: &[u8]) -> bool {
    let head = &plain[..plain.len().min(1024)];
    match checksum {
        Checksum::Sha256(c) => Sha256::digest(head).as_slice() == c.as_slice(),
        Checksum::Sha1(c) => Sha1::digest(head).as_slice() == c.as_slice(),
        Checksum::None => true,
    }
}

fn wrong_password(part: &str) -> Error {
    Error::password_required(format!(
        "the password is wrong: the HWPX part {} does not decrypt with it",
        clip(part)
    ))
}

/// One encrypted part's plaintext from its stored bytes: decrypted, inflated (at most `max`
/// bytes), checked against the manifest's checksum. A wrong password is `password_required`.
pub fn decrypt_part(
    part: &str,
    cipher: &PartCipher,
    stored: Vec<u8>,
    password: &Password,
    keys: &mut KeyCache,
    max: u64,
) -> Result<Vec<u8>> {
    let mut data = stored;
    if !data.len().is_multiple_of(16) {
        return Err(Error::corrupt(format!(
            "the encrypted HWPX part {} is {} bytes, not whole 16-byte AES blocks",
            clip(part),
            data.len()
        )));
    }
    let key = keys.key(password, cipher)?;
    cbc_decrypt(key, &cipher.iv, &mut data).ok_or_else(|| wrong_password(part))?;
    // The part was deflated before it was encrypted (ODF §3.4): inflate, then check.
    match crate::common::inflate::inflate(&data, max) {
        Ok(out) => {
            if checksum_matches(&cipher.checksum, &out) || checksum_matches(&cipher.checksum, &data)
            {
                if cipher.checksum == Checksum::None
                    && cipher.size.is_some_and(|s| s != out.len() as u64)
                {
                    return Err(wrong_password(part));
                }
                Ok(out)
            } else {
                Err(wrong_password(part))
            }
        }
        Err(e) if e.code == crate::ErrorCode::TooLarge => Err(e.context(part)),
        // Stored, not deflated, before encryption: the checksum says whether the plaintext
        // is right, the declared size where it ends.
        Err(_)
            if cipher.checksum != Checksum::None && checksum_matches(&cipher.checksum, &data) =>
        {
            let end = cipher
                .size
                .map_or(data.len(), |s| (s as usize).min(data.len()));
            data.truncate(end);
            Ok(data)
        }
        Err(_) => Err(wrong_password(part)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A manifest entry as Hancom writes it (corpus/encrypted), with its values.
    pub(crate) fn manifest_entry(
        path: &str,
        iv: &str,
        salt: &str,
        checksum: &str,
        iterations: u32,
    ) -> String {
        format!(
            r#"<odf:file-entry full-path="{path}" media-type="application/xml" size="1"><odf:encryption-data checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" checksum="{checksum}"><odf:algorithm algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" initialisation-vector="{iv}"/><odf:key-derivation key-derivation-name="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#pbkdf2" key-size="32" iteration-count="{iterations}" salt="{salt}"/><odf:start-key-generation start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" key-size="32"/></odf:encryption-data></odf:file-entry>"#
        )
    }

    fn wrap(entries: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><odf:manifest xmlns:odf="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">{entries}</odf:manifest>"#
        )
    }

    #[test]
    fn base64_decodes_and_refuses() {
        assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(decode_base64("aGVsbG8").unwrap(), b"hello");
        assert_eq!(decode_base64(" aGVs\nbG8= ").unwrap(), b"hello");
        assert!(decode_base64("a*b").is_none());
        assert_eq!(decode_base64("").unwrap(), b"");
    }

    /// Known answer: the key of the corpus document's `settings.xml` (password `123456`,
    /// salt from its manifest, 1024 iterations), computed independently with Python's
    /// `hashlib.pbkdf2_hmac("sha1", sha256(b"123456"), salt, 1024, 32)`.
    #[test]
    fn key_derivation_known_answer() {
        let salt = decode_base64("yXnJDRuDzyaJZY0F5bK2wQ==").unwrap();
        let key = derive_key(&Password::from("123456"), &salt, 1024, true, 32);
        assert_eq!(hex(&key), KNOWN_KEY);
    }

    const KNOWN_KEY: &str = "421e27a28fa4571727898f39709431bd4b75632245234991fc1179648d2ef90d";

    pub(crate) fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn manifest_declares_parts() {
        let m = parse_manifest(
            wrap(&manifest_entry(
                "Contents/section0.xml",
                "yXnJDRuDzyaJZY0F5bK2wQ==",
                "yXnJDRuDzyaJZY0F5bK2wQ==",
                "rJ5hQCDs0V1Glg2p+QAaMh4V1ChLxlaPo6iCSvax7AY=",
                1024,
            ))
            .as_bytes(),
            &Limits::default(),
        )
        .unwrap();
        assert!(m.part("Contents/section0.xml").is_some());
        assert!(
            m.part("Contents\\section0.xml").is_some(),
            "part names as 한글 reads them"
        );
        assert!(m.part("Contents/header.xml").is_none());
        let plain = parse_manifest(
            wrap("<odf:file-entry full-path=\"a\"/>").as_bytes(),
            &Limits::default(),
        )
        .unwrap();
        assert!(plain.is_empty());
    }

    #[test]
    fn unknown_schemes_are_unsupported_and_absurd_costs_too_large() {
        let good = manifest_entry(
            "a.xml",
            "yXnJDRuDzyaJZY0F5bK2wQ==",
            "yXnJDRuDzyaJZY0F5bK2wQ==",
            "rJ5hQCDs0V1Glg2p+QAaMh4V1ChLxlaPo6iCSvax7AY=",
            1024,
        );
        let blowfish = good.replace(
            "http://www.w3.org/2001/04/xmlenc#aes256-cbc",
            "Blowfish CFB",
        );
        let e = parse_manifest(wrap(&blowfish).as_bytes(), &Limits::default()).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::UnsupportedFormat);
        assert!(e.message.contains("Blowfish"), "{}", e.message);
        let argon = good.replace("#pbkdf2", "#argon2id");
        assert_eq!(
            parse_manifest(wrap(&argon).as_bytes(), &Limits::default())
                .unwrap_err()
                .code,
            crate::ErrorCode::UnsupportedFormat
        );
        let costly = manifest_entry(
            "a.xml",
            "yXnJDRuDzyaJZY0F5bK2wQ==",
            "yXnJDRuDzyaJZY0F5bK2wQ==",
            "rJ5hQCDs0V1Glg2p+QAaMh4V1ChLxlaPo6iCSvax7AY=",
            4_000_000_000,
        );
        assert_eq!(
            parse_manifest(wrap(&costly).as_bytes(), &Limits::default())
                .unwrap_err()
                .code,
            crate::ErrorCode::TooLarge
        );
        let bad_iv = good.replace(
            "initialisation-vector=\"yXnJDRuDzyaJZY0F5bK2wQ==\"",
            "initialisation-vector=\"AAAA\"",
        );
        assert_eq!(
            parse_manifest(wrap(&bad_iv).as_bytes(), &Limits::default())
                .unwrap_err()
                .code,
            crate::ErrorCode::CorruptDocument
        );
    }

    /// Any stored bytes, any length, with any password: an error or a plaintext, never a panic.
    #[test]
    fn decrypting_garbage_never_panics() {
        let m = parse_manifest(
            wrap(&manifest_entry(
                "a.xml",
                "yXnJDRuDzyaJZY0F5bK2wQ==",
                "yXnJDRuDzyaJZY0F5bK2wQ==",
                "rJ5hQCDs0V1Glg2p+QAaMh4V1ChLxlaPo6iCSvax7AY=",
                2,
            ))
            .as_bytes(),
            &Limits::default(),
        )
        .unwrap();
        let cipher = m.part("a.xml").unwrap().clone();
        let mut keys = KeyCache::default();
        let password = Password::from("pw");
        for len in [0usize, 1, 15, 16, 17, 32, 1000, 1024] {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let r = decrypt_part("a.xml", &cipher, data, &password, &mut keys, 1 << 20);
            if let Err(e) = r {
                assert!(!e.message.contains("pw\""), "{}", e.message);
            }
        }
        assert_eq!(keys.keys.len(), 1, "one derivation per salt");
    }
}
