//! Start tags and their attributes: `Tag` (split by the fast engine, eagerly
//! or on the first lookup, or quick-xml's start event), and the readers the
//! parts call (`attr`, `attrs`, `attr_u32`, ...).
//!
//! Separate from the engines because it is what the readers see of an
//! element: the fast engine's splitting of ` key="value"` answers exactly as
//! quick-xml's attribute parser would, and hands anything unusual to it.

use super::resolve_entity;
use super::scan::{first_of_within, is_ws, same_bytes, skip_ws, zero_bytes};
use quick_xml::events::BytesStart;
use std::borrow::Cow;

/// Does an attribute's qualified name have the local name `key`? Compared
/// in place (no search for the colon): OWPML attributes are unprefixed
/// except the odd `xml:` or `hp:required-namespace`.
#[inline]
fn key_is(qualified: &str, key: &str) -> bool {
    key_is_bytes(qualified.as_bytes(), key)
}

#[inline]
fn key_is_bytes(q: &[u8], key: &str) -> bool {
    let k = key.as_bytes();
    if q.len() == k.len() {
        return same_bytes(q, k);
    }
    // A prefixed name: the colon is checked before the bytes are compared.
    q.len() > k.len() && q[q.len() - k.len() - 1] == b':' && same_bytes(&q[q.len() - k.len()..], k)
}

#[inline(always)]
fn attr_value<'a>(value: Cow<'a, str>) -> Cow<'a, str> {
    match value {
        // Values are short: a plain loop, not a call to `memchr`.
        Cow::Borrowed(v) if !v.bytes().any(|c| c == b'&') => Cow::Borrowed(v),
        other => Cow::Owned(unescape_attr(&other)),
    }
}

/// An element's start tag, for attribute lookup: its attributes split by
/// the fast engine (eagerly, or on the first lookup), or quick-xml's start
/// event (compat engine).
pub struct Tag<'e, 'i>(pub(super) TagRepr<'e, 'i>);

pub(super) enum TagRepr<'e, 'i> {
    /// The attributes in document order, as spans of the part's text (tags
    /// that declare namespaces: their bindings are needed at once).
    Split {
        text: &'i str,
        spans: &'e [AttrSpan],
    },
    /// Not split yet: most attributes of most tags (`charPr`, `lineseg`,
    /// ...) are never asked for, so each lookup scans the tag itself.
    Lazy(LazyTag<'i>),
    Quick(&'e BytesStart<'i>),
}

/// A start tag read by the fast engine whose attributes are split on demand:
/// `content` is the byte range between `<` and `>` (`/>` for an empty
/// element), the name being its first `name_len` bytes.
#[derive(Clone, Copy)]
pub(super) struct LazyTag<'i> {
    pub(super) text: &'i str,
    pub(super) content: (usize, usize),
    pub(super) name_len: usize,
}

/// Attribute syntax the fast engine does not split itself (the tag is then
/// handed to quick-xml's attribute parser).
pub(super) struct Unusual;

impl<'i> LazyTag<'i> {
    /// The attributes in document order; an `Err` (then the end) at the
    /// first piece of syntax not split exactly as quick-xml would.
    #[inline]
    pub(super) fn spans(&self) -> AttrSpans<'i> {
        AttrSpans {
            text: self.text.as_bytes(),
            at: self.content.0 + self.name_len,
            end: self.content.1,
            done: false,
        }
    }

    /// The tag as quick-xml's start event (what the compat engine would see).
    pub(super) fn quick(&self) -> Option<BytesStart<'i>> {
        let content = self.text.get(self.content.0..self.content.1)?;
        Some(BytesStart::from_content(content, self.name_len))
    }
}

/// The attributes of a start tag (`LazyTag::spans`).
pub(super) struct AttrSpans<'i> {
    text: &'i [u8],
    at: usize,
    end: usize,
    done: bool,
}

