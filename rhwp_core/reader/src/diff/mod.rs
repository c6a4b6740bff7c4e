//! What changed between two documents, whatever their formats: the model is the same for all,
//! so this names none.
//!
//! The top-level blocks of each (headings, paragraphs, tables, pictures, equations, shapes,
//! form controls; with `Scope::All` also the page headers, footers, notes and memos) are
//! aligned in order by a fingerprint of what they show (`align::anchored`: unique equal blocks
//! first, then the gaps between them), so two versions of one report align in close to linear
//! time. Equal blocks left out of that order are moves. Within each gap the blocks left over
//! are paired by kind and likeness (modified) or reported inserted or deleted. A modified
//! block's text is diffed by character (`text`), a table cell by cell (`table`), a picture by
//! its content, fields and form controls by name. Every change carries its address in both
//! documents: the block index as `iter_blocks` counts it, page, heading path, text offset.
//!
//! Empty paragraphs are left out: they only space the page, and the readers of different
//! formats do not agree on every one (a twin saved by 한글 in another format may hold one more).
//!
//! All the work is counted against a budget ([`Work`]); a pair that needs more is refused with
//! `too_large` and a suggestion, never a hang or an out-of-memory.

pub mod align;
pub mod table;
pub mod text;

use crate::error::{Error, ErrorCode, Result};
use crate::model::{Block, Document};
use crate::outline::outline_headings;
use crate::text::{block_text, push_blocks};
use serde::Serialize;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

pub use table::{CellAt, CellChange, Line, TableDiff};
pub use text::Span;

/// Work units (characters compared, cells visited, alignment steps) one comparison may spend.
/// Two versions of the largest corpus document (400 pages) spend about a hundredth of it.
pub const DEFAULT_WORK: u64 = 400_000_000;

/// Blocks (per document) beyond which a comparison is refused outright.
pub const MAX_BLOCKS: usize = 1_000_000;

/// The work budget of one comparison.
#[derive(Debug)]
pub struct Work {
    left: u64,
}

impl Work {
    pub fn new(units: u64) -> Self {
        Work { left: units }
    }

    /// Spend `units`; past the budget, `too_large`.
    pub fn spend(&mut self, units: u64) -> Result<()> {
        match self.left.checked_sub(units) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(too_large(
                "the two documents differ too much to compare within the work bound",
            )),
        }
    }
}

fn too_large(message: &str) -> Error {
    Error {
        code: ErrorCode::TooLarge,
        message: message.into(),
        suggestion: "Compare parts of the documents: pass pages (e.g. pages=\"1-20\") to compare \
                     those pages of each, a range at a time, or check that the two are versions of \
                     the same document."
            .into(),
    }
}

/// Which blocks are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The running body.
    Body,
    /// The body, then page headers/footers, foot/endnotes and memos.
    All,
}

/// One document to compare, with what identifies its pictures' content.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub doc: &'a Document,
    /// Each bin-data name's content digest (SHA-256 of the bytes), when the caller could read
    /// them; without it pictures are told apart by bin-data name and stored size.
    pub pictures: Option<&'a HashMap<String, [u8; 32]>>,
    /// Compare only these parts (a page range): top-level body blocks by their reading-order
    /// index and furniture items by theirs, each list ascending; `None` compares everything.
    /// Addresses stay the whole document's.
    pub only: Option<Selection<'a>>,
}

/// A part of a document: the top-level body blocks and furniture items kept, by index.
#[derive(Debug, Clone, Copy)]
pub struct Selection<'a> {
    pub body: &'a [usize],
    pub furniture: &'a [usize],
}

impl<'a> Side<'a> {
    /// The whole document, pictures by name and size.
    pub fn new(doc: &'a Document) -> Self {
        Side {
            doc,
            pictures: None,
            only: None,
        }
    }

    fn keeps(&self, furniture: bool, index: usize) -> bool {
        self.only.is_none_or(|s| {
            let kept = if furniture { s.furniture } else { s.body };
            kept.binary_search(&index).is_ok()
        })
    }
}

