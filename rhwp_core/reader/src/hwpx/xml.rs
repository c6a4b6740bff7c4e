//! The XML walk the parts share, and small helpers: UTF-8 decoding of a
//! part, namespace classification, attribute lookup by local name, entity
//! references, and the depth guard.
//!
//! Two engines produce the same stream of `Step`s:
//! - `fast_walk`, a tokenizer of our own for the XML that Hancom and other
//!   HWPX writers emit (elements, attributes, text, entity references, the
//!   XML declaration). The part's UTF-8 is checked once, up front; attributes
//!   are split once per element; namespaces are resolved against a small
//!   binding stack. It accepts only input it can tokenize exactly as
//!   quick-xml would, and stops ("unsure") at anything else: comments, CDATA,
//!   DOCTYPE, unusual namespace declarations, ill-formed markup;
//! - `compat_walk`, quick-xml's `NsReader` (the reference behaviour). When the
//!   fast engine stops, the compat engine reads the part from the start,
//!   replaying silently the steps the visitor has already seen (and the skip
//!   decisions it made), and goes on from there: the visitor sees every step
//!   once, and errors on ill-formed input are quick-xml's.
//!
//! Content the visitor skips is checked as quick-xml's `read_to_end` checks it,
//! unless the walk is told otherwise (`Skipped::Unchecked`, lenient reading of
//! the header): the fast engine then jumps to the element's end tag, so what
//! the reader never looks at cannot fail it. The jump lands where the exact
//! skip would on all well-formed content (see `skip_unchecked`).

use crate::{Error, Result};
use quick_xml::events::{BytesRef, BytesStart, BytesText};
use quick_xml::name::ResolveResult;
use std::borrow::Cow;

/// Run `parse` over a part's bytes; when it fails on a part that is not
/// valid UTF-8 and reading is lenient, run it again over the repaired text
/// (invalid sequences become U+FFFD). Valid parts are never copied: quick-xml
/// checks the UTF-8 of each event as it reads.
pub fn with_repair<T>(
    bytes: &[u8],
    strict: bool,
    mut parse: impl FnMut(&[u8]) -> Result<T>,
) -> Result<T> {
    match parse(bytes) {
        Err(e) if repairable(&e, strict, bytes) => {
            let repaired = String::from_utf8_lossy(bytes);
            parse(repaired.as_bytes())
        }
        other => other,
    }
}

/// `with_repair` for a part whose bytes the result keeps: it gets the text
/// that was read (repaired or not) back with the result.
pub fn with_repair_owned<T>(
    bytes: Vec<u8>,
    strict: bool,
    mut parse: impl FnMut(&[u8]) -> Result<T>,
) -> Result<(T, Vec<u8>)> {
    match parse(&bytes) {
        Ok(t) => Ok((t, bytes)),
        Err(e) if repairable(&e, strict, &bytes) => {
            let repaired = String::from_utf8_lossy(&bytes).into_owned().into_bytes();
            parse(&repaired).map(|t| (t, repaired))
        }
        Err(e) => Err(e),
    }
}

fn repairable(e: &Error, strict: bool, bytes: &[u8]) -> bool {
    !strict && e.code == crate::ErrorCode::CorruptDocument && std::str::from_utf8(bytes).is_err()
}

/// Is an element in an OWPML namespace? Hancom's 2011/2016 URIs
/// (`http://www.hancom.co.kr/hwpml/...`), the 2024 standard's
/// (`http://www.owpml.org/...`), or no namespace at all (minimal writers,
/// undeclared prefixes).
/// Elements of other vocabularies (OOXML charts, Dublin Core, ...) are not
/// read as document content.
#[derive(Default)]
pub struct NsFilter {
    /// The last namespace found to be OWPML: most elements share it.
    last_ok: String,
}

impl NsFilter {
    pub fn new() -> Self {
        NsFilter {
            last_ok: String::new(),
        }
    }

    pub fn is_owpml(&mut self, ns: &ResolveResult<'_>) -> bool {
        match ns {
            // No namespace, or a prefix its writer forgot to declare: read
            // what is there rather than drop the content.
            ResolveResult::Unbound | ResolveResult::Unknown(_) => true,
            ResolveResult::Bound(uri) => {
                let uri = uri.0;
                if !self.last_ok.is_empty() && uri == self.last_ok {
                    return true;
                }
                let ok = uri.contains("hancom.co.kr/hwpml") || uri.contains("owpml.org");
                if ok {
                    self.last_ok.clear();
                    self.last_ok.push_str(uri);
                }
                ok
            }
        }
    }
}

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

/// Byte-slice equality for the short names and keys of a tag, compared
/// inline: `==` on slices is a call to libc's `memcmp`, which costs more
/// than the comparison itself at these lengths (a hot spot in profiles).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
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

#[inline]
fn same_name(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_bytes(a.as_bytes(), b.as_bytes()),
        _ => false,
    }
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
pub struct Tag<'e, 'i>(TagRepr<'e, 'i>);

enum TagRepr<'e, 'i> {
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
struct LazyTag<'i> {
    text: &'i str,
    content: (usize, usize),
    name_len: usize,
}

/// Attribute syntax the fast engine does not split itself (the tag is then
/// handed to quick-xml's attribute parser).
struct Unusual;

impl<'i> LazyTag<'i> {
    /// The attributes in document order; an `Err` (then the end) at the
    /// first piece of syntax not split exactly as quick-xml would.
    #[inline]
    fn spans(&self) -> AttrSpans<'i> {
        AttrSpans {
            text: self.text.as_bytes(),
            at: self.content.0 + self.name_len,
            end: self.content.1,
            done: false,
        }
    }

    /// The tag as quick-xml's start event (what the compat engine would see).
    fn quick(&self) -> Option<BytesStart<'i>> {
        let content = self.text.get(self.content.0..self.content.1)?;
        Some(BytesStart::from_content(content, self.name_len))
    }
}

/// The attributes of a start tag (`LazyTag::spans`).
struct AttrSpans<'i> {
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
const ENDS_KEY: [u8; 10] = *b" \t\r\n=\"'<>/";

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
struct AttrSpan {
    key: (usize, usize),
    value: (usize, usize),
}

impl AttrSpan {
    #[inline]
    fn key<'i>(&self, text: &'i str) -> Option<&'i [u8]> {
        text.as_bytes().get(self.key.0..self.key.1)
    }

    #[inline]
    fn value<'i>(&self, text: &'i str) -> Option<&'i str> {
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

/// The start tag an element's bytes begin with (a span from `Step::Children`),
/// as the walk would give it, with its local name; `None` when it is not a
/// start tag or not UTF-8.
pub fn start_tag(element: &[u8]) -> Option<(&str, Tag<'_, '_>)> {
    if element.first() != Some(&b'<') {
        return None;
    }
    let gt = tag_end(element, 1)?;
    let text = simdutf8::basic::from_utf8(element.get(..=gt)?).ok()?;
    start_tag_end(text).map(|(_, name, tag)| (name, tag))
}

/// `start_tag` over text, with where the tag's `>` is.
fn start_tag_end(element: &str) -> Option<(usize, &str, Tag<'_, '_>)> {
    let b = element.as_bytes();
    if b.first() != Some(&b'<') {
        return None;
    }
    let gt = tag_end(b, 1)?;
    let content_end = if gt > 1 && b[gt - 1] == b'/' {
        gt - 1
    } else {
        gt
    };
    let name_len = name_end(b.get(1..content_end)?);
    let qname = element.get(1..1 + name_len)?;
    let local = match qname.as_bytes().iter().rposition(|&c| c == b':') {
        Some(colon) => qname.get(colon + 1..)?,
        None => qname,
    };
    let tag = Tag(TagRepr::Lazy(LazyTag {
        text: element,
        content: (1, content_end),
        name_len,
    }));
    Some((gt, local, tag))
}

