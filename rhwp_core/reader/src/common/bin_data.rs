//! What every format's bin-data reader answers (`Lookup`), and the media type an item's first
//! bytes say (`media_type`).

/// What a document holds under a bin-data name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The item's bytes, decompressed; `name` is the item's name as the model lists it.
    Found { name: String, data: Vec<u8> },
    /// The document names the item but only links to a file outside it (`target`), which
    /// was not embedded: there are no bytes to give.
    Linked { target: String },
    /// No item of that name; `stored` names every item the document does hold, in its order.
    Unknown { stored: Vec<String> },
}

/// The media type the first bytes of an item say it is, for the formats bin data holds:
/// raster pictures, Windows metafiles, and OLE objects (Hancom's 4-byte length, then a
/// compound file). `None` for anything else.
pub fn media_type(data: &[u8]) -> Option<&'static str> {
    let u32_at = |at: usize| {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if data.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if data.starts_with(b"BM") && is_bmp_header(data) {
        Some("image/bmp")
    } else if data.starts_with(b"II*\0") || data.starts_with(b"MM\0*") {
        Some("image/tiff")
    } else if data.starts_with(b"RIFF") && data.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if data.starts_with(&[0xD7, 0xCD, 0xC6, 0x9A]) {
        // Aldus placeable metafile header.
        Some("image/wmf")
    } else if u32_at(0) == Some(1) && data.get(40..44) == Some(b" EMF") {
        Some("image/emf")
    } else if matches!(data.get(..6), Some([1 | 2, 0, 9, 0, 0, 1 | 3])) {
        // A bare WMF header: type (1 memory, 2 disk), header size 9 words, version 0x100/0x300.
        Some("image/wmf")
    } else if data.starts_with(&super::compound::SIGNATURE)
        || data.get(4..12) == Some(&super::compound::SIGNATURE[..])
    {
        Some("application/x-ole-storage")
    } else {
        None
    }
}

/// "BM" alone is two bytes a deflate stream may start with: a BMP also declares a DIB header
/// of one of the sizes the format defines.
fn is_bmp_header(data: &[u8]) -> bool {
    let dib = data
        .get(14..18)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    matches!(dib, Some(12 | 16 | 40 | 52 | 56 | 64 | 108 | 124))
}
