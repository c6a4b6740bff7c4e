//! Character classes and string operations as Python's `str` does them.
//!
//! The native views reproduce the Python views byte for byte, and those strip, split and test
//! characters with Python's definitions (`str.strip`/`split` use `str.isspace`, which counts
//! U+001C..U+001F as space where Rust does not; `isalnum` excludes combining marks that Rust's
//! `is_alphanumeric` includes). The classes come from `unicode_tables`, generated from Python.

use super::unicode_tables::{ALNUM, DECIMAL, PUNCT_SYMBOL, SPACE};

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let code = u32::from(c);
    table
        .binary_search_by(|&(a, b)| {
            if b < code {
                std::cmp::Ordering::Less
            } else if a > code {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `c.isspace()`.
pub fn is_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '\t'..='\r' | '\x1c'..='\x20');
    }
    in_ranges(SPACE, c)
}

/// `c.isalnum()`.
pub fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    in_ranges(ALNUM, c)
}

/// `unicodedata.category(c)[0] in "PS"`.
pub fn is_punct_or_symbol(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    in_ranges(PUNCT_SYMBOL, c)
}

/// The value of a decimal digit (`str.isdecimal`, regex `\d`), as `int()` reads it.
pub fn decimal_value(c: char) -> Option<u32> {
    if c.is_ascii() {
        return c.to_digit(10);
    }
    let code = u32::from(c);
    let index = DECIMAL.partition_point(|&(_, b, _)| b < code);
    let &(a, b, first) = DECIMAL.get(index)?;
    (a <= code && code <= b).then(|| (first + code - a) % 10)
}

pub fn is_decimal(c: char) -> bool {
    decimal_value(c).is_some()
}

/// Characters no view may emit (`_common._FORBIDDEN`): C0 controls but tab and newline, DEL,
/// C1 controls, surrogates (none in a Rust string) and noncharacters.
pub fn is_forbidden(c: char) -> bool {
    let code = u32::from(c);
    matches!(code, 0x00..=0x08 | 0x0B..=0x1F | 0x7F..=0x9F | 0xFDD0..=0xFDEF)
        || (code & 0xFFFE == 0xFFFE)
}

/// Whether `text` holds a forbidden character, judged on its UTF-8 bytes (several times cheaper
/// than decoding characters, and most text has none): a control byte, C2 80..9F (C1 controls),
/// EF B7 90..AF (U+FDD0..U+FDEF), EF BF BE/BF (U+FFFE/F), or a four-byte sequence ending BF BE/BF
/// (the other planes' last two code points).
fn holds_forbidden(text: &str) -> bool {
    let bytes = text.as_bytes();
    // First a branch-free pass over the lead bytes alone (it vectorizes): most text has none.
    let suspect = bytes.iter().fold(false, |acc, &b| {
        acc | ((b < 0x20) & (b != b'\t') & (b != b'\n')) | (b == 0x7F) | (b == 0xC2) | (b >= 0xEF)
    });
    if !suspect {
        return false;
    }
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b'\t' | b'\n' => false,
        0x00..=0x1F | 0x7F => true,
        0xC2 => (0x80..=0x9F).contains(&at(i + 1)),
        0xEF => {
            (at(i + 1) == 0xB7 && (0x90..=0xAF).contains(&at(i + 2)))
                || (at(i + 1) == 0xBF && at(i + 2) >= 0xBE)
        }
        0xF0..=0xF4 => at(i + 2) == 0xBF && at(i + 3) >= 0xBE && at(i + 1) & 0x0F == 0x0F,
        _ => false,
    })
}

/// `clean(text)`: the text without forbidden characters (borrowed when it has none).
pub fn clean(text: &str) -> std::borrow::Cow<'_, str> {
    if holds_forbidden(text) {
        std::borrow::Cow::Owned(text.chars().filter(|&c| !is_forbidden(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `text.strip()`.
pub fn strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

pub fn lstrip(text: &str) -> &str {
    text.trim_start_matches(is_space)
}

pub fn rstrip(text: &str) -> &str {
    text.trim_end_matches(is_space)
}

/// `text.split()`: the words between runs of space.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_space).filter(|w| !w.is_empty())
}

/// `" ".join(text.split())`.
pub fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in words(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `text[:1]` and `text[-1:]` as characters.
pub fn first(text: &str) -> Option<char> {
    text.chars().next()
}

pub fn last(text: &str) -> Option<char> {
    text.chars().next_back()
}

/// `len(text)`: Unicode scalar values.
pub fn len(text: &str) -> usize {
    text.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_python() {
        assert!(is_space('\x1c') && is_space('\u{3000}') && !is_space('\u{200b}'));
        assert!(is_alnum('가') && !is_alnum('\u{301}') && is_alnum('²'));
        assert!(is_punct_or_symbol('※') && is_punct_or_symbol('$') && !is_punct_or_symbol('가'));
        assert_eq!(decimal_value('٣'), Some(3));
        assert_eq!(decimal_value('²'), None);
        assert!(is_forbidden('\u{FFFF}') && is_forbidden('\u{10FFFE}') && !is_forbidden('\n'));
        assert_eq!(squeeze(" a \x1c b\n"), "a b");
        // The byte scan agrees with the character test around every boundary it looks at.
        for code in (0..0x300)
            .chain(0xFDC0..0x10000)
            .chain((1..=16).flat_map(|p| (p << 16) + 0xFFF0..(p << 16) + 0x1_0010))
        {
            if let Some(c) = char::from_u32(code) {
                assert_eq!(
                    holds_forbidden(&format!("a{c}b")),
                    is_forbidden(c),
                    "U+{code:04X}"
                );
            }
        }
    }
}
