//! The document's outline: headings as a reader sees them, read from the model for the outline
//! and the views (one implementation: Python's `navigation.outline` asks for `heading_levels`
//! through the native layer). Not a view itself: the views depend on it, never the reverse.
//!
//! Korean official documents mark their structure by numbering more than by outline styles, so
//! the evidence, strongest first:
//!
//! 1. **Outline styles.** A document that marks three or more paragraphs as outline headings (개요
//!    1..7) has said what its headings are: those, and nothing else.
//! 2. **Its own table of contents.** After a paragraph titled 목차/차례/Contents, the lines that end
//!    in a page number (after a tab or a leader), or the paragraphs of a table that follows the
//!    title, are its entries. Each entry is looked for, in order, among the top-level paragraphs
//!    after the contents (the copy in the contents is never a heading); an entry's level comes
//!    from the numbering ladder of the entries (below). When at least half the entries are
//!    found, they are the outline.
//! 3. **The numbering ladder.** A short, single-line top-level paragraph (or the one line of a
//!    one-cell banner table) that opens with a number — `제1장`/`제2편`/`제3부`, `제1절`,
//!    `Ⅰ.`, `1.`, `1.1.`, `1.1.1`, `가.`, `1)`, `가)`, `(1)`, `(가)`, `①` — is a candidate; its
//!    number's *family* (the pattern, not the value; `1.` and `1.1.` are different families) gets
//!    its level from the ladder: walking the candidates in order, a family not seen above is one
//!    level deeper than the last, and a family met again closes the levels below it. A family is
//!    a heading family when its lines stand apart — most of them followed by something other
//!    than the next line of the same family (an enumeration of consecutive `1)`, `2)` lines is a
//!    list) — or are set in bold, or their style says 제목/개요/heading; chapter numbers always are.
//!    개조식 bullets (`□ ○ - ·`) are list items, never headings.
//!
//! A displayed paragraph number (numbering, `Paragraph::list`) counts as the start of the line.
//! Deterministic and linear in the number of top-level blocks.

use crate::common::chars::{is_decimal, is_space, len, lstrip, rstrip, strip};
use crate::model::{Block, Document, Paragraph};
use std::collections::HashMap;

/// Longer lines are prose, not headings.
const MAX_HEADING_CHARS: usize = 80;
/// A heading known by its number and its standing apart is at most this long.
const SHORT_HEADING_CHARS: usize = 40;
/// At least this many outline-styled paragraphs: the document marks its headings itself.
const MIN_STYLED: usize = 3;
/// Deepest level given.
const MAX_LEVEL: u8 = 6;

/// A numbering pattern at the start of a line: the value does not matter, the shape does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Family {
    /// `제N편`, `제N부`, `제N장` (by its kind), `제N절`, `제N관`, `제N조`.
    Chapter(char),
    /// `Ⅰ.` / `Ⅰ` / `I.`
    Roman,
    /// `1.`, `1.1.`, `1.1.1` ...: the depth (count of numbers).
    Decimal(u8),
    /// `1)`
    DecimalParen,
    /// `(1)`
    DecimalEnclosed,
    /// `가.`
    Hangul,
    /// `가)`
    HangulParen,
    /// `(가)`
    HangulEnclosed,
    /// `①`
    Circled,
    /// `A.`
    Latin,
    /// A banner: a one-row table of a number cell and a title cell (`1 | 사업 개요`).
    Banner,
    /// A contents entry without a number.
    Plain,
}

impl Family {
    fn is_chapter(self) -> bool {
        matches!(self, Family::Chapter(_) | Family::Banner)
    }
}

const HANGUL_ORDER: &str = "가나다라마바사아자차카타파하";

