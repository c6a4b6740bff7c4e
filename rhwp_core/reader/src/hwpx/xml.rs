//! Small helpers shared by the XML parts: UTF-8 decoding of a part,
//! namespace classification, attribute lookup by local name, entity
//! references, and the depth guard.

use crate::{Error, Result};
use quick_xml::events::{BytesRef, BytesStart};
use quick_xml::name::ResolveResult;
use std::borrow::Cow;

/// Run `parse` over a part's bytes; when it fails on a part that is not
/// valid UTF-8 and reading is lenient, run it again over the repaired text
/// (invalid sequences become U+FFFD). Valid parts are never copied: quick-xml
/// checks the UTF-8 of each event as it reads.
pub fn with_repair<T>(bytes: &[u8], strict: bool, mut parse: impl FnMut(&[u8]) -> Result<T>) -> Result<T> {
    match parse(bytes) {
        Err(e) if !strict && e.code == crate::ErrorCode::CorruptDocument && std::str::from_utf8(bytes).is_err() => {
            let repaired = String::from_utf8_lossy(bytes);
            parse(repaired.as_bytes())
        }
        other => other,
    }
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
        NsFilter { last_ok: String::new() }
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
    let (q, k) = (qualified.as_bytes(), key.as_bytes());
    if q.len() == k.len() {
        return q == k;
    }
    q.len() > k.len() && q.ends_with(k) && q[q.len() - k.len() - 1] == b':'
}

#[inline]
fn attr_value<'a>(value: Cow<'a, str>) -> Cow<'a, str> {
    match value {
        Cow::Borrowed(v) if !v.contains('&') => Cow::Borrowed(v),
        other => Cow::Owned(unescape_attr(&other)),
    }
}

/// The (unescaped) value of the attribute whose local name is `key`.
pub fn attr<'a>(e: &'a BytesStart<'_>, key: &str) -> Option<Cow<'a, str>> {
    let mut attrs = e.attributes();
    attrs.with_checks(false);
    for a in attrs.flatten() {
        if key_is(a.key.as_ref(), key) {
            return Some(attr_value(a.value));
        }
    }
    None
}

/// Several attributes in one pass over the element's attributes.
pub fn attrs<'a, const N: usize>(e: &'a BytesStart<'_>, keys: [&str; N]) -> [Option<Cow<'a, str>>; N] {
    let mut out: [Option<Cow<'a, str>>; N] = std::array::from_fn(|_| None);
    let mut found = 0;
    let mut it = e.attributes();
    it.with_checks(false);
    for a in it.flatten() {
        if let Some(i) = keys.iter().position(|k| key_is(a.key.as_ref(), k)) {
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

pub fn attr_u32(e: &BytesStart<'_>, key: &str) -> Option<u32> {
    attr(e, key).and_then(|v| parse_u32(&v))
}

pub fn attr_i64(e: &BytesStart<'_>, key: &str) -> Option<i64> {
    attr(e, key).and_then(|v| v.trim().parse::<i64>().ok())
}

/// Unsigned numbers; negative or out-of-range values count as absent
/// (`4294967295` is OWPML's "none" for id references and stays u32::MAX).
pub fn parse_u32(v: &str) -> Option<u32> {
    v.trim().parse::<u32>().ok()
}

pub fn attr_flag(e: &BytesStart<'_>, key: &str) -> bool {
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
    Error::too_large(format!("{part}: XML elements nested more than {limit} deep"))
}

pub fn xml_error(part: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(format!("{part}: malformed XML ({e})"))
}

/// One step of a walk over an XML part, flattened for the readers: empty
/// elements come as `Open` immediately followed by `Close`.
pub enum Step<'a, 'i> {
    /// An element opens. `name` is its local name; `owpml` says whether its
    /// namespace is an OWPML one (see `NsFilter`).
    Open { name: &'a str, owpml: bool, start: &'a BytesStart<'i> },
    /// The element opened last closes.
    Close,
    /// Character data (entities already resolved, one piece at a time).
    Text(&'a str),
}

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
}

/// Walk an XML part as a stream of `Step`s, iteratively (never recursing on
/// element depth), refusing parts nested deeper than `max_depth` or holding
/// more than `max_elements` elements. `visit` gets each step and the element
/// depth (1 = the root element).
///
/// Element namespaces are resolved by quick-xml's `NsReader`. Resolving
/// scans the in-scope bindings for every element, so while exactly the root
/// element's bindings are in scope (OWPML declares them all on the root) the
/// answer per prefix is remembered; any nested declaration turns the cache
/// off until it goes out of scope again.
pub fn walk<F>(text: &[u8], part: &str, max_depth: u32, max_elements: u64, mut visit: F) -> Result<()>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
{
    use quick_xml::events::Event;
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
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
                    return Err(Error::too_large(format!("{part}: more than {max_elements} XML elements")));
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
                let cached = key.and_then(|k| cache.iter().find(|(ck, _)| *ck == k).map(|&(_, ok)| ok));
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
                let flow = visit(Step::Open { name: name.as_ref(), owpml, start: e }, depth)?;
                if !empty && flow == Flow::Skip {
                    reader.read_to_end(e.name()).map_err(|err| xml_error(part, err))?;
                }
                if empty || flow == Flow::Skip {
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
                    return Err(xml_error(part, "the part ends inside an open element (truncated?)"));
                }
                return Ok(());
            }
            _ => {}
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
        assert_eq!(unescape_attr("a &amp; b &#x41;&unknown; &"), "a & b A&unknown; &");
    }

    #[test]
    fn namespaces_classified() {
        let mut f = NsFilter::new();
        use quick_xml::name::Namespace;
        assert!(f.is_owpml(&ResolveResult::Bound(Namespace("http://www.hancom.co.kr/hwpml/2011/paragraph"))));
        assert!(f.is_owpml(&ResolveResult::Bound(Namespace("http://www.owpml.org/owpml/2024/paragraph"))));
        assert!(!f.is_owpml(&ResolveResult::Bound(Namespace("http://purl.org/dc/elements/1.1/"))));
        assert!(f.is_owpml(&ResolveResult::Unbound));
    }
}
