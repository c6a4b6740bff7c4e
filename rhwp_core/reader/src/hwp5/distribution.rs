//! Distribution (배포용) documents: `ViewText/Section*` streams are encrypted.
//!
//! Layout of one `ViewText/SectionN` stream (Hancom, "한글 문서 파일 형식 —
//! 배포용 문서", revision 1.2):
//!
//! 1. one `HWPTAG_DISTRIBUTE_DOC_DATA` record (tag 28) whose 256-byte payload
//!    is scrambled with a pseudo-random byte sequence;
//! 2. the section's record stream (raw deflate when the document is
//!    compressed), encrypted with AES-128 in ECB mode.
//!
//! Unscrambling the payload: its first four bytes (little-endian) seed the
//! MSVC C runtime generator (`state = state * 214013 + 2531011`, each draw
//! yields `(state >> 16) & 0x7FFF`). The generator produces runs: a draw
//! gives the byte to XOR with, the next draw gives the run length
//! `(draw & 0xF) + 1`. Runs cover all 256 positions, but the four seed bytes
//! themselves are left as they are (the generator still advances over them).
//! The unscrambled payload holds a SHA-1 digest written as 40 UTF-16LE hex
//! characters, starting at byte `4 + (seed & 0xF)`; its first 16 bytes are
//! the AES key. pyhwp (`hwp5/distdoc.py`) and rhwp read it the same way, and
//! the corpus documents decrypt to well-formed records with it.

use aes::cipher::{Array, BlockCipherDecrypt, KeyInit};
use aes::Aes128;

use crate::{Error, Result};

/// `HWPTAG_BEGIN (16) + 12`.
const TAG_DISTRIBUTE_DOC_DATA: u16 = 28;
/// Size of the scrambled seed/key payload the specification defines.
const DISTRIBUTE_DATA_LEN: usize = 256;
const AES_BLOCK_LEN: usize = 16;
/// Record header: size field value meaning "a 32-bit size follows".
const EXTENDED_SIZE: u32 = 0xFFF;

/// Decrypt one raw `ViewText/SectionN` stream: returns the section's record
/// bytes as they would be stored in `BodyText/SectionN` (still raw-deflate
/// compressed when the document's compressed flag is set).
///
/// The ciphertext should be whole AES blocks. When it is not (a truncated
/// stream), the whole blocks are decrypted and the trailing partial block is
/// dropped: its bytes cannot be decrypted on their own, and handing the
/// caller undecrypted bytes would only turn into garbage records. The
/// caller's inflater or record parser then reports the truncation.
///
/// The plaintext ends the way Hancom's compressed BodyText streams do: after
/// the raw deflate data comes a CRC-32 and the inflated size (little-endian,
/// in the corpus separated by zero bytes that pad to whole AES blocks). An
/// inflater stops at the end of the deflate data and ignores them; an
/// uncompressed distribution document (none in the corpus) would hand the
/// record parser up to 15 bytes of padding after the last record.
pub fn decrypt_section(stream: &[u8]) -> Result<Vec<u8>> {
    let (header_len, tag, size) = read_record_header(stream)?;
    if tag != TAG_DISTRIBUTE_DOC_DATA {
        return Err(Error::corrupt(format!(
            "distribution section: first record has tag {tag}, expected DISTRIBUTE_DOC_DATA ({TAG_DISTRIBUTE_DOC_DATA})"
        )));
    }
    let payload_end = header_len
        .checked_add(size)
        .filter(|&end| end <= stream.len())
        .ok_or_else(|| {
            Error::corrupt(format!(
                "distribution section: DISTRIBUTE_DOC_DATA declares {size} bytes but only {} remain",
                stream.len().saturating_sub(header_len)
            ))
        })?;
    // The specification fixes the payload at 256 bytes; a longer one is
    // tolerated (only its first 256 bytes carry the seed and key).
    let distribution_data = stream
        .get(header_len..header_len + DISTRIBUTE_DATA_LEN.min(size))
        .and_then(|bytes| <&[u8; DISTRIBUTE_DATA_LEN]>::try_from(bytes).ok())
        .ok_or_else(|| {
            Error::corrupt(format!(
                "distribution section: DISTRIBUTE_DOC_DATA holds {size} bytes, expected {DISTRIBUTE_DATA_LEN}"
            ))
        })?;
    let key = aes_key(distribution_data);
    let ciphertext = stream.get(payload_end..).unwrap_or_default();
    Ok(decrypt_aes128_ecb(&key, ciphertext))
}

