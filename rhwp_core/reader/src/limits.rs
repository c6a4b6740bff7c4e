//! Bounds against hostile files. Exceeding one is `too_large`, never an
//! out-of-memory or a stack overflow. The defaults are far above any real
//! document in the corpus (the largest inflates to well under 64 MiB).

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes any single stream/entry may inflate to.
    pub max_stream_bytes: u64,
    /// Bytes all streams/entries of a document may inflate to together.
    pub max_total_bytes: u64,
    /// Inflated/stored ratio above which a zip entry is treated as a bomb
    /// (only checked for entries bigger than `ratio_floor_bytes`).
    pub max_compression_ratio: u64,
    pub ratio_floor_bytes: u64,
    /// Records (HWP) or XML elements (HWPX) in one stream.
    pub max_records: u64,
    /// Nesting of lists inside controls inside lists (tables in cells in boxes...) and XML depth.
    pub max_depth: u32,
    /// Element depth of one XML part (HWPX); each logical level is several elements.
    pub max_xml_depth: u32,
    /// Entries in a zip package / in a compound file's directory (streams and storages).
    pub max_entries: u64,
    /// References to a `DOCTYPE`'s entities an HWPML document may expand, nested ones
    /// included (real documents use a handful; a "billion laughs" would use 10^9).
    pub max_entity_expansions: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_stream_bytes: 256 << 20,
            max_total_bytes: 1 << 30,
            max_compression_ratio: 200,
            ratio_floor_bytes: 16 << 20,
            max_records: 20_000_000,
            max_depth: 64,
            max_xml_depth: 1024,
            max_entries: 100_000,
            max_entity_expansions: 100_000,
        }
    }
}

/// How to read: lenient (skip a damaged section with a warning) or strict
/// (the first problem is an error; used by tests).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub strict: bool,
    pub limits: Limits,
    /// The password of a protected document (ignored by documents without one). Its `Debug`
    /// is a placeholder: printing the options never shows it.
    pub password: Option<crate::password::Password>,
}

/// Fields (and memos) open at once in one list of paragraphs; a field begun while this many
/// are open is read as its text only. A field not yet ended takes the text of every paragraph
/// it runs over (a field over several paragraphs is listed in each, with its part of the
/// text), so every open field costs that text again: ten thousand fields never ended made a
/// 200 KB HWPX section 700 MB and an 850 KB HWP section 450 MB. Real documents nest two or
/// three.
pub const MAX_OPEN_FIELDS: usize = 8;

/// Work bounds of decryption, against files that declare absurd key-derivation costs.
pub mod crypto {
    /// PBKDF2 iterations one HWPX part may ask for (Hancom writes 1,024; ODF writers up to
    /// a few hundred thousand).
    pub const MAX_KDF_ITERATIONS: u32 = 1_000_000;
    /// PBKDF2 iterations all the keys of one package may cost together (distinct salts are
    /// derived once each): about a second of work.
    pub const MAX_KDF_ITERATIONS_TOTAL: u64 = 4_000_000;
}
