//! Small helpers shared by the XML parts: UTF-8 decoding of a part,
//! namespace classification, attribute lookup by local name, entity
//! references, and the depth guard.

use crate::{Error, Result};
use quick_xml::events::{BytesRef, BytesStart};
use quick_xml::name::ResolveResult;
use std::borrow::Cow;

/// A part's bytes as text. Invalid UTF-8 is repaired (lenient) or refused (strict).
pub fn part_text<'a>(bytes: &'a [u8], name: &str, strict: bool) -> Result<Cow<'a, str>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(Cow::Borrowed(s)),
        Err(_) if !strict => Ok(String::from_utf8_lossy(bytes)),
        Err(e) => Err(Error::corrupt(format!("{name}: not valid UTF-8 ({e})"))),
    }
}

/// Is an element in an OWPML namespace? Hancom's 2011/2016 URIs
/// (`http://www.hancom.co.kr/hwpml/...`), the 2024 standard's
/// (`http://www.owpml.org/...`), or no namespace at all (minimal writers).
/// Elements of other vocabularies (OOXML charts, Dublin Core, ...) are not
/// read as document content.
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
            ResolveResult::Unbound => true,
            ResolveResult::Unknown(_) => false,
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

/// The local part of a possibly prefixed attribute or element name.
#[inline]
pub fn local(name: &str) -> &str {
    match name.rfind(':') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// The raw (still escaped) value of the attribute whose local name is `key`.
/// Attributes are matched by local name: OWPML attributes are unprefixed
/// except the odd `xml:` or `hp:required-namespace`.
pub fn attr<'a>(e: &'a BytesStart<'_>, key: &str) -> Option<Cow<'a, str>> {
    let mut attrs = e.attributes();
    attrs.with_checks(false);
    for a in attrs.flatten() {
        if local(a.key.as_ref()) == key {
            return Some(match a.value {
                Cow::Borrowed(v) if !v.contains('&') => Cow::Borrowed(v),
                other => Cow::Owned(unescape_attr(&other)),
            });
        }
    }
    None
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

/// Walk an XML part as a stream of `Step`s, iteratively (never recursing on
/// element depth), refusing parts nested deeper than `max_depth` or holding
/// more than `max_elements` elements. `visit` gets each step and the element
/// depth (1 = the root element).
pub fn walk<F>(text: &str, part: &str, max_depth: u32, max_elements: u64, mut visit: F) -> Result<()>
where
    F: FnMut(Step<'_, '_>, u32) -> Result<()>,
{
    use quick_xml::events::Event;
    let mut reader = quick_xml::NsReader::from_str(text);
    let mut filter = NsFilter::new();
    let mut depth: u32 = 0;
    let mut elements: u64 = 0;
    let mut char_buf = [0u8; 4];
    loop {
        let (ns, event) = reader.read_resolved_event().map_err(|e| xml_error(part, e))?;
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
                let owpml = filter.is_owpml(&ns);
                let name = e.local_name();
                visit(Step::Open { name: name.as_ref(), owpml, start: e }, depth)?;
                if empty {
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