/// `text` after any spaces, and the numbering family it opens with (followed by a space, or by
/// the end for chapter numbers), if any.
fn family_of(text: &str) -> Option<Family> {
    let t = lstrip(text);
    let mut chars = t.chars().peekable();
    let first = *chars.peek()?;
    // 제 N 장 and its kin.
    if first == '제' {
        let rest = lstrip(&t['제'.len_utf8()..]);
        // 제1장, 제 12 조, and 제Ⅱ장 (a Roman numeral)
        let after = rest
            .trim_start_matches(|c: char| is_decimal(c) || ('\u{2160}'..='\u{216B}').contains(&c));
        if after.len() == rest.len() || rest.chars().count() - after.chars().count() > 3 {
            return None;
        }
        let after = lstrip(after);
        let kind = after.chars().next()?;
        if !matches!(kind, '편' | '부' | '장' | '절' | '관' | '조') {
            return None;
        }
        let next = after[kind.len_utf8()..].chars().next();
        return (next.is_none()
            || next.is_some_and(|c| is_space(c) || matches!(c, '.' | '(' | '〔' | '[')))
        .then_some(Family::Chapter(kind));
    }
    let spaced = |rest: &str| rest.is_empty() || rest.starts_with(is_space);
    // Chapter 1. / Part II
    for word in ["Chapter", "CHAPTER", "Part", "PART"] {
        if let Some(rest) = t.strip_prefix(word) {
            let rest = lstrip(rest);
            let after = rest
                .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, 'I' | 'V' | 'X'));
            if after.len() < rest.len() && (after.is_empty() || after.starts_with(['.', ':', ' ']))
            {
                return Some(Family::Chapter(if word.starts_with(['P', 'p']) {
                    '편'
                } else {
                    '장'
                }));
            }
        }
    }
    // Ⅰ-Ⅻ, then `.`/`)` or nothing, then a space.
    if ('\u{2160}'..='\u{216B}').contains(&first) {
        let rest = t.trim_start_matches(|c| ('\u{2160}'..='\u{216B}').contains(&c));
        let rest = rest.strip_prefix(['.', ')']).unwrap_or(rest);
        return (!rest.is_empty() && rest.starts_with(is_space)).then_some(Family::Roman);
    }
    if ('\u{2460}'..='\u{2473}').contains(&first) {
        // `① ② ③` is a row of answer choices, not a heading: words must follow.
        let rest = &t[first.len_utf8()..];
        let worded = rest.chars().any(char::is_alphabetic);
        return (spaced(rest) && worded).then_some(Family::Circled);
    }
    if first == '(' {
        let inner = &t[1..];
        let close = inner.find(')')?;
        let token = &inner[..close];
        let rest = &inner[close + 1..];
        if rest.is_empty() || !rest.starts_with(is_space) {
            return None;
        }
        if !token.is_empty() && token.len() <= 2 && token.chars().all(is_decimal) {
            return Some(Family::DecimalEnclosed);
        }
        let mut tc = token.chars();
        if let (Some(c), None) = (tc.next(), tc.next()) {
            if HANGUL_ORDER.contains(c) {
                return Some(Family::HangulEnclosed);
            }
        }
        return None;
    }
    if first.is_ascii_digit() {
        // 1. / 1.1. / 1.1.1 / 1)
        let mut depth = 0u8;
        let mut rest = t;
        loop {
            let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
            let digits = rest.len() - after.len();
            if digits == 0 || digits > 2 {
                return None;
            }
            depth += 1;
            if let Some(r) = after.strip_prefix(')') {
                return (depth == 1 && spaced(r) && !r.is_empty()).then_some(Family::DecimalParen);
            }
            match after.strip_prefix('.') {
                Some(r) if r.starts_with(|c: char| c.is_ascii_digit()) => rest = r,
                Some(r) => return (spaced(r) && !r.is_empty()).then_some(Family::Decimal(depth)),
                // `1.1 제목`: the last number without its dot.
                None => {
                    return (depth > 1 && after.starts_with(is_space))
                        .then_some(Family::Decimal(depth));
                }
            }
        }
    }
    if HANGUL_ORDER.contains(first) {
        let rest = &t[first.len_utf8()..];
        return match rest.chars().next() {
            Some('.') if spaced(&rest[1..]) && rest.len() > 1 => Some(Family::Hangul),
            Some(')') if spaced(&rest[1..]) && rest.len() > 1 => Some(Family::HangulParen),
            _ => None,
        };
    }
    if first.is_ascii_uppercase() {
        let rest = &t[1..];
        if let Some(r) = rest.strip_prefix('.') {
            if !r.is_empty() && r.starts_with(is_space) {
                return Some(if matches!(first, 'I' | 'V' | 'X') {
                    Family::Roman
                } else {
                    Family::Latin
                });
            }
        }
        // II. III. IV. ...
        let roman = t.trim_start_matches(['I', 'V', 'X']);
        if roman.len() < t.len() {
            if let Some(r) = roman.strip_prefix('.') {
                if !r.is_empty() && r.starts_with(is_space) {
                    return Some(Family::Roman);
                }
            }
        }
    }
    None
}

/// A page number after a tab, `...`, `···`, `…`, `---` or `·` leaders, at the end: a contents line.
fn is_toc_line(text: &str) -> bool {
    let trimmed = rstrip(text);
    let rest = trimmed.trim_end_matches(is_decimal);
    if rest.len() == trimmed.len() {
        return false;
    }
    let before = rstrip(rest);
    if rest[before.len()..].contains('\t') {
        return true;
    }
    before.ends_with("...")
        || before.ends_with("···")
        || before.ends_with('…')
        || before.ends_with("---")
        || before.ends_with("··")
        || before.ends_with("‥")
}

