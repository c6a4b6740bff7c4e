//! The layers of the HWP 3.x reader the fuzz targets reach directly (`crate::fuzzing`).

use crate::common::format::FuzzLayer;
use crate::limits::Options;
use crate::model::Document;
use crate::password::Password;

pub(super) static LAYERS: &[FuzzLayer] = &[
    FuzzLayer {
        target: "hwp3_body",
        run: body,
    },
    FuzzLayer {
        target: "hwp3_decrypt",
        run: decrypt,
    },
];

/// Body bytes as if already inflated (target `hwp3_body`): font names, styles, the paragraph
/// list and the extra blocks, behind a fixed uncompressed 3.x header.
fn body(data: &[u8], options: &Options) -> Option<Document> {
    super::read(&super::with_body(data, false), options).ok()
}

/// An encrypted body (the password "pw"): DES, inflation, the trailer.
fn decrypt(data: &[u8], options: &Options) -> Option<Document> {
    let password = Password::from("pw");
    let _ = super::encryption::decrypt_body(data, &password, options.limits.max_stream_bytes);
    None
}