impl Iterator for AttrSpans<'_> {
    type Item = std::result::Result<AttrSpan, Unusual>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        // The usual form first, inline; after the end or an `Err` it fails
        // again at the same place, and `done` answers.
        if let Some((span, next)) = plain_attr(self.text, self.at, self.end) {
            self.at = next;
            return Some(Ok(span));
        }
        if self.done {
            return None;
        }
        match next_attr_general(self.text, self.at, self.end) {
            Ok(Some((span, next))) => {
                self.at = next;
                Some(Ok(span))
            }
            Ok(None) => {
                self.done = true;
                None
            }
            Err(u) => {
                self.done = true;
                Some(Err(u))
            }
        }
    }
}

/// The bytes that end an attribute's key: whitespace, `=`, quotes, `<`, `>`, `/`.
pub(super) const ENDS_KEY: [u8; 10] = *b" \t\r\n=\"'<>/";

/// Bytes that may be part of an attribute's key (not in `ENDS_KEY`).
static KEY_BYTE: [bool; 256] = {
    let mut t = [true; 256];
    let mut k = 0;
    while k < ENDS_KEY.len() {
        t[ENDS_KEY[k] as usize] = false;
        k += 1;
    }
    t
};

/// The attribute at `i` in the form every OWPML writer uses, ` key="value"` (one
/// space, no space around `=`), read eight bytes at a time: every byte that
/// ends a key is below 0x40, so a key runs at least to the first such byte,
/// and usually (letters only) ends there at its `=`. `None` for anything
/// else (`next_attr_general` then decides), so where it answers it answers
/// as `next_attr_general` would.
#[inline(always)]
fn plain_attr(text: &[u8], i: usize, end: usize) -> Option<(AttrSpan, usize)> {
    const HIGH_BITS: u64 = u64::from_le_bytes([0xC0; 8]);
    const QUOTES: u64 = u64::from_le_bytes([b'"'; 8]);
    let b = text.get(..end)?;
    if *b.get(i)? != b' ' {
        return None;
    }
    let key_start = i + 1;
    let mut k = key_start;
    // Words may run past `end` into the rest of the part: the tag's own `>`
    // or `/` there is below 0x40 too, and the position is checked after.
    while let Some(word) = text.get(k..k + 8) {
        let low = zero_bytes(u64::from_le_bytes(word.try_into().ok()?) & HIGH_BITS);
        if low != 0 {
            k += (low.trailing_zeros() / 8) as usize;
            break;
        }
        k += 8;
    }
    // Digits, `:`, `-`, `.` are below 0x40 but belong to keys.
    while k < b.len() && KEY_BYTE[usize::from(b[k])] {
        k += 1;
    }
    if k == key_start || b.get(k..k + 2)? != b"=\"" {
        return None;
    }
    let value_start = k + 2;
    let mut v = value_start;
    while let Some(word) = text.get(v..v + 8) {
        let hits = zero_bytes(u64::from_le_bytes(word.try_into().ok()?) ^ QUOTES);
        if hits != 0 {
            v += (hits.trailing_zeros() / 8) as usize;
            break;
        }
        v += 8;
    }
    while *b.get(v)? != b'"' {
        v += 1;
    }
    let span = AttrSpan {
        key: (key_start, k),
        value: (value_start, v),
    };
    Some((span, v + 1))
}

/// The attribute starting at or after `i` (whitespace first) in a start tag
/// whose attributes end at `end`: its span and where the next may begin, or
/// `None` at the end. Accepts only `key = "value"` / `'value'` preceded by
/// whitespace, with a key free of quotes, `=`, `<`, `>`, `/` and
/// whitespace: what quick-xml splits the same way.
#[cold]
fn next_attr_general(
    b: &[u8],
    i: usize,
    end: usize,
) -> std::result::Result<Option<(AttrSpan, usize)>, Unusual> {
    let text = b;
    let b = b.get(..end).ok_or(Unusual)?;
    // Attributes are preceded by whitespace, nearly always one space.
    let i = match b.get(i) {
        None => return Ok(None),
        Some(&c) if !is_ws(c) => return Err(Unusual),
        Some(_) if b.get(i + 1).is_some_and(|&c| !is_ws(c)) => i + 1,
        Some(_) => skip_ws(b, i),
    };
    if i >= end {
        return Ok(None);
    }
    let key_start = i;
    let key_end = first_of_within(text, i, end, ENDS_KEY).ok_or(Unusual)?;
    let i = if b.get(key_end) == Some(&b'=') {
        key_end
    } else {
        skip_ws(b, key_end)
    };
    if key_end == key_start || b.get(i) != Some(&b'=') {
        return Err(Unusual);
    }
    let i = if matches!(b.get(i + 1), Some(b'"' | b'\'')) {
        i + 1
    } else {
        skip_ws(b, i + 1)
    };
    let quote = match b.get(i) {
        Some(&q @ (b'"' | b'\'')) => q,
        _ => return Err(Unusual),
    };
    let value_start = i + 1;
    let value_end = first_of_within(text, value_start, end, [quote]).ok_or(Unusual)?;
    let span = AttrSpan {
        key: (key_start, key_end),
        value: (value_start, value_end),
    };
    Ok(Some((span, value_end + 1)))
}