/// Where a block is in one document.
#[derive(Debug, Clone, Serialize)]
pub struct Address {
    /// `body` (then `block` is the index `iter_blocks` gives it: top-level body blocks in
    /// reading order over all sections) or `furniture` (a header, footer, note or memo: `block`
    /// is the offset of its first block in `iter_blocks(scope="furniture")`).
    pub scope: &'static str,
    pub block: usize,
    /// `paragraph`, `table`, `picture`, ...; for furniture `header`, `footer`, `footnote`, ...
    pub kind: String,
    pub section: u32,
    /// 1-based page as last laid out by the authoring program, when known.
    pub page: Option<u32>,
    /// The headings the block is under, outermost first (a heading's own path ends with it).
    pub heading_path: Vec<String>,
    /// Character offset of the first change in the block's text, for a modified text.
    pub text_offset: Option<usize>,
}

/// A block's address and its text (as `extract_text` shows it).
#[derive(Debug, Clone, Serialize)]
pub struct Place {
    pub address: Address,
    pub text: String,
}

/// A field or form control whose value changed, by name.
#[derive(Debug, Clone, Serialize)]
pub struct FieldChange {
    pub name: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// What changed inside a modified block.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Diff {
    /// The character diff of the block's text (paragraphs, equations, captions, controls).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<Span>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<TableDiff>,
    /// A picture's content (or, without its bytes, its stored name and size) changed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub picture_replaced: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// One change: `modified`, `inserted`, `deleted` or `moved`.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub kind: &'static str,
    pub old: Option<Place>,
    pub new: Option<Place>,
    pub diff: Option<Diff>,
}

/// Counts of changes under one heading path.
#[derive(Debug, Clone, Serialize)]
pub struct Where {
    pub heading_path: Vec<String>,
    pub modified: usize,
    pub inserted: usize,
    pub deleted: usize,
    pub moved: usize,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub unchanged: usize,
    pub modified: usize,
    pub inserted: usize,
    pub deleted: usize,
    pub moved: usize,
    /// Where the changes are: per heading path (the new document's, the old one's for a
    /// deletion), in document order.
    pub by_heading: Vec<Where>,
    /// `content` when both documents' picture bytes were compared; `name_and_size` otherwise.
    pub pictures_compared_by: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub summary: Summary,
    pub changes: Vec<Change>,
}

/// One comparable block of one document.
struct Unit<'d> {
    scope: &'static str,
    index: usize,
    kind: String,
    block: Option<&'d Block>,
    /// Furniture's blocks (`block` is `None` then).
    blocks: &'d [Block],
    section: u32,
    page: Option<u32>,
    heading: usize,
    text: String,
    key: u64,
}

/// Headings in force: each distinct path once, units refer to it by index.
struct Paths(Vec<Vec<String>>);

/// Longest heading text kept in a path.
const HEADING_CHARS: usize = 80;

fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() <= HEADING_CHARS {
        line.to_string()
    } else {
        let mut s: String = line.chars().take(HEADING_CHARS).collect();
        s.push('…');
        s
    }
}

fn picture_key(p: &crate::model::Picture, side: &Side<'_>, h: &mut DefaultHasher) {
    let name = p.bin_data_name.as_deref().unwrap_or("");
    match side.pictures.map(|m| m.get(name)) {
        Some(Some(digest)) => digest.hash(h),
        // Digests taken, but this picture has no bytes in the document (a linked picture): the
        // path it names is what it is, in any format.
        Some(None) => ("linked", name).hash(h),
        None => {
            let size = side
                .doc
                .bin_data
                .iter()
                .find(|b| b.name == name)
                .and_then(|b| b.size);
            (name, size).hash(h);
        }
    }
}

/// The fingerprint of what a block shows: kind and text, a table's grid, a picture's content.
fn block_key(block: &Block, text: &str, side: &Side<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    block.kind().hash(&mut h);
    text.hash(&mut h);
    match block {
        Block::Table(t) => {
            for c in &t.cells {
                (c.row, c.col, c.row_span, c.col_span).hash(&mut h);
            }
        }
        Block::Picture(p) => picture_key(p, side, &mut h),
        Block::FormControl(c) => (&c.name, c.checked, &c.value).hash(&mut h),
        _ => {}
    }
    h.finish()
}

