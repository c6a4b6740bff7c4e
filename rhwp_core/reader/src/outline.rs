//! The document's outline: headings as a reader sees them, read from the model for the outline
//! and the views (one implementation: Python's `navigation.outline` asks for `heading_levels`
//! through the native layer). Not a view itself: the views depend on it, never the reverse.
//!
//! Korean official documents mark their structure by numbering more than by outline styles, so
//! the evidence, strongest first:
//!
//! 1. **Outline styles.** A document that marks three or more paragraphs as outline headings (개요
//!    1..7) has said what its headings are: those, and nothing else.
//! 2. **Its own table of contents**, the judge of what it lists. After a paragraph titled
//!    목차/차례/Contents (whatever rules or brackets decorate it), the lines that end in a page
//!    number (after a tab or a leader) are its entries, with the short lines between them that
//!    have none (group titles such as `Ⅰ. 개요` or `▷ RDBMS`) and the bracketed annexes closing
//!    it; pictures among them are skipped, the lists of tables and figures after it belong to it
//!    but are no entries; or the paragraphs of a table that follows the title. Each entry is
//!    looked for, in order, among the top-level paragraphs after the contents -- spaces, leading
//!    bullets (`□ ○`) and brackets ignored, with or without its number, or broken over two
//!    paragraphs -- and the copy in the contents is never a heading. An entry's level comes from
//!    the contents' own ladder (below; an entry with a page number and a group title without one
//!    are different rungs, an annex closes the chapters). When at least half the entries are
//!    found, they are headings at those levels, and the headings the contents does not list (a
//!    level deeper than it goes, a summary before it) come from the ladder and the heading styles
//!    (4), placed under the entries.
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
//! 4. **Heading styles.** A paragraph style the document uses like a heading -- named so (제목,
//!    장/절/편, Heading, Title, a numbering pattern such as `1.`, `가.`, `제O장`) and used at
//!    least twice, or the style a contents entry was found in -- when four in five of its
//!    paragraphs are one short line (no sentence, no note, no caption) and at most half of them
//!    follow one another (that is a list), and it is not the style of most of the text: its
//!    lines are headings, a numbered one on its number's rung, an unnumbered one on the rung of
//!    its style's first numbered line (a 참고문헌 in the chapters' style is a chapter) or its
//!    style's own.
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
    /// An annex title in brackets: `【별첨1】`, `<별첨 2>`, `[별지 제2호 서식]`, `〔별표 1〕`.
    Annex,
}