/// Each start tag inside an element whose text the walk has already checked
/// (a span from `Step::Children`), in document order, by local name, until
/// `visit` says stop; namespaces are not resolved. For entries of a table
/// that are read for a few attributes of their descendants, where a walk's
/// set-up would cost more than the reading.
pub fn each_tag_within(element: &[u8], mut visit: impl FnMut(&str, &Tag<'_, '_>) -> bool) {
    // Checked once here: the tags are then slices of it.
    let Ok(text) = simdutf8::basic::from_utf8(element) else {
        return;
    };
    let Some((first, _, _)) = start_tag_end(text) else {
        return;
    };
    let mut pos = first + 1;
    while let Some(lt) = element.get(pos..).and_then(|rest| find_byte(rest, b'<')) {
        let at = pos + lt;
        let next = match element.get(at + 1) {
            Some(b'/') => element[at..]
                .iter()
                .position(|&c| c == b'>')
                .map(|g| at + g + 1),
            Some(b'!') => skip_comment(element, at).ok(),
            Some(b'?') => skip_pi(element, at).ok(),
            Some(_) => match text.get(at..).and_then(start_tag_end) {
                Some((gt, name, tag)) if visit(name, &tag) => Some(at + gt + 1),
                _ => None,
            },
            None => None,
        };
        match next {
            Some(next) => pos = next,
            None => return,
        }
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

/// A predefined entity (`amp`, `lt`, ...) or a character reference (`#13`, `#x41`).
pub fn resolve_entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let num = name.strip_prefix('#')?;
            let code = match num.strip_prefix('x').or_else(|| num.strip_prefix('X')) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => num.parse::<u32>().ok()?,
            };
            char::from_u32(code).filter(|&c| c != '\0')
        }
    }
}

/// The character an entity-reference event stands for.
pub fn general_ref(r: &BytesRef<'_>) -> Option<char> {
    resolve_entity(r)
}

/// The error for an XML part nested deeper than the limit.
pub fn too_deep(part: &str, limit: u32) -> Error {
    Error::too_large(format!(
        "{part}: XML elements nested more than {limit} deep"
    ))
}

pub fn xml_error(part: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("{part}: malformed XML ({e})"))
}

/// One step of a walk over an XML part, flattened for the readers: empty
/// elements come as `Open` immediately followed by `Close`.
pub enum Step<'a, 'i> {
    /// An element opens. `name` is its local name; `owpml` says whether its
    /// namespace is an OWPML one (see `NsFilter`).
    Open {
        name: &'a str,
        owpml: bool,
        start: &'a Tag<'a, 'i>,
    },
    /// The element opened last closes.
    Close,
    /// Character data (entities already resolved, one piece at a time).
    Text(&'a str),
    /// After an `Open` answered with `Flow::SkipListing`, before its `Close`:
    /// where each of the element's child elements lies in the walked text.
    Children(&'a [Span]),
}

/// A child element's bytes in the walked text: from its `<` to just past the
/// `>` that ends it (its end tag's, or its own for an empty element).
pub type Span = (usize, usize);

/// How many children a listing gives at most: the rest are checked as skipped
/// content is, not listed (a part of a million empty elements must not cost
/// four times its size in spans; readers refer to at most 65,536 entries).
pub const MAX_LISTED: usize = 1 << 16;

/// A prefix (up to 7 bytes) packed with its length into one word, as a
/// cache key; longer prefixes are not cached.
#[inline]
fn prefix_key(prefix: &str) -> Option<u64> {
    let b = prefix.as_bytes();
    if b.len() > 7 {
        return None;
    }
    let mut key = (b.len() as u64) << 56;
    for (i, &byte) in b.iter().enumerate() {
        key |= (byte as u64) << (8 * i);
    }
    Some(key)
}

/// What the visitor wants after an `Open`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Skip the element's content: it is scanned to its end tag without
    /// namespace or attribute processing (its `Close` still comes).
    Skip,
    /// Skip the content as `Skip` does, and say where its child elements are
    /// (`Step::Children`), for a reader that reads some of them later, alone.
    SkipListing,
}

/// Walk an XML part as a stream of `Step`s, iteratively (never recursing on
/// element depth), refusing parts nested deeper than `max_depth` or holding
/// more than `max_elements` elements. `visit` gets each step and the element
/// depth (1 = the root element).
///
/// The fast engine reads the part when it can; the compat engine takes over
/// (replaying what the visitor has seen) when it cannot. See the module notes.
pub fn walk<F>(text: &[u8], part: &str, max_depth: u32, max_elements: u64, visit: F) -> Result<()>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    walk_skipping(text, part, max_depth, max_elements, Skipped::Checked, visit)
}

/// `walk`, saying how skipped content is gone over.
pub fn walk_skipping<F>(
    text: &[u8],
    part: &str,
    max_depth: u32,
    max_elements: u64,
    skipped: Skipped,
    mut visit: F,
) -> Result<()>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    let original_len = text.len();
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let limits = WalkLimits {
        part,
        max_depth,
        max_elements,
        // Children spans are given in the caller's text, byte order mark included.
        base: original_len - text.len(),
        skipped,
    };
    let mut seen = Replay::default();
    // Invalid UTF-8 anywhere: quick-xml reports it at the event that holds it.
    if let Ok(s) = simdutf8::basic::from_utf8(text) {
        match fast_walk(s, &limits, &mut visit, &mut seen) {
            Ok(()) => return Ok(()),
            Err(Stop::Fail(e)) => return Err(e),
            Err(Stop::Unsure) => {}
        }
    }
    compat_walk(text, &limits, &seen, visit)
}

/// The steps the visitor has already been given (by the fast engine): how
/// many, and which of them were `Open`s it asked to skip.
#[derive(Default)]
struct Replay {
    steps: u64,
    /// The steps answered with something else than `Continue`, and the answer.
    skipped: Vec<(u64, Flow)>,
}

impl Replay {
    /// Give a step to the visitor, remembering it.
    #[inline]
    fn visit<F>(
        &mut self,
        visit: &mut F,
        step: Step<'_, '_>,
        depth: u32,
    ) -> std::result::Result<Flow, Stop>
    where
        F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
    {
        let n = self.steps;
        self.steps += 1;
        let flow = visit(step, depth).map_err(Stop::Fail)?;
        if flow != Flow::Continue {
            self.skipped.push((n, flow));
        }
        Ok(flow)
    }
}

/// Why the fast engine stopped.
enum Stop {
    /// An error to report as it is (the visitor's, or a limit): the compat
    /// engine would stop at the same step with the same error.
    Fail(Error),
    /// Input the fast engine does not tokenize itself.
    Unsure,
}

struct WalkLimits<'p> {
    part: &'p str,
    max_depth: u32,
    max_elements: u64,
    /// Where the walked text starts in the caller's (after a byte order mark).
    base: usize,
    skipped: Skipped,
}

/// How the fast engine goes over the content of an element the visitor skips.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skipped {
    /// Checked as quick-xml's `read_to_end` checks it.
    Checked,
    /// Not checked: the walk jumps to the element's end tag (`skip_unchecked`).
    /// The compat engine, when it takes over, still checks.
    Unchecked,
}

/// Eight bytes at a time: which of the bytes of `word` are zero (the high bit
/// of each such byte set; bits above the first zero byte may be spurious,
/// which is harmless when only the lowest is used).
#[inline(always)]
fn zero_bytes(word: u64) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    word.wrapping_sub(LOW) & !word & HIGH
}

