//! One HWPX section part (`Contents/sectionN.xml`) without the zip: the input
//! is the part's XML, read with an empty header and no bin data, so the
//! fuzzer spends its time in the XML walk and the section reader.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("hwpx_section", data, &rhwp_reader::Options::default());
});
