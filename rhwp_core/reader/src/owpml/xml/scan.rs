//! Byte scans under the fast engine: eight bytes at a time in a word, sixteen
//! in an SSE2 lane, 64 in a block of lane masks. Where a start tag ends (the
//! first `>` outside quotes), where its name ends, whether it may declare a
//! namespace, the first of a few bytes, and short byte-slice equality.
//!
//! Separate because this is the only `unsafe` code of the reader (the SSE2
//! intrinsics of `lane_mask` and `block_marks`, each with a portable fallback
//! off x86-64), and because each scan is tested against a byte-at-a-time
//! reference below.

/// Byte-slice equality for the short names and keys of a tag, compared
/// inline: `==` on slices is a call to libc's `memcmp`, which costs more
/// than the comparison itself at these lengths (a hot spot in profiles).
#[inline(always)]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Two (overlapping) words from each end cover 4 to 16 bytes.
    if (8..=16).contains(&n) {
        let w = |s: &[u8], i: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&s[i..i + 8]);
            u64::from_le_bytes(word)
        };
        return w(a, 0) == w(b, 0) && w(a, n - 8) == w(b, n - 8);
    }
    if (4..8).contains(&n) {
        let w = |s: &[u8], i: usize| {
            let mut word = [0u8; 4];
            word.copy_from_slice(&s[i..i + 4]);
            u32::from_le_bytes(word)
        };
        return w(a, 0) == w(b, 0) && w(a, n - 4) == w(b, n - 4);
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The bytes at which a start tag's name stops being read: whitespace (its
/// end, by quick-xml's rule) and the quotes and `/` that the fast engine
/// leaves to quick-xml when they are part of a name.
static ENDS_NAME: [bool; 256] = {
    let mut t = [false; 256];
    let stops = *b" \t\r\n\"'/";
    let mut k = 0;
    while k < stops.len() {
        t[stops[k] as usize] = true;
        k += 1;
    }
    t
};

/// Eight bytes at a time: which of the bytes of `word` are zero (the high bit
/// of each such byte set; bits above the first zero byte may be spurious,
/// which is harmless when only the lowest is used).
#[inline(always)]
pub(super) fn zero_bytes(word: u64) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    word.wrapping_sub(LOW) & !word & HIGH
}

