//! Password-protected documents (DESIGN §5 "Passwords"): the licence-noted fixtures in
//! tests/fixtures/encrypted (password `123456`) read with their password like their
//! unencrypted twin; without it, or with a wrong one, `password_required`, and the password
//! appears in no message. Also HWPX packages whose part names other writers spell differently.

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
