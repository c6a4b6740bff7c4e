//! `Flow::SkipListing`: an element's content skipped while the span of each
//! child element is noted (`list_children`), and the reading of those spans
//! later, alone: the start tag a listed child begins with (`start_tag`) and
//! the tags inside it (`each_tag_within`).
//!
//! Separate from `skip` because listing is a reader's deferral (read a table
//! entry only when asked for), built on the skips.

use super::attrs::{LazyTag, Tag, TagRepr};
use super::fast::{end_tag, skip_comment, skip_pi};
use super::scan::{find_byte, is_ws, name_end, tag_end};
use super::skip::{skip_content, skip_unchecked, text_end};
use super::{Skipped, Span, Stop, MAX_LISTED};

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

/// An empty element this crate wrote itself, `<name attr="value" .../>` with every value escaped
/// (the HWPML reader restates its elements as OWPML tags, one per element): `start_tag` without
/// the UTF-8 check and the scan for the tag's end, which such text does not need. `None` unless
/// `text` has that shape around a `name_len`-byte name.
pub fn own_tag(text: &str, name_len: usize) -> Option<Tag<'_, '_>> {
    let b = text.as_bytes();
    let shaped = b.first() == Some(&b'<')
        && b.ends_with(b"/>")
        && name_len >= 1
        && name_len + 3 <= b.len()
        && matches!(b[1 + name_len], b' ' | b'/');
    shaped.then(|| {
        Tag(TagRepr::Lazy(LazyTag {
            text,
            content: (1, b.len() - 2),
            name_len,
        }))
    })
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

/// The start tag whose name begins at `start`, byte-wise: where its `>` is, whether it is
/// empty (`/>`), and its name's length (to the first whitespace).
pub(super) fn start_tag_shape(
    b: &[u8],
    start: usize,
) -> std::result::Result<(usize, bool, usize), Stop> {
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
pub(super) fn list_children(
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