fn units<'d>(side: &Side<'d>, scope: Scope, work: &mut Work) -> Result<(Vec<Unit<'d>>, Paths)> {
    let doc = side.doc;
    let body: Vec<&Block> = doc.sections.iter().flat_map(|s| s.blocks.iter()).collect();
    if body.len() > MAX_BLOCKS {
        return Err(too_large(
            "a document holds more blocks than a comparison takes",
        ));
    }
    // The heading path in force at each top-level block.
    let mut paths = vec![Vec::new()];
    let mut path_at = vec![0usize; body.len()];
    let mut stack: Vec<(u8, String)> = Vec::new();
    let mut headings = outline_headings(doc).into_iter().peekable();
    let mut current = 0usize;
    for (i, block) in body.iter().enumerate() {
        let mut changed = false;
        while let Some(h) = headings.next_if(|h| h.block == i) {
            let text = match &h.nested {
                Some(line) => short(line),
                None => short(&block_text(block)),
            };
            while stack.last().is_some_and(|(level, _)| *level >= h.level) {
                stack.pop();
            }
            stack.push((h.level, text));
            changed = true;
        }
        if changed {
            paths.push(stack.iter().map(|(_, t)| t.clone()).collect());
            current = paths.len() - 1;
        }
        path_at[i] = current;
    }
    let mut out = Vec::with_capacity(body.len());
    for (i, block) in body.iter().enumerate() {
        if !side.keeps(false, i) {
            continue;
        }
        let text = block_text(block);
        work.spend(text.len() as u64 / 16 + 1)?;
        if matches!(block, Block::Paragraph(_)) && text.trim().is_empty() {
            continue;
        }
        let p = block.provenance();
        out.push(Unit {
            scope: "body",
            index: i,
            kind: block.kind().to_string(),
            block: Some(block),
            blocks: &[],
            section: p.section,
            page: p.page,
            heading: path_at[i],
            key: block_key(block, &text, side),
            text,
        });
    }
    if scope == Scope::All {
        // A furniture item's address is where its first block is among the furniture's
        // top-level blocks, as iter_blocks(scope="furniture") counts them.
        let mut first_block = 0usize;
        for (i, f) in doc.furniture.iter().enumerate() {
            let at = first_block;
            first_block += f.blocks.len();
            if !side.keeps(true, i) {
                continue;
            }
            let mut text = String::new();
            push_blocks(&f.blocks, &mut text);
            if text.trim().is_empty() {
                continue;
            }
            let mut h = DefaultHasher::new();
            (&f.kind, &text).hash(&mut h);
            out.push(Unit {
                scope: "furniture",
                index: at,
                kind: f.kind.clone(),
                block: None,
                blocks: &f.blocks,
                section: f.provenance.section,
                page: f.provenance.page,
                heading: 0,
                key: h.finish(),
                text,
            });
        }
    }
    Ok((out, Paths(paths)))
}

/// Character bigrams of a text (its first few thousand, spaces left out), with its start and
/// end marked so a one- or two-syllable text has bigrams too (`나` and `나!` share `^나`),
/// sorted: what likeness is measured on.
fn bigrams(text: &str) -> Vec<u32> {
    let chars: Vec<u32> = std::iter::once(0)
        .chain(
            text.chars()
                .filter(|c| !c.is_whitespace())
                .take(4000)
                .map(u32::from),
        )
        .chain(std::iter::once(0))
        .collect();
    let mut grams: Vec<u32> = chars
        .windows(2)
        .map(|w| w[0].wrapping_mul(0x9E37_79B1) ^ w[1])
        .collect();
    grams.sort_unstable();
    grams
}

/// Dice coefficient of two sorted bigram lists, 0..=1.
fn likeness(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

/// Blocks this alike (or pictures, controls of one name, tables of one shape) are one block
/// modified; less alike, one deleted and another inserted.
const ALIKE: f64 = 0.4;

/// Gaps up to this many old × new blocks are paired by the best total likeness; larger ones
/// in order, greedily.
const PAIRING_CELLS: usize = 40_000;

struct Pairing<'u, 'd> {
    old: &'u [Unit<'d>],
    new: &'u [Unit<'d>],
    grams_old: HashMap<usize, Vec<u32>>,
    grams_new: HashMap<usize, Vec<u32>>,
}

