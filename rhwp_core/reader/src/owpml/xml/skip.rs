//! Going over the content of an element the visitor skips, to its end tag:
//! checked as quick-xml's `read_to_end` checks it (`skip_content`, from the
//! masks of 64-byte blocks), or not checked (`skip_unchecked`, a jump to the
//! first `</name>`).
//!
//! Separate because skipping is most of the work on large parts (whatever
//! the readers never look at) and has its own block-wise scanning; the
//! randomized tests in `tests::skip` hold it to the construct-at-a-time
//! reference.

use super::fast::{skip_comment, skip_pi};
use super::scan::{block_marks, find_byte, first_of, is_ws, lane_mask, same_bytes, tag_end};
use super::Stop;

/// Skip the content of an element the visitor does not want, to its end tag
/// (consumed). Checked as quick-xml's `read_to_end` checks it: every end tag
/// matches its start, every entity reference is closed; attributes and
/// namespaces are not looked at. `open` holds the non-empty start tags met
/// (where the name starts, its length): only end tags need names.
///
/// Start tags end where `tag_end` says. Their ends are found from the masks
/// of 64-byte blocks (`skip_block`), each block serving the tags in it: the
/// first `>` after the name, when an even number of `"` and no `'` precede
/// it in the tag (anything else is left to `tag_end`). Text, end tags,
/// comments and processing instructions are read where they start.
pub(super) fn skip_content(
    s: &str,
    pos: usize,
    name: &str,
    open: &mut Vec<(usize, usize)>,
) -> std::result::Result<usize, Stop> {
    let b = s.as_bytes();
    open.clear();
    // The current block: where it starts, and its masks. None yet: every
    // position is outside it (`base + 64` wraps to 0).
    let mut base = usize::MAX - 63;
    let mut masks = SkipMasks::default();
    let mut at = pos;
    loop {
        // Character data (OWPML writers put none between tags).
        if b.get(at) != Some(&b'<') {
            at = text_end(b, at)?;
        }
        let next = *b.get(at + 1).ok_or(Stop::Unsure)?;
        if next == b'/' {
            let from = at + 2;
            let len = match open.last() {
                Some(&(start, len)) => same_run(b, start, from, len).then_some(len),
                None => b
                    .get(from..from + name.len())
                    .is_some_and(|t| same_bytes(t, name.as_bytes()))
                    .then_some(name.len()),
            }
            .ok_or(Stop::Unsure)?;
            if b.get(from + len) != Some(&b'>') {
                return Err(Stop::Unsure);
            }
            at = from + len + 1;
            if open.pop().is_none() {
                return Ok(at);
            }
            continue;
        }
        if !STARTS_NAME[usize::from(next)] {
            at = skip_markup(b, at)?;
            continue;
        }
        let start = at + 1;
        // Where the search goes on (the tag's start, then the next blocks').
        let mut from_pos = start;
        // The parity of the tag's `"` before `from_pos`.
        let mut odd = 0u32;
        let end = loop {
            let mut rel = from_pos.wrapping_sub(base);
            if rel >= 64 {
                base = from_pos;
                masks = skip_block(b, base).ok_or(Stop::Unsure)?;
                rel = 0;
            }
            let from = !0u64 << rel;
            let ends = masks.stops & from;
            // The bytes up to the first `>` (all when there is none).
            let upto = from & (ends ^ ends.wrapping_sub(1));
            let quotes = (masks.quotes & upto).count_ones() & 1;
            if masks.singles & upto != 0 || (ends != 0 && quotes != odd) {
                // A `'`, or a `>` inside a value: the exact machine decides.
                break tag_end(b, start).ok_or(Stop::Unsure)?;
            }
            if ends != 0 {
                break base + ends.trailing_zeros() as usize;
            }
            odd ^= quotes;
            from_pos = base + 64;
        };
        // `end > start`: the tag's first byte is not `>`, nor `/`.
        if b.get(end - 1) != Some(&b'/') {
            open.push((start, name_len(b, start, end)));
        }
        at = end + 1;
    }
}

