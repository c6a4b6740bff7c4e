//! Paragraph numbering, shared by both readers: a level's template (`^1.^2)`)
//! expanded with the current counters, each level's number written in its style.
//!
//! HWP 5.0 stores the style as a code (spec table "문단 번호 형식"), HWPX as a name
//! (`numFormat`); both list the same styles in the same order.
//!
//! Counting (`Counters`), the same in both readers: each numbering definition (by id) keeps
//! one number per level for the whole document — paragraphs using it continue its count
//! across other paragraphs and sections; a different definition (what 한글 makes for "새 번호로
//! 시작") counts on its own. A paragraph at level L advances level L (its first use starts at
//! the level's start number), restarts every deeper level, and fixes every shallower level not
//! yet used at its start number: after `4.1.1.1`, a level-3 paragraph is `4.1.2`, as 한글 shows
//! it (hwpxlib's ParaHead sample, whose paragraphs are named after the numbers shown).
//! Outline paragraphs (개요) are numbered by the section's outline numbering (HWP 5.0: the
//! section definition's numbering id; HWPX: `secPr outlineShapeIDRef`), counted the same way.

/// How a number is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NumberStyle {
    #[default]
    Digit,
    CircledDigit,
    RomanCapital,
    RomanSmall,
    LatinCapital,
    LatinSmall,
    CircledLatinCapital,
    CircledLatinSmall,
    HangulSyllable,
    CircledHangulSyllable,
    HangulJamo,
    CircledHangulJamo,
    HangulDigit,
    Ideograph,
    CircledIdeograph,
}

const ORDER: [NumberStyle; 15] = [
    NumberStyle::Digit,
    NumberStyle::CircledDigit,
    NumberStyle::RomanCapital,
    NumberStyle::RomanSmall,
    NumberStyle::LatinCapital,
    NumberStyle::LatinSmall,
    NumberStyle::CircledLatinCapital,
    NumberStyle::CircledLatinSmall,
    NumberStyle::HangulSyllable,
    NumberStyle::CircledHangulSyllable,
    NumberStyle::HangulJamo,
    NumberStyle::CircledHangulJamo,
    NumberStyle::HangulDigit,
    NumberStyle::Ideograph,
    NumberStyle::CircledIdeograph,
];

const OWPML_NAMES: [&str; 15] = [
    "DIGIT",
    "CIRCLED_DIGIT",
    "ROMAN_CAPITAL",
    "ROMAN_SMALL",
    "LATIN_CAPITAL",
    "LATIN_SMALL",
    "CIRCLED_LATIN_CAPITAL",
    "CIRCLED_LATIN_SMALL",
    "HANGUL_SYLLABLE",
    "CIRCLED_HANGUL_SYLLABLE",
    "HANGUL_JAMO",
    "CIRCLED_HANGUL_JAMO",
    "HANGUL_PHONETIC",
    "IDEOGRAPH",
    "CIRCLED_IDEOGRAPH",
];

impl NumberStyle {
    /// From an HWP 5.0 number-shape code; unknown codes write digits.
    pub fn from_hwp5(code: u8) -> Self {
        ORDER.get(code as usize).copied().unwrap_or_default()
    }

    /// From an OWPML `numFormat` name; unknown names write digits.
    pub fn from_owpml(name: &str) -> Self {
        OWPML_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| ORDER[i])
            .unwrap_or_default()
    }
}

const HANGUL_SYLLABLES: [char; 14] = [
    '가', '나', '다', '라', '마', '바', '사', '아', '자', '차', '카', '타', '파', '하',
];
const HANGUL_JAMO: [char; 14] = [
    'ㄱ', 'ㄴ', 'ㄷ', 'ㄹ', 'ㅁ', 'ㅂ', 'ㅅ', 'ㅇ', 'ㅈ', 'ㅊ', 'ㅋ', 'ㅌ', 'ㅍ', 'ㅎ',
];
const HANGUL_DIGITS: [char; 10] = ['일', '이', '삼', '사', '오', '육', '칠', '팔', '구', '십'];
const IDEOGRAPHS: [char; 10] = ['一', '二', '三', '四', '五', '六', '七', '八', '九', '十'];

/// The `n`th (1-based) of a sequence of characters, or of a run of Unicode code points.
fn nth(set: &[char], n: u32) -> Option<char> {
    set.get((n as usize).checked_sub(1)?).copied()
}

fn nth_code_point(first: u32, count: u32, n: u32) -> Option<char> {
    (1..=count)
        .contains(&n)
        .then(|| char::from_u32(first + n - 1))
        .flatten()
}

fn roman(mut n: u32, out: &mut String, small: bool) {
    const TABLE: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    for (value, letters) in TABLE {
        while n >= value {
            if small {
                out.extend(letters.chars().map(|c| c.to_ascii_lowercase()));
            } else {
                out.push_str(letters);
            }
            n -= value;
        }
    }
}

/// One numbering definition's current numbers, level 0 first (0 = not used yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters(pub [u32; 10]);