impl Pairing<'_, '_> {
    /// How alike old unit `i` and new unit `j` are, `None` when they cannot be one block.
    fn score(&mut self, i: usize, j: usize, work: &mut Work) -> Result<Option<f64>> {
        let (a, b) = (&self.old[i], &self.new[j]);
        if a.kind != b.kind || a.scope != b.scope {
            return Ok(None);
        }
        match (a.block, b.block) {
            (Some(Block::Picture(_)), Some(Block::Picture(_))) => return Ok(Some(ALIKE)),
            (Some(Block::FormControl(x)), Some(Block::FormControl(y))) if x.name == y.name => {
                return Ok(Some(1.0))
            }
            (Some(Block::Table(x)), Some(Block::Table(y)))
                if x.rows == y.rows && x.cols == y.cols =>
            {
                return Ok(Some(1.0))
            }
            _ => {}
        }
        work.spend((a.text.len() + b.text.len()) as u64 / 4 + 1)?;
        let (old, new) = (self.old, self.new);
        let ga = self
            .grams_old
            .entry(i)
            .or_insert_with(|| bigrams(&old[i].text));
        let gb = self
            .grams_new
            .entry(j)
            .or_insert_with(|| bigrams(&new[j].text));
        let s = likeness(ga, gb);
        Ok((s >= ALIKE).then_some(s))
    }

