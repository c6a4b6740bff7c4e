//! `Contents/header.xml`: the shared tables paragraphs refer to by id —
//! character properties (`charPr`), paragraph properties (`paraPr`, for the
//! heading/numbering/bullet kind), styles, numberings and bullets.

use super::xml::{attr, attr_u32, attrs, parse_u32, walk, Flow, Step};
use crate::limits::Limits;
use crate::model::Style;
use crate::Result;

/// The character formatting the model keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CharStyle {
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub superscript: bool,
    pub subscript: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadingKind {
    Outline,
    Number,
    Bullet,
}

/// `paraPr/heading`: the paragraph is an outline heading, or a numbered or
/// bulleted list item, at a 0-based level.
#[derive(Debug, Clone, Copy)]
pub struct Heading {
    pub kind: HeadingKind,
    /// The numbering (Number) or bullet (Bullet) id; unused for Outline.
    pub id_ref: u32,
    pub level: u8,
}

/// One level of a numbering: the format string (`^1.`, `(^2)`; `^N` stands
/// for level N's number) and how numbers are written.
#[derive(Debug, Clone, Default)]
pub struct NumberingLevel {
    pub start: u32,
    pub num_format: String,
    pub text: String,
}

#[derive(Debug, Clone, Default)]
pub struct Numbering {
    /// Index 0 = level 1.
    pub levels: Vec<NumberingLevel>,
}

#[derive(Debug, Default)]
pub struct Header {
    pub char_styles: Vec<CharStyle>,
    pub headings: Vec<Option<Heading>>,
    pub styles: Vec<Style>,
    /// Style name by style id.
    pub style_names: Vec<Option<String>>,
    pub numberings: Vec<Option<Numbering>>,
    pub bullets: Vec<Option<String>>,
}

/// Header strings (style names, bullet characters, numbering templates) are
/// copied into every paragraph that uses them; real ones are a few dozen
/// characters, so longer ones are cut here rather than multiplied by the
/// paragraph count.
const MAX_HEADER_TEXT_CHARS: usize = 256;

fn bounded(mut s: String) -> String {
    if let Some((cut, _)) = s.char_indices().nth(MAX_HEADER_TEXT_CHARS) {
        s.truncate(cut);
    }
    s
}

/// Ids are dense small integers in practice; anything absurd is ignored
/// rather than allowed to allocate a huge table.
const MAX_TABLE_ID: u32 = 1 << 16;

fn slot<T: Default>(v: &mut Vec<T>, id: u32) -> Option<&mut T> {
    if id >= MAX_TABLE_ID {
        return None;
    }
    let i = id as usize;
    if v.len() <= i {
        v.resize_with(i + 1, T::default);
    }
    v.get_mut(i)
}

impl Header {
    pub fn char_style(&self, id: Option<u32>) -> CharStyle {
        id.and_then(|i| self.char_styles.get(i as usize))
            .copied()
            .unwrap_or_default()
    }

    pub fn heading(&self, para_pr: Option<u32>) -> Option<Heading> {
        para_pr.and_then(|i| self.headings.get(i as usize).copied().flatten())
    }

    pub fn style_name(&self, id: Option<u32>) -> Option<&str> {
        id.and_then(|i| self.style_names.get(i as usize))
            .and_then(|s| s.as_deref())
    }
}

