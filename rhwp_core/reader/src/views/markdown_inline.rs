//! Markdown escaping and inline formatting (`views/markdown.py`'s `_escape`,
//! `_escape_line_start`, `_can_delimit` and `_format`): text escaped so that it renders
//! literally, and formatting written as `**`/`*`/`~~` where CommonMark's flanking rules let the
//! delimiters open and close, else as HTML tags.

use super::common::{safe_url, Format};
use crate::common::chars::{self, clean, is_decimal, is_punct_or_symbol, is_space};

/// `_escape`: the text cleaned, with what could open Markdown syntax backslashed (`&` only
/// before an entity name). Every such character is ASCII, so the text is copied in stretches
/// between them rather than a character at a time.
fn escape_into(text: &str, out: &mut String) {
    let cleaned = clean(text);
    let bytes = cleaned.as_bytes();
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let special = match b {
            b'\\' | b'`' | b'*' | b'_' | b'[' | b']' | b'<' | b'|' | b'~' | b'$' => true,
            b'&' => entity_follows(&bytes[i + 1..]),
            _ => false,
        };
        if special {
            out.push_str(&cleaned[copied..i]);
            out.push('\\');
            copied = i;
        }
    }
    out.push_str(&cleaned[copied..]);
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    escape_into(text, &mut out);
    out
}

/// `#?[0-9A-Za-z]+;` at the start of `rest`.
fn entity_follows(rest: &[u8]) -> bool {
    let rest = rest.strip_prefix(b"#").unwrap_or(rest);
    let n = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    n > 0 && rest.get(n) == Some(&b';')
}

/// `_escape_line_start`: a backslash where a line would start a heading, quote, list item,
/// setext underline, ordered item or footnote definition.
pub fn escape_line_start(line: &str) -> String {
    let Some(first) = line.chars().next() else {
        return String::new();
    };
    if matches!(first, '#' | '>' | '+' | '=' | '-') {
        return format!("\\{line}");
    }
    let cut = if is_decimal(first) {
        let after = line.trim_start_matches(is_decimal);
        let digits = line.len() - after.len();
        let count = line[..digits].chars().count();
        ((1..=9).contains(&count) && after.starts_with(['.', ')'])).then_some(digits)
    } else if let Some(rest) = line.strip_prefix("[^") {
        rest.find(']')
            .filter(|&end| rest[end + 1..].starts_with(':'))
            .map(|end| 2 + end + 1)
    } else {
        None
    };
    match cut {
        Some(cut) => format!("{}\\{}", &line[..cut], &line[cut..]),
        None => line.to_owned(),
    }
}

pub fn md_formatted(format: &Format<'_>) -> bool {
    format.chars.bold
        || format.chars.italic
        || format.chars.strike
        || format.chars.superscript
        || format.chars.subscript
        || format.link.is_some()
}

pub fn delimited(format: &Format<'_>) -> bool {
    format.chars.bold || format.chars.italic || format.chars.strike
}

/// `_can_delimit`: whether `*`/`~~` around `core` open and close under CommonMark's flanking
/// rules (`None` is the start or end of the text).
fn can_delimit(core: &str, before: Option<char>, after: Option<char>) -> bool {
    if matches!(before, Some('*' | '~')) || matches!(after, Some('*' | '~')) {
        return false;
    }
    let (Some(first), Some(last)) = (chars::first(core), chars::last(core)) else {
        return false;
    };
    let loose = |c: Option<char>| c.is_none_or(|c| is_space(c) || is_punct_or_symbol(c));
    let opens = !is_space(first) && (!is_punct_or_symbol(first) || loose(before));
    let closes = !is_space(last) && (!is_punct_or_symbol(last) || loose(after));
    opens && closes
}

pub fn wrap(
    core: String,
    format: &Format<'_>,
    before: Option<char>,
    after: Option<char>,
) -> String {
    let mut core = core;
    if format.chars.subscript {
        core = format!("<sub>{core}</sub>");
    }
    if format.chars.superscript {
        core = format!("<sup>{core}</sup>");
    }
    for (on, delimiter, tag) in [
        (format.chars.strike, "~~", "s"),
        (format.chars.italic, "*", "em"),
        (format.chars.bold, "**", "strong"),
    ] {
        if on {
            core = if can_delimit(&core, before, after) {
                format!("{delimiter}{core}{delimiter}")
            } else {
                format!("<{tag}>{core}</{tag}>")
            };
        }
    }
    match safe_url(format.link) {
        Some(url) => format!("[{core}]({url})"),
        None => core,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape("a*b &amp; &x"), "a\\*b \\&amp; &x");
        assert_eq!(escape_line_start("1. a"), "1\\. a");
        assert_eq!(escape_line_start("[^1]: a"), "[^1]\\: a");
        assert_eq!(escape_line_start("- a"), "\\- a");
    }

    #[test]
    fn delimiters_follow_flanking() {
        let bold = Format {
            chars: crate::model::CharFormat {
                bold: true,
                ..Default::default()
            },
            ..Format::default()
        };
        assert_eq!(wrap("a".to_owned(), &bold, None, None), "**a**");
        assert_eq!(
            wrap("(주)".to_owned(), &bold, Some('가'), Some('나')),
            "<strong>(주)</strong>"
        );
    }
}