/// Header of the record at the start of `bytes`: (header length, tag, payload size).
fn read_record_header(bytes: &[u8]) -> Result<(usize, u16, usize)> {
    let word = read_u32_le(bytes, 0).ok_or_else(|| {
        Error::corrupt("distribution section: stream shorter than a record header")
    })?;
    let tag = (word & 0x3FF) as u16;
    let size = word >> 20;
    if size == EXTENDED_SIZE {
        let size = read_u32_le(bytes, 4).ok_or_else(|| {
            Error::corrupt(
                "distribution section: record header announces a 32-bit size that is missing",
            )
        })?;
        Ok((8, tag, size as usize))
    } else {
        Ok((4, tag, size as usize))
    }
}

fn read_u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(word.try_into().ok()?))
}

/// The MSVC C runtime `rand()`: the generator Hancom seeds with `srand`.
struct MsvcRand {
    state: u32,
}

impl MsvcRand {
    fn next(&mut self) -> u32 {
        self.state = self.state.wrapping_mul(214_013).wrapping_add(2_531_011);
        (self.state >> 16) & 0x7FFF
    }
}

/// Unscramble the DISTRIBUTE_DOC_DATA payload and take the AES-128 key from it.
fn aes_key(scrambled: &[u8; DISTRIBUTE_DATA_LEN]) -> [u8; AES_BLOCK_LEN] {
    let seed = u32::from_le_bytes([scrambled[0], scrambled[1], scrambled[2], scrambled[3]]);
    // The key starts at most at 4 + 15 and is 16 bytes long, so only the
    // first 35 bytes need unscrambling; the generator must still be stepped
    // from position 0 because the seed bytes consume part of the first run.
    let key_offset = 4 + (seed & 0xF) as usize;
    let mut rand = MsvcRand { state: seed };
    let mut key = [0u8; AES_BLOCK_LEN];
    let (mut xor_byte, mut run_left) = (0u8, 0u32);
    for (position, &byte) in scrambled
        .iter()
        .enumerate()
        .take(key_offset + AES_BLOCK_LEN)
    {
        if run_left == 0 {
            xor_byte = rand.next() as u8;
            run_left = (rand.next() & 0xF) + 1;
        }
        run_left -= 1;
        if let Some(slot) = position
            .checked_sub(key_offset)
            .and_then(|i| key.get_mut(i))
        {
            // Positions >= key_offset >= 4: never a seed byte, always XORed.
            *slot = byte ^ xor_byte;
        }
    }
    key
}

/// AES-128-ECB over the whole 16-byte blocks of `ciphertext`.
fn decrypt_aes128_ecb(key: &[u8; AES_BLOCK_LEN], ciphertext: &[u8]) -> Vec<u8> {
    let cipher = Aes128::new(&Array::from(*key));
    let whole_len = ciphertext.len() - ciphertext.len() % AES_BLOCK_LEN;
    let mut plaintext = ciphertext.get(..whole_len).unwrap_or_default().to_vec();
    let (blocks, _partial) = Array::slice_as_chunks_mut(&mut plaintext);
    // All blocks at once: the backend pipelines several blocks per call.
    cipher.decrypt_blocks(blocks);
    plaintext
}

#[cfg(test)]
mod tests {
    use super::*;
    use aes::cipher::BlockCipherEncrypt;
    use std::io::{Cursor, Read};
    use std::path::PathBuf;

