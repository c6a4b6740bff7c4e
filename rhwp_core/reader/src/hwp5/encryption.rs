//! Password-protected HWP 5.0 documents (FileHeader property bit 1, "암호 설정 여부").
//!
//! The spec ("한글 문서 파일 형식 5.0", 파일 인식 정보) names the scheme by `EncryptVersion`
//! (FileHeader offset 44: 1 = 한글 2.5 or older, 2 = 3.0 Enhanced, 3 = 3.0 Old, 4 = 7.0 and
//! later) but does not describe it. Version 4, what current 한글 writes, is known from
//! Volexity's hwp-extract (`encrypt.py`, BSD-3-Clause), as rhwp and kordoc read it:
//! - key: SHA-1 over the password bytes (UTF-8), each preceded by the previous byte rotated
//!   left by one bit (0xEC before the first); the digest's first 16 bytes are an AES-128 key;
//! - cipher: AES-128 in 1-bit CFB (CFB-1) with a zero IV, the shift register running over the
//!   whole stream; each of `DocInfo`, `BodyText/Section*`, `BinData/*` and `Scripts/*` is
//!   encrypted on its own (then raw deflate when the document is compressed); `FileHeader`,
//!   the summary and the `DocOptions` streams are not.
//!
//! There is no verification value: a wrong password shows as a `DocInfo` that does not begin
//! with its DOCUMENT_PROPERTIES record (`check`). CFB-1 costs one AES block per bit, so the
//! ciphertext one document may decrypt is bounded (`MAX_CIPHERTEXT_BYTES`).
//!
//! Known answer: password `123456` → key `4471ba5269ac43d4917f7e442f9b22fc`.

use crate::{Error, Password, Result};
use aes::cipher::{BlockCipherEncrypt, KeyInit};
use sha1::{Digest, Sha1};

/// The EncryptVersion this reader decrypts.
pub const SUPPORTED_VERSION: u32 = 4;

/// Ciphertext bytes one document may decrypt in all: 128 AES blocks per 16 bytes make
/// 64 MiB several seconds of work, far above any real document's text streams.
pub const MAX_CIPHERTEXT_BYTES: u64 = 64 << 20;

/// The AES-128 key of a password (see the module notes).
pub fn derive_key(password: &Password) -> [u8; 16] {
    let bytes = password.as_bytes();
    let mut input = Vec::with_capacity(bytes.len() * 2);
    let mut previous = 0xECu8;
    for &b in bytes {
        input.push(previous.rotate_left(1));
        input.push(b);
        previous = b;
    }
    let digest = Sha1::digest(&input);
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// Whether the stream at `path` is encrypted in a password-protected document.
pub fn is_encrypted_stream(path: &str) -> bool {
    let path = path.trim_start_matches('/');
    path == "DocInfo"
        || ["BodyText/", "BinData/", "Scripts/"]
            .iter()
            .any(|dir| path.starts_with(dir))
}

/// A decryptor for one document's streams.
pub struct Decryptor {
    cipher: aes::Aes128,
    /// Ciphertext bytes decrypted so far (bounded by `MAX_CIPHERTEXT_BYTES`).
    spent: u64,
}

impl std::fmt::Debug for Decryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Decryptor(<key>)")
    }
}

impl Decryptor {
    pub fn new(password: &Password) -> Self {
        Decryptor {
            cipher: aes::Aes128::new(&derive_key(password).into()),
            spent: 0,
        }
    }

    /// One stream's plaintext (CFB-1 decryption, zero IV).
    pub fn decrypt(&mut self, data: &[u8]) -> Result<Vec<u8>> {
        self.spent = self.spent.saturating_add(data.len() as u64);
        if self.spent > MAX_CIPHERTEXT_BYTES {
            return Err(Error::too_large(format!(
                "the password-protected document's streams exceed {MAX_CIPHERTEXT_BYTES} bytes to decrypt"
            )));
        }
        Ok(cfb1_decrypt(&self.cipher, data))
    }
}

/// AES 1-bit CFB decryption: each bit is XORed with the top bit of the encrypted shift
/// register, into which the ciphertext bit is then shifted.
fn cfb1_decrypt(cipher: &aes::Aes128, data: &[u8]) -> Vec<u8> {
    let mut register = 0u128;
    let mut out = Vec::with_capacity(data.len());
    for &byte in data {
        let mut plain = 0u8;
        for bit in (0..8).rev() {
            let mut block = aes::cipher::Block::<aes::Aes128>::from(register.to_be_bytes());
            cipher.encrypt_block(&mut block);
            let c = (byte >> bit) & 1;
            plain |= (c ^ (block[0] >> 7)) << bit;
            register = (register << 1) | u128::from(c);
        }
        out.push(plain);
    }
    out
}

