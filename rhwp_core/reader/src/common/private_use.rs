//! Characters as displayed: Hancom's private-use code points → what 한글 draws for them.
//!
//! 한글 stores three kinds of private-use characters in a document's text:
//!
//! - **Hanyang PUA old Hangul** (U+E0BC..U+F8F7, U+F000..U+F0FF excluded): an old-Hangul
//!   syllable as one code point (U+F53A is the `ᄒᆞᆫ` of `ᄒᆞᆫ글`). Shown as its KS X 1026-1
//!   conjoining-jamo sequence, from `hanyang_pua.bin`, which `tools/gen_hwp3_charset.py` writes
//!   from libhwp's `hwp-charset.h` `hyc2uni_page14` (public domain; the full table: 5,660
//!   syllables, the other codes of the range are unassigned there).
//! - **Symbol fonts** (U+F020..U+F0FF): a character of a Windows symbol font (Wingdings), which
//!   Windows addresses at U+F000 + its byte; the Hanyang table leaves this range empty.
//! - **Hancom's symbol area** (the U+F0000 plane): symbols of the 한글 character set without
//!   their own Unicode code point in Hancom's mapping, kept as the code points Hancom's own
//!   converter writes (the HWP 3.x reader writes the same ones, from libhwp's `hnc2uni_page0`).
//!
//! `SYMBOLS` lists, per range, where each entry comes from. A code point with no known mapping
//! stays as stored; `summary()["private_use_left"]` counts those.
//!
//! The mapping is applied once, after a format's reader has built the document
//! (`show_private_use`), so every view, the outline, search, chunks and the markers
//! see the shown text; a paragraph whose text changed keeps the stored text beside it
//! (`Paragraph::stored_text`).

use super::packed_chars::{CharTable, Chars};
use crate::model::{Block, Document, Paragraph};
use std::sync::OnceLock;

static HANYANG_PACKED: &[u8] = include_bytes!("hanyang_pua.bin");
const HANYANG_FIRST: u32 = 0xE0BC;
const HANYANG_LAST: u32 = 0xF8F7;

fn hanyang() -> &'static CharTable {
    static TABLE: OnceLock<CharTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        CharTable::unpack(HANYANG_PACKED, (HANYANG_LAST - HANYANG_FIRST + 1) as usize)
    })
}

/// Whether `c` is a private-use code point (the BMP area or the planes 15 and 16).
#[inline]
pub fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

/// The byte index of the first character of `text` that may be private-use: the first UTF-8
/// lead byte of U+E000..U+FFFF (0xEE, 0xEF) or of the planes 1..16 (0xF0..0xF4), all of them
/// 0xEE or more (a continuation byte never is, so the index is a character boundary). Scanned in
/// blocks the compiler vectorises, so that the text of a document without such characters
/// (nearly every one) costs a fraction of an instruction per byte and no allocation.
#[inline]
fn first_candidate(text: &str) -> Option<usize> {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    let mut base = 0;
    for block in bytes.chunks(BLOCK) {
        if block.iter().fold(false, |seen, &b| seen | (b >= 0xEE)) {
            return block.iter().position(|&b| b >= 0xEE).map(|i| base + i);
        }
        base += block.len();
    }
    None
}

/// The byte index of the first character of `text` with a known mapping.
fn first_shown(text: &str) -> Option<usize> {
    let mut at = first_candidate(text)?;
    loop {
        let c = text[at..].chars().next()?;
        if shown(c).is_some() {
            return Some(at);
        }
        at += c.len_utf8();
        at += first_candidate(&text[at..])?;
    }
}

