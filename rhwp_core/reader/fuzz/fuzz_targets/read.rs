//! Any bytes, either format: the reader must return Ok or a typed error, never
//! panic, hang or allocate without bound. Seed with tests/fixtures (both formats).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("read", data, &rhwp_reader::Options::default());
});