impl Family {
    fn is_chapter(self) -> bool {
        matches!(self, Family::Chapter(_) | Family::Banner | Family::Annex)
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

/// Brackets around an annex's name (`【별첨1】`), or around a title in a contents.
const BRACKETS: [char; 14] = [
    '<', '>', '[', ']', '【', '】', '〔', '〕', '〈', '〉', '《', '》', '「', '」',
];

/// An annex title: a bracket, then 별첨/별지/별표/부록/붙임/첨부 (with its number, `제2호
/// 서식` and the like inside the brackets).
fn is_annex_title(text: &str) -> bool {
    let Some(rest) = text.strip_prefix(['【', '<', '[', '〔', '〈']) else {
        return false;
    };
    let rest = lstrip(rest);
    ["별첨", "별지", "별표", "부록", "붙임", "첨부"]
        .iter()
        .any(|w| rest.starts_with(w))
        && rest.contains(['】', '>', ']', '〕', '〉'])
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

const CONTENTS_TITLES: [&str; 5] = ["목차", "차례", "제목차례", "contents", "tableofcontents"];

/// A contents title: 목차/차례/Contents, whatever rules or brackets decorate it (`[ 목 차 ]`,
/// `════■ 제목차례 ■════`): its letters alone are the title.
fn is_contents_title(text: &str) -> bool {
    // A rule of box-drawing characters either side can be long; the words cannot.
    if len(text) > 2 * MAX_HEADING_CHARS {
        return false;
    }
    // Compared letter by letter, no copy: every paragraph before the title is asked.
    let letters = text
        .chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase);
    CONTENTS_TITLES
        .iter()
        .any(|t| letters.clone().eq(t.chars()))
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
    let rungs: Vec<(Rung, Option<u8>)> =
        families.iter().map(|&f| (Rung::Family(f), None)).collect();
    anchored_ladder(&rungs)
}

/// What places a heading on the ladder: its numbering family, or -- a heading without a number
/// -- its paragraph style.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rung {
    Family(Family),
    Style(String),
    /// A contents entry without a page number (a group title), by its family.
    Unpaged(Family),
}

impl Rung {
    fn is_chapter(&self) -> bool {
        matches!(self, Rung::Family(f) | Rung::Unpaged(f) if f.is_chapter())
    }
}

/// Levels from the ladder, some levels given (`Some`: an anchor, a contents entry at the
/// contents' level): a rung not seen above is one level deeper than the last, a rung met again
/// closes the levels below it, an anchor closes every level at or below its own.
fn anchored_ladder(rungs: &[(Rung, Option<u8>)]) -> Vec<u8> {
    let mut stack: Vec<(&Rung, u8)> = Vec::new();
    rungs
        .iter()
        .map(|(rung, anchor)| {
            if let Some(level) = *anchor {
                while stack.last().is_some_and(|&(_, l)| l >= level) {
                    stack.pop();
                }
                stack.push((rung, level));
                return level;
            }
            if let Some(at) = stack.iter().position(|&(r, _)| r == rung) {
                stack.truncate(at + 1);
                return stack[at].1;
            }
            if rung.is_chapter() {
                // A chapter number closes any non-chapter level opened before it.
                while stack.last().is_some_and(|(r, _)| !r.is_chapter()) {
                    stack.pop();
                }
            }
            // At the deepest level a new rung takes the place of the last one: the stack stays
            // as short as the levels, whatever the number of styles (each rung looked up in it).
            if stack.last().is_some_and(|&(_, l)| l >= MAX_LEVEL) {
                stack.pop();
            }
            let level = stack.last().map_or(1, |&(_, l)| (l + 1).min(MAX_LEVEL));
            stack.push((rung, level));
            level
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

/// One entry of a table of contents: its text without leader or page number, and whether it
/// had a page number (a group title above the numbered entries often has none: it sits a level
/// above them).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    text: String,
    paged: bool,
}

/// The entries a table of contents laid out as a table gives: its paragraphs' texts, page
/// numbers (cells of digits) and the title left out.
fn table_entries(block: &Block) -> Vec<Entry> {
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
            let paged = is_toc_line(text);
            let entry = if paged { toc_entry_text(text) } else { text };
            (!entry.is_empty() && len(entry) <= MAX_HEADING_CHARS && !lists_a_caption(entry)).then(
                || Entry {
                    text: entry.to_string(),
                    paged,
                },
            )
        })
        .collect()
}

/// Lines without a page number waiting between contents lines (a group title such as `Ⅰ. 개요`
/// or `▷ EXPORT` above its numbered entries); more than this in a row ends the contents.
const MAX_UNPAGED_RUN: usize = 3;

/// The contents: its title's and its end's top-level block index, and its entries in order.
/// After a 목차/차례/Contents title: a table (its paragraphs are the entries), or lines ending in
/// a page number -- with the short lines between them that have none (group titles), pictures
/// and drawings skipped, and the lists of tables and figures that follow kept inside it but not
/// as entries -- or, contents without page numbers, short lines up to the one where the first
/// of them comes again (the body's copy).
fn contents(blocks: &[&Block]) -> Option<(usize, usize, Vec<Entry>)> {
    let title = blocks.iter().position(|b| match b {
        Block::Paragraph(p) => is_contents_title(&p.text),
        Block::Table(t) => t.cells.first().is_some_and(|c| {
            c.blocks
                .iter()
                .any(|b| matches!(b, Block::Paragraph(p) if is_contents_title(&p.text)))
        }),
        _ => false,
    })?;
    if let Block::Table(_) = blocks[title] {
        let entries = table_entries(blocks[title]);
        return (entries.len() >= 2).then_some((title, title + 1, entries));
    }
    let mut entries: Vec<Entry> = Vec::new();
    // Short lines without a page number since the last contents line.
    let mut unpaged: Vec<String> = Vec::new();
    let mut end = title + 1;
    let mut scan = title + 1;
    let mut plain: Vec<String> = Vec::new();
    while scan < blocks.len() {
        match blocks[scan] {
            Block::Paragraph(p) => {
                let text = strip(&p.text);
                if text.is_empty() {
                } else if is_toc_line(text) {
                    if lists_a_caption(text) {
                        // A list of tables or figures: inside the contents, never an entry (nor
                        // is its own title, waiting in `unpaged`).
                        unpaged.clear();
                    } else {
                        // Only the lines just above: a cover's lines before the first entry
                        // are not group titles.
                        let from = unpaged.len().saturating_sub(MAX_UNPAGED_RUN);
                        entries.extend(
                            unpaged
                                .drain(..)
                                .skip(from)
                                .map(|text| Entry { text, paged: false }),
                        );
                        entries.push(Entry {
                            text: toc_entry_text(text).to_string(),
                            paged: true,
                        });
                    }
                    end = scan + 1;
                } else if len(text) <= MAX_HEADING_CHARS && !text.contains('\n') {
                    if entries.is_empty() {
                        // Contents without page numbers: until the first line comes again.
                        let sq = squashed(text);
                        if plain.first().is_some_and(|first| squashed(first) == sq) {
                            return (plain.len() >= 2).then_some((
                                title,
                                scan,
                                into_entries(plain),
                            ));
                        }
                        if plain.len() >= 200 {
                            return None;
                        }
                        plain.push(text.to_string());
                    }
                    if !entries.is_empty() && is_annex_title(text) && unpaged.is_empty() {
                        // The annexes closing a contents often have no page number.
                        entries.push(Entry {
                            text: text.to_string(),
                            paged: false,
                        });
                        end = scan + 1;
                    } else {
                        unpaged.push(text.to_string());
                    }
                    if !entries.is_empty() && unpaged.len() > MAX_UNPAGED_RUN {
                        break;
                    }
                } else {
                    break;
                }
            }
            Block::Table(_) if scan == title + 1 => {
                let entries = table_entries(blocks[scan]);
                return (entries.len() >= 2).then_some((title, scan + 1, entries));
            }
            // A picture or a drawing among the lines (a rule, a logo) does not end them.
            Block::Picture(_) | Block::Shape(_) => {}
            _ => break,
        }
        scan += 1;
    }
    (entries.len() >= 2).then_some((title, end, entries))
}

fn into_entries(lines: Vec<String>) -> Vec<Entry> {
    lines
        .into_iter()
        .map(|text| Entry { text, paged: false })
        .collect()
}

/// Each entry's level in the contents: the ladder over the entries' numbering families, an
/// entry with a page number and one without being different rungs (a group title above its
/// entries), shifted so that the shallowest of `found` is level 1.
fn contents_levels(entries: &[Entry], found: &[usize]) -> Vec<u8> {
    let rungs: Vec<(Rung, Option<u8>)> = entries
        .iter()
        .map(|e| {
            // An annex closes the chapters before it, as a chapter does (in the contents only:
            // in the body a bracketed `<별첨 1>` is as often a reference as a title).
            let family = if is_annex_title(&e.text) {
                Family::Annex
            } else {
                family_of(&e.text).unwrap_or(Family::Plain)
            };
            let rung = if e.paged {
                Rung::Family(family)
            } else {
                Rung::Unpaged(family)
            };
            (rung, None)
        })
        .collect();
    let levels = anchored_ladder(&rungs);
    let top = found.iter().map(|&e| levels[e]).min().unwrap_or(1);
    levels
        .into_iter()
        .map(|l| l.saturating_sub(top - 1).max(1))
        .collect()
}

/// Lines one document's contents may be compared with, over all its entries: far above what a
/// real contents costs (hundreds of entries, each found soon after the last), while a hostile
/// one (thousands of entries, none of them in a body of thousands of lines) would cost entries ×
/// lines -- 6,000 of each took 30 s. Entries left when it is spent are not found.
const MAX_CONTENTS_COMPARISONS: usize = 4_000_000;

/// Bullets a body may set before a title the contents lists without them (`□ 사업 개요`).
const BULLETS: [char; 20] = [
    '□', '■', '○', '●', '◦', '◎', '▣', '◇', '◆', '▶', '▷', '►', '※', '-', '·', 'ㆍ', '•', '*', '❍',
    '◯',
];

/// How an entry and a body line are compared: without spaces, lower-cased, without a leading
/// bullet.
fn match_key(text: &str) -> String {
    text.chars()
        .filter(|&c| !is_space(c))
        .skip_while(|c| BULLETS.contains(c))
        .filter(|c| !BRACKETS.contains(c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// A keyed line without the number a banner sets before its title (`1사업개요`, `01`, `ⅱ.`).
fn without_number(key: &str) -> &str {
    key.trim_start_matches(|c: char| {
        c.is_ascii_digit() || ('\u{2160}'..='\u{217F}').contains(&c) || matches!(c, '.' | ')' | '-')
    })
}

/// Find the contents' entries among the lines after it, in order: (block index, entry index).
/// A line matches an entry when it is the entry (or begins with it, for entries of four
/// characters or more), or is the entry without its number (a body that sets the number apart,
/// a `제Ⅰ장` in a banner or a picture over a `서론` line), or is the entry's beginning and the
/// next line its end (a title broken over two paragraphs).
fn match_contents(
    lines: &[Option<(usize, String)>],
    after: usize,
    entries: &[Entry],
) -> Vec<(usize, usize)> {
    // Each line after the contents keyed once, not once per entry looking at it.
    let keys: Vec<Option<String>> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            l.as_ref()
                .filter(|_| i >= after)
                .map(|(_, text)| match_key(text))
                .filter(|k| !k.is_empty())
        })
        .collect();
    let mut budget = MAX_CONTENTS_COMPARISONS;
    // Where entry `e` is first found at or after line `from`.
    let mut find = |e: usize, from: usize| -> Option<usize> {
        let entry = &entries[e];
        let want = match_key(&entry.text);
        if want.is_empty() {
            return None;
        }
        // A group title without a page number (`▷ RDBMS`) is short and plain: only the line
        // itself is it, never a line that begins with it.
        let prefix_ok = entry.paged && want.chars().count() >= 4;
        let bare = family_of(&entry.text)
            .and_then(|_| lstrip(&entry.text).split_once(is_space))
            .map(|(_, rest)| match_key(rest))
            .filter(|rest| rest.chars().count() >= 2);
        let is_entry = |have: &str| {
            have == want
                || (prefix_ok && have.starts_with(&want))
                || bare
                    .as_deref()
                    .is_some_and(|b| b == have || b == without_number(have))
        };
        for i in from..keys.len() {
            if budget == 0 {
                return None;
            }
            budget -= 1;
            let Some(have) = keys[i].as_deref() else {
                continue;
            };
            // At least four characters: a bare number (`제Ⅰ장` over `서론`) is not a title's
            // start.
            let broken = || {
                have.chars().count() >= 4
                    && want.starts_with(have)
                    && (i + 1..keys.len().min(i + 3))
                        .find_map(|j| keys[j].as_deref())
                        .is_some_and(|next| is_entry(&format!("{have}{next}")))
            };
            if is_entry(have) || broken() {
                return Some(i);
            }
        }
        None
    };
    let mut out = Vec::new();
    let mut from = after;
    // Entries are in order: each is looked for after the last one found. An entry whose line
    // comes after the next entry's is not that entry's heading (a short entry matching some
    // later line would otherwise take every entry after it along).
    let mut next_at = if entries.is_empty() {
        None
    } else {
        find(0, from)
    };
    for e in 0..entries.len() {
        let at = next_at;
        next_at = if e + 1 < entries.len() {
            find(e + 1, from)
        } else {
            None
        };
        let Some(i) = at else { continue };
        if next_at.is_some_and(|n| n < i) {
            continue;
        }
        out.push((i, e));
        from = i + 1;
        if next_at.is_some_and(|n| n <= i) {
            next_at = find(e + 1, from);
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
    /// The paragraph it is, when it is one (its style says what it is).
    paragraph: Option<&'a Paragraph>,
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
            paragraph: match b {
                Block::Paragraph(p) => Some(p),
                _ => None,
            },
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
                paragraph: match b {
                    Block::Paragraph(p) => Some(p),
                    _ => None,
                },
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
                paragraph: Some(p),
                banner: false,
                empty: text.is_empty(),
            });
        }
    }
    out
}