    const TAG_PARA_HEADER: u16 = 66;
    const TAG_PARA_TEXT: u16 = 67;

    /// Build a ViewText stream the way Hancom would: scramble a payload that
    /// carries `key` at the seed-derived offset, then encrypt `plaintext`
    /// (zero-padded to whole blocks).
    fn encrypt_section(seed: u32, key: [u8; 16], plaintext: &[u8]) -> Vec<u8> {
        let mut payload = [0u8; DISTRIBUTE_DATA_LEN];
        payload[..4].copy_from_slice(&seed.to_le_bytes());
        for (i, b) in payload.iter_mut().enumerate().skip(4) {
            *b = (i as u8).wrapping_mul(7);
        }
        let key_offset = 4 + (seed & 0xF) as usize;
        payload[key_offset..key_offset + 16].copy_from_slice(&key);
        // Scrambling is its own inverse (XOR with the same sequence).
        let mut rand = MsvcRand { state: seed };
        let (mut xor_byte, mut run_left) = (0u8, 0u32);
        for (i, b) in payload.iter_mut().enumerate() {
            if run_left == 0 {
                xor_byte = rand.next() as u8;
                run_left = (rand.next() & 0xF) + 1;
            }
            run_left -= 1;
            if i >= 4 {
                *b ^= xor_byte;
            }
        }
        let mut stream = (u32::from(TAG_DISTRIBUTE_DOC_DATA) | (256 << 20))
            .to_le_bytes()
            .to_vec();
        stream.extend_from_slice(&payload);
        let cipher = Aes128::new(&Array::from(key));
        let mut body = plaintext.to_vec();
        body.resize(body.len().div_ceil(16) * 16, 0);
        let (blocks, _) = Array::slice_as_chunks_mut(&mut body);
        cipher.encrypt_blocks(blocks);
        stream.extend_from_slice(&body);
        stream
    }

    #[test]
    fn msvc_rand_matches_the_c_runtime() {
        // srand(1): the first rand() values of the MSVC runtime.
        let mut rand = MsvcRand { state: 1 };
        let first: Vec<u32> = (0..5).map(|_| rand.next()).collect();
        assert_eq!(first, [41, 18467, 6334, 26500, 19169]);
    }

    #[test]
    fn aes_matches_fips197_vector() {
        let key = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        let ciphertext = [
            0x39, 0x25, 0x84, 0x1d, 0x02, 0xdc, 0x09, 0xfb, 0xdc, 0x11, 0x85, 0x97, 0x19, 0x6a,
            0x0b, 0x32,
        ];
        let plaintext = [
            0x32, 0x43, 0xf6, 0xa8, 0x88, 0x5a, 0x30, 0x8d, 0x31, 0x31, 0x98, 0xa2, 0xe0, 0x37,
            0x07, 0x34,
        ];
        assert_eq!(decrypt_aes128_ecb(&key, &ciphertext), plaintext);
    }

    #[test]
    fn round_trip_for_every_key_offset() {
        let plaintext: Vec<u8> = (0..100u8).collect();
        for seed in [0u32, 1, 0x1234_5678, 0xFFFF_FFFF, 0xDEAD_BEEF, 15, 16, 31] {
            let key = [seed as u8 ^ 0x5A; 16];
            let stream = encrypt_section(seed, key, &plaintext);
            let out = decrypt_section(&stream).expect("decrypts");
            assert_eq!(&out[..100], &plaintext[..], "seed {seed:#x}");
            assert_eq!(out.len(), 112);
        }
    }

    #[test]
    fn partial_trailing_block_is_dropped() {
        let plaintext = [7u8; 32];
        let mut stream = encrypt_section(42, [3; 16], &plaintext);
        stream.extend_from_slice(&[1, 2, 3]);
        assert_eq!(decrypt_section(&stream).expect("decrypts"), plaintext);
        // Only the record, no ciphertext: an empty section.
        let bare = &stream[..4 + 256];
        assert_eq!(decrypt_section(bare).expect("decrypts"), Vec::<u8>::new());
    }