/// The first position of `a` or `b` in `hay` (std has no public memchr; its
/// `str::find(char)` pays a comparison call per candidate).
#[inline]
pub(super) fn find_either(hay: &[u8], a: u8, b: u8) -> Option<usize> {
    let (ra, rb) = (u64::from_le_bytes([a; 8]), u64::from_le_bytes([b; 8]));
    let mut chunks = hay.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let w = u64::from_le_bytes(bytes);
        let hits = zero_bytes(w ^ ra) | zero_bytes(w ^ rb);
        if hits != 0 {
            return Some(base + (hits.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&c| c == a || c == b)
        .map(|i| base + i)
}

/// Which bytes of `word` equal the byte `splat` is made of: exactly the
/// high bit of each such byte (no spurious bits, unlike `zero_bytes`).
#[inline(always)]
fn equal_bytes(word: u64, splat: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ splat;
    !((x & LOW7).wrapping_add(LOW7) | x | LOW7)
}

/// How many bytes `equal_bytes` marked (each marks only its high bit).
#[inline(always)]
fn marked_count(mask: u64) -> u64 {
    (mask >> 7).wrapping_mul(0x0101_0101_0101_0101) >> 56
}

/// Where a start tag whose name begins at `from` ends: the first `>` outside
/// `"` or `'` quotes (quick-xml's rule). While only double quotes occur
/// (OWPML writers use no others), a `>` is outside the quotes exactly when
/// an even number of `"` precede it, so quotes are counted, not stepped
/// through: 32 bytes at a time while no `>` or `'` is among them (a loop the
/// compiler turns into vector compares), then eight at a time; the first `'`
/// hands the rest of the tag to the quote state machine (`tag_end_stepwise`).
#[inline]
pub(super) fn tag_end(b: &[u8], from: usize) -> Option<usize> {
    tag_end_scan::<false>(b, from).map(|(gt, _)| gt)
}

/// `tag_end`, and (with `NOTE_XM`) whether an `x` followed by `m` may lie
/// before it: without one, the tag declares no namespace (`mentions_xmlns`
/// need not look). Noted from the same 64-byte blocks; `true` when unsure.
#[inline(always)]
pub(super) fn tag_end_scan<const NOTE_XM: bool>(b: &[u8], from: usize) -> Option<(usize, bool)> {
    let rest = b.get(from..)?;
    // Whether a `"` value is open at the start of the current block.
    let mut inside = false;
    let mut xm = false;
    let mut base = 0;
    let mut blocks = rest.chunks_exact(64);
    for block in &mut blocks {
        let Ok(block) = <&[u8; 64]>::try_from(block) else {
            break;
        };
        let (quotes, stops, singles) = block_masks(block);
        if singles != 0 {
            // `'` quotes: the state machine decides from this block on.
            return tag_end_stepwise(b, from + base, inside).map(|gt| (gt, true));
        }
        // An `x` in the block's last byte may be followed by an `m` in the next.
        let pairs = if NOTE_XM {
            let [xs, ms] = block_marks(block, [b'x', b'm'], 0).0;
            xs & ((ms >> 1) | 1 << 63)
        } else {
            0
        };
        // Bit i set when byte i lies inside (or opens) a `"` value: the running
        // parity of the quotes up to it, carried over from earlier blocks.
        let mut parity = prefix_xor(quotes);
        if inside {
            parity = !parity;
        }
        let outside = stops & !parity;
        if outside != 0 {
            let at = outside.trailing_zeros();
            xm |= pairs & ((1u64 << at) - 1) != 0;
            return Some((from + base + at as usize, xm));
        }
        xm |= pairs != 0;
        inside ^= quotes.count_ones() & 1 == 1;
        base += 64;
    }
    let tail = blocks.remainder();
    let whole = tail.len() / 8 * 8;
    let gt = match tag_end_words(tail.get(..whole)?, u64::from(inside)) {
        WordScan::Found(k) => Some(from + base + k),
        WordScan::SingleQuote(k, in_double) => tag_end_stepwise(b, from + base + k, in_double),
        WordScan::Through(in_double) => tag_end_stepwise(b, from + base + whole, in_double),
    };
    gt.map(|gt| (gt, true))
}

/// Bit masks of the `"`, `>` and `'` bytes of 64 bytes (bit i = byte i).
#[inline(always)]
fn block_masks(block: &[u8; 64]) -> (u64, u64, u64) {
    let (mut quotes, mut stops, mut singles) = (0u64, 0u64, 0u64);
    for (k, lane) in block.chunks_exact(16).enumerate() {
        let Ok(lane) = <&[u8; 16]>::try_from(lane) else {
            break;
        };
        let shift = 16 * k;
        quotes |= u64::from(lane_mask(lane, [b'"'])) << shift;
        stops |= u64::from(lane_mask(lane, [b'>'])) << shift;
        singles |= u64::from(lane_mask(lane, [b'\''])) << shift;
    }
    (quotes, stops, singles)
}

/// Which of 16 bytes (bit i = byte i) equal one of `wanted`: one vector
/// compare per wanted byte (SSE2, part of every x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn lane_mask<const N: usize>(lane: &[u8; 16], wanted: [u8; N]) -> u16 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // available on every x86-64 CPU; the load reads the 16 bytes of `lane`
    // and has no alignment requirement.
    unsafe {
        let v = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
        let mut hits = _mm_setzero_si128();
        for w in wanted {
            hits = _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8(w as i8)));
        }
        _mm_movemask_epi8(hits) as u16
    }
}

/// The same mask, byte by byte, where SSE2 is not at hand.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn lane_mask<const N: usize>(lane: &[u8; 16], wanted: [u8; N]) -> u16 {
    let mut mask = 0u16;
    for (i, c) in lane.iter().enumerate() {
        mask |= u16::from(wanted.contains(c)) << i;
    }
    mask
}

/// The first position in `hay` of a byte of `set` (which must not hold the
/// zero byte): sixteen bytes at a time (`lane_mask`), the rest padded.
#[inline(always)]
pub(super) fn first_of<const N: usize>(hay: &[u8], set: [u8; N]) -> Option<usize> {
    let mut lanes = hay.chunks_exact(16);
    let mut base = 0;
    for lane in &mut lanes {
        let Ok(lane) = <&[u8; 16]>::try_from(lane) else {
            break;
        };
        let hits = lane_mask(lane, set);
        if hits != 0 {
            return Some(base + hits.trailing_zeros() as usize);
        }
        base += 16;
    }
    // The rest (under sixteen bytes), zero-padded: no set holds a zero byte.
    let rest = lanes.remainder();
    let mut lane = [0u8; 16];
    lane[..rest.len()].copy_from_slice(rest);
    let hits = lane_mask(&lane, set) & ((1u32 << rest.len()) - 1) as u16;
    (hits != 0).then(|| base + hits.trailing_zeros() as usize)
}

