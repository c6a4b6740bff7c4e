//! One item of a document's binary data — a picture, an OLE object — fetched by the name the
//! model gives it (`model::BinData::name`, a picture's `bin_data_name`), as the bytes the
//! authoring program embedded, decompressed.
//!
//! - HWP 5.0: the compound-file stream `BinData/<name>`. Whether it is raw-deflate compressed
//!   is said per item by the DocInfo `BIN_DATA` record's attribute (spec 표 17/18, bits 4–5:
//!   0 = as the document (the FileHeader's compressed flag), 1 = always, 2 = never). Writers
//!   do not always honour it, so the stored bytes are checked against the formats such items
//!   hold and the other reading is tried when the declared one does not fit (`decode_hwp5`).
//!   Distribution (배포용) documents encrypt only their `ViewText` sections: their `BinData`
//!   streams are stored like any other document's (the corpus's distribution documents hold
//!   plain JPEG/PNG streams), so nothing is decrypted here.
//! - HWPX: the zip entry of that name. The model lists the manifest's `href`
//!   (`BinData/image1.png`); the same name without or with the `BinData/` folder, or under
//!   `Contents/`, is accepted too, as the package reader does. Only bin data is handed out
//!   (entries under `BinData/`, or pictures the manifest lists elsewhere), never the package's
//!   XML parts, and a password-protected package is refused rather than read as ciphertext.
//!
//! Every size is bounded by `Options::limits` (the same per-stream, total and ratio bounds as
//! the document's own streams); a name the document does not hold is not an error of the
//! document but an answer (`Lookup::Unknown`, naming the items it does hold), and so is a
//! picture the author linked instead of embedding (`Lookup::Linked`).

use crate::hwp5::container::{Container, FileHeader};
use crate::hwp5::{doc_info, record};
use crate::hwpx::package::{self, Package};
use crate::{sniff, Error, ErrorCode, Options, Result, Sniffed};

/// What a document holds under a bin-data name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The item's bytes, decompressed; `name` is the item's name as the model lists it.
    Found { name: String, data: Vec<u8> },
    /// The document names the item but only links to a file outside it (`target`), which
    /// was not embedded: there are no bytes to give.
    Linked { target: String },
    /// No item of that name; `stored` names every item the document does hold, in its order.
    Unknown { stored: Vec<String> },
}

