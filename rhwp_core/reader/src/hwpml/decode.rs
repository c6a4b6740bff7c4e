//! An HWPML file's bytes as the UTF-8 text the XML walk reads: the encoding taken from the byte
//! order mark (or, without one, from where the zero bytes of UTF-16 fall), and a `DOCTYPE`'s
//! internal entities expanded as declared.
//!
//! Hancom writes UTF-8 with a byte order mark; other exporters (web editors, government
//! systems) write UTF-16 and sometimes a `DOCTYPE` whose internal subset declares entities.
//! The walk stops at neither, so both are settled here, once, before it: UTF-16 is re-encoded,
//! and a `DOCTYPE` is cut out with its declared general entities replaced in the rest of the
//! text. Expansion is bounded (`Limits::max_entity_expansions`, the per-stream byte bound and
//! a nesting bound), so a "billion laughs" document is refused as `too_large` after a bounded
//! amount of work. Undeclared references are left as written; external and parameter entities
//! are never fetched or expanded.

use crate::limits::Limits;
use crate::{Error, Result};
use std::borrow::Cow;

/// Entity values referring to entities, at most this deep (real documents use one level).
const MAX_ENTITY_NESTING: u32 = 8;

/// How the bytes are encoded, from the first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
}

pub fn encoding(bytes: &[u8]) -> Encoding {
    match bytes {
        [0xFF, 0xFE, ..] => Encoding::Utf16Le,
        [0xFE, 0xFF, ..] => Encoding::Utf16Be,
        // No byte order mark: `<` (or the first character) beside a zero byte.
        [b'<', 0, ..] => Encoding::Utf16Le,
        [0, b'<', ..] => Encoding::Utf16Be,
        _ => Encoding::Utf8,
    }
}

/// The first `max` bytes of a file as text, for sniffing (lossy; UTF-16 included).
pub fn head_text(bytes: &[u8], max: usize) -> Cow<'_, str> {
    let head = &bytes[..bytes.len().min(max)];
    match encoding(head) {
        Encoding::Utf8 => String::from_utf8_lossy(head),
        e => Cow::Owned(utf16(head, e)),
    }
}

fn utf16(bytes: &[u8], e: Encoding) -> String {
    let units = bytes.chunks_exact(2).map(|p| match e {
        Encoding::Utf16Be => u16::from_be_bytes([p[0], p[1]]),
        _ => u16::from_le_bytes([p[0], p[1]]),
    });
    let mut out: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if out.starts_with('\u{FEFF}') {
        out.drain(..3);
    }
    out
}

/// The non-Unicode encoding an XML declaration names (`<?xml ... encoding="euc-kr"?>`), if any.
/// Labels as the WHATWG Encoding Standard reads them: `euc-kr`, `ks_c_5601-1987`, `cp949`,
/// `windows-949` all name the same Korean code page.
fn legacy_encoding(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = &bytes[..bytes.len().min(200)];
    let decl_end = head.windows(2).position(|w| w == b"?>")?;
    let decl = std::str::from_utf8(&head[..decl_end]).ok()?;
    if !decl.trim_start().starts_with("<?xml") {
        return None;
    }
    let at = decl.find("encoding")? + "encoding".len();
    let rest = decl[at..].trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let label = rest[1..].split(quote).next()?;
    let found = encoding_rs::Encoding::for_label(label.trim().as_bytes())?;
    (found != encoding_rs::UTF_8
        && found != encoding_rs::UTF_16LE
        && found != encoding_rs::UTF_16BE)
        .then_some(found)
}

/// The document as UTF-8 text: borrowed when it already is (after its byte order mark), owned
/// when it was re-encoded, repaired (lenient reading of invalid UTF-8) or had entities expanded.
pub fn text<'b>(bytes: &'b [u8], strict: bool, limits: &Limits) -> Result<Cow<'b, str>> {
    if bytes.len() as u64 > limits.max_stream_bytes {
        return Err(Error::too_large(format!(
            "the HWPML document is {} bytes, above the {}-byte limit",
            bytes.len(),
            limits.max_stream_bytes
        )));
    }
    let text: Cow<'b, str> = match encoding(bytes) {
        Encoding::Utf8 => {
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            match simdutf8::basic::from_utf8(bytes) {
                Ok(s) => Cow::Borrowed(s),
                // Not UTF-8: a declaration naming a legacy encoding (older exporters of
                // government systems write EUC-KR / CP949) is decoded as it says; otherwise
                // strict reading refuses and lenient reading repairs.
                Err(_) => match legacy_encoding(bytes) {
                    Some(legacy) => {
                        let (decoded, _, had_errors) = legacy.decode(bytes);
                        if had_errors && strict {
                            return Err(Error::corrupt(format!(
                                "the HWPML document is not valid {} as its declaration says",
                                legacy.name()
                            )));
                        }
                        Cow::Owned(decoded.into_owned())
                    }
                    None if strict => return Err(Error::corrupt(
                        "the HWPML document is not valid UTF-8 (and has no UTF-16 byte order mark)",
                    )),
                    None => Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
                },
            }
        }
        e => Cow::Owned(utf16(bytes, e)),
    };
    match doctype(&text)? {
        None => Ok(text),
        Some(d) => expand(&text, &d, limits).map(Cow::Owned),
    }
}