/// One attribute of a start tag read by the fast engine: byte ranges of its
/// qualified name and of its raw value (between the quotes) in the part.
/// Both end at ASCII delimiters, so they are on character boundaries.
#[derive(Clone, Copy)]
pub(super) struct AttrSpan {
    pub(super) key: (usize, usize),
    value: (usize, usize),
}

impl AttrSpan {
    #[inline]
    pub(super) fn key<'i>(&self, text: &'i str) -> Option<&'i [u8]> {
        text.as_bytes().get(self.key.0..self.key.1)
    }

    #[inline]
    pub(super) fn value<'i>(&self, text: &'i str) -> Option<&'i str> {
        text.get(self.value.0..self.value.1)
    }
}

/// quick-xml's view of one attribute (compat engine, and tags the fast
/// engine leaves to it).
fn quick_attr<'a>(e: &'a BytesStart<'_>, key: &str) -> Option<Cow<'a, str>> {
    let mut attrs = e.attributes();
    attrs.with_checks(false);
    for a in attrs.flatten() {
        if key_is(a.key.as_ref(), key) {
            return Some(attr_value(a.value));
        }
    }
    None
}

/// quick-xml's view of several attributes (see `attrs`).
fn quick_attrs<'a, const N: usize>(
    e: &'a BytesStart<'_>,
    keys: [&str; N],
) -> [Option<Cow<'a, str>>; N] {
    let mut out: [Option<Cow<'a, str>>; N] = std::array::from_fn(|_| None);
    let mut found = 0;
    let mut it = e.attributes();
    it.with_checks(false);
    for a in it.flatten() {
        if let Some(i) = keys.iter().position(|key| key_is(a.key.as_ref(), key)) {
            // The first occurrence of each key wins (later duplicates are ignored).
            if out[i].is_none() {
                out[i] = Some(attr_value(a.value));
                found += 1;
                if found == N {
                    break;
                }
            }
        }
    }
    out
}

fn into_owned(v: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(v.into_owned())
}

/// The (unescaped) value of the attribute whose local name is `key`.
pub fn attr<'a>(e: &'a Tag<'_, '_>, key: &str) -> Option<Cow<'a, str>> {
    match &e.0 {
        TagRepr::Split { text, spans } => spans
            .iter()
            .find(|a| a.key(text).is_some_and(|k| key_is_bytes(k, key)))
            .and_then(|a| a.value(text))
            .map(|v| attr_value(Cow::Borrowed(v))),
        TagRepr::Lazy(tag) => {
            let text = tag.text;
            let mut spans = tag.spans();
            // The usual form, without the iterator's bookkeeping.
            while let Some((a, next)) = plain_attr(spans.text, spans.at, spans.end) {
                if a.key(text).is_some_and(|k| key_is_bytes(k, key)) {
                    return a.value(text).map(|v| attr_value(Cow::Borrowed(v)));
                }
                spans.at = next;
            }
            for a in spans {
                match a {
                    // Everything before it was split as quick-xml splits it,
                    // so it is the first attribute quick-xml would find too.
                    Ok(a) if a.key(text).is_some_and(|k| key_is_bytes(k, key)) => {
                        return a.value(text).map(|v| attr_value(Cow::Borrowed(v)));
                    }
                    Ok(_) => {}
                    Err(Unusual) => {
                        return tag
                            .quick()
                            .and_then(|q| quick_attr(&q, key).map(into_owned))
                    }
                }
            }
            None
        }
        TagRepr::Quick(e) => quick_attr(e, key),
    }
}