/// The item named `name` of the document in `bytes`. Errors are the document's (not an HWP
/// document, damaged container, limits exceeded); a reader bug becomes an error, never a panic.
pub fn read_bin_data(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    match std::panic::catch_unwind(|| lookup(bytes, name, options)) {
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

/// The media type the first bytes of an item say it is, for the formats bin data holds:
/// raster pictures, Windows metafiles, and OLE objects (Hancom's 4-byte length, then a
/// compound file). `None` for anything else.
pub fn media_type(data: &[u8]) -> Option<&'static str> {
    const CFB: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    let u32_at = |at: usize| {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if data.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if data.starts_with(b"BM") && is_bmp_header(data) {
        Some("image/bmp")
    } else if data.starts_with(b"II*\0") || data.starts_with(b"MM\0*") {
        Some("image/tiff")
    } else if data.starts_with(b"RIFF") && data.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if data.starts_with(&[0xD7, 0xCD, 0xC6, 0x9A]) {
        // Aldus placeable metafile header.
        Some("image/wmf")
    } else if u32_at(0) == Some(1) && data.get(40..44) == Some(b" EMF") {
        Some("image/emf")
    } else if matches!(data.get(..6), Some([1 | 2, 0, 9, 0, 0, 1 | 3])) {
        // A bare WMF header: type (1 memory, 2 disk), header size 9 words, version 0x100/0x300.
        Some("image/wmf")
    } else if data.starts_with(CFB) || data.get(4..12) == Some(CFB) {
        Some("application/x-ole-storage")
    } else {
        None
    }
}

/// "BM" alone is two bytes a deflate stream may start with: a BMP also declares a DIB header
/// of one of the sizes the format defines.
fn is_bmp_header(data: &[u8]) -> bool {
    let dib = data
        .get(14..18)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    matches!(dib, Some(12 | 16 | 40 | 52 | 56 | 64 | 108 | 124))
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

fn lookup(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    match sniff(bytes) {
        Sniffed::CompoundFile => hwp5_item(bytes, name, options),
        Sniffed::Zip => hwpx_item(bytes, name, options),
        Sniffed::Hwp3 if bytes.starts_with(crate::hwp3::SIGNATURE) => {
            // HWP 3.x keeps embedded pictures in the extra blocks after the paragraph list.
            let (doc, data) = crate::hwp3::bin_item(bytes, name, options)?;
            Ok(match data {
                Some(data) => Lookup::Found {
                    name: name.to_string(),
                    data,
                },
                None => Lookup::Unknown {
                    stored: doc.bin_data.into_iter().map(|b| b.name).collect(),
                },
            })
        }
        // Not a document we read: the reader says why (it refuses these from the signature alone).
        _ => match crate::read(bytes, options) {
            Err(e) => Err(e),
            Ok(_) => Ok(Lookup::Unknown { stored: Vec::new() }),
        },
    }
}

/// One DocInfo `BIN_DATA` entry: the model's item and its attribute word.
struct Entry {
    item: crate::model::BinData,
    attribute: u16,
}

/// Attribute bits 4–5 (spec 표 18): how the item's stream is compressed.
const COMPRESSION_SHIFT: u16 = 4;
const COMPRESSION_ALWAYS: u16 = 1;
const COMPRESSION_NEVER: u16 = 2;

fn hwp5_item(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    let mut container = Container::open(bytes, options.limits)?;
    if !container.exists("FileHeader") {
        return Err(Error::unsupported(
            "a compound file without an HWP FileHeader stream (another OLE document, e.g. .doc/.xls?)",
            "Pass an HWP 5.0 (.hwp) or HWPX (.hwpx) file.",
        ));
    }
    let header = FileHeader::parse(&container.read_raw("FileHeader")?)?;
    let entries = doc_info_entries(&mut container, header.compressed, options)?;
    let streams: Vec<String> = container
        .stream_names("BinData")
        .into_iter()
        .map(|(n, _)| n)
        .collect();

    // The model's names come from DocInfo; compound-file names compare case-insensitively.
    let entry = entries.iter().find(|e| e.item.name == name).or_else(|| {
        entries
            .iter()
            .find(|e| e.item.name.eq_ignore_ascii_case(name))
    });
    if let Some(e) = entry.filter(|e| e.item.storage == "link") {
        return Ok(Lookup::Linked {
            target: e.item.name.clone(),
        });
    }
    let wanted = entry.map_or(name, |e| e.item.name.as_str());
    let stream = streams
        .iter()
        .find(|s| s.as_str() == wanted)
        .or_else(|| streams.iter().find(|s| s.eq_ignore_ascii_case(wanted)));
    let Some(stream) = stream else {
        return Ok(Lookup::Unknown {
            stored: hwp5_stored_names(&entries, &streams),
        });
    };
    let compressed = match entry.map(|e| (e.attribute >> COMPRESSION_SHIFT) & 0b11) {
        Some(COMPRESSION_ALWAYS) => true,
        Some(COMPRESSION_NEVER) => false,
        _ => header.compressed,
    };
    let path = format!("BinData/{stream}");
    let data = decode_hwp5(&mut container, &path, compressed)?;
    Ok(Lookup::Found {
        name: entry.map_or_else(|| stream.clone(), |e| e.item.name.clone()),
        data,
    })
}

/// The `BIN_DATA` entries of DocInfo with their attribute words. A DocInfo that cannot be read
/// leaves none (the streams are still found by name, compressed as the document says), as the
/// document reader goes on without it; only a limit exceeded is an error.
fn doc_info_entries(
    container: &mut Container,
    compressed: bool,
    options: &Options,
) -> Result<Vec<Entry>> {
    let data = match container.read_stream("DocInfo", compressed) {
        Ok(data) => data,
        Err(e) if e.code == ErrorCode::TooLarge => return Err(e.context("DocInfo")),
        Err(_) => return Ok(Vec::new()),
    };
    let records = match record::frame(&data, options.limits.max_records) {
        Ok(records) => records,
        Err(e) if e.code == ErrorCode::TooLarge => return Err(e.context("DocInfo")),
        Err(_) => return Ok(Vec::new()),
    };
    // `doc_info::parse` names the items (one per BIN_DATA record, in record order); the
    // attribute word is the first field of the same records.
    let info = doc_info::parse(&data, &records);
    let attributes = records
        .iter()
        .filter(|r| r.tag == record::tag::BIN_DATA)
        .map(|r| record::Reader::new(r.data(&data)).u16());
    Ok(info
        .bin_data
        .into_iter()
        .zip(attributes)
        .map(|(item, attribute)| Entry { item, attribute })
        .collect())
}

/// What an HWP document holds, as the model names it: each embedded DocInfo item whose
/// stream exists, then any stream no item names.
fn hwp5_stored_names(entries: &[Entry], streams: &[String]) -> Vec<String> {
    let mut out: Vec<String> = entries
        .iter()
        .filter(|e| e.item.storage != "link")
        .filter(|e| streams.iter().any(|s| s.eq_ignore_ascii_case(&e.item.name)))
        .map(|e| e.item.name.clone())
        .collect();
    for s in streams {
        if !out.iter().any(|n| n.eq_ignore_ascii_case(s)) {
            out.push(s.clone());
        }
    }
    out
}

/// A `BinData/` stream's content. The declared compression is tried first; when the stored
/// bytes are themselves a recognised item (a writer that stored what it declared compressed,
/// or the reverse), the reading that yields a recognised item wins:
///
/// | declared   | stored bytes recognised | result |
/// |------------|-------------------------|--------|
/// | compressed | no                      | inflated (damage is an error) |
/// | compressed | yes                     | inflated if that is recognised too, else stored |
/// | stored     | yes                     | stored |
/// | stored     | no                      | inflated if that succeeds and is recognised, else stored |
///
/// The same question the chart reader answers for OLE items (`hwp5::name_charts`: a compound
/// file right after the length means stored), asked of every format bin data holds.
fn decode_hwp5(container: &mut Container, path: &str, compressed: bool) -> Result<Vec<u8>> {
    let raw = container.read_raw(path)?;
    let raw_known = media_type(&raw).is_some();
    if compressed {
        match container.inflate_accounted(&raw, path) {
            Ok(out) if !raw_known || media_type(&out).is_some() => Ok(out),
            Ok(_) => Ok(raw),
            Err(e) if e.code == ErrorCode::TooLarge => Err(e),
            Err(_) if raw_known => Ok(raw),
            Err(e) => Err(e),
        }
    } else if raw_known {
        Ok(raw)
    } else {
        match container.inflate_accounted(&raw, path) {
            Ok(out) if media_type(&out).is_some() => Ok(out),
            Err(e) if e.code == ErrorCode::TooLarge => Err(e),
            _ => Ok(raw),
        }
    }
}

/// The folder HWPX packages keep bin data in.
const BIN_DIR: &str = "BinData/";

fn hwpx_item(bytes: &[u8], name: &str, options: &Options) -> Result<Lookup> {
    let mut pkg = Package::open(bytes, &options.limits)?;
    package::check_is_hwpx(&mut pkg)?;
    let entries: Vec<String> = pkg
        .names()
        .into_iter()
        .filter(|n| !n.ends_with('/'))
        .collect();
    let bare = name.trim_start_matches(['/', '\\']);
    let mut candidates = vec![name.to_string(), bare.to_string()];
    match bare.strip_prefix(BIN_DIR) {
        Some(inside) => candidates.push(inside.to_string()),
        None => candidates.push(format!("{BIN_DIR}{bare}")),
    }
    candidates.push(format!("Contents/{bare}"));
    let found = candidates
        .iter()
        .find_map(|c| entries.iter().find(|e| *e == c))
        .or_else(|| {
            candidates
                .iter()
                .find_map(|c| entries.iter().find(|e| e.eq_ignore_ascii_case(c)))
        })
        .cloned();
    // Only bin data, never the package's own parts: `name` is untrusted.
    let mut listed: Option<Vec<String>> = None;
    if let Some(entry) = found {
        if is_bin_entry(&entry) || manifest_images(&mut pkg, options, &mut listed).contains(&entry)
        {
            let Some(data) = pkg.read(&entry)? else {
                return Err(Error::corrupt(format!(
                    "{entry}: listed by the zip directory but unreadable"
                )));
            };
            // A password-protected package reads as ciphertext: say so instead of handing it out.
            if media_type(&data).is_none() && package::is_encrypted(&mut pkg)? {
                return Err(Error::password_required(
                    "the HWPX document is password-protected (its parts are encrypted)",
                ));
            }
            return Ok(Lookup::Found { name: entry, data });
        }
    }
    if is_outside_path(name) {
        // The model lists a manifest item whose href is a path on the author's machine.
        return Ok(Lookup::Linked {
            target: name.to_string(),
        });
    }
    let images = manifest_images(&mut pkg, options, &mut listed);
    Ok(Lookup::Unknown {
        stored: entries
            .into_iter()
            .filter(|e| is_bin_entry(e) || images.contains(e))
            .collect(),
    })
}

/// Entries under a `BinData/` folder (at the top, as Hancom writes them, or deeper).
fn is_bin_entry(entry: &str) -> bool {
    entry.starts_with(BIN_DIR) || entry.contains("/BinData/")
}

/// The package paths of the manifest's pictures (media type `image/*`), which the model lists
/// as bin data wherever they lie; read once, on first need. An unreadable manifest lists none.
fn manifest_images<'l>(
    pkg: &mut Package<'_>,
    options: &Options,
    listed: &'l mut Option<Vec<String>>,
) -> &'l [String] {
    listed.get_or_insert_with(|| {
        let Ok(Some(hpf)) = pkg.read(package::CONTENT_HPF) else {
            return Vec::new();
        };
        let Ok(doc) = crate::hwpx::content::parse(&hpf, &options.limits) else {
            return Vec::new();
        };
        doc.manifest
            .into_iter()
            .filter(|item| item.media_type.starts_with("image/"))
            .flat_map(|item| [format!("Contents/{}", item.href), item.href])
            .collect()
    })
}

/// A path no package entry can have (`Package::open` refuses such entries): absolute, with a
/// drive letter, or a UNC share.
fn is_outside_path(name: &str) -> bool {
    let b = name.as_bytes();
    name.starts_with("\\\\")
        || name.starts_with('/')
        || (b.len() >= 3
            && b[1] == b':'
            && b[0].is_ascii_alphabetic()
            && matches!(b[2], b'\\' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;
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

    /// The decision table of `decode_hwp5`, on streams stored and compressed both ways.
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
            decode_hwp5(&mut container, &format!("BinData/{name}"), compressed)
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
