//! HWP 5.0 record streams without the container: the input is a DocInfo
//! record stream and a section record stream (both as if already inflated),
//! so the fuzzer reaches record framing, DocInfo tables and the body reader
//! without having to forge a compound file and a deflate stream first.
//!
//! Layout: a u16 (little-endian) length of the DocInfo part, that many bytes
//! of DocInfo records, then the section's records.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("hwp5_records", data, &rhwp_reader::Options::default());
});