/// The bytes that may follow `<` in a start tag `skip_content` reads: not
/// `/` (end tags), `?` and `!` (processing instructions, comments...), nor
/// `>` and whitespace (no name).
static STARTS_NAME: [bool; 256] = {
    let mut t = [true; 256];
    let others = *b"/?!> \t\r\n";
    let mut i = 0;
    while i < others.len() {
        t[others[i] as usize] = false;
        i += 1;
    }
    t
};

/// A processing instruction or comment at `at` in skipped content: where it
/// ends. Anything else after `<` that is not a tag (`<>`, `< a`, the
/// part's end) is left to quick-xml.
#[inline(never)]
fn skip_markup(b: &[u8], at: usize) -> std::result::Result<usize, Stop> {
    match b.get(at + 1) {
        Some(b'?') => skip_pi(b, at),
        Some(b'!') => skip_comment(b, at),
        _ => Err(Stop::Unsure),
    }
}

/// Where the character data at `at` ends (at the next `<`), each of its
/// entity references being closed: an `&` must be followed by a `;` before
/// the next `&` (or the end).
#[inline(never)]
pub(super) fn text_end(b: &[u8], at: usize) -> std::result::Result<usize, Stop> {
    let rest = b.get(at..).ok_or(Stop::Unsure)?;
    let k = first_of(rest, [b'<', b'&']).ok_or(Stop::Unsure)?;
    if rest.get(k) == Some(&b'<') {
        return Ok(at + k);
    }
    let refs = rest.get(k..).ok_or(Stop::Unsure)?;
    let lt = find_byte(refs, b'<').ok_or(Stop::Unsure)?;
    let mut chunk = refs.get(..lt).ok_or(Stop::Unsure)?;
    while let Some(amp) = chunk.iter().position(|&c| c == b'&') {
        let after = chunk.get(amp + 1..).unwrap_or_default();
        match after.iter().position(|&c| c == b';' || c == b'&') {
            Some(e) if after.get(e) == Some(&b';') => {
                chunk = after.get(e + 1..).unwrap_or_default()
            }
            _ => return Err(Stop::Unsure),
        }
    }
    Ok(at + k + lt)
}

/// Whether the `n` bytes at `x` and at `y` are the same (both inside `b`).
/// Names are short: up to 16 bytes are compared as two words.
#[inline]
fn same_run(b: &[u8], x: usize, y: usize, n: usize) -> bool {
    let words = |at: usize| {
        b.get(at..at + 16)
            .and_then(|w| <[u8; 16]>::try_from(w).ok())
            .map(u128::from_le_bytes)
    };
    if let (Some(p), Some(q)) = (words(x), words(y)) {
        if (1..=16).contains(&n) {
            return (p ^ q) << (8 * (16 - n)) == 0;
        }
    }
    match (b.get(x..x + n), b.get(y..y + n)) {
        (Some(p), Some(q)) => same_bytes(p, q),
        _ => false,
    }
}

/// The length of the name of the start tag at `start` ending at `end` (its
/// `>`): up to the first whitespace, as `skip_content` compares it with
/// end tags.
#[inline]
fn name_len(b: &[u8], start: usize, end: usize) -> usize {
    let len = end - start;
    if let Some(lane) = b
        .get(start..start + 16)
        .and_then(|l| <&[u8; 16]>::try_from(l).ok())
    {
        let hits = lane_mask(lane, [b' ', b'\t', b'\r', b'\n']);
        if hits != 0 || len <= 16 {
            return len.min(hits.trailing_zeros() as usize);
        }
    }
    b.get(start..end)
        .and_then(|tag| tag.iter().position(|&c| is_ws(c)))
        .unwrap_or(len)
}

/// What `skip_content` knows of 64 bytes of the part: where their `"`, `>`
/// and `'` are (bit i = byte i; bytes past the part's end are none of them).
#[derive(Default)]
struct SkipMasks {
    quotes: u64,
    stops: u64,
    singles: u64,
}

