//! One item of a document's binary data — a picture, an OLE object — fetched by the name the
//! model gives it (`model::BinData::name`, a picture's `bin_data_name`), as the bytes the
//! authoring program embedded, decompressed.
//!
//! Each format reads its own: `hwp5::bin_data` (compound-file streams), `hwpx::bin_data` (zip
//! entries), `hwp3::bin_data` (the extra blocks after the paragraph list) and
//! `hwpml::bin_data` (base64 `BINDATA` elements); the table of formats (`crate::formats`) says
//! which, by the sniffed format, and `common::bin_data` holds what they share (`Lookup`,
//! `media_type`).
//!
//! Every size is bounded by `Options::limits` (the same per-stream, total and ratio bounds as
//! the document's own streams); a name the document does not hold is not an error of the
//! document but an answer (`Lookup::Unknown`, naming the items it does hold), and so is a
//! picture the author linked instead of embedding (`Lookup::Linked`).

pub use crate::common::bin_data::{media_type, Lookup};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Options;

/// The item named `name` of the document in `bytes`. Errors are the document's (not an HWP
/// document, damaged container, limits exceeded); a reader bug becomes an error, never a panic.
pub fn read_bin_data(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    match std::panic::catch_unwind(|| crate::formats::bin_data(bytes, name, options)) {
        Ok(result) => result,
        Err(_) => Err(Error {
            code: ErrorCode::CorruptDocument,
            message: format!(
                "reading the bin data item \"{}\" hit an internal inconsistency (a bug in rhwp_core; please report it)",
                shown(name)
            ),
            suggestion: "Try saving the document again in Hancom Office; report the file to the rhwp-mcp issue tracker."
                .into(),
        }),
    }
}

/// Pictures beyond this many (distinct bin-data names) are not read for a comparison: it then
/// tells them apart by name and stored size (`diff::Side::pictures` is `None`).
pub const MAX_DIGESTED: usize = 512;

/// Pictures times document bytes beyond which they are not read for a comparison either: some
/// formats read the whole document again for each item (HWP 3.x, HWPML), so many pictures in a
/// large file would cost that many reads.
pub const MAX_DIGEST_READ: u64 = 512 << 20;

/// Each picture's content digest (SHA-256 of its decompressed bytes) by bin-data name, for
/// comparing two documents by what their pictures show (a twin in another format names them
/// differently: `BIN0001.png` against `BinData/image1.png`). A picture the document only links
/// to has no bytes here and is left out (a comparison knows it by the path it names); `None`
/// when the document holds more than [`MAX_DIGESTED`] pictures, more than [`MAX_DIGEST_READ`]
/// bytes of them to read, or cannot be read again.
pub fn picture_digests(
    doc: &crate::model::Document,
    bytes: &[u8],
    options: &Options,
) -> Option<std::collections::HashMap<String, [u8; 32]>> {
    use crate::model::Block;
    use sha2::{Digest, Sha256};
    let mut names: Vec<String> = Vec::new();
    let mut collect = |b: &Block| {
        if let Block::Picture(p) = b {
            if let Some(name) = &p.bin_data_name {
                if !names.contains(name) && names.len() <= MAX_DIGESTED {
                    names.push(name.clone());
                }
            }
        }
    };
    for s in &doc.sections {
        crate::model::for_each_block(&s.blocks, &mut collect);
    }
    for f in &doc.furniture {
        crate::model::for_each_block(&f.blocks, &mut collect);
    }
    if names.len() > MAX_DIGESTED || names.len() as u64 * bytes.len() as u64 > MAX_DIGEST_READ {
        return None;
    }
    let mut out = std::collections::HashMap::with_capacity(names.len());
    for name in names {
        let digest: [u8; 32] = match read_bin_data(bytes, &name, options).ok()? {
            Lookup::Found { data, .. } => Sha256::digest(&data).into(),
            Lookup::Linked { .. } | Lookup::Unknown { .. } => continue,
        };
        out.insert(name, digest);
    }
    Some(out)
}

