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
//!
//! Where things are (this file is the public API: `walk`, `Step`, `Flow`,
//! `Skipped`, the repair of invalid UTF-8, entity references, errors, and what
//! the two engines share: `Stop`, `WalkLimits`, `Replay`):
//! - `fast`: the fast engine (`fast_walk`), its namespace bindings, text runs
//!   and end tags;
//! - `compat`: the compat engine (`compat_walk`, quick-xml's `NsReader`) that
//!   takes over when the fast engine is unsure, and `NsFilter`;
//! - `scan`: byte scans the fast engine is built on (words, SSE2 lanes and
//!   64-byte blocks; the only `unsafe` code, with its portable fallback): where
//!   a tag or a name ends, the first of some bytes, short-name comparison;
//! - `attrs`: start tags (`Tag`) and the attribute readers (`attr`, `attrs`,
//!   numbers and flags), splitting attributes as quick-xml would;
//! - `skip`: going over the content of an element the visitor skips, checked
//!   (`skip_content`) or not (`skip_unchecked`);
//! - `listing`: `Flow::SkipListing` (where the skipped children lie) and the
//!   reading of a listed child's tags afterwards (`start_tag`, `each_tag_within`);
//! - `tests`: the differential tests (fast engine against quick-xml) and the
//!   randomized tests of skipping; unit tests of scans and attributes sit with them.

mod attrs;
mod compat;
mod fast;
mod listing;
mod scan;
mod skip;
#[cfg(test)]
mod tests;

pub use attrs::{attr, attr_flag, attr_i64, attr_u32, attrs, attrs_u32, parse_u32, Tag};
pub use compat::NsFilter;
pub use listing::{each_tag_within, own_tag, start_tag};

use crate::{Error, Result};
use compat::compat_walk;
use fast::fast_walk;
use quick_xml::events::BytesRef;

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
pub(super) struct Replay {
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
pub(super) enum Stop {
    /// An error to report as it is (the visitor's, or a limit): the compat
    /// engine would stop at the same step with the same error.
    Fail(Error),
    /// Input the fast engine does not tokenize itself.
    Unsure,
}

pub(super) struct WalkLimits<'p> {
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