/// Hancom's symbol area and the Wingdings codes: code point → what 한글 draws, sorted by code
/// point. Where each entry comes from:
///
/// - `W`: U+F020..U+F0FF, the Wingdings font's glyphs by their glyph names (the Unicode
///   equivalents Alan Wood's Wingdings table gives for them). Checked against Hancom's own
///   PDFs (`shared/hancom`): U+F076 ❖ (mel-001 p. 4), U+F0FE ☑ (inner-table-01 p. 1).
/// - `PDF`: drawn so in the PDFs 한글 itself saved of documents holding the code point:
///   U+F0854/U+F0855 as white corner brackets 『 』 (2022 국립국어원 업무계획 p. 6; pr-1674
///   p. 22, a 2020 PDF); U+F02B1..U+F02B9 as the digits 1..9 in a square, written as the digit
///   and U+20DE COMBINING ENCLOSING SQUARE (업무계획 p. 19 and mel-001 p. 16 number their
///   sections with them in order); U+F012B as 인 in a circle (the seal mark 한글 forms put
///   before `(Signature)`: 복학원서 p. 1), written as 인 and U+20DD COMBINING ENCLOSING CIRCLE;
///   U+F081C as a thin horizontal rule, a line of 100 of them across the same form (`─`; the
///   code sits in HNC's box-drawing run beside U+F080F).
/// - `KS`: the HNC symbol row 0x3409.. follows KS X 1001 row 1 (‐ ― ∥ ＼ ～, then four codes
///   libhwp maps to U+F0850..U+F0853, then 〔 〕 〈 〉 《 》): those four are KS X 1001's
///   ‘ ’ “ ” at the same places (the corpus shows U+F0853 closing a quotation: `…교육한다.”고`).
/// - `ROW`: the HNC triangle rows run white, white small, white pointer; white, white small,
///   white pointer; black, black small, black pointer (`▷ ▹ · ▷ ▹ · ▶ ▸ ·`): the black
///   pointers U+F02F8 ◄ and U+F02FB ►.
/// - `READERS`: not in a Hancom PDF we hold; two other readers (kordoc, rhwp-studio) give the
///   same character and the corpus context agrees: U+F080F ━ (runs of it draw rules; U+F0807
///   joins them like ┬), U+F0827 ■, U+F03C5 □ (an RFP's `□` section bullets), U+F03A0 ↵
///   (`커서를 항목 앞에 놓고 ↵를 누르면`, and after DOS commands), U+F03EF..U+F03F4, six
///   consecutive HNC codes drawn as the logotype 한글과컴퓨터.
const SYMBOLS: &[(u32, &str)] = &[
    (0xF06C, "●"),           // W
    (0xF06D, "❍"),           // W
    (0xF06E, "■"),           // W
    (0xF06F, "□"),           // W
    (0xF071, "❑"),           // W
    (0xF072, "❒"),           // W
    (0xF073, "⬧"),           // W
    (0xF074, "⧫"),           // W
    (0xF075, "◆"),           // W
    (0xF076, "❖"),           // W, PDF
    (0xF077, "⬥"),           // W
    (0xF078, "⌧"),           // W
    (0xF07B, "❀"),           // W
    (0xF07C, "✿"),           // W
    (0xF07D, "❝"),           // W
    (0xF07E, "❞"),           // W
    (0xF080, "⓪"),           // W
    (0xF081, "①"),           // W (the 2007 constitution commentary: `§13①`)
    (0xF082, "②"),           // W
    (0xF083, "③"),           // W
    (0xF084, "④"),           // W
    (0xF085, "⑤"),           // W
    (0xF086, "⑥"),           // W
    (0xF087, "⑦"),           // W
    (0xF088, "⑧"),           // W
    (0xF089, "⑨"),           // W
    (0xF08A, "⑩"),           // W
    (0xF08B, "⓿"),           // W
    (0xF08C, "❶"),           // W
    (0xF08D, "❷"),           // W
    (0xF08E, "❸"),           // W
    (0xF08F, "❹"),           // W
    (0xF090, "❺"),           // W
    (0xF091, "❻"),           // W
    (0xF092, "❼"),           // W
    (0xF093, "❽"),           // W
    (0xF094, "❾"),           // W
    (0xF095, "❿"),           // W
    (0xF09E, "·"),           // W
    (0xF09F, "•"),           // W
    (0xF0A0, "▪"),           // W
    (0xF0A1, "○"),           // W
    (0xF0A2, "⭕"),          // W
    (0xF0A4, "◉"),           // W
    (0xF0A5, "◎"),           // W
    (0xF0A7, "▪"),           // W
    (0xF0A8, "◻"),           // W
    (0xF0AA, "✦"),           // W
    (0xF0AB, "★"),           // W
    (0xF0AC, "✶"),           // W
    (0xF0AD, "✴"),           // W
    (0xF0AE, "✹"),           // W
    (0xF0AF, "✵"),           // W
    (0xF0D8, "➢"),           // W
    (0xF0E8, "➔"),           // W
    (0xF0EF, "⇦"),           // W
    (0xF0F0, "⇨"),           // W
    (0xF0F1, "⇧"),           // W
    (0xF0F2, "⇩"),           // W
    (0xF0FB, "✗"),           // W
    (0xF0FC, "✓"),           // W
    (0xF0FD, "☒"),           // W
    (0xF0FE, "☑"),           // W, PDF
    (0xF012B, "인\u{20DD}"), // PDF
    (0xF02B1, "1\u{20DE}"),  // PDF
    (0xF02B2, "2\u{20DE}"),  // PDF
    (0xF02B3, "3\u{20DE}"),  // PDF
    (0xF02B4, "4\u{20DE}"),  // PDF
    (0xF02B5, "5\u{20DE}"),  // PDF
    (0xF02B6, "6\u{20DE}"),  // PDF
    (0xF02B7, "7\u{20DE}"),  // PDF
    (0xF02B8, "8\u{20DE}"),  // PDF
    (0xF02B9, "9\u{20DE}"),  // PDF
    (0xF02F8, "◄"),          // ROW
    (0xF02FB, "►"),          // ROW
    (0xF03A0, "↵"),          // READERS
    (0xF03C5, "□"),          // READERS
    (0xF03EF, "한"),         // READERS
    (0xF03F0, "글"),         // READERS
    (0xF03F1, "과"),         // READERS
    (0xF03F2, "컴"),         // READERS
    (0xF03F3, "퓨"),         // READERS
    (0xF03F4, "터"),         // READERS
    (0xF080F, "━"),          // READERS
    (0xF081C, "─"),          // PDF
    (0xF0827, "■"),          // READERS
    (0xF0850, "‘"),          // KS
    (0xF0851, "’"),          // KS
    (0xF0852, "“"),          // KS
    (0xF0853, "”"),          // KS
    (0xF0854, "『"),         // PDF
    (0xF0855, "』"),         // PDF
];

