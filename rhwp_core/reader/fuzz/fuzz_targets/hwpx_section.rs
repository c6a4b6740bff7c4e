//! One HWPX section part (`Contents/sectionN.xml`) without the zip: the input
//! is the part's XML, read with an empty header and no bin data, so the
//! fuzzer spends its time in the XML walk and the section reader.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rhwp_reader::hwpx::{header::Header, section};
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let options = rhwp_reader::Options::default();
    let header = Header::default();
    let bins = HashMap::new();
    let input = section::SectionInput {
        index: 0,
        part: "Contents/section0.xml",
        header: &header,
        bins: &bins,
        limits: &options.limits,
    };
    let mut state = section::DocState::default();
    if let Ok(out) = section::parse(data, &input, &mut state) {
        let mut doc = rhwp_reader::Document::new(rhwp_reader::model::Format::Hwpx);
        doc.sections.push(out.section);
        doc.furniture = out.furniture;
        let _ = rhwp_reader::text::document_text(&doc, true);
        let _ = rhwp_reader::summary::summarize(&doc);
    }
});
