//! The decryption paths of password-protected documents (HWP 3.x DES, HWP 5.0 CFB-1, HWPX
//! manifest and AES-CBC parts, whole files read with a password): Ok or a typed error on any
//! bytes — wrong lengths, bad padding, truncated streams — never a panic or unbounded work.
//! See `rhwp_reader::fuzzing` (`decrypt`) for the input layout.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rhwp_reader::fuzzing::run("decrypt", data, &rhwp_reader::Options::default());
});
