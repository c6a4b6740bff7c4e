//! Hand-crafted hostile files: each must be refused with the right code and
//! fast (well under a second), never read for long, allocated from, or crashed on.
//!
//! The inputs are committed in `fuzz/regressions/hostile-*.bin` (so the
//! no-panic replay and the fuzzer's corpus see them too); `generate` below
//! (ignored; `cargo test --test hostile -- --ignored`) rebuilds them, and
//! `hostile_files_are_refused_fast` checks the committed copies.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::{read, ErrorCode, Options};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;
use common::zip_package as package;
use common::{
    fat_entry_offset, record, stream_entry, u32_at, utf16, CTRL_HEADER, LIST_HEADER, PARA_HEADER,
    PARA_TEXT, TABLE,
};

fn paragraph(level: u16, text: &str) -> Vec<u8> {
    common::text_paragraph(level, &utf16(text))
}

/// (file, expected code, what it is).
const HOSTILE: &[(&str, ErrorCode, &str)] = &[
    (
        "hostile-hwp5-record-claims-2gb.bin",
        ErrorCode::CorruptDocument,
        "a record whose extended size claims 2 GB",
    ),
    (
        "hostile-hwp5-extended-size-cut.bin",
        ErrorCode::CorruptDocument,
        "size 0xFFF, extended size cut off",
    ),
    (
        "hostile-hwp5-self-nesting-levels.bin",
        ErrorCode::TooLarge,
        "tables in cells 500 levels deep",
    ),
    (
        "hostile-hwp5-cyclic-fat-stream.bin",
        ErrorCode::CorruptDocument,
        "a section's FAT chain loops back",
    ),
    (
        "hostile-hwp5-cyclic-fat-directory.bin",
        ErrorCode::CorruptDocument,
        "the directory's FAT chain loops",
    ),
    (
        "hostile-hwp5-deflate-bomb.bin",
        ErrorCode::TooLarge,
        "a 17 KB section inflating to 17 MiB (ratio ~1000)",
    ),
    (
        "hostile-hwpx-10000-deep-tbl.bin",
        ErrorCode::TooLarge,
        "10,000 nested <hp:tbl>/<hp:subList>",
    ),
    (
        "hostile-hwpx-zip-slip-name.bin",
        ErrorCode::CorruptDocument,
        "a zip entry named ../../etc/passwd",
    ),
];

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions")
}

/// An uncompressed HWP 5.0 compound file with one section (version 3, 512-byte
/// sectors, as Hancom writes them).
fn hwp(section: &[u8]) -> Vec<u8> {
    common::hwp_file(0, &[], &[section])
}

/// A compressed HWP 5.0 file whose one section is the given deflate stream.
fn hwp_compressed(section: &[u8]) -> Vec<u8> {
    let empty = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast())
        .finish()
        .unwrap();
    hwp_compressed_with_info(&empty, section)
}

/// A compressed HWP 5.0 file from deflated DocInfo and section streams.
fn hwp_compressed_with_info(info: &[u8], section: &[u8]) -> Vec<u8> {
    common::hwp_file(1, info, &[section])
}