/// A name as shown in a message: bounded, whatever the caller passed.
fn shown(name: &str) -> String {
    const MAX: usize = 120;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        let mut cut: String = name.chars().take(MAX).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hwp5::bin_data::decode_stream;
    use crate::hwp5::container::Container;
    use crate::hwpx::package;
    use std::io::{Cursor, Write};
    use std::path::{Path, PathBuf};

    fn fixture(rel: &str) -> Vec<u8> {
        let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(rel);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn found(lookup: Lookup) -> (String, Vec<u8>) {
        match lookup {
            Lookup::Found { name, data } => (name, data),
            other => panic!("expected an item, got {other:?}"),
        }
    }

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90wS\xde";

    fn hwpx_with(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        w.start_file("mimetype", stored).unwrap();
        w.write_all(package::HWPX_MIMETYPE.as_bytes()).unwrap();
        for (name, content) in entries {
            let deflated = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated);
            w.start_file(*name, deflated).unwrap();
            w.write_all(content).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn media_types_from_magic_bytes() {
        assert_eq!(media_type(PNG), Some("image/png"));
        assert_eq!(
            media_type(b"\xff\xd8\xff\xe0\0\x10JFIF"),
            Some("image/jpeg")
        );
        assert_eq!(media_type(b"GIF89a\x01\0"), Some("image/gif"));
        let mut bmp = b"BM".to_vec();
        bmp.extend_from_slice(&[0; 12]);
        bmp.extend_from_slice(&40u32.to_le_bytes());
        assert_eq!(media_type(&bmp), Some("image/bmp"));
        assert_eq!(media_type(b"BM\x01\x02garbage-not-a-dib"), None);
        assert_eq!(media_type(b"\xd7\xcd\xc6\x9a\0\0"), Some("image/wmf"));
        assert_eq!(media_type(&[1, 0, 9, 0, 0, 3, 0, 0]), Some("image/wmf"));
        let mut emf = vec![0u8; 48];
        emf[0] = 1;
        emf[40..44].copy_from_slice(b" EMF");
        assert_eq!(media_type(&emf), Some("image/emf"));
        let mut ole = vec![0x10, 0, 0, 0];
        ole.extend_from_slice(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]);
        assert_eq!(media_type(&ole), Some("application/x-ole-storage"));
        assert_eq!(media_type(b""), None);
        assert_eq!(media_type(b"plain text"), None);
    }

    fn deflated(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    /// The decision table of `decode_stream`, on streams stored and compressed both ways.
    #[test]
    fn declared_compression_is_checked_against_the_bytes() {
        let garbage: Vec<u8> = (0..4000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut cf = cfb::CompoundFile::create(Cursor::new(Vec::new())).unwrap();
        cf.create_storage("/BinData").unwrap();
        let streams: [(&str, Vec<u8>); 4] = [
            ("stored.png", PNG.to_vec()),
            ("deflated.png", deflated(PNG)),
            ("deflated.bin", deflated(&garbage)),
            ("stored.bin", garbage.clone()),
        ];
        for (name, content) in &streams {
            let mut s = cf.create_stream(format!("/BinData/{name}")).unwrap();
            s.write_all(content).unwrap();
        }
        cf.flush().unwrap();
        let bytes = cf.into_inner().into_inner();
        let mut container = Container::open(&bytes, Options::default().limits).unwrap();
        let mut decode = |name: &str, compressed: bool| {
            decode_stream(&mut container, &format!("BinData/{name}"), compressed)
        };
        // A recognised item is found whichever way it was declared.
        for compressed in [true, false] {
            assert_eq!(decode("stored.png", compressed).unwrap(), PNG);
            assert_eq!(decode("deflated.png", compressed).unwrap(), PNG);
        }
        // Unrecognised content: declared compressed is inflated, declared stored is kept.
        assert_eq!(decode("deflated.bin", true).unwrap(), garbage);
        assert_eq!(decode("deflated.bin", false).unwrap(), deflated(&garbage));
        assert_eq!(decode("stored.bin", false).unwrap(), garbage);
        // Declared compressed, neither inflatable nor recognised: the damage is reported.
        assert_eq!(
            decode("stored.bin", true).unwrap_err().code,
            ErrorCode::CorruptDocument
        );
    }

    #[test]
    fn hwp_picture_is_inflated() {
        let doc = fixture("hwp/hwplib-getting_clickhere_text.hwp");
        let (name, data) = found(read_bin_data(&doc, "BIN0001.png", &Options::default()).unwrap());
        assert_eq!(name, "BIN0001.png");
        assert_eq!(media_type(&data), Some("image/png"));
        // Compound-file names compare case-insensitively; the model's spelling is kept.
        let (name, again) = found(read_bin_data(&doc, "bin0001.PNG", &Options::default()).unwrap());
        assert_eq!((name.as_str(), &again), ("BIN0001.png", &data));
    }

    #[test]
    fn hwp_ole_object_keeps_its_length_prefix() {
        let doc = fixture("pairs/rhwp-chart-clustered-column.hwp");
        let (_, data) = found(read_bin_data(&doc, "BIN0001.OLE", &Options::default()).unwrap());
        assert_eq!(media_type(&data), Some("application/x-ole-storage"));
    }

    #[test]
    fn hwp_link_and_unknown_names() {
        let doc = fixture("hwp/hwplib-etc.hwp");
        let linked = read_bin_data(
            &doc,
            "C:\\Users\\박성균\\Pictures\\dog.png",
            &Options::default(),
        );
        assert!(matches!(linked, Ok(Lookup::Linked { .. })), "{linked:?}");
        let doc = fixture("hwp/hwplib-getting_clickhere_text.hwp");
        assert_eq!(
            read_bin_data(&doc, "BIN0002.png", &Options::default()).unwrap(),
            Lookup::Unknown {
                stored: vec!["BIN0001.png".into()]
            }
        );
    }

    #[test]
    fn hwpx_entry_with_or_without_its_folder() {
        let doc = hwpx_with(&[
            ("Contents/section0.xml", b"<sec/>"),
            ("BinData/image1.png", PNG),
            ("Contents/content.hpf", b"<opf:package/>"),
        ]);
        for name in [
            "BinData/image1.png",
            "image1.png",
            "bindata/IMAGE1.png",
            "/BinData/image1.png",
        ] {
            let (entry, data) = found(read_bin_data(&doc, name, &Options::default()).unwrap());
            assert_eq!(
                (entry.as_str(), data.as_slice()),
                ("BinData/image1.png", PNG),
                "{name}"
            );
        }
        // The package's own parts are no bin data, whatever the caller asks.
        for name in ["Contents/section0.xml", "mimetype", "../BinData/image1.png"] {
            assert_eq!(
                read_bin_data(&doc, name, &Options::default()).unwrap(),
                Lookup::Unknown {
                    stored: vec!["BinData/image1.png".into()]
                },
                "{name}"
            );
        }
        assert!(matches!(
            read_bin_data(&doc, "D:\\images\\logo.gif", &Options::default()),
            Ok(Lookup::Linked { .. })
        ));
    }

    #[test]
    fn hwpx_manifest_pictures_outside_bin_data() {
        let hpf = br#"<opf:package xmlns:opf="http://www.idpf.org/2007/opf/"><opf:manifest>
            <opf:item id="logo" href="Pictures/logo.png" media-type="image/png"/>
            <opf:item id="section0" href="Contents/section0.xml" media-type="application/xml"/>
            </opf:manifest></opf:package>"#;
        let doc = hwpx_with(&[
            ("Contents/content.hpf", hpf),
            ("Contents/section0.xml", b"<sec/>"),
            ("Pictures/logo.png", PNG),
            ("Pictures/other.png", PNG),
        ]);
        let (name, data) =
            found(read_bin_data(&doc, "Pictures/logo.png", &Options::default()).unwrap());
        assert_eq!((name.as_str(), data.as_slice()), ("Pictures/logo.png", PNG));
        // Not a picture the manifest lists: not bin data.
        assert_eq!(
            read_bin_data(&doc, "Pictures/other.png", &Options::default()).unwrap(),
            Lookup::Unknown {
                stored: vec!["Pictures/logo.png".into()]
            }
        );
    }

    #[test]
    fn hwpx_encrypted_parts_are_refused() {
        let manifest = b"<manifest><file-entry><encryption-data/></file-entry></manifest>";
        let doc = hwpx_with(&[
            ("META-INF/manifest.xml", manifest),
            ("Contents/section0.xml", b"\x93\x11ciphertext"),
            ("BinData/image1.png", b"\x5a\x01ciphertext of a picture"),
        ]);
        let e = read_bin_data(&doc, "BinData/image1.png", &Options::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::PasswordRequired);
        assert!(e.message.contains("password"), "{e}");
    }

    #[test]
    fn hwpx_bomb_is_too_large() {
        let bomb = vec![0u8; 40 << 20];
        let doc = hwpx_with(&[
            ("Contents/section0.xml", b"<sec/>"),
            ("BinData/x.bmp", &bomb),
        ]);
        let e = read_bin_data(&doc, "BinData/x.bmp", &Options::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge, "{e}");
    }

    #[test]
    fn not_a_document_is_refused_as_the_reader_refuses_it() {
        for (bytes, code) in [
            (&b""[..], ErrorCode::CorruptDocument),
            (PNG, ErrorCode::UnsupportedFormat),
            // An HWP 3.x signature with no body.
            (
                b"HWP Document File V3.00 \x1a\x01\x02\x03\x04\x05",
                ErrorCode::CorruptDocument,
            ),
        ] {
            assert_eq!(
                read_bin_data(bytes, "BIN0001.png", &Options::default())
                    .unwrap_err()
                    .code,
                code
            );
        }
    }

    /// Truncated and bit-flipped documents, and names of every sort: a typed answer or a typed
    /// error each time, never a panic.
    #[test]
    fn hostile_documents_and_names_never_panic() {
        let names: Vec<String> = vec![
            String::new(),
            "BIN0001.png".into(),
            "BinData/ole1.ole".into(),
            "../../etc/passwd".into(),
            "\0\u{FFFF}\u{10FFFF}".into(),
            "FileHeader".into(),
            "/".into(),
            "C:".into(),
            "x".repeat(100_000),
        ];
        let documents = [
            fixture("hwp/hwplib-getting_clickhere_text.hwp"),
            fixture("pairs/rhwp-chart-clustered-column.hwp"),
            fixture("pairs/rhwp-chart-clustered-column.hwpx"),
        ];
        let options = Options::default();
        for doc in &documents {
            for name in &names {
                let _ = read_bin_data(doc, name, &options);
            }
            let step = (doc.len() / 97).max(1);
            for cut in (0..doc.len()).step_by(step) {
                let _ = read_bin_data(&doc[..cut], "BIN0001.png", &options);
                let _ = read_bin_data(&doc[..cut], "BinData/ole1.ole", &options);
                let mut flipped = doc.clone();
                flipped[cut] ^= 0xA5;
                let _ = read_bin_data(&flipped, "BIN0001.png", &options);
                let _ = read_bin_data(&flipped, "BIN0001.OLE", &options);
                let _ = read_bin_data(&flipped, "BinData/ole1.ole", &options);
            }
        }
        let long = "x".repeat(100_000);
        match read_bin_data(&documents[0], &long, &options) {
            Ok(Lookup::Unknown { stored }) => assert_eq!(stored, vec!["BIN0001.png".to_string()]),
            other => panic!("{other:?}"),
        }
        assert!(shown(&long).chars().count() <= 121);
    }
}
