//! Password-protected documents (HWPX, HWP 3.x and HWP 5.0 encryption): the licence-noted fixtures in
//! tests/fixtures/encrypted (password `123456`) read with their password like their
//! unencrypted twin; without it, or with a wrong one, `password_required`, and the password
//! appears in no message. Also HWPX packages whose part names other writers spell differently.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::text::document_text;
use rhwp_reader::{read, read_guarded, ErrorCode, Options, Password};
use std::io::Write;

mod common;
use common::fixtures;

const PASSWORD: &str = "123456";

fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures().join("encrypted").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn with_password(password: &str) -> Options {
    Options {
        password: Some(Password::from(password)),
        ..Options::default()
    }
}

/// Each character bigram of `a` found in `b` (as a multiset), over all of `a`'s: the recall
/// measure of tools/recall.py, whitespace removed.
fn bigram_recall(a: &str, b: &str) -> f64 {
    use std::collections::HashMap;
    let grams = |s: &str| {
        let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
        let mut m: HashMap<(char, char), usize> = HashMap::new();
        for w in chars.windows(2) {
            *m.entry((w[0], w[1])).or_default() += 1;
        }
        m
    };
    let (ga, gb) = (grams(a), grams(b));
    let total: usize = ga.values().sum();
    if total == 0 {
        return 1.0;
    }
    let hit: usize = ga
        .iter()
        .map(|(k, n)| (*n).min(gb.get(k).copied().unwrap_or(0)))
        .sum();
    hit as f64 / total as f64
}

#[test]
fn encrypted_hwpx_reads_like_its_twin() {
    let doc = read(
        &fixture("kordoc-hwpx-password-123456.hwpx"),
        &with_password(PASSWORD),
    )
    .unwrap();
    let twin = read(
        &fixture("kordoc-hwpx-password-123456-twin.hwpx"),
        &Options::default(),
    )
    .unwrap();
    let (a, b) = (document_text(&doc, true), document_text(&twin, true));
    assert!(a.chars().count() > 500, "{a}");
    assert_eq!(a, b, "the same document, encrypted or not");
    assert!(bigram_recall(&a, &b) >= 0.99 && bigram_recall(&b, &a) >= 0.99);
    // The pictures decrypt too (any caller of the package layer gets plaintext).
    for item in &twin.bin_data {
        let lookup = rhwp_reader::bin_data::read_bin_data(
            &fixture("kordoc-hwpx-password-123456.hwpx"),
            &item.name,
            &with_password(PASSWORD),
        )
        .unwrap();
        let plain = rhwp_reader::bin_data::read_bin_data(
            &fixture("kordoc-hwpx-password-123456-twin.hwpx"),
            &item.name,
            &Options::default(),
        )
        .unwrap();
        // The twin was saved again by Hancom: the same pictures, maybe another name's case.
        let bytes = |l: rhwp_reader::bin_data::Lookup| match l {
            rhwp_reader::bin_data::Lookup::Found { data, .. } => data,
            other => panic!("{}: {other:?}", item.name),
        };
        assert!(bytes(lookup) == bytes(plain), "{}", item.name);
    }
}

#[test]
fn encrypted_hwpx_without_or_with_a_wrong_password_is_refused() {
    let bytes = fixture("kordoc-hwpx-password-123456.hwpx");
    let e = read(&bytes, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::PasswordRequired, "{e}");
    assert!(e.suggestion.contains("password"));
    for wrong in ["1234567", "", "12345", "비밀번호"] {
        let e = read_guarded(&bytes, &with_password(wrong)).unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired, "{wrong}: {e}");
        assert!(e.message.contains("wrong"), "{}", e.message);
        if !wrong.is_empty() {
            assert!(!e.message.contains(wrong) && !e.suggestion.contains(wrong));
        }
        let e = rhwp_reader::bin_data::read_bin_data(
            &bytes,
            "BinData/image1.bmp",
            &with_password(wrong),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired, "{e}");
    }
    // Without a password, its pictures are refused rather than handed out as ciphertext.
    let e = rhwp_reader::bin_data::read_bin_data(&bytes, "BinData/image1.bmp", &Options::default())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::PasswordRequired);
}

#[test]
fn a_password_for_a_plain_document_is_ignored() {
    let bytes = fixture("kordoc-hwpx-password-123456-twin.hwpx");
    let a = read(&bytes, &with_password("anything")).unwrap();
    let b = read(&bytes, &Options::default()).unwrap();
    assert_eq!(document_text(&a, true), document_text(&b, true));
}