fn build(name: &str) -> Vec<u8> {
    match name {
        "hostile-hwp5-record-claims-2gb.bin" => {
            let mut s = paragraph(0, "ok");
            s.extend_from_slice(&((PARA_TEXT as u32) | (1 << 10) | (0xFFF << 20)).to_le_bytes());
            s.extend_from_slice(&2_000_000_000u32.to_le_bytes());
            hwp(&s)
        }
        "hostile-hwp5-extended-size-cut.bin" => {
            let mut s = paragraph(0, "ok");
            s.extend_from_slice(&((PARA_TEXT as u32) | (1 << 10) | (0xFFF << 20)).to_le_bytes());
            s.extend_from_slice(&[0x10, 0x00]); // two of the four bytes of the extended size
            hwp(&s)
        }
        "hostile-hwp5-self-nesting-levels.bin" => {
            // Each level holds a paragraph whose table's cell holds the next level: the record
            // tree nests as deep as the 10-bit level field lets it (2 levels per table).
            let mut s = Vec::new();
            for d in 0..500u16 {
                let level = d * 2;
                s.extend(record(PARA_HEADER, level, &[0u8; 22]));
                s.extend(record(
                    PARA_TEXT,
                    level + 1,
                    &[11, 0, b' ', b'l', b'b', b't', 0, 0, 0, 0, 0, 0, 0, 0, 11, 0],
                ));
                s.extend(record(CTRL_HEADER, level + 1, b" lbt"));
                s.extend(record(TABLE, level + 2, &[0, 0, 0, 0, 1, 0, 1, 0]));
                s.extend(record(
                    LIST_HEADER,
                    level + 2,
                    &[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0],
                ));
            }
            hwp(&s)
        }
        "hostile-hwp5-cyclic-fat-stream.bin" => {
            // A section big enough to live in the regular FAT (>= 4096 bytes), whose chain
            // turns back from its third sector to its first.
            let mut s = Vec::new();
            while s.len() < 6000 {
                s.extend(paragraph(0, "a paragraph of filler text"));
            }
            let mut file = hwp(&s);
            let (start, _) = stream_entry(&file, "Section0");
            let second = u32_at(&file, fat_entry_offset(&file, start));
            let third = fat_entry_offset(&file, second);
            let third_sector = u32_at(&file, third);
            let at = fat_entry_offset(&file, third_sector);
            file[at..at + 4].copy_from_slice(&start.to_le_bytes());
            file
        }
        "hostile-hwp5-cyclic-fat-directory.bin" => {
            // The directory's own chain points at itself: a reader following it to its end never stops.
            let mut file = hwp(&paragraph(0, "ok"));
            let dir = u32_at(&file, 0x30);
            let at = fat_entry_offset(&file, dir);
            file[at..at + 4].copy_from_slice(&dir.to_le_bytes());
            file
        }
        "hostile-hwp5-deflate-bomb.bin" => {
            // One paragraph whose text record holds 17 MiB of one repeated syllable: deflate
            // packs it ~1000:1, past the ratio bound (200) once above its 16 MiB floor.
            let text_bytes: u32 = 17 << 20;
            let mut head = record(PARA_HEADER, 0, &[0u8; 22]);
            head.extend_from_slice(&((PARA_TEXT as u32) | (1 << 10) | (0xFFF << 20)).to_le_bytes());
            head.extend_from_slice(&text_bytes.to_le_bytes());
            let syllables: Vec<u8> = "가"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes())
                .cycle()
                .take(1 << 16)
                .collect();
            let mut section =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
            section.write_all(&head).unwrap();
            for _ in 0..(text_bytes as usize / syllables.len()) {
                section.write_all(&syllables).unwrap();
            }
            hwp_compressed(&section.finish().unwrap())
        }
        "hostile-hwpx-10000-deep-tbl.bin" => {
            let mut xml = String::from(
                r#"<?xml version="1.0" encoding="UTF-8"?><hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run>"#,
            );
            for _ in 0..10_000 {
                xml.push_str(
                    r#"<hp:tbl rowCnt="1" colCnt="1"><hp:tr><hp:tc><hp:subList><hp:p><hp:run>"#,
                );
            }
            for _ in 0..10_000 {
                xml.push_str("</hp:run></hp:p></hp:subList></hp:tc></hp:tr></hp:tbl>");
            }
            xml.push_str("</hp:run></hp:p></hs:sec>");
            package(&[
                ("mimetype", "application/hwp+zip"),
                ("Contents/section0.xml", &xml),
            ])
        }
        "hostile-hwpx-zip-slip-name.bin" => package(&[
            ("mimetype", "application/hwp+zip"),
            (
                "Contents/section0.xml",
                r#"<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run><hp:t>x</hp:t></hp:run></hp:p></hs:sec>"#,
            ),
            ("../../etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"),
        ]),
        other => panic!("no recipe for {other}"),
    }
}

#[test]
#[ignore = "rewrites fuzz/regressions/hostile-*.bin"]
fn generate() {
    for (name, _, _) in HOSTILE {
        std::fs::write(regressions().join(name), build(name)).unwrap();
    }
}