/// `first_of` over `text[start..end]`, as a position in `text`. A range of
/// up to 16 bytes (most keys and values) is one lane read from `text` itself,
/// past `end` when the text goes on (those bytes masked off): copying the
/// last bytes into a padded lane, as `first_of` must, stalls the load that
/// follows the copy (the store cannot be forwarded to it).
#[inline(always)]
pub(super) fn first_of_within<const N: usize>(
    text: &[u8],
    start: usize,
    end: usize,
    set: [u8; N],
) -> Option<usize> {
    let len = end.checked_sub(start)?;
    if len <= 16 {
        if let Some(lane) = text
            .get(start..start + 16)
            .and_then(|l| <&[u8; 16]>::try_from(l).ok())
        {
            let hits = u32::from(lane_mask(lane, set)) & ((1u32 << len) - 1);
            return (hits != 0).then(|| start + hits.trailing_zeros() as usize);
        }
    }
    first_of(text.get(start..end)?, set).map(|k| start + k)
}

/// Where a start tag's name ends in its content (the text between `<` and
/// `>`): at the first byte of `ENDS_NAME`, or the content's end. Names are
/// short: the first 16 bytes are looked at in one go.
#[inline]
pub(super) fn name_end(content: &[u8]) -> usize {
    if let Some(lane) = content
        .get(..16)
        .and_then(|l| <&[u8; 16]>::try_from(l).ok())
    {
        let hits = lane_mask(lane, [b' ', b'\t', b'\r', b'\n', b'"', b'\'', b'/']);
        if hits != 0 {
            return hits.trailing_zeros() as usize;
        }
    }
    content
        .iter()
        .position(|&c| ENDS_NAME[usize::from(c)])
        .unwrap_or(content.len())
}

/// Bit i of the result is the XOR of bits 0..=i of `x`.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// What `tag_end_words` found in its words.
enum WordScan {
    /// The tag's `>`, at this offset.
    Found(usize),
    /// A `'` in the word at this offset (the state is whether a `"` value is
    /// open at the word's start): the quote state machine takes over there.
    SingleQuote(usize, bool),
    /// No end: whether a `"` value is open after the words.
    Through(bool),
}

/// `tag_end` over whole eight-byte words (`words.len()` a multiple of 8,
/// any rest ignored), `inside` being the count of `"` before, modulo 2.
#[inline]
fn tag_end_words(words: &[u8], mut inside: u64) -> WordScan {
    const GT: u64 = u64::from_le_bytes([b'>'; 8]);
    const DQ: u64 = u64::from_le_bytes([b'"'; 8]);
    const SQ: u64 = u64::from_le_bytes([b'\''; 8]);
    let mut base = 0;
    for chunk in words.chunks_exact(8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let w = u64::from_le_bytes(bytes);
        if equal_bytes(w, SQ) != 0 {
            return WordScan::SingleQuote(base, inside != 0);
        }
        let dqs = equal_bytes(w, DQ);
        let mut candidates = equal_bytes(w, GT);
        while candidates != 0 {
            let lowest = candidates & candidates.wrapping_neg();
            if (inside + marked_count(dqs & (lowest - 1))) & 1 == 0 {
                return WordScan::Found(base + (lowest.trailing_zeros() / 8) as usize);
            }
            candidates &= candidates - 1;
        }
        inside = (inside + marked_count(dqs)) & 1;
        base += 8;
    }
    WordScan::Through(inside != 0)
}

/// `tag_end` by the quote state machine, from `at` (inside a `"` value or
/// not, as `in_double` says).
fn tag_end_stepwise(b: &[u8], at: usize, in_double: bool) -> Option<usize> {
    let mut quote = if in_double { b'"' } else { 0u8 };
    for (k, &c) in b.get(at..)?.iter().enumerate() {
        if quote != 0 {
            if c == quote {
                quote = 0;
            }
        } else if c == b'>' {
            return Some(at + k);
        } else if c == b'"' || c == b'\'' {
            quote = c;
        }
    }
    None
}

