//! The compat engine (`compat_walk`): quick-xml's `NsReader`, the reference
//! behaviour. It reads a part the fast engine is unsure of from the start,
//! replaying silently the steps the visitor already has (`Replay`) and its
//! skip decisions, and goes on from there; errors are quick-xml's.
//!
//! Separate so that the fast engine and this one can be read (and tested
//! against each other) side by side; `NsFilter` classifies its namespaces.

use super::attrs::{Tag, TagRepr};
use super::{general_ref, too_deep, xml_error, Flow, Replay, Span, Step, WalkLimits, MAX_LISTED};
use crate::{Error, Result};
use quick_xml::name::ResolveResult;

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
pub(super) fn compat_walk<F>(
    text: &[u8],
    limits: &WalkLimits<'_>,
    seen: &Replay,
    mut visit: F,
) -> Result<()>
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