/// A `DOCTYPE` found before the root element: where it lies and the general entities its
/// internal subset declares (name, replacement text).
struct Doctype<'t> {
    start: usize,
    end: usize,
    entities: Vec<(&'t str, &'t str)>,
}

fn doctype(text: &str) -> Result<Option<Doctype<'_>>> {
    // Only the prolog can hold one: before the first element's `<` followed by a name.
    let Some(start) = text.find("<!DOCTYPE") else {
        return Ok(None);
    };
    let prolog_end = text.find("<HWPML").unwrap_or(text.len());
    if start > prolog_end {
        return Ok(None);
    }
    let b = text.as_bytes();
    // The declaration ends at the first `>` outside the internal subset and outside quotes.
    let (mut at, mut in_subset, mut quote) = (start + 9, false, None::<u8>);
    let mut entities = Vec::new();
    while at < b.len() {
        let c = b[at];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'[' => in_subset = true,
                b']' => in_subset = false,
                b'<' if in_subset && text[at..].starts_with("<!ENTITY") => {
                    let (entity, next) = entity_decl(text, at)?;
                    entities.extend(entity);
                    at = next;
                    continue;
                }
                b'<' if in_subset && text[at..].starts_with("<!--") => {
                    let close = text[at + 4..].find("-->").ok_or_else(|| {
                        Error::corrupt("HWPML: a comment in the DOCTYPE never ends")
                    })?;
                    at += 4 + close + 3;
                    continue;
                }
                b'>' if !in_subset => {
                    return Ok(Some(Doctype {
                        start,
                        end: at + 1,
                        entities,
                    }))
                }
                _ => {}
            },
        }
        at += 1;
    }
    Err(Error::corrupt("HWPML: the DOCTYPE declaration never ends"))
}

/// One `<!ENTITY ...>` at `at`: a general entity with a literal value gives (name, value);
/// parameter (`%`) and external (`SYSTEM`/`PUBLIC`) entities give nothing (never fetched).
fn entity_decl(text: &str, at: usize) -> Result<(Option<(&str, &str)>, usize)> {
    let unterminated = || Error::corrupt("HWPML: an ENTITY declaration in the DOCTYPE never ends");
    let rest = &text[at + 8..];
    let body = rest.trim_start();
    let body_at = at + 8 + (rest.len() - body.len());
    if body.starts_with('%') {
        let end = quoted_end(text, body_at).ok_or_else(unterminated)?;
        return Ok((None, end));
    }
    let name_len = body
        .find(|c: char| c.is_whitespace() || c == '>' || c == '"' || c == '\'')
        .unwrap_or(body.len());
    let name = &body[..name_len];
    let after = body[name_len..].trim_start();
    let value_at = text.len() - after.len();
    let end = quoted_end(text, value_at).ok_or_else(unterminated)?;
    let entity = match after.as_bytes().first() {
        Some(&q @ (b'"' | b'\'')) => after[1..]
            .find(q as char)
            .map(|close| (name, &after[1..1 + close])),
        _ => None,
    };
    Ok((entity.filter(|(n, _)| !n.is_empty()), end))
}

/// Just past the `>` that ends a declaration starting at or before `from` (quotes skipped).
fn quoted_end(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut quote = None;
    for (k, &c) in b.iter().enumerate().skip(from) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => quote = Some(c),
            None if c == b'>' => return Some(k + 1),
            None => {}
        }
    }
    None
}

/// The text without its `DOCTYPE`, declared entities replaced (nested ones too), bounded.
fn expand(text: &str, d: &Doctype<'_>, limits: &Limits) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..d.start]);
    let mut budget = Budget {
        expansions: 0,
        max_expansions: limits.max_entity_expansions,
        max_bytes: usize::try_from(limits.max_stream_bytes).unwrap_or(usize::MAX),
    };
    expand_into(&text[d.end..], &d.entities, 0, &mut budget, &mut out)?;
    Ok(out)
}

