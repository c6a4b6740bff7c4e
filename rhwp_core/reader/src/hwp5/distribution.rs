//! Distribution (배포용) documents: `ViewText/Section*` streams are encrypted.

use crate::Result;

/// Decrypt one raw `ViewText/SectionN` stream: returns the section's record
/// bytes as they would be stored in `BodyText/SectionN` (still raw-deflate
/// compressed when the document's compressed flag is set).
pub fn decrypt_section(stream: &[u8]) -> Result<Vec<u8>> {
    Err(crate::Error::unsupported(
        format!("distribution documents are not decrypted yet ({} bytes)", stream.len()),
        "Wait for distribution support.",
    ))
}