/// A contents line without its leader and page number.
fn toc_entry_text(text: &str) -> &str {
    let trimmed = rstrip(text);
    let rest = rstrip(trimmed.trim_end_matches(is_decimal));
    let rest = rest.trim_end_matches(['.', '·', '…', '-', '‥', '\t', ' ', '\u{3000}']);
    strip(rest)
}

/// A line of a list of tables or figures (`<표 Ⅱ-1> ...`, `[그림 3] ...`): it names a caption,
/// not a heading.
fn lists_a_caption(text: &str) -> bool {
    let t = lstrip(text).trim_start_matches(['<', '[', '〈', '《', '(', '【']);
    let t = lstrip(t);
    [
        "표", "그림", "사진", "도표", "수식", "Table", "Figure", "Fig.",
    ]
    .iter()
    .any(|w| {
        t.starts_with(w)
            && t[w.len()..].chars().next().is_some_and(|c| {
                is_space(c) || c.is_ascii_digit() || ('\u{2160}'..='\u{216B}').contains(&c)
            })
    })
}

/// Without spaces, lower-cased (how lines are compared).
fn squashed(text: &str) -> String {
    text.split(is_space).collect::<String>().to_lowercase()
}

const CONTENTS_TITLES: [&str; 4] = ["목차", "차례", "contents", "tableofcontents"];

fn is_contents_title(text: &str) -> bool {
    text.chars().filter(|&c| !is_space(c)).nth(15).is_none()
        && CONTENTS_TITLES.contains(&squashed(text).as_str())
}

/// The line a reader sees: the displayed number (numbering), then the paragraph's text.
fn shown(p: &Paragraph) -> String {
    match &p.list {
        Some(m) if m.kind == "number" && !m.marker.trim().is_empty() => {
            format!("{} {}", m.marker.trim(), p.text)
        }
        _ => p.text.clone(),
    }
}

fn all_bold(p: &Paragraph) -> bool {
    !p.runs.is_empty()
        && p.runs
            .iter()
            .filter(|r| !r.text.trim().is_empty() && !r.is_deleted())
            .all(|r| r.bold)
}

fn heading_style(p: &Paragraph) -> bool {
    p.style.as_deref().is_some_and(|s| {
        let s = s.to_lowercase();
        s.contains("제목") || s.contains("개요") || s.contains("heading") || s.contains("title")
    })
}

/// The one short line of a top-level block that can be a heading: a paragraph, the single
/// non-empty paragraph of a one-cell (banner) table, or a numbered banner (`line_of_banner`).
fn line_of(block: &Block) -> Option<(&Paragraph, String)> {
    if let Some(found) = line_of_banner(block) {
        return Some(found);
    }
    let p = match block {
        Block::Paragraph(p) => p,
        Block::Table(t) if t.cells.len() == 1 => {
            let mut paragraphs = t.cells[0].blocks.iter().filter_map(|b| match b {
                Block::Paragraph(p) if !strip(&p.text).is_empty() => Some(p),
                _ => None,
            });
            let p = paragraphs.next()?;
            if paragraphs.next().is_some()
                || t.cells[0]
                    .blocks
                    .iter()
                    .any(|b| !matches!(b, Block::Paragraph(_)))
            {
                return None;
            }
            p
        }
        _ => return None,
    };
    let text = shown(p);
    let text_trimmed = strip(&text);
    if text_trimmed.is_empty()
        || len(text_trimmed) > MAX_HEADING_CHARS
        || text_trimmed.contains('\n')
    {
        return None;
    }
    Some((p, text_trimmed.to_string()))
}

/// A one-row table whose first cell holds only a short number (`1`, `Ⅱ`, `01`) and whose second
/// holds one short line: the banner many Korean reports put over each chapter. Its line is the
/// title cell's paragraph, shown as `{number} {title}`.
/// The one non-empty paragraph of a cell, if it holds exactly one.
fn only_paragraph(blocks: &[Block]) -> Option<&Paragraph> {
    let mut found = blocks.iter().filter_map(|b| match b {
        Block::Paragraph(p) if !strip(&p.text).is_empty() => Some(p),
        _ => None,
    });
    let p = found.next()?;
    found.next().is_none().then_some(p)
}

