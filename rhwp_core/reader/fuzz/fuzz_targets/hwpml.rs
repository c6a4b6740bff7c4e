//! An HWPML document (`.hml`, one XML file): decoding (UTF-8/UTF-16, DOCTYPE entities),
//! the head, every section through the renaming onto OWPML, and the base64 bin data.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("hwpml", data, &rhwp_reader::Options::default());
});