/// The masks of the 64 bytes at `base`, None at the part's end.
#[inline(always)]
fn skip_block(b: &[u8], base: usize) -> Option<SkipMasks> {
    let masks = |block: &[u8; 64]| {
        let ([quotes, stops], any_single) = block_marks(block, [b'"', b'>'], b'\'');
        // `'` (never in OWPML tags) is located only when there is one.
        let singles = if any_single {
            block_marks(block, [b'\''], 0).0[0]
        } else {
            0
        };
        SkipMasks {
            quotes,
            stops,
            singles,
        }
    };
    match b
        .get(base..base + 64)
        .and_then(|x| <&[u8; 64]>::try_from(x).ok())
    {
        Some(block) => Some(masks(block)),
        None => {
            // The last bytes (under 64), zero-padded: zero is none of the bytes looked for.
            let rest = b.get(base..).filter(|r| !r.is_empty())?;
            let mut padded = [0u8; 64];
            padded.iter_mut().zip(rest).for_each(|(p, &c)| *p = c);
            Some(masks(&padded))
        }
    }
}

/// Skip an element's content without checking it: to the first `</name>`
/// after `pos` (consumed). That is the element's own end tag whenever the
/// content is well-formed (its text and attribute values hold no `<`) and
/// holds no comment, CDATA section, processing instruction or element of the
/// same name; content with one of those before the end is skipped exactly
/// (`skip_content`). Ill-formed content is not noticed: that is the point.
/// Only the `<` of the content are looked at, found 64 bytes at a time.
pub(super) fn skip_unchecked(
    s: &str,
    pos: usize,
    name: &str,
    open: &mut Vec<(usize, usize)>,
) -> std::result::Result<usize, Stop> {
    let b = s.as_bytes();
    let n = name.len();
    let name_at = ShortName::new(name.as_bytes());
    let mut base = pos;
    while base < b.len() {
        let mut lts = lt_block(b, base);
        while lts != 0 {
            let at = base + lts.trailing_zeros() as usize;
            lts &= lts - 1;
            match b.get(at + 1) {
                Some(b'/') => {
                    if name_at.is_at(b, at + 2) && b.get(at + 2 + n) == Some(&b'>') {
                        return Ok(at + 3 + n);
                    }
                }
                Some(b'!' | b'?') => return skip_content(s, pos, name, open),
                _ => {
                    let nested = name_at.is_at(b, at + 1)
                        && b.get(at + 1 + n)
                            .is_none_or(|&c| is_ws(c) || c == b'>' || c == b'/');
                    if nested {
                        return skip_content(s, pos, name, open);
                    }
                }
            }
        }
        base += 64;
    }
    // No end tag: quick-xml says what is wrong.
    Err(Stop::Unsure)
}

/// An element name compared with the bytes at a position: names of up to 16
/// bytes (all OWPML names) in one 16-byte comparison.
struct ShortName<'n> {
    name: &'n [u8],
    word: u128,
    mask: u128,
}

impl<'n> ShortName<'n> {
    fn new(name: &'n [u8]) -> Self {
        let mut bytes = [0u8; 16];
        let n = name.len().min(16);
        bytes[..n].copy_from_slice(&name[..n]);
        ShortName {
            name,
            word: u128::from_le_bytes(bytes),
            mask: if n == 16 { !0 } else { (1u128 << (8 * n)) - 1 },
        }
    }

    #[inline(always)]
    fn is_at(&self, b: &[u8], i: usize) -> bool {
        match b.get(i..i + 16) {
            Some(w) if self.name.len() <= 16 => {
                let mut bytes = [0u8; 16];
                bytes.copy_from_slice(w);
                (u128::from_le_bytes(bytes) ^ self.word) & self.mask == 0
            }
            _ => b
                .get(i..i + self.name.len())
                .is_some_and(|t| same_bytes(t, self.name)),
        }
    }
}

/// Where the `<` are among the 64 bytes at `base` (bit i = byte i; bytes past
/// the text's end are not).
#[inline(always)]
fn lt_block(b: &[u8], base: usize) -> u64 {
    match b
        .get(base..base + 64)
        .and_then(|x| <&[u8; 64]>::try_from(x).ok())
    {
        Some(block) => block_marks(block, [b'<'], 0).0[0],
        None => {
            let rest = b.get(base..).unwrap_or_default();
            let mut padded = [0u8; 64];
            padded.iter_mut().zip(rest).for_each(|(p, &c)| *p = c);
            block_marks(&padded, [b'<'], 0).0[0]
        }
    }
}