impl Counters {
    /// Number a paragraph at `level` (0-based; deeper ones count as the deepest), `start(l)`
    /// being level l's start number; the numbers then shown at every level.
    pub fn advance(&mut self, level: usize, start: impl Fn(usize) -> u32) -> [u32; 10] {
        let level = level.min(self.0.len() - 1);
        for (l, c) in self.0.iter_mut().enumerate() {
            if l < level {
                if *c == 0 {
                    *c = start(l);
                }
            } else if l == level {
                *c = if *c == 0 {
                    start(l)
                } else {
                    c.saturating_add(1)
                };
            } else {
                *c = 0;
            }
        }
        let mut shown = self.0;
        for (l, c) in shown.iter_mut().enumerate() {
            if *c == 0 {
                *c = start(l);
            }
        }
        shown
    }
}

/// A bullet character as the reader shows it: a private-use character as 한글 draws it
/// (`common::private_use`: the symbol-font (Wingdings) code points 한글 documents store the
/// usual bullets as, Hancom's own symbols), when that is one character; other private-use or
/// control characters a plain bullet `•`; a soft hyphen, which 한글 draws as a dash and
/// Unicode text would hide, `-`.
pub fn bullet_char(c: char) -> char {
    use crate::common::private_use::{shown, Shown};
    if let Some(Shown::Symbol(s)) = shown(c) {
        let mut chars = s.chars();
        if let (Some(one), None) = (chars.next(), chars.next()) {
            return one;
        }
    }
    match c as u32 {
        0xAD => '-',
        0xE000..=0xF8FF | 0..=0x1F => '•',
        _ => c,
    }
}

/// Write `n` in `style`; outside what a style can show (e.g. the 15th Hangul syllable), digits.
pub fn write_number(out: &mut String, n: u32, style: NumberStyle) {
    use NumberStyle::*;
    let single = match style {
        Digit => None,
        CircledDigit => nth_code_point(0x2460, 20, n),
        LatinCapital => nth_code_point(u32::from(b'A'), 26, n),
        LatinSmall => nth_code_point(u32::from(b'a'), 26, n),
        CircledLatinCapital => nth_code_point(0x24B6, 26, n),
        CircledLatinSmall => nth_code_point(0x24D0, 26, n),
        HangulSyllable => nth(&HANGUL_SYLLABLES, n),
        CircledHangulSyllable => nth_code_point(0x326E, 14, n),
        HangulJamo => nth(&HANGUL_JAMO, n),
        CircledHangulJamo => nth_code_point(0x3260, 14, n),
        HangulDigit => nth(&HANGUL_DIGITS, n),
        Ideograph => nth(&IDEOGRAPHS, n),
        CircledIdeograph => nth_code_point(0x3280, 10, n),
        // Roman numerals in Latin letters (I, II, III; i, ii, iii), as the spec's table of styles
        // lists them and as 한글's own generated table of contents writes them (the 2007
        // constitution commentary's 목차 says `I.`, `II.` for its Roman-numbered outline).
        RomanCapital | RomanSmall => None,
    };
    let single = match (single, style) {
        (None, RomanCapital | RomanSmall) if (1..4000).contains(&n) => {
            roman(n, out, style == RomanSmall);
            return;
        }
        (single, _) => single,
    };
    match single {
        Some(c) => out.push(c),
        None => {
            use std::fmt::Write;
            let _ = write!(out, "{n}");
        }
    }
}

