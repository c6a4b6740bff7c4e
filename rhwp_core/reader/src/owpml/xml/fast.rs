//! The fast engine (`fast_walk`): a tokenizer of our own for the XML HWPX
//! writers emit, with its namespace bindings (`Bindings`), text runs and the
//! small markup readers (end tags, processing instructions, comments).
//!
//! Separate from the public walk (`super`) and from quick-xml's engine
//! (`compat`): everything here either reads the input exactly as quick-xml
//! would, or stops with `Stop::Unsure` so that the compat engine takes over.

use super::attrs::{AttrSpan, LazyTag, Tag, TagRepr, Unusual};
use super::listing::list_children;
use super::scan::{
    find_byte, find_either, is_ws, mentions_xmlns, name_end, same_bytes, tag_end_scan,
};
use super::skip::{skip_content, skip_unchecked};
use super::{resolve_entity, too_deep, Flow, Replay, Skipped, Span, Step, Stop, WalkLimits};
use crate::{Error, Result};
use quick_xml::events::BytesText;

#[inline]
fn same_name(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same_bytes(a.as_bytes(), b.as_bytes()),
        _ => false,
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
pub(super) fn skip_pi(b: &[u8], pos: usize) -> std::result::Result<usize, Stop> {
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
pub(super) fn skip_comment(b: &[u8], pos: usize) -> std::result::Result<usize, Stop> {
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
pub(super) fn end_tag(b: &[u8], pos: usize, name: &str) -> std::result::Result<usize, Stop> {
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

/// The fast engine (see the module notes). Stops with `Unsure` at anything
/// it does not read exactly as quick-xml would.
pub(super) fn fast_walk<'i, F>(
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