/// The ladder over `items` (outside the contents' `span` of top-level blocks): each item's level.
fn ladder_levels(items: &[Item<'_>], span: Option<(usize, usize)>) -> Vec<Option<u8>> {
    let kept = ladder_headings(items, span);
    let mut levels = vec![None; items.len()];
    let families: Vec<Family> = kept.iter().map(|&(_, f)| f).collect();
    for (&(k, _), level) in kept.iter().zip(ladder(&families)) {
        levels[k] = Some(level);
    }
    levels
}

/// The items the numbering ladder takes for headings (outside the contents' `span`), each with
/// its family, in order.
fn ladder_headings(items: &[Item<'_>], span: Option<(usize, usize)>) -> Vec<(usize, Family)> {
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
    kept
}

/// Names of styles a document gives its headings: 제목 (title), 장/절/편 (chapter, section,
/// part), Heading, Title, or a numbering pattern (`1.`, `가.`, `제O장`, `Ⅰ.`).
fn named_like_a_heading(style: &str) -> bool {
    let s = style.to_lowercase();
    if [
        "표", "그림", "목차", "차례", "머리", "꼬리", "쪽", "각주", "미주", "메모", "caption",
        "table", "figure", "header", "footer", "toc", "note",
    ]
    .iter()
    .any(|w| s.contains(w))
    {
        return false;
    }
    if ["제목", "heading", "title"].iter().any(|w| s.contains(w)) {
        return true;
    }
    let t = strip(&s);
    let short = t.chars().count() <= 4;
    (short && (t.ends_with('장') || t.ends_with('절') || t.ends_with('편')))
        || family_of(&format!("{t} 제목"))
            .is_some_and(|f| !matches!(f, Family::Circled | Family::Latin))
}

/// The top-level paragraphs set in a style the document uses for headings, outside the
/// contents' `span`: a style named like one (`named_like_a_heading`), or one a contents entry
/// was found in (`anchor_styles`), provided the document uses it like one -- for short
/// standalone lines (four in five of its paragraphs one short line that is no contents line and
/// no caption, at most half of them followed directly by another of the same style: that is a
/// list) -- and it is not the style of most of the text.
fn unmarked_headings<'a>(
    items: &[Item<'a>],
    span: Option<(usize, usize)>,
    anchor_styles: &[&str],
) -> Vec<bool> {
    let outside = |i: usize| !span.is_some_and(|(t, e)| t <= i && i < e);
    let style_of = |item: &Item<'a>| -> Option<&'a str> {
        match item.paragraph {
            Some(p) if !item.empty => p.style.as_deref(),
            _ => None,
        }
    };
    // A sentence (a full stop), a note (`※`, `*`) or a 개조식 bullet line (`■ 5월`: a list item
    // unless the contents lists it) is not a title, whatever its style.
    let fits = |item: &Item<'_>| {
        item.line.as_ref().is_some_and(|(_, t)| {
            !is_toc_line(t)
                && !lists_a_caption(t)
                && !is_contents_title(t)
                && !t.ends_with(['.', '。'])
                && !t.starts_with(['※', '*'])
                && !t.starts_with(BULLETS)
        })
    };
    // Per style: paragraphs, lines followed directly by the same style; then, for the styles
    // that may be heading styles only, the short standalone lines (the costlier test).
    let mut stats: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    let non_empty: Vec<usize> = (0..items.len()).filter(|&i| !items[i].empty).collect();
    for (n, &i) in non_empty.iter().enumerate() {
        let Some(style) = style_of(&items[i]) else {
            continue;
        };
        let entry = stats.entry(style).or_default();
        entry.0 += 1;
        if outside(i) {
            let next = non_empty.get(n + 1).and_then(|&j| style_of(&items[j]));
            entry.2 += usize::from(next == Some(style));
        }
    }
    let most_used = stats
        .iter()
        .max_by_key(|&(name, &(count, _, _))| (count, *name))
        .map(|(&name, _)| name);
    stats.retain(|&name, &mut (count, _, followed)| {
        Some(name) != most_used
            // A heading style used once is the document's title, not a section's.
            && ((named_like_a_heading(name) && count >= 2) || anchor_styles.contains(&name))
            && followed * 2 <= count
    });
    if stats.is_empty() {
        return vec![false; items.len()];
    }
    for (i, item) in items.iter().enumerate() {
        if let Some(entry) = style_of(item).and_then(|s| stats.get_mut(s)) {
            entry.1 += usize::from(outside(i) && fits(item));
        }
    }
    let heading_styles: Vec<&str> = stats
        .iter()
        .filter(|&(_, &(count, fitting, _))| fitting * 5 >= count * 4)
        .map(|(&name, _)| name)
        .collect();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            style_of(item).is_some_and(|s| heading_styles.contains(&s)) && outside(i) && fits(item)
        })
        .collect()
}