/// What 한글 draws for the private-use character `c`, when known (`None` for any other
/// character and for a private-use one without a known mapping).
#[inline]
pub fn shown(c: char) -> Option<Shown> {
    let code = c as u32;
    let slot = match code {
        0xF000..=0xF0FF => code - 0xF000,
        HANYANG_FIRST..=HANYANG_LAST => {
            let seq = hanyang().get((code - HANYANG_FIRST) as usize);
            return (!seq.is_empty()).then_some(Shown::Jamo(seq));
        }
        0xF0000..=0xF09FF => code - 0xF0000 + 0x100,
        _ => return None,
    };
    match SYMBOL_INDEX.get(slot as usize) {
        Some(&i) if i != NO_SYMBOL => Some(Shown::Symbol(SYMBOLS[usize::from(i)].1)),
        _ => None,
    }
}

/// `SYMBOLS` by code point, for a lookup without a search: slots 0..0x100 for U+F000..U+F0FF,
/// then U+F0000..U+F09FF; each the entry's index in `SYMBOLS`, `NO_SYMBOL` where none.
static SYMBOL_INDEX: [u8; 0xB00] = symbol_index();
const NO_SYMBOL: u8 = u8::MAX;

const fn symbol_index() -> [u8; 0xB00] {
    let mut index = [NO_SYMBOL; 0xB00];
    let mut i = 0;
    while i < SYMBOLS.len() {
        let code = SYMBOLS[i].0;
        let slot = if code >= 0xF0000 {
            code - 0xF0000 + 0x100
        } else {
            code - 0xF000
        };
        // Out of the index (a table entry this layout does not cover) fails the build.
        index[slot as usize] = i as u8;
        i += 1;
    }
    index
}

/// The characters shown for one private-use code point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Jamo(Chars<'static>),
    Symbol(&'static str),
}