    /// Pairs (old, new) of units in the gap `olds` × `news` (indices into the unit lists).
    fn pair(
        &mut self,
        olds: &[usize],
        news: &[usize],
        work: &mut Work,
    ) -> Result<Vec<(usize, usize)>> {
        let (m, n) = (olds.len(), news.len());
        if m == 0 || n == 0 {
            return Ok(Vec::new());
        }
        let mut pairs = Vec::new();
        if m * n <= PAIRING_CELLS {
            // Best total likeness, in order: a weighted longest common subsequence.
            let mut best = vec![0f64; (m + 1) * (n + 1)];
            let mut took = vec![false; (m + 1) * (n + 1)];
            let at = |i: usize, j: usize| i * (n + 1) + j;
            for i in 1..=m {
                for j in 1..=n {
                    let mut v = best[at(i - 1, j)].max(best[at(i, j - 1)]);
                    if let Some(s) = self.score(olds[i - 1], news[j - 1], work)? {
                        let with = best[at(i - 1, j - 1)] + s;
                        if with > v {
                            v = with;
                            took[at(i, j)] = true;
                        }
                    }
                    best[at(i, j)] = v;
                }
            }
            let (mut i, mut j) = (m, n);
            while i > 0 && j > 0 {
                if took[at(i, j)] {
                    pairs.push((olds[i - 1], news[j - 1]));
                    i -= 1;
                    j -= 1;
                } else if best[at(i - 1, j)] >= best[at(i, j - 1)] {
                    i -= 1;
                } else {
                    j -= 1;
                }
            }
            pairs.reverse();
        } else {
            let (mut i, mut j) = (0, 0);
            while i < m && j < n {
                if self.score(olds[i], news[j], work)?.is_some() {
                    pairs.push((olds[i], news[j]));
                    i += 1;
                    j += 1;
                } else if m - i > n - j {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
        Ok(pairs)
    }
}

/// Named fields (click-here fields and the like) and form controls of some blocks, nested ones
/// included: name → value as shown (a field over several paragraphs joined by `\n`).
fn named_values(blocks: &[&Block], out: &mut Vec<(String, String)>) {
    let mut visit = |block: &Block| match block {
        Block::Paragraph(p) => {
            for f in &p.fields {
                let Some(name) = f.name.as_deref().filter(|n| !n.is_empty()) else {
                    continue;
                };
                match out.iter_mut().rev().find(|(n, _)| n == name) {
                    Some(last) if f.continued => {
                        last.1.push('\n');
                        last.1.push_str(&f.value);
                    }
                    _ => out.push((name.to_string(), f.value.clone())),
                }
            }
        }
        Block::FormControl(c) => {
            if let Some(name) = c.name.as_deref().filter(|n| !n.is_empty()) {
                out.push((name.to_string(), c.shown()));
            }
        }
        _ => {}
    };
    for b in blocks {
        crate::model::for_each_block(std::slice::from_ref(*b), &mut visit);
    }
}

fn unit_blocks<'d>(u: &Unit<'d>) -> Vec<&'d Block> {
    match u.block {
        Some(b) => vec![b],
        None => u.blocks.iter().collect(),
    }
}

fn field_changes(a: &Unit<'_>, b: &Unit<'_>) -> Vec<FieldChange> {
    let (mut va, mut vb) = (Vec::new(), Vec::new());
    named_values(&unit_blocks(a), &mut va);
    named_values(&unit_blocks(b), &mut vb);
    let mut out = Vec::new();
    for (name, value) in &va {
        match vb.iter().find(|(n, _)| n == name) {
            Some((_, v)) if v == value => {}
            Some((_, v)) => out.push(FieldChange {
                name: name.clone(),
                old: Some(value.clone()),
                new: Some(v.clone()),
            }),
            None => out.push(FieldChange {
                name: name.clone(),
                old: Some(value.clone()),
                new: None,
            }),
        }
    }
    for (name, value) in &vb {
        if !va.iter().any(|(n, _)| n == name) {
            out.push(FieldChange {
                name: name.clone(),
                old: None,
                new: Some(value.clone()),
            });
        }
    }
    out
}

fn place(u: &Unit<'_>, paths: &Paths, text_offset: Option<usize>) -> Place {
    Place {
        address: Address {
            scope: u.scope,
            block: u.index,
            kind: u.kind.clone(),
            section: u.section,
            page: u.page,
            heading_path: paths.0.get(u.heading).cloned().unwrap_or_default(),
            text_offset,
        },
        text: u.text.clone(),
    }
}

/// The diff of two paired blocks.
fn modified(a: &Unit<'_>, b: &Unit<'_>, work: &mut Work) -> Result<Diff> {
    let mut diff = Diff {
        fields: field_changes(a, b),
        ..Diff::default()
    };
    match (a.block, b.block) {
        (Some(Block::Table(x)), Some(Block::Table(y))) => {
            diff.table = Some(table::table_diff(x, y, work)?);
        }
        (Some(Block::Picture(_)), Some(Block::Picture(_))) => {
            diff.picture_replaced = true;
            if a.text != b.text {
                diff.spans = text::char_diff(&a.text, &b.text, work)?;
            }
        }
        _ => diff.spans = text::char_diff(&a.text, &b.text, work)?,
    }
    Ok(diff)
}

/// Compare `old` and `new`.
pub fn compare(old: &Side<'_>, new: &Side<'_>, scope: Scope, budget: u64) -> Result<Comparison> {
    // Pictures by content on both sides or on neither: a digest never equals a name.
    let both_content = old.pictures.is_some() && new.pictures.is_some();
    let old = &Side {
        pictures: old.pictures.filter(|_| both_content),
        ..*old
    };
    let new = &Side {
        pictures: new.pictures.filter(|_| both_content),
        ..*new
    };
    let mut work = Work::new(budget);
    let (ua, pa) = units(old, scope, &mut work)?;
    let (ub, pb) = units(new, scope, &mut work)?;
    // Body and furniture are aligned each among its own (a header never pairs with a body
    // paragraph): furniture units come after the body ones on both sides.
    let split = |u: &[Unit<'_>]| u.iter().position(|x| x.scope != "body").unwrap_or(u.len());
    let (sa, sb) = (split(&ua), split(&ub));
    let keys_a: Vec<u64> = ua.iter().map(|u| u.key).collect();
    let keys_b: Vec<u64> = ub.iter().map(|u| u.key).collect();
    let mut equal = align::anchored(&keys_a[..sa], &keys_b[..sb], &mut work)?;
    equal.extend(
        align::anchored(&keys_a[sa..], &keys_b[sb..], &mut work)?
            .into_iter()
            .map(|(i, j)| (i + sa, j + sb)),
    );

    // Equal blocks outside the kept order: moves.
    let mut matched_a = vec![false; ua.len()];
    let mut matched_b = vec![false; ub.len()];
    for &(i, j) in &equal {
        matched_a[i] = true;
        matched_b[j] = true;
    }
    let mut left_a: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, u) in ua.iter().enumerate().rev() {
        if !matched_a[i] {
            left_a.entry(u.key).or_default().push(i);
        }
    }
    let mut moved: Vec<(usize, usize)> = Vec::new();
    for (j, u) in ub.iter().enumerate() {
        if matched_b[j] {
            continue;
        }
        if let Some(i) = left_a.get_mut(&u.key).and_then(Vec::pop) {
            moved.push((i, j));
        }
    }
    for &(i, j) in &moved {
        matched_a[i] = true;
        matched_b[j] = true;
    }

    // The gaps between equal blocks: pair what is left by kind and likeness.
    let mut pairing = Pairing {
        old: &ua,
        new: &ub,
        grams_old: HashMap::new(),
        grams_new: HashMap::new(),
    };
    let mut paired: Vec<(usize, usize)> = Vec::new();
    let (mut i0, mut j0) = (0usize, 0usize);
    let bounds = equal
        .iter()
        .copied()
        .chain(std::iter::once((ua.len(), ub.len())));
    for (ei, ej) in bounds {
        let olds: Vec<usize> = (i0..ei).filter(|&i| !matched_a[i]).collect();
        let news: Vec<usize> = (j0..ej).filter(|&j| !matched_b[j]).collect();
        paired.extend(pairing.pair(&olds, &news, &mut work)?);
        i0 = ei + 1;
        j0 = ej + 1;
    }
    for &(i, j) in &paired {
        matched_a[i] = true;
        matched_b[j] = true;
    }

    // The changes, in the new document's order; a deletion where the old block stood.
    let paired_at: HashMap<usize, usize> = paired.iter().map(|&(i, j)| (j, i)).collect();
    let moved_at: HashMap<usize, usize> = moved.iter().map(|&(i, j)| (j, i)).collect();
    let equal_at: HashMap<usize, usize> = equal.iter().map(|&(i, j)| (j, i)).collect();
    let mut changes = Vec::new();
    let mut next_old = 0usize;
    let flush_deleted = |upto: usize, changes: &mut Vec<Change>, next_old: &mut usize| {
        while *next_old < upto {
            if !matched_a[*next_old] {
                changes.push(Change {
                    kind: "deleted",
                    old: Some(place(&ua[*next_old], &pa, None)),
                    new: None,
                    diff: None,
                });
            }
            *next_old += 1;
        }
    };
    for (j, u) in ub.iter().enumerate() {
        if let Some(&i) = equal_at.get(&j) {
            flush_deleted(i + 1, &mut changes, &mut next_old);
        } else if let Some(&i) = paired_at.get(&j) {
            flush_deleted(i, &mut changes, &mut next_old);
            let diff = modified(&ua[i], u, &mut work)?;
            let offsets = text::first_change(&diff.spans);
            changes.push(Change {
                kind: "modified",
                old: Some(place(&ua[i], &pa, offsets.map(|o| o.0))),
                new: Some(place(u, &pb, offsets.map(|o| o.1))),
                diff: Some(diff),
            });
            next_old = next_old.max(i + 1);
        } else if let Some(&i) = moved_at.get(&j) {
            changes.push(Change {
                kind: "moved",
                old: Some(place(&ua[i], &pa, None)),
                new: Some(place(u, &pb, None)),
                diff: None,
            });
        } else {
            changes.push(Change {
                kind: "inserted",
                old: None,
                new: Some(place(u, &pb, None)),
                diff: None,
            });
        }
    }
    flush_deleted(ua.len(), &mut changes, &mut next_old);

    Ok(Comparison {
        summary: summarize(&changes, equal.len(), both_content),
        changes,
    })
}

fn summarize(changes: &[Change], unchanged: usize, content: bool) -> Summary {
    let mut s = Summary {
        unchanged,
        pictures_compared_by: if content { "content" } else { "name_and_size" },
        ..Summary::default()
    };
    let mut index: HashMap<Vec<String>, usize> = HashMap::new();
    for c in changes {
        let counter = |w: &mut Where| match c.kind {
            "modified" => w.modified += 1,
            "inserted" => w.inserted += 1,
            "deleted" => w.deleted += 1,
            _ => w.moved += 1,
        };
        match c.kind {
            "modified" => s.modified += 1,
            "inserted" => s.inserted += 1,
            "deleted" => s.deleted += 1,
            _ => s.moved += 1,
        }
        let path = c
            .new
            .as_ref()
            .or(c.old.as_ref())
            .map(|p| p.address.heading_path.clone())
            .unwrap_or_default();
        let k = *index.entry(path.clone()).or_insert_with(|| {
            s.by_heading.push(Where {
                heading_path: path,
                modified: 0,
                inserted: 0,
                deleted: 0,
                moved: 0,
            });
            s.by_heading.len() - 1
        });
        counter(&mut s.by_heading[k]);
    }
    s
}

#[cfg(test)]
mod tests;
