//! Any bytes, either format: the reader must return Ok or a typed error, never
//! panic, hang or allocate without bound. Seed with tests/fixtures (both formats).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = rhwp_reader::Options::default();
    if let Ok(doc) = rhwp_reader::read(data, &options) {
        let _ = rhwp_reader::text::document_text(&doc, true);
        let _ = rhwp_reader::summary::summarize(&doc);
    }
});