/// Several attributes in one pass over the element's attributes.
pub fn attrs<'a, const N: usize>(e: &'a Tag<'_, '_>, keys: [&str; N]) -> [Option<Cow<'a, str>>; N] {
    let mut wanted = Wanted::new(keys);
    match &e.0 {
        TagRepr::Quick(e) => return quick_attrs(e, keys),
        TagRepr::Split { text, spans } => {
            for &a in spans.iter() {
                if wanted.take(text, a) {
                    break;
                }
            }
        }
        TagRepr::Lazy(tag) => {
            let mut spans = tag.spans();
            // The usual form, without the iterator's bookkeeping.
            while let Some((a, next)) = plain_attr(spans.text, spans.at, spans.end) {
                spans.at = next;
                if wanted.take(tag.text, a) {
                    return wanted.values;
                }
            }
            for a in spans {
                match a {
                    Ok(a) => {
                        if wanted.take(tag.text, a) {
                            break;
                        }
                    }
                    // Syntax split by quick-xml: its answer.
                    Err(Unusual) => {
                        return match tag.quick() {
                            Some(q) => quick_attrs(&q, keys).map(|v| v.map(into_owned)),
                            None => std::array::from_fn(|_| None),
                        }
                    }
                }
            }
        }
    }
    wanted.values
}

