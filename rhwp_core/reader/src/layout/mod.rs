//! Pages as the authoring program laid them out, naming no format: each page's size and what is
//! printed on it — text lines (where their baseline lies, where they start, how wide 한글 made
//! them, and their runs of characters with the character shape of each), rectangles (table
//! cells with their borders and fills) and pictures — in HWPUNIT (1/7200 inch) from the page's
//! top-left corner.
//!
//! Built on request by a second pass over the document (`formats::layout`), never by `read`:
//! a plain read stays as fast and small as it is. The formats fill it from what they stored at
//! the last save (HWP 5.0 line segments and shapes, OWPML `linesegarray`, `charPr`, `borderFill`,
//! `pagePr`); the page each line is on comes from the format's own page tracker.
//!
//! Character advances are not stored by any format: the renderer measures them with the fonts
//! it draws with, and stretches a justified line to the width 한글 gave it (`Line::width`).

pub mod build;
pub mod flow;

/// A document's pages, in order.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub pages: Vec<Page>,
    /// The faces character styles name (`CharStyle::face` indexes it).
    pub faces: Vec<Face>,
    /// Whether the positions were estimated (the document stored no line layout).
    pub estimated: bool,
}

/// A font face as the document names it, with what it says of its kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Face {
    pub name: String,
    /// The kind the document stores for it (HWP 5.0 PANOSE family/serif bytes, OWPML
    /// `typeInfo`): `Some(true)` serif, `Some(false)` sans, `None` not said.
    pub serif: Option<bool>,
}

#[derive(Debug, Clone, Default)]
pub struct Page {
    pub width: i32,
    pub height: i32,
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Line(Line),
    Rect(Rect),
    Picture(Picture),
}

/// How a line's text sits in its segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Align {
    /// Both edges: the text is stretched to the segment's width (but a paragraph's last line).
    #[default]
    Justify,
    Left,
    Right,
    Center,
    /// 배분: every line stretched, the last one too.
    Distribute,
}

/// One text line (a line segment of a paragraph).
#[derive(Debug, Clone, Default)]
pub struct Line {
    /// Where the segment starts (left edge) and its baseline, on the page.
    pub x: i32,
    pub baseline: i32,
    /// The segment's width as laid out; a justified line's text is stretched to it.
    pub width: i32,
    /// The line's height (for underline thickness and clipping).
    pub height: i32,
    pub align: Align,
    /// The last line of its paragraph (not stretched when justified).
    pub last: bool,
    pub runs: Vec<Run>,
}

/// Characters of one character style.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Run {
    pub text: String,
    pub style: CharStyle,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Script {
    #[default]
    Normal,
    Super,
    Sub,
}

/// A character style resolved for one script group (Hangul, Latin, hanja...): 한글 stores a
/// face, width ratio, spacing and relative size per group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharStyle {
    /// Index into `Layout::faces`, `u32::MAX` when the document names none.
    pub face: u32,
    /// The font size in HWPUNIT (100 = 1 pt), relative size applied.
    pub size: i32,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    /// 0xRRGGBB.
    pub color: u32,
    /// 장평: glyph width in percent of normal.
    pub ratio: u8,
    /// 자간: extra space after each character in percent of its width (negative: tighter).
    pub spacing: i8,
    pub script: Script,
    /// 상대 위치: baseline shift in percent of the size (positive: lower).
    pub offset: i8,
}

impl Default for CharStyle {
    fn default() -> Self {
        CharStyle {
            face: u32::MAX,
            size: 1000,
            bold: false,
            italic: false,
            underline: false,
            strike: false,
            color: 0,
            ratio: 100,
            spacing: 0,
            script: Script::Normal,
            offset: 0,
        }
    }
}

/// A border line's look.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Stroke {
    #[default]
    None,
    Solid,
    Dash,
    Dot,
    Double,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Border {
    pub stroke: Stroke,
    /// Thickness in HWPUNIT.
    pub width: i32,
    pub color: u32,
}

/// A filled and/or bordered rectangle: a table cell, a text box.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
    pub fill: Option<u32>,
    /// Left, right, top, bottom.
    pub borders: [Border; 4],
}

impl Rect {
    /// A table cell from its corners, drawn as its border-fill definition says.
    pub fn cell((x0, y0, x1, y1): (i32, i32, i32, i32), bf: &BorderFill) -> Rect {
        Rect {
            x: x0,
            y: y0,
            width: x1.saturating_sub(x0),
            height: y1.saturating_sub(y0),
            fill: bf.fill,
            borders: bf.borders,
        }
    }
}

/// A picture placed on the page: its bin data item by name (as `bin_data` reads it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Picture {
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
    pub bin: String,
}

/// The border-fill definition a cell names: borders and background.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BorderFill {
    pub borders: [Border; 4],
    pub fill: Option<u32>,
}

/// Which of a character shape's per-script settings a character takes (한글's 언어 groups:
/// 한글, 영문, 한자, 일어, 기타, 기호, 사용자).
pub fn script_group(c: char) -> usize {
    match c as u32 {
        0x1100..=0x11FF | 0x3130..=0x318F | 0xA960..=0xA97F | 0xAC00..=0xD7FF => 0,
        0x0000..=0x024F => 1,
        0x2E80..=0x2FDF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => 2,
        0x3040..=0x30FF => 3,
        0x2000..=0x2BFF | 0x3000..=0x303F | 0x3200..=0x33FF | 0xFF00..=0xFFEF => 5,
        _ => 4,
    }
}