/// Whether decrypted (and inflated) `DocInfo` bytes begin as a DocInfo does: a level-0
/// DOCUMENT_PROPERTIES record (tag 0x10, spec 표 13) of plausible size. Random bytes from
/// a wrong password pass with odds of about one in a million.
pub fn looks_like_doc_info(data: &[u8]) -> bool {
    let Some(h) = data.get(..4) else {
        return false;
    };
    let header = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
    let (tag, level, size) = (header & 0x3FF, (header >> 10) & 0x3FF, header >> 20);
    tag == 0x10 && level == 0 && (20..=64).contains(&size)
}

pub fn wrong_password() -> Error {
    Error::password_required(
        "the password is wrong: the HWP document's DocInfo stream does not decrypt with it",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn key_derivation_known_answer() {
        assert_eq!(
            hex(&derive_key(&Password::from("123456"))),
            "4471ba5269ac43d4917f7e442f9b22fc"
        );
    }

    /// CFB-1 encryption, for the round trip (the same feedback, of the ciphertext bit).
    fn cfb1_encrypt(cipher: &aes::Aes128, data: &[u8]) -> Vec<u8> {
        let mut register = 0u128;
        let mut out = Vec::new();
        for &byte in data {
            let mut enc = 0u8;
            for bit in (0..8).rev() {
                let mut block = aes::cipher::Block::<aes::Aes128>::from(register.to_be_bytes());
                cipher.encrypt_block(&mut block);
                let c = ((byte >> bit) & 1) ^ (block[0] >> 7);
                enc |= c << bit;
                register = (register << 1) | u128::from(c);
            }
            out.push(enc);
        }
        out
    }

    /// NIST SP 800-38A F.3.1 (CFB1-AES128.Decrypt): the mode is standard CFB-1.
    #[test]
    fn cfb1_matches_nist_vector() {
        let key: [u8; 16] = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        let cipher = aes::Aes128::new(&key.into());
        // With the zero IV HWP uses, decrypting what we encrypt gives it back, bit for bit.
        let plain: Vec<u8> = (0..100u8).collect();
        let enc = cfb1_encrypt(&cipher, &plain);
        assert_ne!(enc, plain);
        assert_eq!(cfb1_decrypt(&cipher, &enc), plain);
        // SP 800-38A's vector uses IV 000102..0f: the first 16 bits of
        // 6bc1bee22e409f96 encrypt to 68b3.
        let mut register = u128::from_be_bytes([
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d,
            0x0e, 0x0f,
        ]);
        let mut out = 0u16;
        for i in (0..16).rev() {
            let mut block = aes::cipher::Block::<aes::Aes128>::from(register.to_be_bytes());
            cipher.encrypt_block(&mut block);
            let c = ((0x6bc1u16 >> i) & 1) as u8 ^ (block[0] >> 7);
            out |= u16::from(c) << i;
            register = (register << 1) | u128::from(c);
        }
        assert_eq!(out, 0x68b3);
    }

    #[test]
    fn streams_and_doc_info_check() {
        assert!(is_encrypted_stream("DocInfo") && is_encrypted_stream("/BodyText/Section0"));
        assert!(
            is_encrypted_stream("BinData/BIN0001.png")
                && is_encrypted_stream("Scripts/JScriptVersion")
        );
        assert!(
            !is_encrypted_stream("FileHeader")
                && !is_encrypted_stream("\u{5}HwpSummaryInformation")
        );
        assert!(!is_encrypted_stream("DocOptions/_LinkDoc") && !is_encrypted_stream("PrvText"));
        let header = 0x10u32 | (26 << 20);
        assert!(looks_like_doc_info(&header.to_le_bytes()));
        assert!(!looks_like_doc_info(&[0x10, 0, 0]));
        assert!(!looks_like_doc_info(&(0x11u32 | (26 << 20)).to_le_bytes()));
    }

    #[test]
    fn decryption_is_bounded() {
        let mut d = Decryptor::new(&Password::from("pw"));
        assert_eq!(d.decrypt(&[]).unwrap(), Vec::<u8>::new());
        d.spent = MAX_CIPHERTEXT_BYTES;
        assert_eq!(
            d.decrypt(&[0]).unwrap_err().code,
            crate::ErrorCode::TooLarge
        );
        assert!(!format!("{d:?}").contains("pw"));
    }
}
