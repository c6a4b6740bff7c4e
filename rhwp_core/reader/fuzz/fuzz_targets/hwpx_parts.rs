//! An HWPX header part and section part together, without the zip: the
//! header's styles, numberings and bullets are what the section reader
//! copies into every paragraph (markers, style names), so both sides are
//! mutated at once. (`hwpx_section` alone runs with an empty header.)
//!
//! Layout: a u32 (little-endian) length of `Contents/header.xml`, that many
//! bytes of it, then `Contents/section0.xml`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("hwpx_parts", data, &rhwp_reader::Options::default());
});
