//! HWP 3.x body bytes as if inflated (font names, styles, paragraph lists with every control
//! code, drawings, extra blocks), behind a fixed uncompressed header: the reader must return Ok
//! or a typed error, never panic or allocate without bound. Seed with the inflated bodies of
//! tests/fixtures/hwp3 (see README).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("hwp3_body", data, &rhwp_reader::Options::default());
});
