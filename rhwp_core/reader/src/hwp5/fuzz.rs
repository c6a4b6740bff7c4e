//! The layers of the HWP 5.0 reader the fuzz targets reach directly (`crate::fuzzing`): the
//! records and the decryption without the compound file, and the compound file alone.

use super::container::Container;
use super::{body::PageTracker, doc_info, encryption, record};
use crate::common::format::FuzzLayer;
use crate::limits::Options;
use crate::model::{Document, Format};
use crate::password::Password;

pub(super) static LAYERS: &[FuzzLayer] = &[
    FuzzLayer {
        target: "hwp5_records",
        run: records,
    },
    FuzzLayer {
        target: "hwp5_decrypt",
        run: decrypt,
    },
    FuzzLayer {
        target: "hwp5_compound",
        run: compound,
    },
];

/// A compound file (target `hwp5_compound`): opened leniently (`common::compound`), every
/// stream an HWP 5.0 document holds read along its chain, then the document read from it.
fn compound(data: &[u8], options: &Options) -> Option<Document> {
    if let Ok(mut container) = Container::open(data, options.limits) {
        for dir in [
            "",
            "BodyText",
            "ViewText",
            "BinData",
            "DocOptions",
            "Scripts",
        ] {
            for (name, _) in container.stream_names(dir) {
                let path = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                let _ = container.read_raw(&path);
            }
        }
    }
    super::read(data, options).ok()
}

/// Record streams as if already inflated (target `hwp5_records`): a little-endian u16 length of
/// the DocInfo part, that many bytes of DocInfo records, then one section's records.
fn records(data: &[u8], options: &Options) -> Option<Document> {
    let [a, b, rest @ ..] = data else {
        return None;
    };
    let (info_bytes, section_bytes) =
        rest.split_at((u16::from_le_bytes([*a, *b]) as usize).min(rest.len()));
    let info = match record::frame(info_bytes, options.limits.max_records) {
        Ok(records) => doc_info::parse(info_bytes, &records),
        Err(_) => doc_info::DocInfo::default(),
    };
    let mut pages = PageTracker::default();
    let (section, furniture) =
        super::read_section(section_bytes, &info, options, 0, &mut pages).ok()?;
    let mut doc = Document::new(Format::Hwp);
    doc.sections.push(section);
    doc.furniture = furniture;
    Some(doc)
}

/// A password-protected stream (the password "pw"): CFB-1, then the DocInfo check and inflation.
fn decrypt(data: &[u8], options: &Options) -> Option<Document> {
    let mut d = encryption::Decryptor::new(&Password::from("pw"));
    if let Ok(plain) = d.decrypt(data) {
        let _ = encryption::looks_like_doc_info(&plain);
        let _ = crate::common::inflate::inflate(&plain, options.limits.max_stream_bytes);
    }
    None
}