pub fn parse(text: &[u8], limits: &Limits) -> Result<Header> {
    let mut h = Header::default();
    // The table entry being read: which charPr / numbering / paraPr.
    let mut char_pr: Option<u32> = None;
    let mut para_pr: Option<u32> = None;
    let mut numbering: Option<u32> = None;
    let mut para_head: Option<NumberingLevel> = None;
    let mut para_head_level: usize = 0;
    walk(
        text,
        "Contents/header.xml",
        limits.max_xml_depth,
        limits.max_records,
        |step, _depth| {
            match step {
                // Tables not read here are skipped unparsed (fonts, border fills, tab
                // stops, memo shapes, change tracking, compatibility options);
                // `switch` in paraPr holds margins and line spacing.
                Step::Open {
                    name:
                        "fontfaces" | "borderFills" | "tabProperties" | "memoProperties"
                        | "trackChanges" | "trackChangeAuthors" | "compatibleDocument" | "docOption"
                        | "forbiddenWordList" | "switch",
                    ..
                } => {
                    return Ok(Flow::Skip);
                }
                Step::Open {
                    name,
                    owpml: true,
                    start,
                } => match name {
                    "charPr" => char_pr = attr_u32(start, "id"),
                    "bold" | "italic" | "underline" | "strikeout" | "supscript" | "subscript"
                        if char_pr.is_some() =>
                    {
                        let Some(cs) = char_pr.and_then(|id| slot(&mut h.char_styles, id)) else {
                            return Ok(Flow::Continue);
                        };
                        match name {
                            "bold" => cs.bold = true,
                            "italic" => cs.italic = true,
                            "underline" => {
                                cs.underline =
                                    !matches!(attr(start, "type").as_deref(), None | Some("NONE"))
                            }
                            "strikeout" => {
                                cs.strike = !matches!(
                                    attr(start, "shape").as_deref(),
                                    None | Some("NONE") | Some("3D")
                                )
                            }
                            "supscript" => cs.superscript = true,
                            _ => cs.subscript = true,
                        }
                    }
                    "paraPr" => para_pr = attr_u32(start, "id"),
                    "heading" if para_pr.is_some() => {
                        let [kind, level, id_ref] = attrs(start, ["type", "level", "idRef"]);
                        let kind = match kind.as_deref() {
                            Some("OUTLINE") => Some(HeadingKind::Outline),
                            Some("NUMBER") => Some(HeadingKind::Number),
                            Some("BULLET") => Some(HeadingKind::Bullet),
                            _ => None,
                        };
                        if let (Some(kind), Some(slot)) =
                            (kind, para_pr.and_then(|id| slot(&mut h.headings, id)))
                        {
                            let level = level.and_then(|v| parse_u32(&v)).unwrap_or(0).min(9) as u8;
                            *slot = Some(Heading {
                                kind,
                                id_ref: id_ref.and_then(|v| parse_u32(&v)).unwrap_or(0),
                                level,
                            });
                        }
                    }
                    "style" => {
                        let [id, name, english_name, kind] =
                            attrs(start, ["id", "name", "engName", "type"]);
                        let Some(id) = id.and_then(|v| parse_u32(&v)) else {
                            return Ok(Flow::Continue);
                        };
                        let name = bounded(name.unwrap_or_default().into_owned());
                        let english_name = english_name
                            .map(|s| bounded(s.into_owned()))
                            .filter(|s| !s.is_empty());
                        let kind = if kind.as_deref() == Some("CHAR") {
                            "character"
                        } else {
                            "paragraph"
                        };
                        if let Some(s) = slot(&mut h.style_names, id) {
                            *s = Some(name.clone());
                        }
                        h.styles.push(Style {
                            id,
                            name,
                            english_name,
                            kind: kind.into(),
                        });
                    }
                    "numbering" => {
                        numbering = attr_u32(start, "id");
                        if let Some(n) = numbering.and_then(|id| slot(&mut h.numberings, id)) {
                            *n = Some(Numbering::default());
                        }
                    }
                    "paraHead" if numbering.is_some() => {
                        let [level, first, num_format] =
                            attrs(start, ["level", "start", "numFormat"]);
                        para_head_level =
                            level.and_then(|v| parse_u32(&v)).unwrap_or(1).clamp(1, 10) as usize;
                        para_head = Some(NumberingLevel {
                            start: first.and_then(|v| parse_u32(&v)).unwrap_or(1),
                            num_format: bounded(num_format.unwrap_or_default().into_owned()),
                            text: String::new(),
                        });
                    }
                    "bullet" => {
                        // Bullets sit in their own list, after numberings.
                        numbering = None;
                        if let Some(id) = attr_u32(start, "id") {
                            let ch = bounded(attr(start, "char").unwrap_or_default().into_owned());
                            if let Some(b) = slot(&mut h.bullets, id) {
                                *b = Some(ch);
                            }
                        }
                    }
                    "numberings" | "bullets" | "paraProperties" | "styles" => {
                        numbering = None;
                        char_pr = None;
                        para_pr = None;
                    }
                    _ => {}
                },
                Step::Open { .. } => {}
                Step::Text(t) => {
                    if let Some(ph) = para_head.as_mut() {
                        if ph.text.len() < MAX_HEADER_TEXT_CHARS {
                            ph.text.push_str(t);
                            ph.text = bounded(std::mem::take(&mut ph.text));
                        }
                    }
                }
                Step::Close => {
                    if let (Some(ph), Some(id)) = (para_head.take(), numbering) {
                        if let Some(Some(n)) = h.numberings.get_mut(id as usize) {
                            if n.levels.len() < para_head_level {
                                n.levels
                                    .resize_with(para_head_level, NumberingLevel::default);
                            }
                            if let Some(l) = n.levels.get_mut(para_head_level - 1) {
                                *l = ph;
                            }
                        }
                    }
                }
            }
            Ok(Flow::Continue)
        },
    )?;
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tables() {
        let xml = r#"<hh:head xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head"><hh:refList>
          <hh:charProperties><hh:charPr id="0"/><hh:charPr id="1"><hh:bold/><hh:underline type="BOTTOM"/><hh:strikeout shape="NONE"/></hh:charPr></hh:charProperties>
          <hh:numberings><hh:numbering id="1"><hh:paraHead level="1" numFormat="DIGIT" start="1">^1.</hh:paraHead><hh:paraHead level="2" numFormat="HANGUL_SYLLABLE">^2)</hh:paraHead></hh:numbering></hh:numberings>
          <hh:bullets><hh:bullet id="1" char="•"/></hh:bullets>
          <hh:paraProperties><hh:paraPr id="0"><hh:heading type="NONE" idRef="0" level="0"/></hh:paraPr><hh:paraPr id="1"><hh:heading type="OUTLINE" idRef="0" level="2"/></hh:paraPr></hh:paraProperties>
          <hh:styles><hh:style id="0" type="PARA" name="바탕글" engName="Normal"/></hh:styles></hh:refList></hh:head>"#;
        let h = parse(xml.as_bytes(), &Limits::default()).unwrap();
        assert!(
            h.char_style(Some(1)).bold
                && h.char_style(Some(1)).underline
                && !h.char_style(Some(1)).strike
        );
        assert!(!h.char_style(Some(0)).bold);
        assert!(h.heading(Some(0)).is_none());
        let hd = h.heading(Some(1)).unwrap();
        assert_eq!((hd.kind, hd.level), (HeadingKind::Outline, 2));
        assert_eq!(h.style_name(Some(0)), Some("바탕글"));
        assert_eq!(h.bullets[1].as_deref(), Some("•"));
        let n = h.numberings[1].as_ref().unwrap();
        assert_eq!(n.levels[1].text, "^2)");
    }
}