/// Does a start tag's attribute text contain `xmlns` anywhere (so possibly
/// a namespace declaration)? Looks only at the rare `x`s.
#[inline]
pub(super) fn mentions_xmlns(attrs: &[u8]) -> bool {
    // Sixteen positions at a time while no `x` is followed by `m` (rare in
    // attribute text; `x` alone is not: `textpos`, `textheight`...).
    let mut from = 0;
    while let (Some(here), Some(next)) = (
        attrs
            .get(from..from + 16)
            .and_then(|l| <&[u8; 16]>::try_from(l).ok()),
        attrs
            .get(from + 1..from + 17)
            .and_then(|l| <&[u8; 16]>::try_from(l).ok()),
    ) {
        if lane_mask(here, [b'x']) & lane_mask(next, [b'm']) != 0 {
            break;
        }
        from += 16;
    }
    while let Some(k) = attrs.get(from..).and_then(|r| find_byte(r, b'x')) {
        if attrs.get(from + k..from + k + 5) == Some(b"xmlns") {
            return true;
        }
        from += k + 1;
    }
    false
}

/// The first position of `a` in `hay`, eight bytes at a time.
#[inline]
pub(super) fn find_byte(hay: &[u8], a: u8) -> Option<usize> {
    let ra = u64::from_le_bytes([a; 8]);
    let mut chunks = hay.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let hits = zero_bytes(u64::from_le_bytes(bytes) ^ ra);
        if hits != 0 {
            return Some(base + (hits.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&c| c == a)
        .map(|i| base + i)
}

#[inline]
pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The first position from `i` on that is not whitespace (or the end).
#[inline]
pub(super) fn skip_ws(b: &[u8], i: usize) -> usize {
    match b.get(i..) {
        Some(rest) => i + rest.iter().position(|&c| !is_ws(c)).unwrap_or(rest.len()),
        None => i,
    }
}

/// For 64 bytes (bit i = byte i): which equal each of `marked`, and whether
/// any equals `flagged` (one vector compare per byte looked for and 16 bytes;
/// SSE2 is part of every x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn block_marks<const N: usize>(
    block: &[u8; 64],
    marked: [u8; N],
    flagged: u8,
) -> ([u64; N], bool) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        _mm_setzero_si128,
    };
    let mut masks = [0u64; N];
    // SAFETY: SSE2 is part of the x86-64 baseline, so the intrinsics are
    // available on every x86-64 CPU; each load reads 16 of the 64 bytes of
    // `block` (a lane from `chunks_exact(16)`) and has no alignment requirement.
    unsafe {
        let mut any = _mm_setzero_si128();
        let wanted = _mm_set1_epi8(flagged as i8);
        for (k, lane) in block.chunks_exact(16).enumerate() {
            let v = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
            for (mask, &m) in masks.iter_mut().zip(&marked) {
                let hits = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(m as i8))) as u16;
                *mask |= u64::from(hits) << (16 * k);
            }
            any = _mm_or_si128(any, _mm_cmpeq_epi8(v, wanted));
        }
        (masks, _mm_movemask_epi8(any) != 0)
    }
}

/// The same masks, byte by byte, where SSE2 is not at hand.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn block_marks<const N: usize>(
    block: &[u8; 64],
    marked: [u8; N],
    flagged: u8,
) -> ([u64; N], bool) {
    let mut masks = [0u64; N];
    let mut any = false;
    for (i, &c) in block.iter().enumerate() {
        for (mask, &m) in masks.iter_mut().zip(&marked) {
            *mask |= u64::from(c == m) << i;
        }
        any |= c == flagged;
    }
    (masks, any)
}

#[cfg(test)]
mod tests {
    use super::super::attrs::ENDS_KEY;
    use super::super::tests::Rng;
    use super::*;

    /// The first `>` outside quotes, a byte at a time (the reference for `tag_end`).
    fn naive_tag_end(t: &[u8], from: usize) -> Option<usize> {
        let mut quote = 0u8;
        for (k, &c) in t.iter().enumerate().skip(from) {
            if quote != 0 {
                if c == quote {
                    quote = 0;
                }
            } else if c == b'>' {
                return Some(k);
            } else if c == b'"' || c == b'\'' {
                quote = c;
            }
        }
        None
    }

    #[test]
    fn name_key_and_xmlns_searches_match_the_byte_rules() {
        let ends = [
            b' ', b'\t', b'\r', b'\n', b'"', b'\'', b'/', b'x', b':', b'=', 0xea,
        ];
        for len in 0..40 {
            for at in 0..=len {
                for &end in &ends {
                    let mut content = vec![b'a'; len];
                    if at < len {
                        content[at] = end;
                    }
                    let expected = content
                        .iter()
                        .position(|&c| ENDS_NAME[usize::from(c)])
                        .unwrap_or(content.len());
                    assert_eq!(name_end(&content), expected, "{content:?}");
                    assert_eq!(
                        first_of(&content, ENDS_KEY),
                        content.iter().position(|c| ENDS_KEY.contains(c)),
                        "{content:?}"
                    );
                }
                let mut attrs = vec![b'a'; len];
                if at + 5 <= len {
                    attrs[at..at + 5].copy_from_slice(b"xmlns");
                }
                let expected = attrs.windows(5).any(|w| w == b"xmlns");
                assert_eq!(mentions_xmlns(&attrs), expected, "{attrs:?}");
            }
        }
    }