struct Budget {
    expansions: u64,
    max_expansions: u64,
    max_bytes: usize,
}

fn expand_into(
    text: &str,
    entities: &[(&str, &str)],
    nesting: u32,
    budget: &mut Budget,
    out: &mut String,
) -> Result<()> {
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let declared = after.find(';').and_then(|semi| {
            let name = &after[..semi];
            entities
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .map(|&(_, v)| (semi, v))
        });
        match declared {
            Some((semi, value)) => {
                budget.expansions += 1;
                if budget.expansions > budget.max_expansions || nesting >= MAX_ENTITY_NESTING {
                    return Err(Error::too_large(format!(
                        "HWPML: the DOCTYPE's entities expand more than {} times or {} deep (an entity bomb?)",
                        budget.max_expansions, MAX_ENTITY_NESTING
                    )));
                }
                expand_into(value, entities, nesting + 1, budget, out)?;
                rest = &after[semi + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
        if out.len() > budget.max_bytes {
            return Err(Error::too_large(format!(
                "HWPML: the text with its entities expanded exceeds the {}-byte limit",
                budget.max_bytes
            )));
        }
    }
    out.push_str(rest);
    if out.len() > budget.max_bytes {
        return Err(Error::too_large(format!(
            "HWPML: the text with its entities expanded exceeds the {}-byte limit",
            budget.max_bytes
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(bytes: &[u8]) -> Result<String> {
        text(bytes, false, &Limits::default()).map(|t| t.into_owned())
    }

    #[test]
    fn utf16_both_orders_with_and_without_bom() {
        let s = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><HWPML>한글</HWPML>";
        let le: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = s.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for (bom, body) in [([0xFF, 0xFE], &le), ([0xFE, 0xFF], &be)] {
            let mut with = bom.to_vec();
            with.extend_from_slice(body);
            assert_eq!(decoded(&with).unwrap(), s);
            assert_eq!(decoded(body).unwrap(), s);
        }
    }

    #[test]
    fn a_declared_korean_legacy_encoding_is_decoded() {
        let text = "<?xml version=\"1.0\" encoding=\"euc-kr\"?><HWPML><P>한글 문서</P></HWPML>";
        let (bytes, _, _) = encoding_rs::EUC_KR.encode(text);
        assert!(std::str::from_utf8(&bytes).is_err());
        assert_eq!(decoded(&bytes).unwrap(), text);
        // Another label of the same code page, single quotes.
        let text = "<?xml version='1.0' encoding='ks_c_5601-1987'?><HWPML>똠방각하</HWPML>";
        let (bytes, _, _) = encoding_rs::EUC_KR.encode(text);
        assert_eq!(decoded(&bytes).unwrap(), text);
        // Without a declaration, invalid UTF-8 stays a lenient repair (no guessing).
        let (bytes, _, _) = encoding_rs::EUC_KR.encode("<HWPML>한글</HWPML>");
        assert!(decoded(&bytes).unwrap().contains('\u{FFFD}'));
    }

    #[test]
    fn declared_entities_expand_others_stay() {
        let s = "<?xml version=\"1.0\"?><!DOCTYPE HWPML [<!ENTITY co \"한컴\"><!ENTITY full \"&co; 오피스\"><!ENTITY % p \"x\"><!ENTITY ext SYSTEM \"file:///etc/passwd\">]><HWPML a=\"&co;\">&full; &amp; &ext; &nope;</HWPML>";
        assert_eq!(
            decoded(s.as_bytes()).unwrap(),
            "<?xml version=\"1.0\"?><HWPML a=\"한컴\">한컴 오피스 &amp; &ext; &nope;</HWPML>"
        );
    }

    #[test]
    fn billion_laughs_is_too_large() {
        let mut s = String::from("<!DOCTYPE HWPML [<!ENTITY l0 \"lol\">");
        for k in 1..10 {
            let refs = format!("&l{};", k - 1).repeat(10);
            s.push_str(&format!("<!ENTITY l{k} \"{refs}\">"));
        }
        s.push_str("]><HWPML>&l9;</HWPML>");
        let e = decoded(s.as_bytes()).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::TooLarge);
        // Self-reference is bounded by nesting.
        let e = decoded(b"<!DOCTYPE HWPML [<!ENTITY a \"&a;\">]><HWPML>&a;</HWPML>").unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::TooLarge);
    }

    #[test]
    fn unterminated_doctype_is_corrupt() {
        let e = decoded(b"<!DOCTYPE HWPML [<!ENTITY a \"x\"").unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::CorruptDocument);
    }
}