fn line_of_banner(block: &Block) -> Option<(&Paragraph, String)> {
    let Block::Table(t) = block else { return None };
    if t.rows != 1 || t.cells.len() != 2 {
        return None;
    }
    let number = strip(&only_paragraph(&t.cells[0].blocks)?.text).to_string();
    let numeric = !number.is_empty()
        && number.chars().count() <= 3
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || ('\u{2160}'..='\u{216B}').contains(&c));
    if !numeric {
        return None;
    }
    let title = only_paragraph(&t.cells[1].blocks)?;
    let text = strip(&title.text);
    (len(text) <= MAX_HEADING_CHARS
        && !text.contains('\n')
        && text.chars().any(char::is_alphabetic))
    .then(|| (title, format!("{number} {text}")))
}

/// Levels from the ladder: each item's family, in order → each item's level.
fn ladder(families: &[Family]) -> Vec<u8> {
    let mut stack: Vec<Family> = Vec::new();
    families
        .iter()
        .map(|&f| {
            if let Some(at) = stack.iter().position(|&s| s == f) {
                stack.truncate(at + 1);
            } else if f.is_chapter() {
                // A chapter number closes any non-chapter level opened before it.
                while stack.last().is_some_and(|s| !s.is_chapter()) {
                    stack.pop();
                }
                stack.push(f);
            } else {
                stack.push(f);
            }
            stack.len().min(usize::from(MAX_LEVEL)) as u8
        })
        .collect()
}

/// The top-level body blocks, in reading order.
fn body(doc: &Document) -> Vec<&Block> {
    doc.sections.iter().flat_map(|s| s.blocks.iter()).collect()
}

/// Every paragraph of `blocks`, nested ones included, in reading order.
fn paragraphs<'a>(blocks: &'a [Block], out: &mut Vec<&'a Paragraph>) {
    for block in blocks {
        match block {
            Block::Paragraph(p) => out.push(p),
            Block::Table(t) => {
                paragraphs(&t.caption, out);
                for cell in &t.cells {
                    paragraphs(&cell.blocks, out);
                }
            }
            Block::Shape(s) => paragraphs(&s.blocks, out),
            _ => {}
        }
    }
}

/// The entries a table of contents laid out as a table gives: its paragraphs' texts, page
/// numbers (cells of digits) and the title left out.
fn table_entries(block: &Block) -> Vec<String> {
    let mut found = Vec::new();
    paragraphs(std::slice::from_ref(block), &mut found);
    found
        .into_iter()
        .filter_map(|p| {
            let text = strip(&p.text);
            if text.is_empty()
                || text.chars().all(|c| is_decimal(c) || is_space(c))
                || is_contents_title(text)
            {
                return None;
            }
            let entry = if is_toc_line(text) {
                toc_entry_text(text)
            } else {
                text
            };
            (!entry.is_empty() && len(entry) <= MAX_HEADING_CHARS && !lists_a_caption(entry))
                .then(|| entry.to_string())
        })
        .collect()
}

/// The contents: where it ends among the top-level blocks, and its entries' texts in order.
/// After a 목차/차례/Contents title: a table (its paragraphs are the entries), or lines ending in
/// a page number, or -- contents without page numbers -- short lines up to the one where the
/// first of them comes again (the body's copy).
fn contents(blocks: &[&Block]) -> Option<(usize, usize, Vec<String>)> {
    let title = blocks.iter().position(|b| match b {
        Block::Paragraph(p) => is_contents_title(&p.text),
        Block::Table(t) => t.cells.first().is_some_and(|c| {
            c.blocks
                .iter()
                .any(|b| matches!(b, Block::Paragraph(p) if is_contents_title(&p.text)))
        }),
        _ => false,
    })?;
    let mut entries = Vec::new();
    if let Block::Table(_) = blocks[title] {
        entries = table_entries(blocks[title]);
        return (entries.len() >= 2).then_some((title, title + 1, entries));
    }
    let mut end = title + 1;
    let mut plain: Vec<(usize, String)> = Vec::new();
    while end < blocks.len() {
        match blocks[end] {
            Block::Paragraph(p) => {
                let text = strip(&p.text);
                if text.is_empty() {
                } else if is_toc_line(text) {
                    if !lists_a_caption(text) {
                        entries.push(toc_entry_text(text).to_string());
                    }
                } else if entries.is_empty()
                    && len(text) <= MAX_HEADING_CHARS
                    && !text.contains('\n')
                {
                    // Contents without page numbers: until the first line comes again.
                    let sq = squashed(text);
                    if plain
                        .first()
                        .is_some_and(|(_, first)| squashed(first) == sq)
                    {
                        let lines = plain.into_iter().map(|(_, t)| t).collect::<Vec<_>>();
                        return (lines.len() >= 2).then_some((title, end, lines));
                    }
                    plain.push((end, text.to_string()));
                    if plain.len() > 200 {
                        return None;
                    }
                } else {
                    break;
                }
            }
            Block::Table(_) if end == title + 1 => {
                entries = table_entries(blocks[end]);
                end += 1;
                break;
            }
            _ => break,
        }
        end += 1;
    }
    if entries.is_empty() {
        return None;
    }
    (entries.len() >= 2).then_some((title, end, entries))
}

