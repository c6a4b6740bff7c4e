//! The layers of the HWPX reader the fuzz targets reach without the zip (`crate::fuzzing`).

use super::encryption;
use crate::common::format::FuzzLayer;
use crate::limits::Options;
use crate::model::{Document, Format};
use crate::owpml::{header, section};
use crate::password::Password;

pub(super) static LAYERS: &[FuzzLayer] = &[
    FuzzLayer {
        target: "hwpx_section",
        run: section_part,
    },
    FuzzLayer {
        target: "hwpx_parts",
        run: parts,
    },
    FuzzLayer {
        target: "hwpx_decrypt",
        run: decrypt,
    },
];

/// One section part without the zip, read with `header` and no bin data.
fn section_with(data: &[u8], options: &Options, header: &header::Header) -> Option<Document> {
    let bins = std::collections::HashMap::new();
    let charts = std::collections::HashMap::new();
    let input = section::SectionInput {
        charts: &charts,
        index: 0,
        part: "Contents/section0.xml",
        header,
        bins: &bins,
        limits: &options.limits,
    };
    let mut state = section::DocState::default();
    let out = section::parse(data, &input, &mut state).ok()?;
    let mut doc = Document::new(Format::Hwpx);
    doc.sections.push(out.section);
    doc.furniture = out.furniture;
    Some(doc)
}

/// One section part with an empty header (target `hwpx_section`).
fn section_part(data: &[u8], options: &Options) -> Option<Document> {
    section_with(data, options, &header::Header::default())
}

/// header.xml and a section together (target `hwpx_parts`): a little-endian u32 length of the
/// header part, that many bytes of header.xml, then the section's XML.
fn parts(data: &[u8], options: &Options) -> Option<Document> {
    let [a, b, c, d, rest @ ..] = data else {
        return None;
    };
    let (head, section) =
        rest.split_at((u32::from_le_bytes([*a, *b, *c, *d]) as usize).min(rest.len()));
    let header = header::parse(head, &options.limits).unwrap_or_default();
    // Every entry, not only those the section refers to (entries are read on demand).
    for id in 0..64 {
        let _ = header.char_style(Some(id));
        let _ = header.heading(Some(id));
        let _ = header.numbering(id);
        let _ = header.bullet(id);
        let _ = header.style_name(Some(id));
    }
    let _ = header.style_list().get().len();
    section_with(section, options, &header)
}

/// An encrypted part (the password "pw"): a manifest (`META-INF/manifest.xml`) followed, after a
/// NUL, by a part to decrypt under its first entry.
fn decrypt(data: &[u8], options: &Options) -> Option<Document> {
    let (manifest, part) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    if let Ok(m) = encryption::parse_manifest(manifest, &options.limits) {
        if let Some((name, cipher)) = m.first() {
            let mut keys = encryption::KeyCache::default();
            let _ = encryption::decrypt_part(
                name,
                cipher,
                part.to_vec(),
                &Password::from("pw"),
                &mut keys,
                options.limits.max_stream_bytes,
            );
        }
    }
    None
}