    /// Long tags (several 64-byte blocks) with quotes and `>` anywhere, from
    /// a fixed pseudo-random sequence: block borders and carried quote state.
    #[test]
    fn tag_end_matches_the_quote_machine_on_long_tags() {
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..4000 {
            let len = (next() % 400) as usize;
            // Mostly letters, some quotes and `>`; `'` only in every fourth tag.
            let t: Vec<u8> = (0..len)
                .map(|_| match next() % 40 {
                    0..=2 => b'"',
                    3 => b'>',
                    4 if round % 4 == 0 => b'\'',
                    5 => b' ',
                    _ => b'a',
                })
                .collect();
            for from in [0, 1, 7, 63, 64, 65, 130] {
                if from <= t.len() {
                    assert_eq!(
                        tag_end(&t, from),
                        naive_tag_end(&t, from),
                        "{} from {from}",
                        String::from_utf8_lossy(&t)
                    );
                }
            }
        }
    }

    #[test]
    fn word_search_finds_the_first() {
        let hay = b"abcdefgh<ijklmnop&qrstuvwxyz<";
        for start in 0..hay.len() {
            let naive = hay[start..].iter().position(|&c| c == b'<' || c == b'&');
            assert_eq!(find_either(&hay[start..], b'<', b'&'), naive);
            assert_eq!(
                find_byte(&hay[start..], b'z'),
                hay[start..].iter().position(|&c| c == b'z')
            );
        }
        assert_eq!(find_byte(b"", b'<'), None);
        // Tag ends, against a byte-at-a-time quote machine.
        let tags: [&[u8]; 11] = [
            b"a b=\"x>y\" c='\">'>t",
            b"abcdefgh>",
            b"a\"'>\"'>",
            b"q",
            b"a b='1' c=\"2\"/><b>",
            b"x='>>>>>>>>>>>>'>",
            b"a b=\"x>y\" c=\"12345678>9\" d=\"\" e=\">>>>>>>>>>>>>>>>>\">rest>",
            b"a b=\"1\" c=\"2\" d=\"3\" e=\"4\" f=\"5\" g=\"x>'>\" h='\">\"' i=\">\"/>",
            b"p q=\"\"\"\"\"\"\"\"\">\">",
            b"hp:lineseg textpos=\"0\" vertpos=\"0\" vertsize=\"1000\" textheight=\"1000\" baseline=\"850\" spacing=\"600\" horzpos=\"0\" horzsize=\"42520\" flags=\"393216\"/>",
            b"a b=\"0123456789012345678901234567890123456789>\" c=\"01234567890123456789012345678'>\" d='\"' e=\">\">",
        ];
        for t in tags {
            for from in 0..t.len() {
                let naive = naive_tag_end(t, from);
                assert_eq!(
                    tag_end(t, from),
                    naive,
                    "{} from {from}",
                    String::from_utf8_lossy(t)
                );
            }
        }
        assert_eq!(
            find_byte(&[0x80, 0x3c, 0x81, 0, 0, 0, 0, 0, 0x3c], b'<'),
            Some(1)
        );
    }

    /// `first_of_within` reads past its range and masks: the same answers as
    /// `first_of` over the range alone, at every length and near the text's end.
    #[test]
    fn first_of_within_matches_first_of() {
        let mut r = Rng(0x853c_49e6_748f_ea9b);
        for _ in 0..20_000 {
            let len = r.below(48);
            let text: Vec<u8> = (0..len).map(|_| b"a=\" >x"[r.below(6)]).collect();
            let start = r.below(len + 1);
            let end = start + r.below(len - start + 1);
            assert_eq!(
                first_of_within(&text, start, end, ENDS_KEY),
                first_of(&text[start..end], ENDS_KEY).map(|k| start + k),
                "{text:?} {start}..{end}"
            );
            assert_eq!(
                first_of_within(&text, start, end, [b'"']),
                first_of(&text[start..end], [b'"']).map(|k| start + k)
            );
        }
    }
}
