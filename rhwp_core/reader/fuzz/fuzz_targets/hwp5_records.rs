//! HWP 5.0 record streams without the container: the input is a DocInfo
//! record stream and a section record stream (both as if already inflated),
//! so the fuzzer reaches record framing, DocInfo tables and the body reader
//! without having to forge a compound file and a deflate stream first.
//!
//! Layout: a u16 (little-endian) length of the DocInfo part, that many bytes
//! of DocInfo records, then the section's records.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rhwp_reader::hwp5::{body::PageTracker, doc_info, record};

fuzz_target!(|data: &[u8]| {
    let options = rhwp_reader::Options::default();
    let (info_len, rest) = match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]) as usize, rest),
        _ => return,
    };
    let (info_bytes, section_bytes) = rest.split_at(info_len.min(rest.len()));
    let info = match record::frame(info_bytes, options.limits.max_records) {
        Ok(records) => doc_info::parse(info_bytes, &records),
        Err(_) => doc_info::DocInfo::default(),
    };
    let mut pages = PageTracker::default();
    if let Ok((section, furniture)) = rhwp_reader::hwp5::read_section(section_bytes, &info, &options, 0, &mut pages) {
        let mut doc = rhwp_reader::Document::new(rhwp_reader::model::Format::Hwp);
        doc.sections.push(section);
        doc.furniture = furniture;
        let _ = rhwp_reader::text::document_text(&doc, true);
        let _ = rhwp_reader::summary::summarize(&doc);
    }
});
