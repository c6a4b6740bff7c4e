//! Tables from codes to character sequences, stored packed and inflated once.
//!
//! The packed form (written by `tools/gen_hwp3_charset.py`), raw-deflated: for each code in
//! order, one byte `n` (the number of scalars, at most 15) followed by `n` zigzag LEB128
//! varints, each the difference from the previously written scalar. Unpacked, each code is one
//! `u32`: a scalar value, or `MULTI | index << 4 | len` into a side pool of scalars.

/// Entries: a scalar value, or `MULTI | index << 4 | len` into `pool`.
pub struct CharTable {
    entries: Vec<u32>,
    pool: Vec<char>,
}

const MULTI: u32 = 1 << 31;
/// What a code the table leaves empty (or a damaged table) becomes: nothing.
const NONE: u32 = MULTI;

impl CharTable {
    /// Inflate and decode `packed` into `codes` entries. A damaged table leaves the codes it
    /// could not read empty (they then map to nothing): the tables are compiled in, so that
    /// only happens if the generator and this decoder disagree, which the tests catch.
    pub fn unpack(packed: &[u8], codes: usize) -> CharTable {
        let raw = crate::common::inflate::inflate(packed, 1 << 20).unwrap_or_default();
        let mut entries = vec![NONE; codes];
        let mut pool: Vec<char> = Vec::new();
        let mut pos = 0usize;
        let mut prev: i64 = 0;
        let varint = |pos: &mut usize| -> Option<i64> {
            let mut v: u64 = 0;
            let mut shift = 0;
            loop {
                let b = *raw.get(*pos)?;
                *pos += 1;
                v |= u64::from(b & 0x7F) << shift;
                if b & 0x80 == 0 {
                    break;
                }
                shift += 7;
                if shift > 35 {
                    return None;
                }
            }
            Some(((v >> 1) as i64) ^ -((v & 1) as i64))
        };
        for entry in entries.iter_mut() {
            let Some(&n) = raw.get(pos) else { break };
            pos += 1;
            let mut seq = [char::REPLACEMENT_CHARACTER; 15];
            let mut len = 0usize;
            for _ in 0..n {
                let Some(d) = varint(&mut pos) else { break };
                prev += d;
                if let Some(c) = u32::try_from(prev).ok().and_then(char::from_u32) {
                    if len < seq.len() {
                        seq[len] = c;
                        len += 1;
                    }
                }
            }
            *entry = match len {
                0 => NONE,
                1 => seq[0] as u32,
                _ => {
                    let at = pool.len() as u32;
                    pool.extend_from_slice(&seq[..len]);
                    MULTI | at << 4 | len as u32
                }
            };
        }
        CharTable { entries, pool }
    }

    /// The scalars of code `index`: none for an empty code or one past the table.
    #[inline]
    pub fn get(&self, index: usize) -> Chars<'_> {
        match self.entries.get(index) {
            Some(&e) if e & MULTI == 0 => Chars::One(char::from_u32(e)),
            Some(&e) => {
                let at = ((e & !MULTI) >> 4) as usize;
                let len = (e & 15) as usize;
                Chars::Many(self.pool.get(at..at + len).unwrap_or_default())
            }
            None => Chars::Many(&[]),
        }
    }

    /// Append the scalars of code `index` to `out` (nothing for an empty code or one past the
    /// table). The HWP 3.x reader's per-character path: one load and, nearly always, one push.
    #[inline]
    pub fn push(&self, index: usize, out: &mut String) {
        let Some(&e) = self.entries.get(index) else {
            return;
        };
        if e & MULTI == 0 {
            if let Some(c) = char::from_u32(e) {
                out.push(c);
            }
        } else {
            let at = ((e & !MULTI) >> 4) as usize;
            let len = (e & 15) as usize;
            if let Some(s) = self.pool.get(at..at + len) {
                out.extend(s.iter());
            }
        }
    }

    /// How many codes map to something.
    pub fn mapped(&self) -> usize {
        self.entries.iter().filter(|&&e| e != NONE).count()
    }

    /// How many codes the table has (mapped or not).
    pub fn codes(&self) -> usize {
        self.entries.len()
    }
}

/// One code's scalars, without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chars<'a> {
    One(Option<char>),
    Many(&'a [char]),
}

impl Chars<'_> {
    /// Append the scalars to `out`.
    #[inline]
    pub fn push_to(self, out: &mut String) {
        // `push` per character: `String::extend` over an `Option` reserves on every call.
        match self {
            Chars::One(Some(c)) => out.push(c),
            Chars::One(None) => {}
            Chars::Many(s) => s.iter().for_each(|&c| out.push(c)),
        }
    }

    pub fn is_empty(self) -> bool {
        matches!(self, Chars::One(None) | Chars::Many(&[]))
    }
}
