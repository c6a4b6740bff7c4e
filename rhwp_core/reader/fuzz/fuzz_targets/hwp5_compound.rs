//! HWP 5.0 compound files: the reader's lenient compound-file layer (header, DIFAT, FAT, mini
//! FAT, directory, every stream's chain), then the document read from it. Seed it with the
//! corpus's `.hwp` files: the interesting inputs are real compound files with damaged tables.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("hwp5_compound", data, &rhwp_reader::Options::default());
});