/// The twin's parts re-zipped under the names `rename` gives them.
fn renamed(bytes: &[u8], rename: impl Fn(&str) -> String) -> Vec<u8> {
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        let original = entry.name().unwrap().into_owned();
        let name = if original == "mimetype" {
            original
        } else {
            rename(&original)
        };
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        w.start_file(name, options).unwrap();
        w.write_all(&data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// 한글 reads part names with backslashes, another case or a leading `./` (issue 24 part 5:
/// a form-filling tool on Windows writes `Contents\section0.xml`): the same package under
/// such names reads identically.
#[test]
fn part_names_as_hancom_reads_them() {
    let twin = fixture("kordoc-hwpx-password-123456-twin.hwpx");
    let reference = read(&twin, &Options::default()).unwrap();
    let expected = document_text(&reference, true);
    type Rename = fn(&str) -> String;
    let spellings: [(&str, Rename); 4] = [
        ("slash", |n| n.to_string()),
        ("backslash", |n| n.replace('/', "\\")),
        ("dot-slash", |n| format!("./{n}")),
        ("upper-case", |n| n.to_uppercase()),
    ];
    for (label, rename) in spellings {
        let bytes = renamed(&twin, rename);
        let doc = read(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(document_text(&doc, true), expected, "{label}");
        assert_eq!(doc.sections.len(), reference.sections.len(), "{label}");
        assert_eq!(doc.bin_data.len(), reference.bin_data.len(), "{label}");
        assert_eq!(
            format!("{:?}", doc.styles.get()),
            format!("{:?}", reference.styles.get()),
            "{label}: header.xml found"
        );
    }
    // And the encrypted package too, renamed the Windows way (the manifest keeps `/`).
    let enc = renamed(&fixture("kordoc-hwpx-password-123456.hwpx"), |n| {
        n.replace('/', "\\")
    });
    let doc = read(&enc, &with_password(PASSWORD)).unwrap();
    assert_eq!(document_text(&doc, true), expected);
}

/// HWP 3.x (single DES, see `hwp3::encryption`): rhwp's sample, password `123456`.
#[test]
fn encrypted_hwp3_reads_with_its_password() {
    let bytes = fixture("rhwp-hwp3-password-123456.hwp");
    let doc = read(&bytes, &with_password(PASSWORD)).unwrap();
    let text = document_text(&doc, true);
    let hangul = text.chars().filter(|c| ('가'..='힣').contains(c)).count();
    assert!(hangul > 200, "{text}");
    assert!(!text.contains('\u{FFFD}'));
    // The same 한글 97 notice as the HWPX fixture's twin (Hancom's later save of it).
    let twin = read(
        &fixture("kordoc-hwpx-password-123456-twin.hwpx"),
        &Options::default(),
    )
    .unwrap();
    let twin = document_text(&twin, true);
    let (there, back) = (bigram_recall(&text, &twin), bigram_recall(&twin, &text));
    assert!(there >= 0.99 && back >= 0.99, "{there} {back}");
    let e = read(&bytes, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::PasswordRequired);
    for wrong in ["12345", "1234567", "", "암호"] {
        let e = read_guarded(&bytes, &with_password(wrong)).unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired, "{wrong}: {e}");
        assert!(e.message.contains("wrong"));
    }
}

/// AES-128 CFB-1 encryption with a zero IV, as `hwp5::encryption` decrypts.
fn cfb1_encrypt(key: [u8; 16], data: &[u8]) -> Vec<u8> {
    use aes::cipher::{BlockCipherEncrypt, KeyInit};
    let cipher = aes::Aes128::new(&key.into());
    let mut register = 0u128;
    let mut out = Vec::with_capacity(data.len());
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

/// An HWP 5.0 document protected the way 한글 2007 and later protect it (EncryptVersion 4):
/// the FileHeader's password bit and version set, DocInfo, the sections and the bin data
/// encrypted each on its own. No such document may be redistributed here, so one is made.
fn protect_hwp5(bytes: &[u8], password: &str) -> Vec<u8> {
    use std::io::{Cursor, Read};
    let key = rhwp_reader::hwp5::encryption::derive_key(&Password::from(password));
    let mut source = cfb::CompoundFile::open(Cursor::new(bytes)).unwrap();
    let entries: Vec<(String, bool)> = source
        .walk()
        .map(|e| (e.path().to_string_lossy().into_owned(), e.is_stream()))
        .collect();
    let mut out =
        cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::new())).unwrap();
    for (path, is_stream) in entries {
        if path == "/" {
            continue;
        }
        if !is_stream {
            out.create_storage(&path).unwrap();
            continue;
        }
        let mut data = Vec::new();
        source
            .open_stream(&path)
            .unwrap()
            .read_to_end(&mut data)
            .unwrap();
        let name = path.trim_start_matches('/');
        if name == "FileHeader" {
            data[36] |= 0b10;
            data[44..48].copy_from_slice(&4u32.to_le_bytes());
        } else if rhwp_reader::hwp5::encryption::is_encrypted_stream(name) {
            data = cfb1_encrypt(key, &data);
        }
        out.create_stream(&path).unwrap().write_all(&data).unwrap();
    }
    out.flush().unwrap();
    out.into_inner().into_inner()
}

#[test]
fn encrypted_hwp5_reads_with_its_password() {
    for name in ["hwplib-etc.hwp", "rhwp-nested-cell-pagination.hwp"] {
        let path = fixtures().join("hwp").join(name);
        let plain = std::fs::read(&path).unwrap();
        let protected = protect_hwp5(&plain, "한글2024!");
        let expected = document_text(&read(&plain, &Options::default()).unwrap(), true);
        let doc = read(&protected, &with_password("한글2024!")).unwrap();
        assert_eq!(document_text(&doc, true), expected, "{name}");
        let e = read(&protected, &Options::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired, "{name}: {e}");
        for wrong in ["", "한글2024", "123456"] {
            let e = read_guarded(&protected, &with_password(wrong)).unwrap_err();
            assert_eq!(e.code, ErrorCode::PasswordRequired, "{name} {wrong}: {e}");
            assert!(e.message.contains("wrong"), "{}", e.message);
            assert!(!e.message.contains("한글2024"));
        }
        // Bin data decrypts too.
        let reference = read(&plain, &Options::default()).unwrap();
        for item in reference.bin_data.iter().filter(|b| b.storage != "link") {
            let a = rhwp_reader::bin_data::read_bin_data(&plain, &item.name, &Options::default());
            let b = rhwp_reader::bin_data::read_bin_data(
                &protected,
                &item.name,
                &with_password("한글2024!"),
            );
            assert!(a.ok() == b.ok(), "{name}: {}", item.name);
        }
    }
}

/// The corpus's protected HWP 5.0 files use the older scheme (EncryptVersion 0 in their
/// FileHeader): without a password they ask for one, with one they say the scheme is not read.
#[test]
fn older_hwp5_schemes_are_unsupported_with_a_password() {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    for (name, password) in [
        ("pyhwp-password-12345.hwp", "12345"),
        ("hwpswift-password-normal.hwp", "12345"),
    ] {
        let bytes = std::fs::read(corpus.join("bad").join(name)).unwrap();
        let e = read(&bytes, &Options::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired, "{name}: {e}");
        let e = read(&bytes, &with_password(password)).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnsupportedFormat, "{name}: {e}");
        assert!(e.message.contains("EncryptVersion 0"), "{}", e.message);
        assert!(!e.message.contains(password));
    }
}

/// The decryption fuzz target's seeds (fuzz/regressions/decrypt-*), each mutated a few
/// hundred ways (bytes flipped, cut short, lengthened): never a panic (no cargo-fuzz needed).
#[test]
fn mutated_decryption_inputs_do_not_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("decrypt-"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .filter(|b| b.len() < 20_000)
        .collect();
    assert!(seeds.len() >= 4);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    let options = Options::default();
    for seed in seeds.iter_mut() {
        for round in 0..200 {
            let mut input = seed.clone();
            match round % 4 {
                0 => input.truncate(1 + next(input.len())),
                1 => input.extend((0..next(40)).map(|i| i as u8)),
                _ => {
                    for _ in 0..1 + next(8) {
                        let at = 1 + next(input.len() - 1);
                        input[at] ^= 1 << next(8);
                    }
                }
            }
            let outcome = std::panic::catch_unwind(|| {
                rhwp_reader::fuzzing::run("decrypt", &input, &options);
            });
            assert!(outcome.is_ok(), "panic on a mutated decryption input");
        }
    }
}