impl Shown {
    #[inline]
    pub fn push_to(self, out: &mut String) {
        match self {
            Shown::Jamo(seq) => seq.push_to(out),
            // One or two characters: pushed as characters, not copied as a slice.
            Shown::Symbol(s) => s.chars().for_each(|c| out.push(c)),
        }
    }

    /// How many characters it is.
    #[inline]
    fn len(self) -> usize {
        match self {
            Shown::Jamo(Chars::One(c)) => usize::from(c.is_some()),
            Shown::Jamo(Chars::Many(s)) => s.len(),
            Shown::Symbol(s) => s.chars().count(),
        }
    }
}

/// `text` as 한글 shows it, when that differs from `text` (`None`: nothing to change).
pub fn shown_text(text: &str) -> Option<String> {
    shown_text_and_length(text).map(|(shown, _)| shown)
}

/// `shown_text`, and whether a character became several (old Hangul as jamo, a boxed digit):
/// only then do offsets into the text move (`shown_offsets`).
fn shown_text_and_length(text: &str) -> Option<(String, bool)> {
    let first = first_shown(text)?;
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    let mut moved = false;
    let mut rest = &text[first..];
    // Character by character only from one candidate to the next; the stretches between are
    // copied whole.
    while let Some(c) = rest.chars().next() {
        match shown(c) {
            Some(s) => {
                moved |= s.len() != 1;
                s.push_to(&mut out);
            }
            None => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
        // Candidates come in runs (a rule of ━ is a line of U+F080F): the next one is taken
        // at once, without a block scan.
        match rest.as_bytes().first() {
            None => break,
            Some(&b) if b >= 0xEE => continue,
            Some(_) => {}
        }
        match first_candidate(rest) {
            Some(at) => {
                out.push_str(&rest[..at]);
                rest = &rest[at..];
            }
            None => {
                out.push_str(rest);
                break;
            }
        }
    }
    Some((out, moved))
}

/// Where each character offset of `text` lands in its shown text: entry `i` is the shown
/// offset of stored character `i` (one more entry for the end). `None` when every mapped
/// character shows as one character, so offsets stay as they are.
pub fn shown_offsets(text: &str) -> Option<Vec<u32>> {
    let mut moved = false;
    let mut at = 0u32;
    let mut map = Vec::new();
    for c in text.chars() {
        map.push(at);
        let n = shown(c).map_or(1, Shown::len) as u32;
        moved |= n != 1;
        at += n;
    }
    map.push(at);
    moved.then_some(map)
}

/// How many private-use code points `text` holds.
pub fn count_private_use(text: &str) -> u64 {
    match first_candidate(text) {
        Some(at) => text[at..].chars().filter(|&c| is_private_use(c)).count() as u64,
        None => 0,
    }
}

/// Show Hancom's private-use characters as 한글 draws them in every paragraph of `doc` (body
/// and furniture, nested ones included): its text, runs, fields and list marker; a paragraph
/// whose text changes keeps its stored text in `stored_text`. `formats::read` calls it once,
/// after the format's reader: the one place the mapping applies, so every view, the outline,
/// search and chunks see the shown text.
pub fn show_private_use(doc: &mut Document) {
    doc.for_each_block_mut(&mut |block| {
        if let Block::Paragraph(p) = block {
            show_in_paragraph(p);
        }
    });
}

/// `show_private_use` for one paragraph.
fn show_in_paragraph(p: &mut Paragraph) {
    if let Some(list) = &mut p.list {
        if let Some(marker) = shown_text(&list.marker) {
            list.marker = marker;
        }
    }
    let Some((shown, moved)) = shown_text_and_length(&p.text) else {
        return;
    };
    // A character shown as several (old Hangul as jamo, a boxed digit) moves the offsets
    // after it; they count in the shown text.
    if let Some(map) = moved.then(|| shown_offsets(&p.text)).flatten() {
        let at = |o: u32| map.get(o as usize).copied().unwrap_or(o);
        for f in &mut p.fields {
            f.start = at(f.start);
            f.end = at(f.end);
        }
        for n in &mut p.note_refs {
            n.offset = at(n.offset);
        }
        let (start, end) = (p.provenance.char_start, p.provenance.char_end);
        p.provenance.char_start = at(start);
        p.provenance.char_end = at(end);
    }
    for r in &mut p.runs {
        if let Some(t) = shown_text(&r.text) {
            r.text = t;
        }
    }
    for f in &mut p.fields {
        if let Some(v) = shown_text(&f.value) {
            f.value = v;
        }
        if let Some(g) = f.guide.as_deref().and_then(shown_text) {
            f.guide = Some(g);
        }
    }
    p.stored_text = Some(std::mem::replace(&mut p.text, shown));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> String {
        shown_text(s).unwrap_or_else(|| s.to_string())
    }

    #[test]
    fn hanyang_old_hangul_becomes_jamo() {
        assert_eq!(show("\u{F53A}글"), "\u{1112}\u{119E}\u{11AB}글");
        assert_eq!(show("\u{F53A}글"), "ᄒᆞᆫ글");
        // The first code of the range: a vowel-led syllable (initial filler, ㅏ, ㄷ).
        assert_eq!(show("\u{E0BC}"), "\u{115F}\u{1161}\u{11AE}");
    }

    #[test]
    fn the_full_hanyang_table_is_there() {
        let t = hanyang();
        assert_eq!(t.codes(), 6204);
        assert_eq!(t.mapped(), 5660);
        // Its gap is the symbol-font range: no old Hangul in U+F000..U+F0FF.
        for code in 0xF000..=0xF0FF {
            assert!(
                t.get((code - HANYANG_FIRST) as usize).is_empty(),
                "{code:X}"
            );
        }
    }

    #[test]
    fn symbols_known_pairs() {
        assert_eq!(
            show("\u{F0854}광업 및 제조업조사\u{F0855}"),
            "『광업 및 제조업조사』"
        );
        assert_eq!(show("\u{F02B1} 공정거래위원회"), "1\u{20DE} 공정거래위원회");
        assert_eq!(show("\u{F080F}\u{F080F}"), "━━");
        assert_eq!(show("§13\u{F081}"), "§13①");
        assert_eq!(show("\u{F0FE}"), "☑");
        assert_eq!(show("\u{F012B} (Signature)"), "인\u{20DD} (Signature)");
        assert_eq!(show("\u{F081C}\u{F081C}"), "──");
        assert_eq!(show("교육한다.\u{F0853}고"), "교육한다.”고");
    }

    #[test]
    fn the_symbol_table_is_sorted_and_private() {
        assert!(SYMBOLS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(SYMBOLS.len() < usize::from(NO_SYMBOL));
        for &(code, s) in SYMBOLS {
            let c = char::from_u32(code).filter(|&c| is_private_use(c));
            let c = c.unwrap_or_else(|| panic!("{code:X} is not private-use"));
            assert_eq!(shown(c), Some(Shown::Symbol(s)), "{code:X}");
            assert!(!s.chars().any(is_private_use), "{code:X}");
        }
    }

    #[test]
    fn unknown_and_ordinary_text_stay() {
        assert_eq!(shown_text("보통 글 ＡＢ（）"), None);
        // U+F0810: no known mapping (a box-drawing joint); stays, and is counted.
        assert_eq!(shown_text("\u{F0810}"), None);
        assert_eq!(count_private_use("a\u{F0810}b\u{F53A}"), 2);
        assert_eq!(count_private_use("ＡＢ"), 0);
    }

    #[test]
    fn candidates_are_found_past_blocks_and_other_high_characters() {
        let long = format!("{}ＡＢ{}", "가".repeat(40), "\u{F0854}");
        assert_eq!(show(&long), format!("{}ＡＢ『", "가".repeat(40)));
        assert_eq!(first_shown(&long), Some(40 * 3 + 6));
        // Full-width letters and an emoji (lead bytes 0xEF, 0xF0) are candidates, not mapped.
        assert_eq!(shown_text("ＡＢ😀"), None);
    }

    #[test]
    fn offsets_move_only_when_lengths_change() {
        assert_eq!(shown_offsets("\u{F0854}가\u{F0855}"), None);
        assert_eq!(shown_offsets("a\u{F53A}b"), Some(vec![0, 1, 4, 5]));
        assert_eq!(shown_offsets("\u{F02B1}x"), Some(vec![0, 2, 3]));
    }
}