/// Expand a numbering template: `^N` stands for level N's number (1-based, as `number_at(N - 1)`
/// gives it with its style); everything else is kept as written.
pub fn expand_template(template: &str, number_at: impl Fn(usize) -> (u32, NumberStyle)) -> String {
    let mut out = String::with_capacity(template.len() + 4);
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '^' {
            if let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                chars.next();
                let (n, style) = number_at((d as usize).saturating_sub(1));
                write_number(&mut out, n, style);
                continue;
            }
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: u32, style: NumberStyle) -> String {
        let mut s = String::new();
        write_number(&mut s, n, style);
        s
    }

    #[test]
    fn styles() {
        use NumberStyle::*;
        assert_eq!(text(3, Digit), "3");
        assert_eq!(text(2, CircledDigit), "②");
        assert_eq!(text(4, RomanCapital), "IV");
        assert_eq!(text(9, RomanSmall), "ix");
        assert_eq!(text(12, RomanCapital), "XII");
        assert_eq!(text(14, RomanCapital), "XIV");
        assert_eq!(text(13, RomanSmall), "xiii");
        assert_eq!(text(2, LatinSmall), "b");
        assert_eq!(text(1, CircledLatinCapital), "Ⓐ");
        assert_eq!(text(2, HangulSyllable), "나");
        assert_eq!(text(1, CircledHangulSyllable), "㉮");
        assert_eq!(text(3, HangulJamo), "ㄷ");
        assert_eq!(text(1, CircledHangulJamo), "㉠");
        assert_eq!(text(6, HangulDigit), "육");
        assert_eq!(text(10, Ideograph), "十");
        assert_eq!(text(1, CircledIdeograph), "㊀");
        // Past what a style can show: digits, never a panic.
        assert_eq!(text(15, HangulSyllable), "15");
        assert_eq!(text(0, LatinCapital), "0");
        assert_eq!(text(u32::MAX, CircledDigit), u32::MAX.to_string());
    }

    #[test]
    fn both_formats_name_the_same_styles() {
        for (code, name) in OWPML_NAMES.iter().enumerate() {
            assert_eq!(
                NumberStyle::from_hwp5(code as u8),
                NumberStyle::from_owpml(name)
            );
        }
        assert_eq!(NumberStyle::from_hwp5(200), NumberStyle::Digit);
        assert_eq!(NumberStyle::from_owpml("SOMETHING_NEW"), NumberStyle::Digit);
    }

    #[test]
    fn templates() {
        let styles = [
            NumberStyle::Digit,
            NumberStyle::HangulSyllable,
            NumberStyle::RomanCapital,
        ];
        let counters = [3, 2, 4];
        let at = |l: usize| {
            (
                counters.get(l).copied().unwrap_or(1),
                styles.get(l).copied().unwrap_or_default(),
            )
        };
        assert_eq!(expand_template("^1.", at), "3.");
        assert_eq!(expand_template("^2)", at), "나)");
        assert_eq!(expand_template("(^3)", at), "(IV)");
        assert_eq!(expand_template("^1.^2", at), "3.나");
        assert_eq!(expand_template("^9^", at), "1^");
    }

    /// Korean documents' usual level templates, each with its style.
    #[test]
    fn usual_templates() {
        use NumberStyle::*;
        let one =
            |template: &str, n: u32, style: NumberStyle| expand_template(template, |_| (n, style));
        assert_eq!(one("^1.", 3, Digit), "3.");
        assert_eq!(one("^1.", 2, HangulSyllable), "나.");
        assert_eq!(one("^1)", 4, Digit), "4)");
        assert_eq!(one("^1)", 3, HangulSyllable), "다)");
        assert_eq!(one("(^1)", 1, Digit), "(1)");
        assert_eq!(one("(^1)", 2, HangulSyllable), "(나)");
        assert_eq!(one("^1", 3, CircledDigit), "③");
        assert_eq!(one("^1.", 2, RomanCapital), "II.");
        assert_eq!(one("제^1장", 3, Digit), "제3장");
        assert_eq!(one("제^1조", 12, Digit), "제12조");
    }

    fn counted(counters: &mut Counters, levels: &[usize]) -> Vec<Vec<u32>> {
        levels
            .iter()
            .map(|&l| counters.advance(l, |_| 1)[..=l].to_vec())
            .collect()
    }

    #[test]
    fn counting_continues_and_restarts_deeper_levels() {
        let mut c = Counters::default();
        assert_eq!(
            counted(&mut c, &[0, 0, 1, 1, 2, 0, 1]),
            [
                vec![1],
                vec![2],
                vec![2, 1],
                vec![2, 2],
                vec![2, 2, 1],
                vec![3],
                vec![3, 1],
            ]
        );
        // The same definition later in the document (other paragraphs between, another
        // section): the count goes on.
        assert_eq!(counted(&mut c, &[0, 1]), [vec![4], vec![4, 1]]);
        // A second definition counts on its own.
        let mut other = Counters::default();
        assert_eq!(counted(&mut other, &[0]), [vec![1]]);
    }

    #[test]
    fn a_skipped_level_is_fixed_at_its_start() {
        // hwpxlib's ParaHead sample: 4 / 4.1.1.1 / 4.1.1.2 / 4.1.2 / 4.1.2.1.
        let mut c = Counters::default();
        for _ in 0..4 {
            c.advance(0, |_| 1);
        }
        assert_eq!(
            counted(&mut c, &[3, 3, 2, 3]),
            [
                vec![4, 1, 1, 1],
                vec![4, 1, 1, 2],
                vec![4, 1, 2],
                vec![4, 1, 2, 1],
            ]
        );
    }

    #[test]
    fn start_numbers() {
        let mut c = Counters::default();
        let start = |l: usize| [5, 3][l.min(1)];
        assert_eq!(c.advance(1, start)[..2], [5, 3]);
        assert_eq!(c.advance(1, start)[..2], [5, 4]);
        assert_eq!(c.advance(0, start)[..2], [6, 3]);
        // Past the deepest level: counted as the deepest, never a panic.
        assert_eq!(c.advance(99, |_| 1)[9], 1);
    }

    #[test]
    fn bullets() {
        assert_eq!(bullet_char('\u{F06C}'), '●');
        assert_eq!(bullet_char('\u{F09F}'), '•');
        assert_eq!(bullet_char('\u{F0FC}'), '✓');
        // Hancom's symbol area: the white square of 개조식 bullets.
        assert_eq!(bullet_char('\u{F03C5}'), '□');
        assert_eq!(bullet_char('\u{F123}'), '•');
        assert_eq!(bullet_char('\u{1}'), '•');
        assert_eq!(bullet_char('\u{AD}'), '-');
        assert_eq!(bullet_char('❏'), '❏');
        assert_eq!(bullet_char('가'), '가');
    }
}
