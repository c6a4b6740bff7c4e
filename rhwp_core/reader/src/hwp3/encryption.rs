//! Password-protected HWP 3.x documents (document information offset 96 non-zero).
//!
//! The scheme, as 한글 97 writes it (established from rhwp's reader of it, edwardkim/rhwp
//! PR #3483, and kordoc's port, chrisryugj/kordoc `src/hwp3/crypto.ts`; checked here on
//! `tests/fixtures/encrypted/rhwp-hwp3-password-123456.hwp`):
//! - everything after the information block (the body, which is then always compressed) is
//!   single DES in ECB mode, whole 8-byte blocks;
//! - the key: the password's UTF-16LE bytes folded into 7 bytes (byte `i` goes to slot
//!   `i mod 7` as `slot = rotl1(slot ^ byte)`), whose 56 bits, 7 at a time, become the high
//!   bits of the 8 DES key bytes (the low bit, DES parity, left 0);
//! - the plaintext is raw deflate followed by the CRC-32 and length of the inflated data
//!   (a gzip trailer): the inflation and these two checks are what tell a wrong password
//!   (there is no verification value); the inflated data's first 256 bytes are a block of its
//!   own (the password check area), the document body follows.
//!
//! Known answer: password `123456` → DES key `c434b20ccc6000d0` (kordoc's test).

use crate::{Error, Password, Result};
use des::cipher::{BlockCipherDecrypt, KeyInit};

/// The bytes before the body in the inflated plaintext.
const CHECK_AREA: usize = 256;

/// The DES key of a password (see the module notes).
pub fn derive_key(password: &Password) -> [u8; 8] {
    let mut folded = [0u8; 7];
    for (i, byte) in password
        .as_str()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .enumerate()
    {
        let slot = &mut folded[i % 7];
        *slot = (*slot ^ byte).rotate_left(1);
    }
    let mut key = [0u8; 8];
    for bit in 0..56 {
        let value = (folded[bit / 8] >> (7 - bit % 8)) & 1;
        key[bit / 7] |= value << (7 - bit % 7);
    }
    key
}

fn wrong_password() -> Error {
    Error::password_required(
        "the password is wrong: the HWP 3.x document's body does not decrypt with it",
    )
}

/// The document body of an encrypted HWP 3.x file from the bytes after its information
/// block: decrypted, inflated (at most `max` bytes), checked, the check area dropped.
pub fn decrypt_body(stored: &[u8], password: &Password, max: u64) -> Result<Vec<u8>> {
    let cipher = des::Des::new_from_slice(&derive_key(password))
        .map_err(|_| Error::corrupt("the HWP 3.x DES key could not be set up"))?;
    // A trailing partial block (none in 한글's files) cannot be decrypted: it is left out.
    let whole = stored.len() - stored.len() % 8;
    let mut plain = stored[..whole].to_vec();
    for block in plain.chunks_exact_mut(8) {
        let mut b = des::cipher::Block::<des::Des>::default();
        b.copy_from_slice(block);
        cipher.decrypt_block(&mut b);
        block.copy_from_slice(&b);
    }
    let (inflated, used) = inflate_counting(&plain, max)?;
    // The gzip-style trailer: CRC-32, then the inflated length modulo 2^32.
    let trailer = plain.get(used..used + 8).ok_or_else(wrong_password)?;
    let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let len = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if crc32fast::hash(&inflated) != crc || inflated.len() as u32 != len {
        return Err(wrong_password());
    }
    if inflated.len() <= CHECK_AREA {
        return Err(Error::corrupt(
            "the encrypted HWP 3.x document holds no body after its password check area",
        ));
    }
    Ok(inflated[CHECK_AREA..].to_vec())
}

/// Raw-deflate inflation of `data` (at most `max` bytes out) and how many input bytes the
/// stream took; a stream that does not inflate is a wrong password (or damage we cannot
/// tell from one).
fn inflate_counting(data: &[u8], max: u64) -> Result<(Vec<u8>, usize)> {
    let mut decoder = flate2::Decompress::new(false);
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let mut out: Vec<u8> = Vec::with_capacity(data.len().saturating_mul(4).min(max).min(64 << 20));
    loop {
        let consumed = usize::try_from(decoder.total_in()).unwrap_or(usize::MAX);
        let before = out.len();
        if out.len() == out.capacity() {
            let more = out
                .capacity()
                .max(4096)
                .min(max.saturating_add(1) - out.len().min(max));
            out.reserve_exact(more.max(1));
        }
        let status = decoder
            .decompress_vec(
                data.get(consumed..).unwrap_or(&[]),
                &mut out,
                flate2::FlushDecompress::None,
            )
            .map_err(|_| wrong_password())?;
        if out.len() > max {
            return Err(Error::too_large(format!(
                "the encrypted HWP 3.x body inflates to more than {max} bytes"
            )));
        }
        let used = usize::try_from(decoder.total_in()).unwrap_or(usize::MAX);
        match status {
            flate2::Status::StreamEnd => return Ok((out, used)),
            _ if used == consumed && out.len() == before && out.len() < out.capacity() => {
                return Err(wrong_password())
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use des::cipher::BlockCipherEncrypt;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn key_derivation_known_answer() {
        assert_eq!(
            hex(&derive_key(&Password::from("123456"))),
            "c434b20ccc6000d0"
        );
        assert_ne!(
            derive_key(&Password::from("123457")),
            derive_key(&Password::from("123456"))
        );
    }

    /// An encrypted body as 한글 writes it, for `body`.
    fn encrypt(body: &[u8], password: &str) -> Vec<u8> {
        use std::io::Write;
        let mut plain = vec![0u8; CHECK_AREA];
        plain.extend_from_slice(body);
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&plain).unwrap();
        let mut out = enc.finish().unwrap();
        out.extend_from_slice(&crc32fast::hash(&plain).to_le_bytes());
        out.extend_from_slice(&(plain.len() as u32).to_le_bytes());
        out.resize(out.len().div_ceil(8) * 8, 0);
        let cipher = des::Des::new_from_slice(&derive_key(&Password::from(password))).unwrap();
        for block in out.chunks_exact_mut(8) {
            let mut b = des::cipher::Block::<des::Des>::default();
            b.copy_from_slice(block);
            cipher.encrypt_block(&mut b);
            block.copy_from_slice(&b);
        }
        out
    }

    #[test]
    fn round_trip_and_wrong_passwords() {
        let body: Vec<u8> = (0..5000u32).map(|i| (i % 7) as u8).collect();
        let stored = encrypt(&body, "암호pw");
        assert_eq!(
            decrypt_body(&stored, &Password::from("암호pw"), 1 << 20).unwrap(),
            body
        );
        for wrong in ["", "암호", "암호pw ", "123456"] {
            let e = decrypt_body(&stored, &Password::from(wrong), 1 << 20).unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::PasswordRequired, "{wrong}");
        }
        assert_eq!(
            decrypt_body(&stored, &Password::from("암호pw"), 100)
                .unwrap_err()
                .code,
            crate::ErrorCode::TooLarge
        );
    }

    /// Any bytes, any length: an error or a body, never a panic.
    #[test]
    fn garbage_never_panics() {
        let stored = encrypt(b"some body text", "pw");
        for cut in 0..stored.len() {
            let _ = decrypt_body(&stored[..cut], &Password::from("pw"), 1 << 20);
        }
        for len in [0usize, 1, 7, 8, 9, 64, 1000] {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 % 256) as u8).collect();
            let _ = decrypt_body(&data, &Password::from("pw"), 1 << 20);
        }
    }
}