/// Whether a numbered line has words after its number (`제1장 총칙`, not `제1장`).
fn has_words_after_number(text: &str) -> bool {
    lstrip(text)
        .split_once(is_space)
        .is_some_and(|(_, rest)| rest.chars().any(char::is_alphabetic))
}

/// The headings of the top-level `items` with their levels: the `anchors` (contents entries at
/// the contents' levels), the numbering ladder's lines and the `extra` lines (heading styles),
/// all on one ladder (a number's family or, without a number, the style is the rung).
fn ladder_with_anchors(
    items: &[Item<'_>],
    span: Option<(usize, usize)>,
    anchors: &[Option<u8>],
    extra: &[bool],
) -> Vec<(usize, u8)> {
    let mut ladder_family: Vec<Option<Family>> = vec![None; items.len()];
    for (k, family) in ladder_headings(items, span) {
        ladder_family[k] = Some(family);
    }
    let judged = anchors.iter().any(Option::is_some);
    let mut style_rungs: HashMap<String, Rung> = HashMap::new();
    let mut at = Vec::new();
    let mut rungs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let anchor = anchors.get(i).copied().flatten();
        let family = ladder_family[i];
        if anchor.is_none() && family.is_none() && !extra.get(i).copied().unwrap_or(false) {
            continue;
        }
        let text = item.line.as_ref().map_or("", |(_, t)| t.as_str());
        // Where the contents judges, a number standing alone (`제Ⅰ장` over its `서론` line, the
        // entry found) is part of the heading below it, not one of its own.
        if judged && anchor.is_none() && family.is_some() && !has_words_after_number(text) {
            continue;
        }
        // A numbered line takes its number's rung; an unnumbered one in a heading style the
        // rung of the first numbered line of that style (the chapters' style gives their
        // unnumbered 참고문헌 the chapters' level), or the style's own.
        let style = item
            .paragraph
            .and_then(|p| p.style.clone())
            .unwrap_or_default();
        let rung = match family.or_else(|| family_of(text)) {
            _ if item.banner => Rung::Family(Family::Banner),
            Some(f) => {
                if extra.get(i).copied().unwrap_or(false) {
                    style_rungs.entry(style).or_insert(Rung::Family(f));
                }
                Rung::Family(f)
            }
            None => style_rungs
                .get(&style)
                .cloned()
                .unwrap_or(Rung::Style(style)),
        };
        at.push(item.block);
        rungs.push((rung, anchor));
    }
    at.into_iter().zip(anchored_ladder(&rungs)).collect()
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
    let span = toc.as_ref().map(|&(title, end, _)| (title, end));
    let styled_count = styled.iter().flatten().count();
    if let Some((_, end, entries)) = &toc {
        let matched = match_contents(&lines, *end, entries);
        if matched.len() * 2 >= entries.len() || styled_count >= MIN_STYLED {
            let found: Vec<usize> = matched.iter().map(|&(_, e)| e).collect();
            let entry_levels = contents_levels(entries, &found);
            let mut anchors: Vec<Option<u8>> = vec![None; blocks.len()];
            for &(i, e) in &matched {
                anchors[i] = Some(entry_levels[e]);
            }
            if styled_count >= MIN_STYLED {
                // The styles said what the headings are; the contents adds what they miss.
                let levels = styled.iter().zip(&anchors).map(|(s, a)| s.or(*a)).collect();
                return whole(levels);
            }
            // The contents is the judge of what it lists; the headings it does not list (a
            // level deeper than it goes, a summary before it) come from the numbering ladder
            // and the heading styles, placed under the entries.
            let anchor_styles: Vec<&str> = matched
                .iter()
                .filter_map(|&(i, _)| items[i].line.as_ref()?.0.style.as_deref())
                .collect();
            let extra = unmarked_headings(&items, span, &anchor_styles);
            let mut levels = styled;
            for (i, level) in ladder_with_anchors(&items, span, &anchors, &extra) {
                levels[i] = levels[i].or(Some(level));
            }
            return whole(levels);
        }
    }
    if styled_count >= MIN_STYLED {
        return whole(styled);
    }
    if let Some(found) = toc
        .as_ref()
        .and_then(|(_, end, entries)| contents_in_tables(&blocks, *end, entries))
    {
        return found;
    }

    // The numbering ladder and the heading styles (never over the contents' own lines).
    let extra = unmarked_headings(&items, span, &[]);
    let mut levels = styled.clone();
    for (i, level) in ladder_with_anchors(&items, span, &vec![None; blocks.len()], &extra) {
        levels[i] = levels[i].or(Some(level));
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

/// A document laid out in tables (a form whose sections are lines of its tables): its contents'
/// entries looked for among every paragraph after the contents, the tables' own included; the
/// headings when at least half are found.
fn contents_in_tables(blocks: &[&Block], end: usize, entries: &[Entry]) -> Option<Vec<HeadingAt>> {
    // Only where the top level cannot hold the entries: fewer lines of text after the contents
    // than entries, the rest in tables.
    let top_level_lines = blocks
        .iter()
        .skip(end)
        .filter(|b| matches!(b, Block::Paragraph(p) if !strip(&p.text).is_empty()))
        .count();
    if top_level_lines >= entries.len()
        || !blocks
            .iter()
            .skip(end)
            .any(|b| matches!(b, Block::Table(t) if t.cells.len() > 1))
    {
        return None;
    }
    let items = flattened_items(blocks);
    let after = items.iter().position(|item| item.block >= end)?;
    let lines: Vec<Option<(usize, String)>> = items
        .iter()
        .map(|item| item.line.as_ref().map(|(_, t)| (item.block, t.clone())))
        .collect();
    let matched = match_contents(&lines, after, entries);
    if matched.len() * 2 < entries.len() {
        return None;
    }
    let found: Vec<usize> = matched.iter().map(|&(_, e)| e).collect();
    let levels = contents_levels(entries, &found);
    Some(
        matched
            .into_iter()
            .map(|(k, e)| HeadingAt {
                block: items[k].block,
                level: levels[e],
                nested: (!items[k].whole)
                    .then(|| items[k].line.as_ref().map(|(_, t)| t.clone()))
                    .flatten(),
            })
            .collect(),
    )
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
    fn in_style(text: &str, style: &str) -> Block {
        match para(text) {
            Block::Paragraph(mut p) => {
                p.style = Some(style.to_string());
                Block::Paragraph(p)
            }
            _ => unreachable!(),
        }
    }

    fn picture() -> Block {
        Block::Picture(crate::model::Picture {
            bin_data_id: None,
            bin_data_name: None,
            width: 10,
            height: 10,
            description: None,
            caption: Vec::new(),
            provenance: Default::default(),
        })
    }

    #[test]
    fn a_decorated_contents_title_is_one() {
        assert!(is_contents_title("[ 목    차 ]"));
        assert!(is_contents_title("════════■ 제목차례 ■════════"));
        assert!(is_contents_title("Table of Contents"));
        assert!(!is_contents_title("표 목차"));
        assert!(!is_contents_title("목차를 보면 다음과 같다"));
    }

    #[test]
    fn group_titles_without_page_numbers_are_contents_lines_never_headings() {
        // A group title above its entries has no page number; a picture among the lines does
        // not end the contents; the copy in the contents is never a heading.
        let got = outline(vec![
            para("목      차"),
            para("Ⅰ. 사업개요"),
            para("    1. 추진목적\t 1"),
            picture(),
            para("    2. 추진방향\t 1"),
            para("Ⅱ. 제안 일반사항"),
            para("    1. 일반사항\t 3"),
            para("【별첨1】기술제안서 세부평가기준"),
            para("Ⅰ. 사업개요"),
            para("1. 추진목적"),
            para("본문입니다."),
            para("2. 추진방향"),
            para("본문입니다."),
            para("Ⅱ. 제안 일반사항"),
            para("1. 일반사항"),
            para("본문입니다."),
            para("<별첨 1> 기술제안서 세부평가기준"),
            para("본문입니다."),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("Ⅰ. 사업개요", 1),
                ("1. 추진목적", 2),
                ("2. 추진방향", 2),
                ("Ⅱ. 제안 일반사항", 1),
                ("1. 일반사항", 2),
                // The annex closing the contents, without a page number: a chapter's level.
                ("<별첨 1> 기술제안서 세부평가기준", 1),
            ])
        );
    }

    #[test]
    fn contents_entries_are_found_however_the_body_marks_them() {
        // Unnumbered entries found as a `□` bullet line, a title broken over two paragraphs,
        // and a group title (`▷ RDBMS`) that must not take a later line beginning with it.
        let got = outline(vec![
            para("차 례"),
            para("▷ RDBMS"),
            para("추진 배경 ········ 1"),
            para("IMPORT시 TABLE과 INDEX를 분리하여 저장하는 방법\t4"),
            para("향후 계획 ········ 9"),
            para("□ 추진 배경"),
            para("RDBMS는 관계형 데이터베이스입니다."),
            para("IMPORT시 TABLE과 INDEX를"),
            para("분리하여 저장하는 방법"),
            para("본문입니다."),
            para("향후 계획"),
            para("본문입니다."),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("□ 추진 배경", 1),
                ("IMPORT시 TABLE과 INDEX를", 1),
                ("향후 계획", 1),
            ])
        );
        // A numbered entry found as a banner's line `01 사업 개요` (its number set otherwise).
        let lines = vec![
            Some((0, "본문입니다.".to_string())),
            Some((1, "01 사업 개요".to_string())),
        ];
        let entry = Entry {
            text: "1. 사업 개요".to_string(),
            paged: true,
        };
        assert_eq!(match_contents(&lines, 0, &[entry]), vec![(1, 0)]);
    }

    #[test]
    fn headings_the_contents_does_not_list_go_under_its_entries() {
        // The contents lists chapters and sections; the body's `가.` subsections, its summary
        // before the first chapter (numbered) and a chapter number standing alone over its
        // title line are placed by the ladder under the entries.
        let got = outline(vec![
            para("목 차"),
            para("요약\t1"),
            para("제Ⅰ장 서론\t3"),
            para("제1절 자료\t4"),
            para("1. 광업 조사\t5"),
            para("요약"),
            para("1. 기업의 정의"),
            para("본문입니다."),
            para("2. 일반집중도"),
            para("본문입니다."),
            para("제Ⅰ장"),
            para("서론"),
            para("제1절 자료"),
            para("1. 광업 조사"),
            para("가. 표준산업분류"),
            para("본문입니다."),
            para("나. 재화특성별 분류표"),
            para("본문입니다."),
        ]);
        assert_eq!(
            got,
            pairs(&[
                ("요약", 1),
                ("1. 기업의 정의", 2),
                ("2. 일반집중도", 2),
                ("서론", 1),
                ("제1절 자료", 2),
                ("1. 광업 조사", 3),
                ("가. 표준산업분류", 4),
                ("나. 재화특성별 분류표", 4),
            ])
        );
    }

    #[test]
    fn a_form_laid_out_in_tables_finds_its_contents_in_them() {
        let row = |title: &str, body: &str| {
            let mut cells = vec![cell(0, title), cell(1, body)];
            cells[1].row = 1;
            cells[1].col = 0;
            Block::Table(Table {
                rows: 2,
                cols: 1,
                cells,
                caption: Vec::new(),
                provenance: Default::default(),
            })
        };
        let d = doc(vec![
            para("목 차"),
            para("연구의 필요성 ······ 1"),
            para("연구 내용 ······ 2"),
            para("기대 효과 ······ 3"),
            row("연구의 필요성", "필요성을 적습니다."),
            row("연구 내용", "내용을 적습니다."),
            row("기대 효과", "효과를 적습니다."),
        ]);
        let got: Vec<(usize, u8, Option<String>)> = outline_headings(&d)
            .into_iter()
            .map(|h| (h.block, h.level, h.nested))
            .collect();
        assert_eq!(
            got,
            vec![
                (4, 1, Some("연구의 필요성".to_string())),
                (5, 1, Some("연구 내용".to_string())),
                (6, 1, Some("기대 효과".to_string())),
            ]
        );
    }

    #[test]
    fn a_heading_style_gives_headings_without_numbers() {
        // Headwords in the style 제목, each over its explanation: headings. A style used once
        // (the document's title) and the text's own style are not.
        let got = outline(vec![
            in_style("관용구 사전", "문서 제목"),
            in_style("가는 날이 장날", "제목"),
            in_style("뜻하지 않은 일이 공교롭게 들어맞음을 이르는 말.", "본문"),
            in_style("예문이 이어집니다.", "본문"),
            in_style("간에 기별도 안 간다", "제목"),
            in_style(
                "먹은 것이 너무 적어 먹은 것 같지도 않음을 이르는 말.",
                "본문",
            ),
            in_style("예문이 이어집니다.", "본문"),
        ]);
        assert_eq!(
            got,
            pairs(&[("가는 날이 장날", 1), ("간에 기별도 안 간다", 1)])
        );
        // A style applied to consecutive lines is a list's, not a heading's.
        let got = outline(vec![
            in_style("첫째 줄", "소제목"),
            in_style("둘째 줄", "소제목"),
            in_style("셋째 줄", "소제목"),
            in_style("본문입니다.", "본문"),
        ]);
        assert_eq!(got, pairs(&[]));
    }

    #[test]
    fn a_style_a_contents_entry_was_found_in_marks_the_others() {
        // The contents lists two of the style's lines; the third, not listed, is a heading
        // of the same kind.
        let got = outline(vec![
            para("목차"),
            para("개관\t1"),
            para("세부 사항\t2"),
            in_style("개관", "큰글씨"),
            in_style("본문입니다.", "본문"),
            in_style("본문입니다.", "본문"),
            in_style("세부 사항", "큰글씨"),
            in_style("본문입니다.", "본문"),
            in_style("맺음말", "큰글씨"),
            in_style("본문입니다.", "본문"),
        ]);
        assert_eq!(got, pairs(&[("개관", 1), ("세부 사항", 1), ("맺음말", 1)]));
    }
}