    #[test]
    fn extended_size_header_is_read() {
        let normal = encrypt_section(9, [9; 16], &[1; 16]);
        let mut extended = (u32::from(TAG_DISTRIBUTE_DOC_DATA) | (0xFFF << 20))
            .to_le_bytes()
            .to_vec();
        extended.extend_from_slice(&256u32.to_le_bytes());
        extended.extend_from_slice(&normal[4..]);
        assert_eq!(decrypt_section(&extended).expect("decrypts"), vec![1; 16]);
    }

    #[test]
    fn malformed_streams_are_corrupt_not_panics() {
        let good = encrypt_section(77, [1; 16], &[0; 48]);
        for len in 0..good.len() {
            let result = decrypt_section(&good[..len]);
            if len < 4 + 256 {
                let err = result.expect_err("truncated before the key data");
                assert_eq!(err.code, crate::ErrorCode::CorruptDocument, "len {len}");
            } else {
                assert!(result.is_ok(), "len {len}");
            }
        }
        // Wrong first tag (a PARA_HEADER as in BodyText).
        let mut wrong_tag = good.clone();
        wrong_tag[0] = TAG_PARA_HEADER as u8;
        assert!(decrypt_section(&wrong_tag).is_err());
        // Payload shorter than 256 bytes.
        let mut short = (u32::from(TAG_DISTRIBUTE_DOC_DATA) | (100 << 20))
            .to_le_bytes()
            .to_vec();
        short.extend_from_slice(&[0; 200]);
        assert!(decrypt_section(&short).is_err());
        // Extended size pointing far beyond the stream.
        let mut huge = (u32::from(TAG_DISTRIBUTE_DOC_DATA) | (0xFFF << 20))
            .to_le_bytes()
            .to_vec();
        huge.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(decrypt_section(&huge).is_err());
        // Random bytes: never a panic.
        let mut state = 0x1234_5678u32;
        for _ in 0..2000 {
            let len = (state % 600) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (state >> 24) as u8
                })
                .collect();
            let _ = decrypt_section(&bytes);
            state = state.wrapping_add(len as u32);
        }
    }

    // ---- End to end on corpus documents (skipped when the corpus is absent). ----

    fn corpus(name: &str) -> Option<Vec<u8>> {
        let path = PathBuf::from("/work/shared/corpus/hwp").join(name);
        std::fs::read(path).ok()
    }

    fn read_stream(file: &[u8], name: &str) -> Vec<u8> {
        let mut compound = cfb::CompoundFile::open(Cursor::new(file)).expect("compound file");
        let mut stream = compound.open_stream(name).expect("stream");
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).expect("read stream");
        bytes
    }

    fn inflate(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(bytes)
            .read_to_end(&mut out)
            .expect("raw deflate");
        out
    }

    /// (tag, payload) of every record; panics on a malformed stream.
    fn records(mut bytes: &[u8]) -> Vec<(u16, &[u8])> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let (header_len, tag, size) = read_record_header(bytes).expect("record header");
            let payload = bytes
                .get(header_len..header_len + size)
                .expect("record fits in stream");
            out.push((tag, payload));
            bytes = &bytes[header_len + size..];
        }
        out
    }

    /// Plain text of PARA_TEXT records, skipping 8-unit inline/extended controls.
    fn para_text(records: &[(u16, &[u8])]) -> String {
        let mut text = String::new();
        for (_, payload) in records.iter().filter(|(tag, _)| *tag == TAG_PARA_TEXT) {
            let units: Vec<u16> = payload
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect();
            let mut i = 0;
            let mut visible = Vec::new();
            while i < units.len() {
                match units[i] {
                    13 | 10 => {
                        visible.push(u16::from(b'\n'));
                        i += 1
                    }
                    9 => {
                        visible.push(u16::from(b'\t'));
                        i += 8
                    }
                    0 | 24..=31 => {
                        if units[i] >= 30 {
                            visible.push(u16::from(b' '));
                        }
                        i += 1
                    }
                    1..=31 => i += 8,
                    unit => {
                        visible.push(unit);
                        i += 1
                    }
                }
            }
            text.push_str(&String::from_utf16_lossy(&visible));
        }
        text
    }

    fn file_flags(file: &[u8]) -> u32 {
        let header = read_stream(file, "/FileHeader");
        read_u32_le(&header, 36).expect("FileHeader flags")
    }

    /// Decrypt ViewText/Section0 of a corpus document and return its text.
    fn decrypted_section_text(name: &str) -> Option<String> {
        let file = corpus(name)?;
        let flags = file_flags(&file);
        assert_eq!(
            flags & 0b101,
            0b101,
            "{name}: compressed + distribution flags"
        );
        let raw = read_stream(&file, "/ViewText/Section0");
        let decrypted = decrypt_section(&raw).expect("decrypts");
        let section = inflate(&decrypted);
        let records = records(&section);
        assert_eq!(
            records.first().map(|r| r.0),
            Some(TAG_PARA_HEADER),
            "{name}: first record"
        );
        let text = para_text(&records);
        if let Ok(dir) = std::env::var("HWP5DIST_DUMP_DIR") {
            let _ = std::fs::write(PathBuf::from(dir).join(format!("{name}.txt")), &text);
        }
        Some(text)
    }

    #[test]
    fn corpus_hwplib_distribution_decrypts() {
        let Some(text) = decrypted_section_text("hwplib-distribution.hwp") else {
            return;
        };
        for word in [
            "강남세움복지관",
            "시설관리원 용역업체 선정 입찰공고",
            "입찰에 부치는 사항",
            "제안요청서",
        ] {
            assert!(text.contains(word), "missing {word:?}");
        }
    }

    #[test]
    fn corpus_hongbo_distribution_decrypts() {
        let Some(text) = decrypted_section_text("rhwp-hongbo-distribution-2025.hwp") else {
            return;
        };
        assert!(
            text.chars().filter(|c| ('가'..='힣').contains(c)).count() > 500,
            "{text}"
        );
    }

    #[test]
    fn corpus_pyhwp_viewtext_decrypts() {
        let Some(text) = decrypted_section_text("pyhwp-viewtext.hwp") else {
            return;
        };
        assert!(!text.trim().is_empty());
    }

    /// DocInfo of a distribution document is not encrypted: it inflates like
    /// any other document's. (None of the three corpus documents carries a
    /// DISTRIBUTE_DOC_DATA record in DocInfo; only the ViewText streams do.)
    /// Their BodyText/Section0 is plain too but holds only a placeholder.
    #[test]
    fn corpus_distribution_doc_info_is_plain() {
        for name in [
            "hwplib-distribution.hwp",
            "rhwp-hongbo-distribution-2025.hwp",
            "pyhwp-viewtext.hwp",
        ] {
            let Some(file) = corpus(name) else { continue };
            let doc_info = inflate(&read_stream(&file, "/DocInfo"));
            let doc_info_records = records(&doc_info);
            assert_eq!(
                doc_info_records.first().map(|r| r.0),
                Some(16),
                "{name}: DOCUMENT_PROPERTIES first"
            );
            assert!(
                doc_info_records
                    .iter()
                    .all(|r| r.0 != TAG_DISTRIBUTE_DOC_DATA),
                "{name}"
            );
            // BodyText exists too, in the clear, but only holds Hancom's
            // placeholder: the reader must take ViewText when the flag is set.
            let body = inflate(&read_stream(&file, "/BodyText/Section0"));
            let placeholder = para_text(&records(&body));
            assert!(
                placeholder.starts_with("이 문서는 상위 버전의 배포용 문서입니다."),
                "{name}: {placeholder}"
            );
        }
    }
}