/// Lines one document's contents may be compared with, over all its entries: far above what a
/// real contents costs (hundreds of entries, each found soon after the last), while a hostile
/// one (thousands of entries, none of them in a body of thousands of lines) would cost entries ×
/// lines -- 6,000 of each took 30 s. Entries left when it is spent are not found.
const MAX_CONTENTS_COMPARISONS: usize = 4_000_000;

/// Find the contents' entries among the lines after it, in order: (block index, entry index).
fn match_contents(
    lines: &[Option<(usize, String)>],
    after: usize,
    entries: &[String],
) -> Vec<(usize, usize)> {
    // Each line after the contents squashed once, not once per entry looking at it.
    let squashed_lines: Vec<Option<String>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            l.as_ref()
                .filter(|_| i >= after)
                .map(|(_, text)| squashed(text))
        })
        .collect();
    let mut budget = MAX_CONTENTS_COMPARISONS;
    let mut out = Vec::new();
    let mut from = after;
    for (e, entry) in entries.iter().enumerate() {
        let want = squashed(entry);
        if want.is_empty() {
            continue;
        }
        let prefix_ok = want.chars().count() >= 4;
        // The entry's words without its number, for a body that sets the number apart (a
        // `제Ⅰ장` in a banner or a picture over a `서론` line).
        let bare = family_of(entry)
            .and_then(|_| lstrip(entry).split_once(is_space))
            .map(|(_, rest)| squashed(rest))
            .filter(|rest| rest.chars().count() >= 2);
        // Entries are in order: each is looked for after the last one found.
        let mut found = None;
        for (i, have) in squashed_lines.iter().enumerate().skip(from) {
            if budget == 0 {
                return out;
            }
            budget -= 1;
            if have.as_deref().is_some_and(|have| {
                have == want
                    || (prefix_ok && have.starts_with(&want))
                    || bare.as_deref() == Some(have)
            }) {
                found = Some(i);
                break;
            }
        }
        if let Some(i) = found {
            out.push((i, e));
            from = i + 1;
        }
    }
    out
}

/// One line of the reading order the ladder walks: a top-level block, or -- in a document laid
/// out inside tables -- one paragraph of a table.
struct Item<'a> {
    /// The top-level body block it is in.
    block: usize,
    /// Whether it stands for its whole top-level block (a paragraph, a banner table).
    whole: bool,
    /// Its line, when short enough to be a heading, and the paragraph it comes from.
    line: Option<(&'a Paragraph, String)>,
    banner: bool,
    /// A paragraph with nothing to show (skipped when looking for what follows a line).
    empty: bool,
}

fn is_empty_block(block: &Block) -> bool {
    matches!(block, Block::Paragraph(p) if strip(&p.text).is_empty() && p.list.is_none())
}

fn top_level_items<'a>(blocks: &[&'a Block]) -> Vec<Item<'a>> {
    blocks
        .iter()
        .enumerate()
        .map(|(i, b)| Item {
            block: i,
            whole: true,
            line: line_of(b),
            banner: line_of_banner(b).is_some(),
            empty: is_empty_block(b),
        })
        .collect()
}

/// The items of a document laid out in tables: each paragraph of a table (banners and one-cell
/// tables stay whole), every other block whole.
fn flattened_items<'a>(blocks: &[&'a Block]) -> Vec<Item<'a>> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let layout =
            matches!(b, Block::Table(t) if t.cells.len() > 1) && line_of_banner(b).is_none();
        if !layout {
            out.push(Item {
                block: i,
                whole: true,
                line: line_of(b),
                banner: line_of_banner(b).is_some(),
                empty: is_empty_block(b),
            });
            continue;
        }
        let mut found = Vec::new();
        paragraphs(std::slice::from_ref(*b), &mut found);
        for p in found {
            let text = shown(p);
            let text = strip(&text);
            let short = !text.is_empty() && len(text) <= MAX_HEADING_CHARS && !text.contains('\n');
            out.push(Item {
                block: i,
                whole: false,
                line: short.then(|| (p, text.to_string())),
                banner: false,
                empty: text.is_empty(),
            });
        }
    }
    out
}

