//! An HWPX header part and section part together, without the zip: the
//! header's styles, numberings and bullets are what the section reader
//! copies into every paragraph (markers, style names), so both sides are
//! mutated at once. (`hwpx_section` alone runs with an empty header.)
//!
//! Layout: a u32 (little-endian) length of `Contents/header.xml`, that many
//! bytes of it, then `Contents/section0.xml`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rhwp_reader::hwpx::{header, section};
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let options = rhwp_reader::Options::default();
    let (header_len, rest) = match data {
        [a, b, c, d, rest @ ..] => (u32::from_le_bytes([*a, *b, *c, *d]) as usize, rest),
        _ => return,
    };
    let (header_bytes, section_bytes) = rest.split_at(header_len.min(rest.len()));
    let header = header::parse(header_bytes, &options.limits).unwrap_or_default();
    let bins = HashMap::new();
    let input = section::SectionInput {
        index: 0,
        part: "Contents/section0.xml",
        header: &header,
        bins: &bins,
        limits: &options.limits,
    };
    let mut state = section::DocState::default();
    if let Ok(out) = section::parse(section_bytes, &input, &mut state) {
        let mut doc = rhwp_reader::Document::new(rhwp_reader::model::Format::Hwpx);
        doc.sections.push(out.section);
        doc.furniture = out.furniture;
        let _ = rhwp_reader::text::document_text(&doc, true);
        let _ = rhwp_reader::summary::summarize(&doc);
    }
});
