//! Headings known by their chapter number only (`navigation.detected_heading_levels`): in a
//! document that marks no heading, a short top-level paragraph opening with `제1장`/`제2편`/
//! `제3부` (level 1), `제1절` (level 2) or a Roman numeral `Ⅰ.` (level 1) is a heading — but not
//! a table of contents' copy of it (a page number after a tab or leader at its end, or a line
//! between a 목차/차례 title and the first chapter line's second appearance).

use super::chars::{is_decimal, is_space, len, lstrip, rstrip, strip};
use crate::model::{Block, Document, Paragraph};
use std::collections::HashMap;

const MAX_HEADING_CHARS: usize = 80;

/// `_TOC_LINE.search`: a page number after a tab, `...`, `···`, `…` or `---`, at the end.
fn is_toc_line(text: &str) -> bool {
    let trimmed = rstrip(text);
    let rest = trimmed.trim_end_matches(is_decimal);
    if rest.len() == trimmed.len() {
        return false;
    }
    let before = rstrip(rest);
    // A tab anywhere in the space between leader and number is the leader itself.
    if rest[before.len()..].contains('\t') {
        return true;
    }
    before.ends_with("...")
        || before.ends_with("···")
        || before.ends_with('…')
        || before.ends_with("---")
}

/// `_CHAPTER.match`: `제 N 장` and its kin; the level it gives.
fn chapter_level(text: &str) -> Option<u8> {
    let rest = lstrip(text).strip_prefix('제')?;
    let rest = lstrip(rest);
    let after_digits = rest.trim_start_matches(is_decimal);
    if after_digits.len() == rest.len() {
        return None;
    }
    let mut chars = lstrip(after_digits).chars();
    let kind = chars.next()?;
    if !matches!(kind, '장' | '편' | '부' | '절') {
        return None;
    }
    let next = chars.next();
    // (?=\s|\.|$): `$` also before a final newline, which \s covers.
    if next.is_none() || next.is_some_and(|c| is_space(c) || c == '.') {
        return Some(if kind == '절' { 2 } else { 1 });
    }
    None
}

/// `_ROMAN.match`: Roman numerals `Ⅰ`..`Ⅻ`, then `.`/`)` or not, then space.
fn is_roman_heading(text: &str) -> bool {
    let rest = lstrip(text);
    let after = rest.trim_start_matches(|c| ('\u{2160}'..='\u{216B}').contains(&c));
    if after.len() == rest.len() {
        return false;
    }
    if after.starts_with(is_space) {
        return true;
    }
    let mut chars = lstrip(after).chars();
    matches!(chars.next(), Some('.' | ')')) && chars.next().is_some_and(is_space)
}

/// `heading_level(block, styled_headings=False)` for a paragraph without a heading level.
fn chapter_heading(text: &str) -> Option<u8> {
    if len(text) > MAX_HEADING_CHARS || strip(text).contains('\n') || is_toc_line(text) {
        return None;
    }
    if let Some(level) = chapter_level(text) {
        return Some(level);
    }
    is_roman_heading(text).then_some(1)
}

/// `_squashed`: without spaces, lower-cased.
fn squashed(text: &str) -> String {
    text.split(is_space).collect::<String>().to_lowercase()
}

const CONTENTS_TITLES: [&str; 4] = ["목차", "차례", "contents", "tableofcontents"];

/// `_squashed(text) in _CONTENTS_TITLES`, without squashing every paragraph of a long document.
fn is_contents_title(text: &str) -> bool {
    // The longest title has 15 characters; lower-casing never shortens a character.
    text.chars().filter(|&c| !is_space(c)).nth(15).is_none()
        && CONTENTS_TITLES.contains(&squashed(text).as_str())
}

/// Paragraph address -> level for the top-level paragraphs that are headings by their number.
pub fn detected_heading_levels(doc: &Document) -> HashMap<*const Paragraph, u8> {
    let blocks: Vec<&Block> = doc.sections.iter().flat_map(|s| s.blocks.iter()).collect();
    let styled = blocks
        .iter()
        .any(|b| matches!(b, Block::Paragraph(p) if p.heading_level.is_some_and(|l| l > 0)));
    if styled {
        return HashMap::new();
    }
    let mut found: Vec<(usize, u8)> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match b {
            Block::Paragraph(p) => chapter_heading(&p.text).map(|level| (i, level)),
            _ => None,
        })
        .collect();
    let text_of = |i: usize| match blocks[i] {
        Block::Paragraph(p) => squashed(&p.text),
        _ => String::new(),
    };
    let contents = blocks
        .iter()
        .position(|b| matches!(b, Block::Paragraph(p) if is_contents_title(&p.text)));
    if let Some(contents) = contents {
        let entries: Vec<usize> = found
            .iter()
            .map(|&(i, _)| i)
            .filter(|&i| i > contents)
            .collect();
        if let Some(&first_entry) = entries.first() {
            let first = text_of(first_entry);
            if let Some(again) = entries[1..].iter().copied().find(|&i| text_of(i) == first) {
                found.retain(|&(i, _)| !(contents < i && i < again));
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(i, level)| match blocks[i] {
            Block::Paragraph(p) => Some((p as *const Paragraph, level)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chapter_lines() {
        assert_eq!(chapter_heading("제1장 총칙"), Some(1));
        assert_eq!(chapter_heading(" 제 2 절. 목적"), Some(2));
        assert_eq!(chapter_heading("제1장에서"), None);
        assert_eq!(chapter_heading("제1장 총칙\t3"), None);
        assert_eq!(chapter_heading("제1장 총칙 ····· 12 "), None);
        assert_eq!(chapter_heading("Ⅱ. 현황"), Some(1));
        assert_eq!(chapter_heading("Ⅱ 현황"), Some(1));
        assert_eq!(chapter_heading("Ⅱ.현황"), None);
    }
}