/// The ladder over `items` (outside the contents' `span` of top-level blocks): each item's level.
fn ladder_levels(items: &[Item<'_>], span: Option<(usize, usize)>) -> Vec<Option<u8>> {
    let candidates: Vec<(usize, Family, bool)> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| !span.is_some_and(|(t, e)| t <= item.block && item.block < e))
        .filter_map(|(k, item)| {
            let (p, text) = item.line.as_ref()?;
            if is_toc_line(text) {
                return None;
            }
            let family = if item.banner {
                Family::Banner
            } else {
                family_of(text)?
            };
            Some((k, family, all_bold(p) || heading_style(p)))
        })
        .collect();
    // Which lines are headings: chapter numbers; lines set in bold or in a heading style; and a
    // short line that stands apart -- not followed directly by the next line of its own family
    // (consecutive `가.`, `나.` lines are an enumeration) and not a sentence (a heading does not
    // end in a full stop).
    let kept: Vec<(usize, Family)> = candidates
        .iter()
        .enumerate()
        .filter(|&(c, &(k, family, marked))| {
            if family.is_chapter() || marked {
                return true;
            }
            let next = (k + 1..items.len()).find(|&j| !items[j].empty);
            let followed_by_same = next.is_some_and(|j| {
                candidates
                    .get(c + 1)
                    .is_some_and(|&(n, f, _)| n == j && f == family)
            });
            let preceded_by_same = c > 0 && {
                let (n, f, _) = candidates[c - 1];
                f == family && (n + 1..k).all(|j| items[j].empty)
            };
            let text = items[k].line.as_ref().map_or("", |(_, t)| t.as_str());
            // A sentence or a question (an exam's numbered questions end in `?` or their score `[3점]`).
            let sentence = text.ends_with(['.', '다', '음', '함', '?'])
                || (text.ends_with(']')
                    && text.rsplit('[').next().is_some_and(|t| t.contains('점')));
            !followed_by_same && !preceded_by_same && !sentence && len(text) <= SHORT_HEADING_CHARS
        })
        .map(|(_, &(k, f, _))| (k, f))
        .collect();
    let mut levels = vec![None; items.len()];
    let families: Vec<Family> = kept.iter().map(|&(_, f)| f).collect();
    for (&(k, _), level) in kept.iter().zip(ladder(&families)) {
        levels[k] = Some(level);
    }
    levels
}

/// A heading of the outline: its top-level body block, its level, and -- for a heading inside a
/// table (a document laid out in tables) -- its line, found in the block's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadingAt {
    pub block: usize,
    pub level: u8,
    pub nested: Option<String>,
}

/// Each top-level body block's heading level (`None`: not a heading).
pub fn heading_levels(doc: &Document) -> Vec<Option<u8>> {
    let blocks = body(doc);
    let mut levels = vec![None; blocks.len()];
    for h in outline_headings(doc) {
        if h.nested.is_none() {
            levels[h.block] = Some(h.level);
        }
    }
    levels
}

/// The outline's headings in reading order (see the module doc for the rules).
pub fn outline_headings(doc: &Document) -> Vec<HeadingAt> {
    let blocks = body(doc);
    let whole = |levels: Vec<Option<u8>>| -> Vec<HeadingAt> {
        levels
            .into_iter()
            .enumerate()
            .filter_map(|(block, level)| {
                level.map(|level| HeadingAt {
                    block,
                    level,
                    nested: None,
                })
            })
            .collect()
    };
    let styled: Vec<Option<u8>> = blocks
        .iter()
        .map(|b| match b {
            Block::Paragraph(p) => p.heading_level.filter(|&l| l > 0).map(|l| l.min(MAX_LEVEL)),
            _ => None,
        })
        .collect();
    let items = top_level_items(&blocks);
    let lines: Vec<Option<(usize, String)>> = items
        .iter()
        .map(|item| {
            item.line
                .as_ref()
                .map(|(_, text)| (item.block, text.clone()))
        })
        .collect();

    // The contents, when the document has one and its entries are found after it. In a document
    // with outline styles, they add the entries the styles miss (a chapter line set without its
    // style); its styled headings stay as they are.
    let toc = contents(&blocks);
    let styled_count = styled.iter().flatten().count();
    if let Some((_, end, entries)) = &toc {
        let matched = match_contents(&lines, *end, entries);
        if matched.len() * 2 >= entries.len() || styled_count >= MIN_STYLED {
            let families: Vec<Family> = matched
                .iter()
                .map(|&(_, e)| family_of(&entries[e]).unwrap_or(Family::Plain))
                .collect();
            let mut levels = styled;
            for (&(i, _), level) in matched.iter().zip(ladder(&families)) {
                levels[i] = levels[i].or(Some(level));
            }
            return whole(levels);
        }
    }
    if styled_count >= MIN_STYLED {
        return whole(styled);
    }

    // The numbering ladder (never over the contents' own lines).
    let span = toc.as_ref().map(|&(title, end, _)| (title, end));
    let found = ladder_levels(&items, span);
    let mut levels = styled.clone();
    for (item, level) in items.iter().zip(&found) {
        levels[item.block] = levels[item.block].or(*level);
    }
    let headings = whole(levels);
    // A document laid out inside tables (its chapters are lines of big layout tables) shows few
    // headings at the top level: then the tables' own lines are walked too.
    let laid_out = blocks
        .iter()
        .any(|b| matches!(b, Block::Table(t) if t.cells.len() > 1));
    if headings.len() >= MIN_STYLED || !laid_out {
        return headings;
    }
    let items = flattened_items(&blocks);
    let found = ladder_levels(&items, span);
    let mut out = Vec::new();
    for (item, level) in items.iter().zip(found) {
        let level = styled[item.block].filter(|_| item.whole).or(level);
        if let Some(level) = level {
            let nested = (!item.whole)
                .then(|| item.line.as_ref().map(|(_, t)| t.clone()))
                .flatten();
            out.push(HeadingAt {
                block: item.block,
                level,
                nested,
            });
        }
    }
    out
}