/// The values `attrs` has found so far.
struct Wanted<'a, 'k, const N: usize> {
    keys: [&'k str; N],
    values: [Option<Cow<'a, str>>; N],
    found: usize,
}

impl<'a, 'k, const N: usize> Wanted<'a, 'k, N> {
    fn new(keys: [&'k str; N]) -> Self {
        Wanted {
            keys,
            values: std::array::from_fn(|_| None),
            found: 0,
        }
    }

    /// Note one attribute split by the fast engine; true once every key has
    /// its value. Values are sliced only for the keys asked for; the first
    /// occurrence of each key wins (later duplicates are ignored).
    #[inline(always)]
    fn take(&mut self, text: &'a str, a: AttrSpan) -> bool {
        let Some(k) = a.key(text) else {
            return false;
        };
        // Writers put attributes in one order and callers ask in it: the key after the last
        // found is tried first.
        let next = self.keys.get(self.found).filter(|key| key_is_bytes(k, key));
        let at = match next {
            Some(_) => Some(self.found),
            None => self.keys.iter().position(|key| key_is_bytes(k, key)),
        };
        if let Some(i) = at {
            if self.values[i].is_none() {
                if let Some(v) = a.value(text) {
                    self.values[i] = Some(attr_value(Cow::Borrowed(v)));
                    self.found += 1;
                }
            }
        }
        self.found == N
    }
}

pub fn attr_u32(e: &Tag<'_, '_>, key: &str) -> Option<u32> {
    attr(e, key).and_then(|v| parse_u32(&v))
}

/// Several numeric attributes in one pass over the element's attributes.
pub fn attrs_u32<const N: usize>(e: &Tag<'_, '_>, keys: [&str; N]) -> [Option<u32>; N] {
    attrs(e, keys).map(|v| v.and_then(|v| parse_u32(&v)))
}

pub fn attr_i64(e: &Tag<'_, '_>, key: &str) -> Option<i64> {
    attr(e, key).and_then(|v| {
        // Plain non-negative numbers (line positions) read directly, as for u32.
        match parse_u32(&v) {
            Some(n) if !v.starts_with('+') => Some(i64::from(n)),
            _ => v.trim().parse::<i64>().ok(),
        }
    })
}

/// Unsigned numbers; negative or out-of-range values count as absent
/// (`4294967295` is OWPML's "none" for id references and stays u32::MAX).
pub fn parse_u32(v: &str) -> Option<u32> {
    // Up to nine plain digits cannot overflow: read them directly (what
    // `parse` would give), anything else the general way.
    let b = v.as_bytes();
    if !b.is_empty() && b.len() <= 9 {
        let mut n = 0u32;
        for &c in b {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return v.trim().parse::<u32>().ok();
            }
            n = n * 10 + u32::from(d);
        }
        return Some(n);
    }
    v.trim().parse::<u32>().ok()
}

pub fn attr_flag(e: &Tag<'_, '_>, key: &str) -> bool {
    matches!(attr(e, key).as_deref(), Some("1") | Some("true"))
}

/// `&amp;` and friends in an attribute value; unknown references are kept as written.
fn unescape_attr(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut rest = v;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find(';') {
            Some(j) if j <= 12 => {
                match resolve_entity(&after[..j]) {
                    Some(c) => out.push(c),
                    None => {
                        out.push('&');
                        out.push_str(&after[..=j]);
                    }
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_resolve() {
        assert_eq!(resolve_entity("amp"), Some('&'));
        assert_eq!(resolve_entity("#13"), Some('\r'));
        assert_eq!(resolve_entity("#x41"), Some('A'));
        assert_eq!(resolve_entity("#0"), None);
        assert_eq!(resolve_entity("bogus"), None);
        assert_eq!(
            unescape_attr("a &amp; b &#x41;&unknown; &"),
            "a & b A&unknown; &"
        );
    }

    #[test]
    fn numbers_read_as_parse_reads_them() {
        for v in [
            "0",
            "7",
            "007",
            "123456789",
            "999999999",
            "4294967295",
            "4294967296",
            " 5",
            "5 ",
            "-1",
            "+1",
            "",
            "1a",
            "\u{ff11}",
        ] {
            assert_eq!(parse_u32(v), v.trim().parse::<u32>().ok(), "{v:?}");
        }
    }

    /// Wherever the plain form's reader answers, the general reader gives the
    /// same attribute: at every start and end in tags of many shapes, and with
    /// each byte replaced by the bytes that end keys and values.
    #[test]
    fn plain_attributes_read_as_the_general_reader_reads_them() {
        let tags: &[&[u8]] = &[
            b"<hp:lineseg textpos=\"0\" vertpos=\"1760\" vertsize=\"1100\" horzsize=\"42520\" flags=\"393216\"/>",
            b"<hp:p id=\"2147483648\" paraPrIDRef=\"3\" styleIDRef=\"0\" pageBreak=\"0\" columnBreak=\"0\" merged=\"0\">",
            b"<a k1=\"\" x:y=\"v\" a-b.c=\"&amp;\" \xea\xb0\x80=\"\xeb\x82\x98\" averyveryverylongattributename=\"a value longer than sixteen bytes\"/>",
            b"<a  b=\"1\" c =\"2\" d= \"3\" e='4' f=\"5\"g=\"6\" h=\">\"/>",
        ];
        let noise = [
            b' ', b'=', b'"', b'\'', b'<', b'>', b'/', b'\t', b'1', b':', 0xff,
        ];
        let mut variants: Vec<Vec<u8>> = tags.iter().map(|t| t.to_vec()).collect();
        for t in tags {
            for at in 0..t.len() {
                for &n in &noise {
                    let mut v = t.to_vec();
                    v[at] = n;
                    variants.push(v);
                }
            }
        }
        let mut answered = 0;
        for v in &variants {
            for end in 0..=v.len() {
                for i in 0..end {
                    if let Some((span, next)) = plain_attr(v, i, end) {
                        answered += 1;
                        let general = next_attr_general(v, i, end);
                        let Ok(Some((g, g_next))) = general else {
                            panic!("{:?} at {i}..{end}", String::from_utf8_lossy(v));
                        };
                        assert_eq!(
                            (span.key, span.value, next),
                            (g.key, g.value, g_next),
                            "{:?} at {i}..{end}",
                            String::from_utf8_lossy(v)
                        );
                    }
                }
            }
        }
        assert!(answered > 10_000, "{answered}");
    }
}