/// The first position of `a` or `b` in `hay` (std has no public memchr; its
/// `str::find(char)` pays a comparison call per candidate).
#[inline]
fn find_either(hay: &[u8], a: u8, b: u8) -> Option<usize> {
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
fn tag_end(b: &[u8], from: usize) -> Option<usize> {
    tag_end_scan::<false>(b, from).map(|(gt, _)| gt)
}

/// `tag_end`, and (with `NOTE_XM`) whether an `x` followed by `m` may lie
/// before it: without one, the tag declares no namespace (`mentions_xmlns`
/// need not look). Noted from the same 64-byte blocks; `true` when unsure.
#[inline(always)]
fn tag_end_scan<const NOTE_XM: bool>(b: &[u8], from: usize) -> Option<(usize, bool)> {
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
fn lane_mask<const N: usize>(lane: &[u8; 16], wanted: [u8; N]) -> u16 {
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
fn lane_mask<const N: usize>(lane: &[u8; 16], wanted: [u8; N]) -> u16 {
    let mut mask = 0u16;
    for (i, c) in lane.iter().enumerate() {
        mask |= u16::from(wanted.contains(c)) << i;
    }
    mask
}

/// The first position in `hay` of a byte of `set` (which must not hold the
/// zero byte): sixteen bytes at a time (`lane_mask`), the rest padded.
#[inline(always)]
fn first_of<const N: usize>(hay: &[u8], set: [u8; N]) -> Option<usize> {
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
fn first_of_within<const N: usize>(
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
fn name_end(content: &[u8]) -> usize {
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
fn mentions_xmlns(attrs: &[u8]) -> bool {
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
fn find_byte(hay: &[u8], a: u8) -> Option<usize> {
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
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The first position from `i` on that is not whitespace (or the end).
#[inline]
fn skip_ws(b: &[u8], i: usize) -> usize {
    match b.get(i..) {
        Some(rest) => i + rest.iter().position(|&c| !is_ws(c)).unwrap_or(rest.len()),
        None => i,
    }
}

/// Namespace bindings in scope, as `NsReader` keeps them: declarations in
/// document order, each with the depth of the element that made it; the two
/// reserved prefixes are always bound (to URIs that are not OWPML).
struct Bindings<'i> {
    /// (prefix, None for the default namespace; is the URI OWPML, or empty; depth)
    stack: Vec<(Option<&'i str>, Binding, u32)>,
    /// The last prefix resolved and its answer, while the stack is unchanged:
    /// nearly every element of a part has the same prefix.
    last: Option<(Option<&'i str>, bool)>,
}

#[derive(Clone, Copy)]
enum Binding {
    Owpml(bool),
    /// `xmlns:p=""` / `xmlns=""`: undeclares (the name reads as unbound).
    Empty,
}

/// quick-xml's default bound on user declarations in scope.
const MAX_BINDINGS: usize = 128;

impl<'i> Bindings<'i> {
    fn new() -> Self {
        let mut stack = Vec::with_capacity(24);
        stack.push((Some("xml"), Binding::Owpml(false), 0));
        stack.push((Some("xmlns"), Binding::Owpml(false), 0));
        Bindings { stack, last: None }
    }

    /// A declaration on the element at `depth`; `None` when it is one that
    /// quick-xml would refuse or treat specially (left to the compat engine).
    fn declare(&mut self, key: &'i str, uri: &'i str, depth: u32) -> Option<()> {
        let prefix = match key.as_bytes().get(5) {
            None => None,
            Some(b':') => Some(key.get(6..)?),
            // `xmlnsfoo="..."` is an ordinary attribute.
            Some(_) => return Some(()),
        };
        if let Some(p) = prefix {
            if p.is_empty() || p == "xml" || p == "xmlns" {
                return None;
            }
            if uri == "http://www.w3.org/XML/1998/namespace"
                || uri == "http://www.w3.org/2000/xmlns/"
            {
                return None;
            }
        }
        if self.stack.len() - 2 >= MAX_BINDINGS {
            return None;
        }
        let binding = if uri.is_empty() {
            Binding::Empty
        } else {
            Binding::Owpml(is_owpml_uri(uri))
        };
        self.stack.push((prefix, binding, depth));
        self.last = None;
        Some(())
    }

    /// Drop the declarations of the element at `depth` (it closes).
    #[inline]
    fn close(&mut self, depth: u32) {
        if self.stack.last().is_some_and(|b| b.2 >= depth && b.2 > 0) {
            while self.stack.last().is_some_and(|b| b.2 >= depth && b.2 > 0) {
                self.stack.pop();
            }
            self.last = None;
        }
    }

    /// Is an element with this prefix in an OWPML namespace (or in none)?
    #[inline(always)]
    fn is_owpml(&mut self, prefix: Option<&'i str>) -> bool {
        match self.last {
            Some((p, ok)) if same_name(p, prefix) => ok,
            _ => self.resolve(prefix),
        }
    }

    /// `is_owpml` for a prefix other than the last one's, remembered.
    #[inline(never)]
    fn resolve(&mut self, prefix: Option<&'i str>) -> bool {
        let found = self
            .stack
            .iter()
            .rev()
            .find(|b| same_name(b.0, prefix))
            .map(|b| b.1);
        // Unbound (no default namespace) and unknown prefixes read as OWPML.
        let ok = match found {
            Some(Binding::Owpml(ok)) => ok,
            Some(Binding::Empty) | None => true,
        };
        self.last = Some((prefix, ok));
        ok
    }
}

fn is_owpml_uri(uri: &str) -> bool {
    // The usual spellings first: a prefix test is cheaper than a search.
    uri.starts_with("http://www.hancom.co.kr/hwpml/")
        || uri.starts_with("http://www.owpml.org/")
        || uri.contains("hancom.co.kr/hwpml")
        || uri.contains("owpml.org")
}

/// Character data as quick-xml hands it over (`xml10_content`: CR LF and
/// lone CR become LF).
#[inline]
fn visit_text<F>(
    seen: &mut Replay,
    visit: &mut F,
    text: &str,
    depth: u32,
) -> std::result::Result<(), Stop>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    if text.is_empty() {
        return Ok(());
    }
    if text.as_bytes().contains(&b'\r') {
        let normalized = BytesText::from_escaped(text).xml10_content().into_owned();
        seen.visit(visit, Step::Text(&normalized), depth)?;
    } else {
        seen.visit(visit, Step::Text(text), depth)?;
    }
    Ok(())
}

/// Text from `pos` up to the next markup, with its entity references, given
/// to the visitor; returns where the markup (`<`) or the end is.
#[inline]
fn text_run<F>(
    s: &str,
    mut pos: usize,
    depth: u32,
    seen: &mut Replay,
    visit: &mut F,
    char_buf: &mut [u8; 4],
) -> std::result::Result<usize, Stop>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    let b = s.as_bytes();
    loop {
        // Most elements follow one another without text in between.
        if b.get(pos) == Some(&b'<') {
            return Ok(pos);
        }
        let rest = s.get(pos..).ok_or(Stop::Unsure)?;
        let stop = find_either(rest.as_bytes(), b'<', b'&').unwrap_or(rest.len());
        if rest.as_bytes().get(stop) != Some(&b'&') {
            let chunk = rest.get(..stop).ok_or(Stop::Unsure)?;
            visit_text(seen, visit, chunk, depth)?;
            return Ok(pos + stop);
        }
        let lt = find_byte(rest.as_bytes(), b'<').unwrap_or(rest.len());
        let chunk = rest.get(..lt).ok_or(Stop::Unsure)?;
        match chunk.find('&') {
            None => {
                visit_text(seen, visit, chunk, depth)?;
                return Ok(pos + lt);
            }
            Some(amp) => {
                visit_text(seen, visit, &chunk[..amp], depth)?;
                // A reference runs to `;` before any `&` or `<`; anything
                // else is an error quick-xml reports.
                let after = &chunk[amp + 1..];
                let end = after.find([';', '&']).ok_or(Stop::Unsure)?;
                if b.get(pos + amp + 1 + end) != Some(&b';') {
                    return Err(Stop::Unsure);
                }
                if let Some(c) = resolve_entity(&after[..end]) {
                    seen.visit(visit, Step::Text(c.encode_utf8(char_buf)), depth)?;
                }
                pos += amp + 1 + end + 1;
            }
        }
    }
}

/// `<?...?>` at `pos` (the XML declaration, processing instructions): where
/// it ends, by quick-xml's rule (the first `>` after a `?`).
fn skip_pi(b: &[u8], pos: usize) -> std::result::Result<usize, Stop> {
    let from = pos + 2;
    let rest = b.get(from..).ok_or(Stop::Unsure)?;
    let gt = rest.iter().position(|&c| c == b'>').ok_or(Stop::Unsure)?;
    // `<?>` and a first `>` not closing `?>` are left to quick-xml.
    if gt == 0 || rest[gt - 1] != b'?' {
        return Err(Stop::Unsure);
    }
    Ok(from + gt + 1)
}

/// `<!--...-->` at `pos`: where it ends, by quick-xml's rule (the first `>`
/// at least six bytes on that follows `--`). CDATA and DOCTYPE are left to
/// quick-xml.
fn skip_comment(b: &[u8], pos: usize) -> std::result::Result<usize, Stop> {
    if b.get(pos..pos + 4) != Some(b"<!--") {
        return Err(Stop::Unsure);
    }
    let mut j = pos + 6;
    loop {
        let gt = j + b
            .get(j..)
            .ok_or(Stop::Unsure)?
            .iter()
            .position(|&c| c == b'>')
            .ok_or(Stop::Unsure)?;
        if &b[gt - 2..gt] == b"--" {
            return Ok(gt + 1);
        }
        j = gt + 1;
    }
}

/// `</name>` at `pos` closing `name`: where it ends.
#[inline]
fn end_tag(b: &[u8], pos: usize, name: &str) -> std::result::Result<usize, Stop> {
    let n = name.len();
    let from = pos + 2;
    if b.get(from..from + n)
        .is_some_and(|t| same_bytes(t, name.as_bytes()))
        && b.get(from + n) == Some(&b'>')
    {
        Ok(from + n + 1)
    } else {
        Err(Stop::Unsure)
    }
}

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
fn skip_content(
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
fn text_end(b: &[u8], at: usize) -> std::result::Result<usize, Stop> {
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

/// For 64 bytes (bit i = byte i): which equal each of `marked`, and whether
/// any equals `flagged` (one vector compare per byte looked for and 16 bytes;
/// SSE2 is part of every x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn block_marks<const N: usize>(block: &[u8; 64], marked: [u8; N], flagged: u8) -> ([u64; N], bool) {
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
fn block_marks<const N: usize>(block: &[u8; 64], marked: [u8; N], flagged: u8) -> ([u64; N], bool) {
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

/// The start tag whose name begins at `start`, byte-wise: where its `>` is, whether it is
/// empty (`/>`), and its name's length (to the first whitespace).
fn start_tag_shape(b: &[u8], start: usize) -> std::result::Result<(usize, bool, usize), Stop> {
    let i = tag_end(b, start).ok_or(Stop::Unsure)?;
    let empty = i > start && b[i - 1] == b'/';
    let content_end = if empty { i - 1 } else { i };
    let name_len = b[start..content_end]
        .iter()
        .position(|&c| is_ws(c))
        .unwrap_or(content_end - start);
    if name_len == 0 {
        return Err(Stop::Unsure);
    }
    Ok((i, empty, name_len))
}

/// The content of a `Flow::SkipListing` element skipped as `skipped` says
/// (`skip_content` or `skip_unchecked`, children and the text between them
/// alike), with the span of each child element (relative to `s`) pushed to
/// `out`.
fn list_children(
    s: &str,
    mut pos: usize,
    name: &str,
    skipped: Skipped,
    open: &mut Vec<(usize, usize)>,
    out: &mut Vec<Span>,
) -> std::result::Result<usize, Stop> {
    let b = s.as_bytes();
    loop {
        pos = match skipped {
            Skipped::Checked if b.get(pos) != Some(&b'<') => text_end(b, pos)?,
            Skipped::Checked => pos,
            Skipped::Unchecked => {
                pos + b
                    .get(pos..)
                    .and_then(|rest| find_byte(rest, b'<'))
                    .ok_or(Stop::Unsure)?
            }
        };
        match b.get(pos + 1) {
            Some(b'/') => return end_tag(b, pos, name),
            Some(b'?') => pos = skip_pi(b, pos)?,
            Some(b'!') => pos = skip_comment(b, pos)?,
            None => return Err(Stop::Unsure),
            Some(_) => {
                let start = pos + 1;
                let (i, empty, name_len) = start_tag_shape(b, start)?;
                let end = if empty {
                    i + 1
                } else {
                    let child = s.get(start..start + name_len).ok_or(Stop::Unsure)?;
                    match skipped {
                        Skipped::Checked => skip_content(s, i + 1, child, open)?,
                        Skipped::Unchecked => skip_unchecked(s, i + 1, child, open)?,
                    }
                };
                if out.len() < MAX_LISTED {
                    out.push((pos, end));
                }
                pos = end;
            }
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
fn skip_unchecked(
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

/// The fast engine (see the module notes). Stops with `Unsure` at anything
/// it does not read exactly as quick-xml would.
fn fast_walk<'i, F>(
    s: &'i str,
    limits: &WalkLimits<'_>,
    visit: &mut F,
    seen: &mut Replay,
) -> std::result::Result<(), Stop>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    let b = s.as_bytes();
    let mut pos = 0;
    let mut depth: u32 = 0;
    let mut elements: u64 = 0;
    let mut char_buf = [0u8; 4];
    // Qualified names of the open elements, for end-tag checks.
    let mut open: Vec<&'i str> = Vec::with_capacity(64);
    let mut skip_stack: Vec<(usize, usize)> = Vec::new();
    let mut children: Vec<Span> = Vec::new();
    let mut spans: Vec<AttrSpan> = Vec::with_capacity(16);
    let mut ns = Bindings::new();
    loop {
        pos = text_run(s, pos, depth, seen, visit, &mut char_buf)?;
        if pos >= b.len() {
            break;
        }
        match b.get(pos + 1) {
            Some(b'/') => {
                let name = open.pop().ok_or(Stop::Unsure)?;
                pos = end_tag(b, pos, name)?;
                seen.visit(visit, Step::Close, depth)?;
                ns.close(depth);
                depth -= 1;
            }
            Some(b'?') => pos = skip_pi(b, pos)?,
            Some(b'!') => pos = skip_comment(b, pos)?,
            None => return Err(Stop::Unsure),
            Some(_) => {
                // The tag ends at the first `>` outside quotes, as quick-xml
                // reads it; `/>` makes it empty. Its name runs to the first
                // whitespace; names holding quotes or `/` are left to quick-xml.
                let start = pos + 1;
                let (gt, maybe_xmlns) = tag_end_scan::<true>(b, start).ok_or(Stop::Unsure)?;
                let empty = gt > start && b.get(gt - 1) == Some(&b'/');
                let content_end = if empty { gt - 1 } else { gt };
                let content = b.get(start..content_end).ok_or(Stop::Unsure)?;
                let name_len = name_end(content);
                if name_len == 0 || content.get(name_len).is_some_and(|&c| !is_ws(c)) {
                    return Err(Stop::Unsure);
                }
                let qname = s.get(start..start + name_len).ok_or(Stop::Unsure)?;
                let lazy = LazyTag {
                    text: s,
                    content: (start, content_end),
                    name_len,
                };
                // Namespace declarations must be known before the element's
                // name is resolved: tags that may hold one are split now
                // (and left to quick-xml if they are unusual).
                let declares =
                    maybe_xmlns && mentions_xmlns(content.get(name_len..).unwrap_or_default());
                spans.clear();
                if declares {
                    for a in lazy.spans() {
                        spans.push(a.map_err(|Unusual| Stop::Unsure)?);
                    }
                }
                let i = gt + 1;
                pos = i;
                depth += 1;
                // quick-xml's namespace scopes count nesting in 16 bits and
                // refuse deeper input (only reachable with a raised depth limit).
                if depth > u32::from(u16::MAX) {
                    return Err(Stop::Unsure);
                }
                for a in spans.iter().filter(|_| declares) {
                    if b.get(a.key.0..a.key.1)
                        .is_some_and(|k| k.starts_with(b"xmlns"))
                    {
                        let key = s.get(a.key.0..a.key.1).ok_or(Stop::Unsure)?;
                        let value = a.value(s).ok_or(Stop::Unsure)?;
                        ns.declare(key, value, depth).ok_or(Stop::Unsure)?;
                    }
                }
                if depth > limits.max_depth {
                    return Err(Stop::Fail(too_deep(limits.part, limits.max_depth)));
                }
                elements += 1;
                if elements > limits.max_elements {
                    return Err(Stop::Fail(Error::too_large(format!(
                        "{}: more than {} XML elements",
                        limits.part, limits.max_elements
                    ))));
                }
                // The prefix ends at the first `:` (as quick-xml splits names).
                let (prefix, name) = match qname.as_bytes().iter().position(|&c| c == b':') {
                    Some(k) => (qname.get(..k), qname.get(k + 1..).ok_or(Stop::Unsure)?),
                    None => (None, qname),
                };
                let owpml = ns.is_owpml(prefix);
                let tag = Tag(if declares {
                    TagRepr::Split {
                        text: s,
                        spans: &spans,
                    }
                } else {
                    TagRepr::Lazy(lazy)
                });
                let flow = seen.visit(
                    visit,
                    Step::Open {
                        name,
                        owpml,
                        start: &tag,
                    },
                    depth,
                )?;
                if empty || flow != Flow::Continue {
                    if flow == Flow::SkipListing {
                        children.clear();
                        if !empty {
                            pos = list_children(
                                s,
                                pos,
                                qname,
                                limits.skipped,
                                &mut skip_stack,
                                &mut children,
                            )?;
                        }
                        for c in children.iter_mut() {
                            *c = (c.0 + limits.base, c.1 + limits.base);
                        }
                        seen.visit(visit, Step::Children(&children), depth)?;
                    } else if !empty {
                        pos = match limits.skipped {
                            Skipped::Checked => skip_content(s, pos, qname, &mut skip_stack)?,
                            Skipped::Unchecked => skip_unchecked(s, pos, qname, &mut skip_stack)?,
                        };
                    }
                    seen.visit(visit, Step::Close, depth)?;
                    ns.close(depth);
                    depth -= 1;
                } else {
                    open.push(qname);
                }
            }
        }
    }
    if depth != 0 {
        return Err(Stop::Unsure);
    }
    Ok(())
}

/// The child elements of content quick-xml has already read through (so is
/// well-formed by its rules), by the raw reader `read_to_end` uses; `offset`
/// is where the content starts in the caller's text.
fn list_quick_children(
    content: &[u8],
    offset: usize,
    out: &mut Vec<Span>,
) -> quick_xml::Result<()> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(content);
    let mut level = 0u32;
    let mut start = 0;
    loop {
        let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        let event = reader.read_event()?;
        let after = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
        match event {
            Event::Start(_) => {
                if level == 0 {
                    start = before;
                }
                level += 1;
            }
            Event::Empty(_) if level == 0 && out.len() < MAX_LISTED => {
                out.push((offset + before, offset + after))
            }
            Event::End(_) => {
                level = level.saturating_sub(1);
                if level == 0 && out.len() < MAX_LISTED {
                    out.push((offset + start, offset + after));
                }
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// The compat engine: quick-xml's `NsReader`. The first `seen.steps` steps
/// are not given to the visitor again (it has them from the fast engine);
/// its skip decisions for them are replayed.
///
/// Element namespaces are resolved by quick-xml's `NsReader`. Resolving
/// scans the in-scope bindings for every element, so while exactly the root
/// element's bindings are in scope (OWPML declares them all on the root) the
/// answer per prefix is remembered; any nested declaration turns the cache
/// off until it goes out of scope again.
fn compat_walk<F>(text: &[u8], limits: &WalkLimits<'_>, seen: &Replay, mut visit: F) -> Result<()>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    use quick_xml::events::Event;
    let WalkLimits {
        part,
        max_depth,
        max_elements,
        base,
        // quick-xml checks what it skips: the fast engine hands over only
        // what it is unsure of, which the compat engine must then check.
        skipped: _,
    } = *limits;
    let mut step_no: u64 = 0;
    let mut visit = |step: Step<'_, '_>, depth: u32| -> Result<Flow> {
        let n = step_no;
        step_no += 1;
        if n < seen.steps {
            return Ok(match seen.skipped.binary_search_by_key(&n, |&(k, _)| k) {
                Ok(i) => seen.skipped[i].1,
                Err(_) => Flow::Continue,
            });
        }
        visit(step, depth)
    };
    let mut children: Vec<Span> = Vec::new();
    // Each event's bytes are checked as UTF-8 by quick-xml as they are read.
    let mut reader = quick_xml::NsReader::from_reader(text);
    let mut filter = NsFilter::new();
    let mut depth: u32 = 0;
    let mut elements: u64 = 0;
    let mut char_buf = [0u8; 4];
    let mut root_bindings: Option<usize> = None;
    let mut cache: Vec<(u64, bool)> = Vec::with_capacity(8);
    loop {
        let event = reader.read_event().map_err(|e| xml_error(part, e))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                depth += 1;
                if depth > max_depth {
                    return Err(too_deep(part, max_depth));
                }
                elements += 1;
                if elements > max_elements {
                    return Err(Error::too_large(format!(
                        "{part}: more than {max_elements} XML elements"
                    )));
                }
                let resolver = reader.resolver();
                let bindings = resolver.bindings().size_hint().1.unwrap_or(usize::MAX);
                if depth == 1 {
                    root_bindings = Some(bindings);
                    cache.clear();
                }
                let qname = e.name();
                let key = if root_bindings == Some(bindings) {
                    prefix_key(qname.prefix().map(|p| p.into_inner()).unwrap_or(""))
                } else {
                    None
                };
                let cached =
                    key.and_then(|k| cache.iter().find(|(ck, _)| *ck == k).map(|&(_, ok)| ok));
                let owpml = match cached {
                    Some(ok) => ok,
                    None => {
                        let (ns, _) = resolver.resolve_element(qname);
                        let ok = filter.is_owpml(&ns);
                        if let Some(k) = key {
                            cache.push((k, ok));
                        }
                        ok
                    }
                };
                let name = e.local_name();
                let tag = Tag(TagRepr::Quick(e));
                let flow = visit(
                    Step::Open {
                        name: name.as_ref(),
                        owpml,
                        start: &tag,
                    },
                    depth,
                )?;
                children.clear();
                if !empty && flow != Flow::Continue {
                    let content = reader
                        .read_to_end(e.name())
                        .map_err(|err| xml_error(part, err))?;
                    if flow == Flow::SkipListing {
                        let from = usize::try_from(content.start).unwrap_or(usize::MAX);
                        let to = usize::try_from(content.end).unwrap_or(usize::MAX);
                        let inner = text.get(from..to).unwrap_or_default();
                        list_quick_children(inner, from + base, &mut children)
                            .map_err(|err| xml_error(part, err))?;
                    }
                }
                if flow == Flow::SkipListing {
                    visit(Step::Children(&children), depth)?;
                }
                if empty || flow != Flow::Continue {
                    visit(Step::Close, depth)?;
                    depth -= 1;
                }
            }
            Event::End(_) => {
                if depth == 0 {
                    return Err(xml_error(part, "closing tag without an opening one"));
                }
                visit(Step::Close, depth)?;
                depth -= 1;
            }
            Event::Text(t) => {
                let content = t.xml10_content();
                if !content.is_empty() {
                    visit(Step::Text(&content), depth)?;
                }
            }
            Event::CData(t) => {
                let content = t.xml10_content();
                if !content.is_empty() {
                    visit(Step::Text(&content), depth)?;
                }
            }
            Event::GeneralRef(r) => {
                if let Some(c) = general_ref(&r) {
                    visit(Step::Text(c.encode_utf8(&mut char_buf)), depth)?;
                }
            }
            Event::Eof => {
                if depth != 0 {
                    return Err(xml_error(
                        part,
                        "the part ends inside an open element (truncated?)",
                    ));
                }
                return Ok(());
            }
            _ => {}
        }
    }
}

/// `skip_content` as it was first written, one construct at a time: the
/// reference the block-wise version is tested against.
#[cfg(test)]
fn skip_content_reference(
    s: &str,
    mut pos: usize,
    name: &str,
    open: &mut Vec<(usize, usize)>,
) -> std::result::Result<usize, Stop> {
    let b = s.as_bytes();
    open.clear();
    loop {
        // Character data: only references need a check.
        let rest = b.get(pos..).ok_or(Stop::Unsure)?;
        let lt = find_byte(rest, b'<').ok_or(Stop::Unsure)?;
        if rest[..lt].contains(&b'&') {
            let mut chunk = &rest[..lt];
            while let Some(amp) = chunk.iter().position(|&c| c == b'&') {
                let after = &chunk[amp + 1..];
                match after.iter().position(|&c| c == b';' || c == b'&') {
                    Some(e) if after[e] == b';' => chunk = &after[e + 1..],
                    _ => return Err(Stop::Unsure),
                }
            }
        }
        pos += lt;
        match b.get(pos + 1) {
            Some(b'/') => {
                let closing = match open.last() {
                    Some(&(start, len)) => s.get(start..start + len).ok_or(Stop::Unsure)?,
                    None => name,
                };
                pos = end_tag(b, pos, closing)?;
                if open.pop().is_none() {
                    return Ok(pos);
                }
            }
            Some(b'?') => pos = skip_pi(b, pos)?,
            Some(b'!') => pos = skip_comment(b, pos)?,
            None => return Err(Stop::Unsure),
            Some(_) => {
                let start = pos + 1;
                let (i, empty, name_len) = start_tag_shape(b, start)?;
                if !empty {
                    open.push((start, name_len));
                }
                pos = i + 1;
            }
        }
    }
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

    #[test]
    fn namespaces_classified() {
        let mut f = NsFilter::new();
        use quick_xml::name::Namespace;
        assert!(f.is_owpml(&ResolveResult::Bound(Namespace(
            "http://www.hancom.co.kr/hwpml/2011/paragraph"
        ))));
        assert!(f.is_owpml(&ResolveResult::Bound(Namespace(
            "http://www.owpml.org/owpml/2024/paragraph"
        ))));
        assert!(!f.is_owpml(&ResolveResult::Bound(Namespace(
            "http://purl.org/dc/elements/1.1/"
        ))));
        assert!(f.is_owpml(&ResolveResult::Unbound));
    }

    /// Every attribute of a tag, as the engine that made it sees them.
    fn all_attrs(t: &Tag<'_, '_>) -> Vec<String> {
        match &t.0 {
            TagRepr::Split { text, spans } => spans
                .iter()
                .map(|a| {
                    format!(
                        "{}={}",
                        String::from_utf8_lossy(a.key(text).unwrap_or_default()),
                        a.value(text).unwrap_or_default()
                    )
                })
                .collect(),
            TagRepr::Lazy(tag) => {
                let mut out = Vec::new();
                for a in tag.spans() {
                    match a {
                        Ok(a) => out.push(format!(
                            "{}={}",
                            String::from_utf8_lossy(a.key(tag.text).unwrap_or_default()),
                            a.value(tag.text).unwrap_or_default()
                        )),
                        // What quick-xml makes of the whole tag.
                        Err(Unusual) => {
                            return tag.quick().map(|q| quick_all(&q)).unwrap_or_default()
                        }
                    }
                }
                out
            }
            TagRepr::Quick(e) => quick_all(e),
        }
    }

    fn quick_all(e: &BytesStart<'_>) -> Vec<String> {
        let mut it = e.attributes();
        it.with_checks(false);
        it.flatten()
            .map(|a| format!("{}={}", a.key.as_ref(), a.value))
            .collect()
    }

    /// The steps a walk gives, with the error it ends on; elements named
    /// `skip` are skipped, and an element named `fail` makes the visitor fail.
    fn trace(text: &[u8], fast: bool) -> Vec<String> {
        let mut out = Vec::new();
        let visit = |step: Step<'_, '_>, depth: u32| -> Result<Flow> {
            match step {
                Step::Open { name, owpml, start } => {
                    out.push(format!(
                        "{depth}<{name} {owpml} {:?} {:?} {:?} {:?}",
                        all_attrs(start),
                        attr(start, "a"),
                        attr(start, "b"),
                        attrs(start, ["b", "a", "c"])
                    ));
                    if name == "fail" {
                        return Err(Error::corrupt("visitor failed"));
                    }
                    if name == "skip" {
                        return Ok(Flow::Skip);
                    }
                    if name == "list" {
                        return Ok(Flow::SkipListing);
                    }
                }
                Step::Close => out.push(format!("{depth}>")),
                Step::Text(t) => out.push(format!("{depth}:{t}")),
                Step::Children(spans) => out.push(format!(
                    "{depth}{:?}",
                    spans
                        .iter()
                        .map(|&(a, b)| String::from_utf8_lossy(&text[a..b]).into_owned())
                        .collect::<Vec<_>>()
                )),
            }
            Ok(Flow::Continue)
        };
        let result = if fast {
            walk(text, "part", 8, 50, visit)
        } else {
            let stripped = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            let limits = WalkLimits {
                part: "part",
                max_depth: 8,
                max_elements: 50,
                base: text.len() - stripped.len(),
                skipped: Skipped::Checked,
            };
            compat_walk(stripped, &limits, &Replay::default(), visit)
        };
        out.push(format!("{result:?}"));
        out
    }

    const SAMPLES: &[&str] = &[
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\" ?><hs:sec xmlns:hs=\"http://www.hancom.co.kr/hwpml/2011/section\" xmlns:hp=\"http://www.hancom.co.kr/hwpml/2011/paragraph\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><hp:p a=\"1 &amp; 2\" b='x\"y'><hp:run><hp:t>가 &lt;나&gt; &#x41;&#13;&bogus;다\r\n라\rmi</hp:t><dc:title a = \"t\">T</dc:title></hp:run><hp:linesegarray><hp:lineseg vertpos=\"0\"/></hp:linesegarray></hp:p></hs:sec>",
        "\u{feff}<!-- lead --><root xmlns=\"http://www.owpml.org/owpml/2024/paragraph\"><a a=\"1\"/><x:b xmlns:x=\"urn:other\"><x:c/><c xmlns=\"\">t</c></x:b><und:e a='2'>u</und:e><xml:f/><skip><q a=\"&\"><r>&amp;</r></q><!-- c --></skip></root>\n",
        "<r><skip a=\"1\"><skip><skip/></skip><?pi x?></skip><p xmlns:p=\"\"><p:q/></p><fail/></r>",
        "<r xmlns:a=\"http://www.hancom.co.kr/hwpml/2011/paragraph\"><a:p><b xmlns:a=\"urn:x\"><a:p/></b><a:p/></a:p></r>",
        "<r><a a=\"1\"b=\"2\"/><a a/><a a=x/><a =\"1\"/><a/ ><a\tb\n=\r'1' /><![CDATA[x]]><!DOCTYPE r><a>&x</a></r>",
        "<r><a xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"/><a xmlns:xmlns=\"u\"/><a xmlns:=\"u\"/><a xmlnsx=\"u\"/></r>",
        "<r><a></b></r>",
        "<r><a><b><c><d><e><f><g><h><i>deep</i></h></g></f></e></d></c></b></a></r>",
        "</r>",
        "<r>&amp</r>",
        "<r>t &amp; <!-->--> <!----> x</r><r2/>",
        "<?>x<??><r/>",
        // Attribute syntax the fast engine leaves to quick-xml, tag by tag.
        "<r><a a=\"1\"b=\"2\" c='3'/><a b='1' a/><a c=\"1\" a=x b='2'/><a =\"1\"/><a\tb\n=\r'1' a = \"2\" b=\"dup\"/><a a=\"&amp;&lt;\" a=\"2\"/><a b='1' / ></a><a b=\"1\"<c=\"2\" a='3'/><a xmlnsx=\"1\" a=\"2\"/><a ax=\"1\"x=\"2\" b='x'/><a c='/' b=\">\"/></r>",
        // Skipped content whose end tag also appears inside a value; an end tag with a space.
        "<r><skip><a x=\"</skip>\"/></skip><b/></r>",
        "<r><skip><skip>x</skip ></skip><skip>y</skip ><c/></r>",
        // Listed children: empty and nested ones, text, comments and references between them.
        "\u{feff}<r xmlns:h=\"http://www.hancom.co.kr/hwpml/2011/head\"><h:list n=\"2\"> <h:e id=\"0\" v='>'/>t&amp;<h:e id=\"1\"><h:f><h:e/></h:f>x</h:e><!-- c --><?p?><h:g/></h:list><list/><list></list><list><a>&b;</a></list></r>",
    ];

    #[test]
    fn fast_engine_matches_quick_xml() {
        for sample in SAMPLES {
            assert_eq!(
                trace(sample.as_bytes(), true),
                trace(sample.as_bytes(), false),
                "{sample}"
            );
        }
        // Every truncation and every single-byte corruption of the samples.
        for sample in SAMPLES {
            let bytes = sample.as_bytes();
            for cut in 0..bytes.len() {
                let t = &bytes[..cut];
                assert_eq!(
                    trace(t, true),
                    trace(t, false),
                    "{}",
                    String::from_utf8_lossy(t)
                );
            }
            for at in 0..bytes.len() {
                for b in [
                    b'<', b'>', b'"', b'\'', b'/', b'&', b';', b'=', b' ', b':', b'!', b'?', b'-',
                    b'x', b'\t', 0xff,
                ] {
                    let mut t = bytes.to_vec();
                    t[at] = b;
                    assert_eq!(
                        trace(&t, true),
                        trace(&t, false),
                        "{}",
                        String::from_utf8_lossy(&t)
                    );
                }
            }
        }
    }

    /// `each_tag_within` meets the start tags a walk of the element opens, in order.
    #[test]
    fn tags_within_an_element_are_the_walks() {
        let element = "<h:e id=\"1\" v='>'><h:f a=\"x>y\"><!-- <h:no/> --><?p x?><h:e/>t&amp;</h:f>x<g b='2'/><h:h>\n</h:h></h:e>";
        let mut walked = Vec::new();
        walk(element.as_bytes(), "p", 64, 1000, |step, depth| {
            if let Step::Open { name, start, .. } = step {
                if depth > 1 {
                    walked.push(format!("{name} {:?}", all_attrs(start)));
                }
            }
            Ok(Flow::Continue)
        })
        .unwrap();
        let mut within = Vec::new();
        each_tag_within(element.as_bytes(), |name, tag| {
            within.push(format!("{name} {:?}", all_attrs(tag)));
            true
        });
        assert_eq!(within, walked);
        assert_eq!(walked.len(), 4);
        let mut first = Vec::new();
        each_tag_within(element.as_bytes(), |name, _| {
            first.push(name.to_string());
            false
        });
        assert_eq!(first, ["f"]);
        let (name, tag) = start_tag(element.as_bytes()).unwrap();
        assert_eq!((name, attr_u32(&tag, "id")), ("e", Some(1)));
        assert!(start_tag(b"text").is_none());
    }

    /// The samples the fast engine reads alone (no hand-over to quick-xml).
    #[test]
    fn fast_engine_reads_common_xml() {
        for (k, sample) in SAMPLES.iter().enumerate() {
            let limits = WalkLimits {
                part: "part",
                max_depth: 8,
                max_elements: 50,
                base: 0,
                skipped: Skipped::Checked,
            };
            let mut seen = Replay::default();
            let text = sample.trim_start_matches('\u{feff}');
            let r = fast_walk(
                text,
                &limits,
                &mut |_: Step<'_, '_>, _| Ok(Flow::Continue),
                &mut seen,
            );
            let expected = matches!(k, 0..=3 | 10 | 12 | 13 | 15);
            assert_eq!(r.is_ok(), expected, "sample {k}");
        }
    }

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

    /// A small deterministic generator (xorshift64*) for the randomized tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
    }

    const SKIP_NAMES: &[&str] = &[
        "a",
        "hh:font",
        "hc:intent",
        "hp:t",
        "가",
        "x",
        "hh:borderFillList",
        "abcdefghijklmnopqrstu",
        "a\"b>\"c",
    ];

    /// An attribute value: plain, or holding quotes of the other kind, `>`,
    /// `<`, `&`, `/`, multi-byte text, or long enough to cross blocks.
    fn skip_value(r: &mut Rng, quote: char) -> String {
        let mut v = String::new();
        for _ in 0..r.below(4) {
            v.push_str(r.pick(&[
                "0",
                "HWPUNIT",
                ">",
                "<",
                "&",
                "&amp;",
                "/",
                "함초롬돋움",
                "'",
                "\"",
                "/>",
                "x y",
                "0123456789012345678901234567890123456789012345678901234567890",
            ]));
        }
        v.replace(quote, "")
    }

    fn skip_attrs(r: &mut Rng, out: &mut String) {
        for _ in 0..r.below(6) {
            out.push_str(r.pick(&[" ", " ", " ", "\t", "\n", "  "]));
            out.push_str(r.pick(&["id", "value", "unit", "face", "isEmbedded", "k"]));
            out.push('=');
            let quote = if r.chance(85) { '"' } else { '\'' };
            out.push(quote);
            out.push_str(&skip_value(r, quote));
            out.push(quote);
        }
        if r.chance(10) {
            out.push_str(r.pick(&[" ", "\t", " / ", "\""]));
        }
    }

    fn skip_text(r: &mut Rng, out: &mut String) {
        if r.chance(70) {
            return;
        }
        for _ in 0..1 + r.below(3) {
            out.push_str(if r.chance(90) {
                r.pick(&[
                    "abc",
                    "&amp;",
                    ";",
                    ">",
                    "\"",
                    "'",
                    "가나다",
                    "\n  ",
                    "&#x41;",
                    "a;b&c;",
                    "                                                                ",
                    "<!-- c -->",
                    "<!---->",
                    "<!-- a -- b -->",
                    "<?pi x?>",
                    "<??>",
                ])
            } else {
                r.pick(&[
                    "&",
                    "&x",
                    "&&;",
                    "<!-->",
                    "<!- x>",
                    "<?>",
                    "<?x>",
                    "<![CDATA[x]]>",
                    "<!DOCTYPE r>",
                    "<>",
                    "< a>",
                    "</>",
                ])
            });
        }
    }

    /// An element: `<name attrs/>`, or `<name attrs>content</name>` with an
    /// occasionally wrong or spaced end tag.
    fn skip_element(r: &mut Rng, depth: usize, out: &mut String) {
        let name = r.pick(SKIP_NAMES);
        out.push('<');
        out.push_str(name);
        skip_attrs(r, out);
        if depth > 4 || r.chance(55) {
            out.push_str("/>");
            return;
        }
        out.push('>');
        skip_content_of(r, depth + 1, out);
        out.push_str("</");
        out.push_str(if r.chance(3) {
            r.pick(SKIP_NAMES)
        } else {
            name
        });
        if r.chance(3) {
            out.push(' ');
        }
        out.push('>');
    }

    fn skip_content_of(r: &mut Rng, depth: usize, out: &mut String) {
        skip_text(r, out);
        for _ in 0..r.below(if depth == 0 { 12 } else { 4 }) {
            skip_element(r, depth, out);
            skip_text(r, out);
        }
    }

    /// A single-character edit: replaced, deleted or inserted.
    fn mutate(r: &mut Rng, text: &str) -> String {
        let chars: Vec<char> = text.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        let at = r.below(chars.len());
        let new = r.pick(&[
            "<", ">", "\"", "'", "/", "&", ";", "!", "?", "-", " ", "가", "a", "=",
        ]);
        let mut out: String = chars[..at].iter().collect();
        match r.below(3) {
            0 => out.push_str(new),
            1 => {}
            _ => {
                out.push_str(new);
                out.push(chars[at]);
            }
        }
        out.extend(&chars[at + 1..]);
        out
    }

    fn skip_result(r: std::result::Result<usize, Stop>) -> Option<usize> {
        match r {
            Ok(end) => Some(end),
            Err(Stop::Unsure) => None,
            Err(Stop::Fail(e)) => panic!("skip_content failed: {e:?}"),
        }
    }

    /// The block-wise `skip_content` agrees with the construct-at-a-time
    /// reference on generated and mutated fragments: the same end, or both unsure.
    #[test]
    fn skip_content_matches_the_reference() {
        let mut r = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut open, mut reference_open) = (Vec::new(), Vec::new());
        let (mut ends, mut cases) = (0, 0);
        for case in 0..40_000 {
            // A lead-in of varying length moves the fragment across block boundaries.
            let mut text = " ".repeat(r.below(70));
            let name = r.pick(SKIP_NAMES);
            text.push('<');
            text.push_str(name);
            skip_attrs(&mut r, &mut text);
            text.push('>');
            let pos = text.len();
            skip_content_of(&mut r, 0, &mut text);
            text.push_str("</");
            text.push_str(name);
            text.push('>');
            if r.chance(50) {
                skip_element(&mut r, 3, &mut text);
            }
            let mut variants = vec![text.clone()];
            if case % 2 == 1 {
                let mut t = text.clone();
                for _ in 0..1 + r.below(3) {
                    t = mutate(&mut r, &t);
                }
                variants.push(t);
            }
            if case % 5 == 0 {
                let cut = pos + r.below(text.len() - pos + 1);
                if let Some(t) = text.get(..cut) {
                    variants.push(t.to_string());
                }
            }
            for t in &variants {
                for p in [pos, pos.saturating_sub(1), pos + 1] {
                    let new = skip_result(skip_content(t, p, name, &mut open));
                    let old = skip_result(skip_content_reference(t, p, name, &mut reference_open));
                    assert_eq!(new, old, "{t:?} from {p} closing {name:?}");
                    cases += 1;
                    ends += usize::from(new.is_some());
                }
            }
        }
        // Both outcomes are well represented.
        assert!(
            ends * 10 > cases && ends * 10 < cases * 9,
            "{ends} of {cases}"
        );
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

    /// Well-formed by the XML rules, which quick-xml's skip does not enforce: names
    /// and attributes well made, no `<` in attribute values.
    fn well_formed(text: &str) -> bool {
        use quick_xml::events::Event;
        let mut reader = quick_xml::Reader::from_str(text);
        loop {
            match reader.read_event() {
                Ok(Event::Eof) => return true,
                Ok(Event::Start(e) | Event::Empty(e)) => {
                    if e.name().as_ref().bytes().any(|c| br#""'<>=&"#.contains(&c)) {
                        return false;
                    }
                    let mut attrs = e.attributes();
                    attrs.with_checks(true);
                    for a in attrs {
                        match a {
                            Ok(a) if !a.value.contains('<') => {}
                            _ => return false,
                        }
                    }
                }
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }

    /// The unchecked skip and listing land where the exact ones do on all
    /// well-formed content (they differ only in accepting ill-formed content),
    /// and never fail.
    #[test]
    fn unchecked_skips_land_where_the_exact_ones_do() {
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        let mut open = Vec::new();
        let (mut agreed, mut lenient) = (0, 0);
        for case in 0..40_000 {
            let mut text = " ".repeat(r.below(70));
            let name = r.pick(SKIP_NAMES);
            text.push('<');
            text.push_str(name);
            text.push('>');
            let pos = text.len();
            skip_content_of(&mut r, 0, &mut text);
            text.push_str("</");
            text.push_str(name);
            text.push('>');
            let t = if case % 2 == 1 {
                mutate(&mut r, &text)
            } else {
                text
            };
            let exact = skip_result(skip_content(&t, pos, name, &mut open));
            let unchecked = skip_result(skip_unchecked(&t, pos, name, &mut open));
            let compared = exact.is_some() && well_formed(&t);
            if compared {
                assert_eq!(unchecked, exact, "{t:?} closing {name:?}");
                agreed += 1;
            } else if exact.is_none() {
                lenient += usize::from(unchecked.is_some());
            }
            if let Some(end) = unchecked {
                assert!(t.as_bytes()[..end].ends_with(format!("</{name}>").as_bytes()));
            }
            let (mut spans, mut exact_spans) = (Vec::new(), Vec::new());
            let listed = skip_result(list_children(
                &t,
                pos,
                name,
                Skipped::Unchecked,
                &mut open,
                &mut spans,
            ));
            let exact_end = skip_result(list_children(
                &t,
                pos,
                name,
                Skipped::Checked,
                &mut open,
                &mut exact_spans,
            ));
            if compared {
                assert_eq!(listed, exact_end, "{t:?} listing {name:?}");
                assert_eq!(spans, exact_spans, "{t:?} listing {name:?}");
            }
        }
        // Most generated fragments bend the XML rules (quick-xml tolerates them).
        assert!(
            agreed > 2_000 && lenient > 200,
            "{agreed} agreed, {lenient} lenient"
        );
    }
}