/// Paragraph address -> level for the top-level paragraphs of `doc` the views render as
/// headings beyond their own `heading_level`; `levels` are `heading_levels` of the document (or,
/// for a page selection, of the whole document, kept for the selected blocks: the views of a
/// selection show the headings the outline has).
pub fn paragraph_levels(doc: &Document, levels: &[Option<u8>]) -> HashMap<*const Paragraph, u8> {
    let blocks = body(doc);
    levels
        .iter()
        .copied()
        .zip(blocks)
        .filter_map(|(level, block)| match (level, block) {
            (Some(level), Block::Paragraph(p)) if p.heading_level.filter(|&l| l > 0).is_none() => {
                Some((p as *const Paragraph, level))
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        assert_eq!(family_of("제1장 총칙"), Some(Family::Chapter('장')));
        assert_eq!(family_of(" 제 2 절. 목적"), Some(Family::Chapter('절')));
        assert_eq!(family_of("제3조(목적)"), Some(Family::Chapter('조')));
        assert_eq!(family_of("제1장에서"), None);
        assert_eq!(family_of("Ⅱ. 현황"), Some(Family::Roman));
        assert_eq!(family_of("Ⅱ 현황"), Some(Family::Roman));
        assert_eq!(family_of("Ⅱ.현황"), None);
        assert_eq!(family_of("1. 제안공모요강"), Some(Family::Decimal(1)));
        assert_eq!(family_of("1.1. 일반사항"), Some(Family::Decimal(2)));
        assert_eq!(family_of("1.1 일반사항"), Some(Family::Decimal(2)));
        assert_eq!(family_of("2.3.1 세부"), Some(Family::Decimal(3)));
        assert_eq!(family_of("1.5배 증가"), None);
        assert_eq!(family_of("2024. 3. 1."), None);
        assert_eq!(family_of("가. 개요"), Some(Family::Hangul));
        assert_eq!(family_of("가) 개요"), Some(Family::HangulParen));
        assert_eq!(family_of("(가) 개요"), Some(Family::HangulEnclosed));
        assert_eq!(family_of("1) 개요"), Some(Family::DecimalParen));
        assert_eq!(family_of("(1) 개요"), Some(Family::DecimalEnclosed));
        assert_eq!(family_of("① 개요"), Some(Family::Circled));
        assert_eq!(family_of("가나다"), None);
        assert_eq!(family_of("□ 추진배경"), None);
        assert_eq!(family_of("IV. 결론"), Some(Family::Roman));
        assert_eq!(family_of("A. 범위"), Some(Family::Latin));
    }

    #[test]
    fn ladder_levels_come_from_position() {
        use Family::*;
        let f = [
            Roman,
            Decimal(1),
            Hangul,
            Hangul,
            Decimal(1),
            Hangul,
            Roman,
            Decimal(1),
        ];
        assert_eq!(ladder(&f), vec![1, 2, 3, 3, 2, 3, 1, 2]);
        // The same families in another document's order give other levels.
        assert_eq!(
            ladder(&[Decimal(1), Decimal(2), Decimal(2), Decimal(1)]),
            vec![1, 2, 2, 1]
        );
        // A chapter closes the numbered levels opened before it.
        assert_eq!(
            ladder(&[Decimal(1), Chapter('장'), Decimal(1)]),
            vec![1, 1, 2]
        );
    }

    #[test]
    fn contents_lines() {
        assert!(is_toc_line("제1장 총칙\t3"));
        assert!(is_toc_line("1. 개요 ····· 12 "));
        assert!(!is_toc_line("1. 개요"));
        assert_eq!(toc_entry_text("1. 개요 ······· 12"), "1. 개요");
        assert_eq!(toc_entry_text("Ⅱ. 현황\t5"), "Ⅱ. 현황");
    }

    use crate::model::{Table, TableCell};

    use crate::model::testing::{doc, para};

    fn cell(col: u32, text: &str) -> TableCell {
        crate::model::testing::cell(0, col, text)
    }

    fn table(cells: Vec<TableCell>) -> Block {
        Block::Table(Table {
            rows: 1,
            cols: cells.len() as u32,
            cells,
            caption: Vec::new(),
            provenance: Default::default(),
        })
    }

    fn outline(blocks: Vec<Block>) -> Vec<(String, u8)> {
        let d = doc(blocks);
        let texts: Vec<String> = d.sections[0]
            .blocks
            .iter()
            .map(crate::text::block_text)
            .collect();
        heading_levels(&d)
            .into_iter()
            .zip(texts)
            .filter_map(|(l, t)| l.map(|l| (t, l)))
            .collect()
    }

    fn pairs(expected: &[(&str, u8)]) -> Vec<(String, u8)> {
        expected.iter().map(|&(t, l)| (t.to_string(), l)).collect()
    }

    #[test]
    fn a_numbering_ladder_gives_levels_by_position() {
        let got = outline(vec![
            para("1. 제안공모요강"),
            para("1.1. 일반사항"),
            para("가. 개요"),
            para("본 사업은 다음과 같이 공고합니다."),
            para("나. 일정"),
            para("일정은 별표와 같습니다."),
            para("1.2. 제출서류"),
            para("제출서류는 다음과 같습니다."),
            para("2. 제안요청내용"),
            para("내용은 다음과 같습니다."),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("1. 제안공모요강", 1),
                ("1.1. 일반사항", 2),
                ("가. 개요", 3),
                ("나. 일정", 3),
                ("1.2. 제출서류", 2),
                ("2. 제안요청내용", 1),
            ])
        );
    }

    #[test]
    fn an_enumeration_and_bullets_are_not_headings() {
        let got = outline(vec![
            para("Ⅰ. 추진 배경"),
            para("□ 현황 및 문제점"),
            para("1) 첫째 항목입니다"),
            para("2) 둘째 항목입니다"),
            para("3) 셋째 항목입니다"),
            para("가. 이 문장은 마침표로 끝나는 본문입니다."),
            para("Ⅱ. 추진 계획"),
            para("○ 세부 내용"),
        ]);
        assert_eq!(got, pairs(&[("Ⅰ. 추진 배경", 1), ("Ⅱ. 추진 계획", 1)]));
    }

    #[test]
    fn the_contents_gives_the_headings_and_is_never_one() {
        let got = outline(vec![
            para("목 차"),
            para("Ⅰ. 사업 개요 ········ 3"),
            para("1. 추진 배경 ········ 3"),
            para("Ⅱ. 제안 요청 ········ 5"),
            para("Ⅰ. 사업 개요"),
            para("본문."),
            para("1. 추진 배경"),
            para("본문."),
            para("Ⅱ. 제안 요청"),
            para("본문."),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("Ⅰ. 사업 개요", 1),
                ("1. 추진 배경", 2),
                ("Ⅱ. 제안 요청", 1)
            ])
        );
    }

    #[test]
    fn banners_and_chapters() {
        let got = outline(vec![
            table(vec![cell(0, "1"), cell(1, "사업 개요")]),
            para("가. 목적"),
            para("본문."),
            table(vec![cell(0, "2"), cell(1, "추진 계획")]),
            para("제3장 부칙"),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("1\n사업 개요", 1),
                ("가. 목적", 2),
                ("2\n추진 계획", 1),
                ("제3장 부칙", 2),
            ])
        );
    }

    #[test]
    fn outline_styles_win_when_the_document_uses_them() {
        let styled = |text: &str, level: u8| match para(text) {
            Block::Paragraph(mut p) => {
                p.heading_level = Some(level);
                Block::Paragraph(p)
            }
            _ => unreachable!(),
        };
        let got = outline(vec![
            styled("개요", 1),
            para("1. 번호 붙은 줄"),
            para("본문."),
            styled("현황", 1),
            styled("세부", 2),
        ]);
        assert_eq!(got, pairs(&[("개요", 1), ("현황", 1), ("세부", 2)]));
    }
}