/// Refused in milliseconds when optimised; unoptimised code on a shared machine is ~10x slower.
fn time_bound() -> Duration {
    // A hang guard, not a benchmark: generous enough for a debug build on a loaded CI machine,
    // far below what an unbounded inflation or loop would take.
    Duration::from_secs(if cfg!(debug_assertions) { 20 } else { 5 })
}

/// Read a hostile file in both modes: the expected code, under a second.
fn refused(name: &str, bytes: &[u8], expected: ErrorCode, what: &str) {
    for strict in [false, true] {
        let options = Options {
            strict,
            ..Options::default()
        };
        let started = Instant::now();
        let outcome = read(bytes, &options);
        let took = started.elapsed();
        let e = match outcome {
            Ok(_) => panic!("{name} ({what}) was read (strict {strict})"),
            Err(e) => e,
        };
        assert_eq!(e.code, expected, "{name} ({what}), strict {strict}: {e}");
        assert!(took < time_bound(), "{name} ({what}) took {took:?}");
        eprintln!(
            "{name}: {} in {:.1} ms (strict {strict}): {}",
            e.code.as_str(),
            took.as_secs_f64() * 1e3,
            e.message
        );
    }
}

#[test]
fn hostile_files_are_refused_fast() {
    for (name, expected, what) in HOSTILE {
        let bytes =
            std::fs::read(regressions().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        refused(name, &bytes, *expected, what);
    }
}

#[test]
fn freshly_built_hostile_files_are_refused_fast() {
    // Same recipes against the current writers (cfb, zip), in case the committed copies age.
    for (name, expected, what) in HOSTILE {
        refused(name, &build(name), *expected, what);
    }
}

// Header strings are copied into every paragraph that uses them (style names, list
// markers): a huge one times many paragraphs must not multiply into gigabytes, and
// extreme numbering values must neither overflow nor render as megabytes of letters.

/// (file, what it is): each must read, fast, into a small model.
const AMPLIFIERS: &[(&str, &str)] = &[
    (
        "hostile-hwpx-numbering-start-u32max.bin",
        "numbering starts at 4294967295, LATIN_CAPITAL",
    ),
    (
        "hostile-hwpx-long-header-strings.bin",
        "200,000-char style name and bullet, 100,000 ^1 in a template",
    ),
    (
        "hostile-hwp5-long-header-strings.bin",
        "30,000-char style name, 16,000 ^1 in a numbering format",
    ),
];

fn hwpx_with_header(header: &str, paragraphs: usize, para_attrs: &str) -> Vec<u8> {
    let mut section = String::from("<hs:sec>");
    for _ in 0..paragraphs {
        section.push_str(&format!(
            r#"<hp:p {para_attrs}><hp:run><hp:t>x</hp:t></hp:run></hp:p>"#
        ));
    }
    section.push_str("</hs:sec>");
    package(&[
        ("mimetype", "application/hwp+zip"),
        ("Contents/header.xml", header),
        ("Contents/section0.xml", &section),
    ])
}

fn build_amplifier(name: &str) -> Vec<u8> {
    match name {
        "hostile-hwpx-numbering-start-u32max.bin" => hwpx_with_header(
            r#"<hh:head><hh:refList><hh:numberings><hh:numbering id="1"><hh:paraHead level="1" start="4294967295" numFormat="LATIN_CAPITAL">^1.</hh:paraHead></hh:numbering></hh:numberings><hh:paraProperties><hh:paraPr id="1"><hh:heading type="NUMBER" idRef="1" level="0"/></hh:paraPr></hh:paraProperties></hh:refList></hh:head>"#,
            3,
            r#"paraPrIDRef="1""#,
        ),
        "hostile-hwpx-long-header-strings.bin" => {
            let long = "A".repeat(200_000);
            let template = "^1".repeat(100_000);
            let header = format!(
                r#"<hh:head><hh:refList><hh:numberings><hh:numbering id="1"><hh:paraHead level="1" start="1" numFormat="DIGIT">{template}</hh:paraHead></hh:numbering></hh:numberings><hh:bullets><hh:bullet id="2" char="{long}"/></hh:bullets><hh:paraProperties><hh:paraPr id="1"><hh:heading type="NUMBER" idRef="1" level="0"/></hh:paraPr><hh:paraPr id="2"><hh:heading type="BULLET" idRef="2" level="0"/></hh:paraPr></hh:paraProperties><hh:styles><hh:style id="0" type="PARA" name="{long}" engName="{long}"/></hh:styles></hh:refList></hh:head>"#
            );
            let mut section = String::from("<hs:sec>");
            for k in 0..3000 {
                let para_pr = 1 + k % 2;
                section.push_str(&format!(
                    r#"<hp:p paraPrIDRef="{para_pr}" styleIDRef="0"><hp:run><hp:t>x</hp:t></hp:run></hp:p>"#
                ));
            }
            section.push_str("</hs:sec>");
            package(&[
                ("mimetype", "application/hwp+zip"),
                ("Contents/header.xml", &header),
                ("Contents/section0.xml", &section),
            ])
        }
        "hostile-hwp5-long-header-strings.bin" => {
            let wide = |s: &str| -> Vec<u8> {
                let units: Vec<u16> = s.encode_utf16().collect();
                let mut v = (units.len() as u16).to_le_bytes().to_vec();
                v.extend(units.iter().flat_map(|u| u.to_le_bytes()));
                v
            };
            let mut info = Vec::new();
            let mut style = wide(&"가".repeat(30_000));
            style.extend(wide("s"));
            style.push(0);
            info.extend(record(26, 0, &style)); // STYLE
            let mut numbering = vec![0u8; 12];
            numbering.extend(wide(&"^1".repeat(16_000)));
            info.extend(record(23, 0, &numbering)); // NUMBERING (one level, then cut short)
            let mut para_shape = (2u32 << 23).to_le_bytes().to_vec(); // head: NUMBER, level 0
            para_shape.extend_from_slice(&[0u8; 26]);
            para_shape.extend_from_slice(&1u16.to_le_bytes()); // numbering id 1
            info.extend(record(25, 0, &para_shape)); // PARA_SHAPE
            let mut section = Vec::new();
            for _ in 0..3000 {
                section.extend(paragraph(0, "x"));
            }
            let deflate = |raw: &[u8]| {
                let mut e =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
                e.write_all(raw).unwrap();
                e.finish().unwrap()
            };
            hwp_compressed_with_info(&deflate(&info), &deflate(&section))
        }
        other => panic!("no recipe for {other}"),
    }
}

#[test]
#[ignore = "rewrites fuzz/regressions/hostile-*.bin"]
fn generate_amplifiers() {
    for (name, _) in AMPLIFIERS {
        std::fs::write(regressions().join(name), build_amplifier(name)).unwrap();
    }
}

#[test]
fn header_strings_are_not_multiplied() {
    for (name, what) in AMPLIFIERS {
        let bytes =
            std::fs::read(regressions().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let started = Instant::now();
        let doc =
            read(&bytes, &Options::default()).unwrap_or_else(|e| panic!("{name} ({what}): {e}"));
        let json = serde_json::to_string(&doc).unwrap();
        let took = started.elapsed();
        eprintln!(
            "{name}: read in {:.1} ms, model {} bytes as JSON",
            took.as_secs_f64() * 1e3,
            json.len()
        );
        assert!(took < time_bound(), "{name} ({what}) took {took:?}");
        // 3,000 paragraphs: with header strings cut to 256 characters each paragraph's JSON
        // stays near 1.6 KB; copied whole they made hundreds of megabytes (or, for the
        // u32::MAX start, 165 million letters per marker and an overflow on the next one).
        assert!(
            json.len() < 8 << 20,
            "{name} ({what}): the model is {} bytes",
            json.len()
        );
        assert!(
            !doc.sections.is_empty() && !doc.sections[0].blocks.is_empty(),
            "{name}: nothing read"
        );
    }
}

/// Header tables are listed before their entries are read: a table of 100,000 entries (and a
/// second copy of it) is listed up to the 65,536 that ids can reach, read only where a paragraph
/// refers to it, and costs neither time nor memory in proportion to the entries listed.
#[test]
fn huge_header_tables_are_listed_within_bounds() {
    let mut entries = String::new();
    for id in 0..100_000 {
        entries.push_str(&format!(r#"<hh:charPr id="{id}"><hh:bold/></hh:charPr>"#));
    }
    let header = format!(
        r#"<hh:head><hh:refList><hh:charProperties>{entries}</hh:charProperties><hh:charProperties>{entries}</hh:charProperties></hh:refList></hh:head>"#
    );
    let mut section = String::from("<hs:sec>");
    for id in [0, 65_535, 65_536, 99_999] {
        section.push_str(&format!(
            r#"<hp:p><hp:run charPrIDRef="{id}"><hp:t>x</hp:t></hp:run><hp:run charPrIDRef="0"><hp:t>y</hp:t></hp:run></hp:p>"#
        ));
    }
    section.push_str("</hs:sec>");
    let bytes = package(&[
        ("mimetype", "application/hwp+zip"),
        ("Contents/header.xml", &header),
        ("Contents/section0.xml", &section),
    ]);
    let started = Instant::now();
    let doc = read(&bytes, &Options::default()).unwrap();
    let took = started.elapsed();
    assert!(took < time_bound(), "took {took:?}");
    let json = serde_json::to_string(&doc.sections[0].blocks).unwrap();
    // Ids up to 65,535 read as bold (the paragraph is one bold run); beyond, no entry is
    // reachable (a plain run, then the bold one of id 0).
    assert_eq!(json.matches(r#""bold":true"#).count(), 4, "{json}");
    assert_eq!(json.matches(r#""bold":false"#).count(), 2, "{json}");
}

/// A password-protected package: its parts are ciphertext and its manifest says so. Reading fails
/// (here: the section is not XML), and the error asks for the password rather than naming damage.
#[test]
fn password_protected_hwpx_asks_for_the_password_not_corrupt() {
    let manifest = r#"<odf:manifest xmlns:odf="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><odf:file-entry odf:full-path="Contents/section0.xml"><odf:encryption-data odf:checksum-type="SHA1"/></odf:file-entry></odf:manifest>"#;
    let ciphertext = "\u{1}\u{7f}<\u{3}garbled&\u{2}";
    let bytes = package(&[
        ("mimetype", "application/hwp+zip"),
        ("META-INF/manifest.xml", manifest),
        ("Contents/section0.xml", ciphertext),
    ]);
    let e = read(&bytes, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::PasswordRequired, "{e:?}");
    assert!(e.message.contains("password"), "{e:?}");
    // The same package without the encryption entries is damaged, not protected.
    let plain = package(&[
        ("mimetype", "application/hwp+zip"),
        ("META-INF/manifest.xml", "<odf:manifest/>"),
        ("Contents/section0.xml", ciphertext),
    ]);
    let e = read(&plain, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument, "{e:?}");
}

#[test]
fn drm_wrapped_files_are_refused_naming_the_product() {
    // Korean offices' document-security products keep a document's name and extension and
    // wrap its bytes: the leading bytes name the product, and the refusal says so.
    let mut fasoo = b"\x9b DRMONE  This Document is encrypted and protected by Fasoo DRM ".to_vec();
    fasoo.extend(std::iter::repeat_n(0xA5, 4096));
    let mut container = b"<!-- FasooSecureContainer ".to_vec();
    container.extend(std::iter::repeat_n(0x5A, 512));
    let mut softcamp = b"SCDSA004\x00\x00\xf0\x06\x00\x00".to_vec();
    softcamp.extend(std::iter::repeat_n(0x33, 2048));
    for (bytes, product) in [
        (fasoo, "Fasoo DRM"),
        (container, "Fasoo DRM"),
        (softcamp, "SoftCamp Document Security"),
    ] {
        refused(
            product,
            &bytes,
            ErrorCode::UnsupportedFormat,
            "a DRM wrapper",
        );
        let e = read(&bytes, &Options::default()).unwrap_err();
        assert!(e.message.contains(product), "{e}");
        assert!(e.suggestion.contains("DRM client"), "{e:?}");
    }
    // A file that only mentions a product further in is no wrapper: the plain refusal.
    let e = read(b"plain text that says SCDSA004", &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedFormat);
    assert!(!e.message.contains("SoftCamp"), "{e}");
}
