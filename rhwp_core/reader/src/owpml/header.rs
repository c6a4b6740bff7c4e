//! `Contents/header.xml`: the shared tables paragraphs refer to by id —
//! character properties (`charPr`), paragraph properties (`paraPr`, for the
//! heading/numbering/bullet kind), styles, numberings, bullets and tracked
//! changes with their authors.

use super::xml::{
    attr, attr_u32, attrs, each_tag_within, parse_u32, start_tag, walk, walk_skipping,
    with_repair_owned, Flow, Skipped, Span, Step, MAX_LISTED,
};
use crate::deferred::Deferred;
use crate::limits::Limits;
use crate::model::{CharFormat, Style, TrackedChange};
use crate::Result;
use std::cell::OnceCell;

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

/// The tables the sections look things up in. Character and paragraph
/// properties, numberings, bullets and styles are read lazily: the walk over
/// the part only notes where each entry of those tables lies (checking the
/// entries as quick-xml would when reading strictly, not at all when reading
/// leniently); an entry is read the first time a paragraph refers to it. A
/// typical header holds a few dozen of each, of which a short document uses a
/// handful, and reading them all cost more than inflating the part. The
/// model's list of styles is read when it is first asked for (`style_list`).
#[derive(Debug, Default)]
pub struct Header {
    /// The part's text (repaired if its UTF-8 was not valid); entries are ranges of it.
    text: Vec<u8>,
    max_depth: u32,
    max_elements: u64,
    char_props: Table<CharFormat>,
    para_props: Table<Option<Heading>>,
    numberings: Table<Option<Numbering>>,
    bullets: Table<Option<String>>,
    styles: Table<Option<Style>>,
    /// `trackChange` (type, date, author id) and `trackChangeAuthor` (name) entries.
    track_changes: Table<Option<(Option<String>, Option<u32>)>>,
    track_authors: Table<Option<String>>,
}

/// Where the entries of one table lie in the part, and those read so far.
#[derive(Debug, Default)]
struct Table<T> {
    /// The local name of the table's entries (`charPr`, `paraPr`, ...).
    entry: &'static str,
    spans: Vec<Span>,
    /// Each entry once read, with its id.
    read: Vec<OnceCell<(u32, T)>>,
    /// Entry index + 1 by id (0: no entry has that id), made at the first id
    /// that is not its entry's position.
    by_id: OnceCell<Vec<u32>>,
}

impl<T> Table<T> {
    fn new(entry: &'static str) -> Self {
        Table {
            entry,
            spans: Vec::new(),
            read: Vec::new(),
            by_id: OnceCell::new(),
        }
    }

    fn add(&mut self, spans: &[Span]) {
        let room = MAX_LISTED.saturating_sub(self.spans.len());
        self.spans
            .extend_from_slice(&spans[..spans.len().min(room)]);
        self.read.resize_with(self.spans.len(), OnceCell::new);
    }

    /// The id of entry `k`, if it is an entry of this table.
    fn id_of(&self, text: &[u8], k: usize) -> Option<u32> {
        let &(a, b) = self.spans.get(k)?;
        let (name, tag) = text.get(a..b).and_then(start_tag)?;
        if name != self.entry {
            return None;
        }
        attr_u32(&tag, "id")
    }

    /// The entry with this id, read by `read` from its text the first time.
    /// Writers number entries 0, 1, 2... in order, so the entry at the id's
    /// position is tried first; otherwise the last entry with the id wins
    /// (as a later definition replaces an earlier one).
    fn get(&self, text: &[u8], id: u32, read: impl FnOnce(&[u8]) -> T) -> Option<&T> {
        let at = id as usize;
        let k = match self.read.get(at).and_then(OnceCell::get) {
            Some((read_id, value)) if *read_id == id => return Some(value),
            _ => match self.by_id.get() {
                Some(by_id) => Self::find(by_id, at)?,
                None if self.id_of(text, at) == Some(id) => at,
                None => Self::find(self.by_id.get_or_init(|| self.index_ids(text)), at)?,
            },
        };
        let (a, b) = *self.spans.get(k)?;
        let (read_id, value) = self
            .read
            .get(k)?
            .get_or_init(|| (id, read(text.get(a..b).unwrap_or_default())));
        // Entry `k` has id `id`, so it was read under it (whichever lookup came first).
        (*read_id == id).then_some(value)
    }

    fn find(by_id: &[u32], at: usize) -> Option<usize> {
        by_id.get(at)?.checked_sub(1).map(|k| k as usize)
    }

    /// Entry index + 1 by id: the entry at the id's position if it has that id, else the last.
    fn index_ids(&self, text: &[u8]) -> Vec<u32> {
        let mut by_id = Vec::new();
        for k in 0..self.spans.len() {
            let Some(id) = self.id_of(text, k) else {
                continue;
            };
            if let Some(s) = slot(&mut by_id, id) {
                if *s as usize != id as usize + 1 {
                    *s = k as u32 + 1;
                }
            }
        }
        by_id
    }
}

impl Header {
    pub fn char_style(&self, id: Option<u32>) -> CharFormat {
        id.and_then(|id| {
            self.char_props
                .get(&self.text, id, |e| self.read_char_style(e))
                .copied()
        })
        .unwrap_or_default()
    }

    pub fn heading(&self, para_pr: Option<u32>) -> Option<Heading> {
        let id = para_pr?;
        *self
            .para_props
            .get(&self.text, id, |e| self.read_heading(e))?
    }

    pub fn numbering(&self, id: u32) -> Option<&Numbering> {
        self.numberings
            .get(&self.text, id, |e| self.read_numbering(e))?
            .as_ref()
    }

    pub fn bullet(&self, id: u32) -> Option<&str> {
        self.bullets
            .get(&self.text, id, |e| {
                let (_, tag) = start_tag(e)?;
                attr(&tag, "char").map(|c| bounded(c.into_owned()))
            })?
            .as_deref()
    }

    pub fn style_name(&self, id: Option<u32>) -> Option<&str> {
        self.styles
            .get(&self.text, id?, read_style)?
            .as_ref()
            .map(|s| s.name.as_str())
    }

    /// The tracked change `trackChange` entry `id` records: its date and author (the
    /// `trackChangeAuthor` its `authorID` names; Hancom numbers authors from 0 and
    /// changes' `authorID`s from 1, so the author at `authorID - 1` is taken when none
    /// has the id itself). `kind` is left for the caller (the section's element says it).
    pub fn track_change(&self, id: u32) -> Option<TrackedChange> {
        let (date, author_id) = self
            .track_changes
            .get(&self.text, id, |e| {
                let (_, tag) = start_tag(e)?;
                let [date, author] = attrs(&tag, ["date", "authorID"]);
                Some((
                    date.filter(|d| !d.is_empty())
                        .map(|d| bounded(d.into_owned())),
                    author.and_then(|v| parse_u32(&v)),
                ))
            })?
            .clone()?;
        let author = author_id.and_then(|a| {
            self.track_author(a)
                .or_else(|| a.checked_sub(1).and_then(|a| self.track_author(a)))
        });
        Some(TrackedChange {
            kind: String::new(),
            author,
            time: date,
        })
    }

    fn track_author(&self, id: u32) -> Option<String> {
        self.track_authors
            .get(&self.text, id, |e| {
                let (_, tag) = start_tag(e)?;
                attr(&tag, "name")
                    .filter(|n| !n.is_empty())
                    .map(|n| bounded(n.into_owned()))
            })?
            .clone()
    }

    /// Every style, in the order the part lists them, read when the model's list is first
    /// asked for (most callers want the text, which needs only the styles paragraphs name).
    /// Keeps a copy of the styles' own bytes, a small part of the header.
    pub fn style_list(&self) -> Deferred<Vec<Style>> {
        let spans = &self.styles.spans;
        let (Some(&(first, _)), Some(&(_, last))) = (spans.first(), spans.last()) else {
            return Deferred::known(Vec::new());
        };
        let Some(bytes) = self.text.get(first..last) else {
            return Deferred::known(Vec::new());
        };
        let bytes: std::sync::Arc<[u8]> = bytes.into();
        // Spans are in document order, so none starts before the first.
        let spans: Vec<Span> = spans
            .iter()
            .map(|&(a, b)| (a.saturating_sub(first), b.saturating_sub(first)))
            .collect();
        Deferred::when_asked(move || {
            spans
                .iter()
                .filter_map(|&(a, b)| read_style(bytes.get(a..b)?))
                .collect()
        })
    }

    /// Walk one entry of a table (its text alone; lenient reading has not checked it yet).
    fn walk_entry<F>(&self, entry: &[u8], visit: F)
    where
        F: FnMut(Step<'_, '_>, u32) -> Result<Flow>,
    {
        // An entry the walk cannot finish keeps what was read before the problem.
        let _ = walk(entry, PART, self.max_depth, self.max_elements, visit);
    }

    fn read_char_style(&self, entry: &[u8]) -> CharFormat {
        let mut cs = CharFormat::default();
        each_tag_within(entry, |name, tag| {
            match name {
                "bold" => cs.bold = true,
                "italic" => cs.italic = true,
                "underline" => {
                    cs.underline = !matches!(attr(tag, "type").as_deref(), None | Some("NONE"))
                }
                "strikeout" => {
                    cs.strike = !matches!(
                        attr(tag, "shape").as_deref(),
                        None | Some("NONE") | Some("3D")
                    )
                }
                "supscript" => cs.superscript = true,
                "subscript" => cs.subscript = true,
                _ => {}
            }
            true
        });
        cs
    }

    fn read_heading(&self, entry: &[u8]) -> Option<Heading> {
        let mut heading = None;
        each_tag_within(entry, |name, tag| {
            if name != "heading" {
                return true;
            }
            let [kind, level, id_ref] = attrs(tag, ["type", "level", "idRef"]);
            let kind = match kind.as_deref() {
                Some("OUTLINE") => HeadingKind::Outline,
                Some("NUMBER") => HeadingKind::Number,
                Some("BULLET") => HeadingKind::Bullet,
                _ => return false,
            };
            let level = level.and_then(|v| parse_u32(&v)).unwrap_or(0).min(9) as u8;
            heading = Some(Heading {
                kind,
                id_ref: id_ref.and_then(|v| parse_u32(&v)).unwrap_or(0),
                level,
            });
            // Nothing after it matters (a paraPr holds one heading).
            false
        });
        heading
    }

    fn read_numbering(&self, entry: &[u8]) -> Option<Numbering> {
        let mut numbering = Numbering::default();
        let mut para_head: Option<(usize, NumberingLevel)> = None;
        self.walk_entry(entry, |step, _| {
            match step {
                Step::Open {
                    name: "paraHead",
                    owpml: true,
                    start,
                } => {
                    let [level, first, num_format] = attrs(start, ["level", "start", "numFormat"]);
                    let level =
                        level.and_then(|v| parse_u32(&v)).unwrap_or(1).clamp(1, 10) as usize;
                    para_head = Some((
                        level,
                        NumberingLevel {
                            start: first.and_then(|v| parse_u32(&v)).unwrap_or(1),
                            num_format: bounded(num_format.unwrap_or_default().into_owned()),
                            text: String::new(),
                        },
                    ));
                }
                Step::Text(t) => {
                    if let Some((_, ph)) = para_head.as_mut() {
                        if ph.text.len() < MAX_HEADER_TEXT_CHARS {
                            ph.text.push_str(t);
                            ph.text = bounded(std::mem::take(&mut ph.text));
                        }
                    }
                }
                Step::Close => {
                    if let Some((level, ph)) = para_head.take() {
                        if numbering.levels.len() < level {
                            numbering.levels.resize_with(level, NumberingLevel::default);
                        }
                        numbering.levels[level - 1] = ph;
                    }
                }
                _ => {}
            }
            Ok(Flow::Continue)
        });
        Some(numbering)
    }
}

const PART: &str = "Contents/header.xml";

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

/// One `style` entry, as the model lists it; `None` without a numeric id.
fn read_style(entry: &[u8]) -> Option<Style> {
    let (name, tag) = start_tag(entry)?;
    if name != "style" {
        return None;
    }
    let [id, name, english_name, kind] = attrs(&tag, ["id", "name", "engName", "type"]);
    let id = id.and_then(|v| parse_u32(&v))?;
    Some(Style {
        id,
        name: bounded(name.unwrap_or_default().into_owned()),
        english_name: english_name
            .map(|s| bounded(s.into_owned()))
            .filter(|s| !s.is_empty()),
        kind: if kind.as_deref() == Some("CHAR") {
            "character"
        } else {
            "paragraph"
        }
        .into(),
    })
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

/// Read the header part, taking its bytes (kept: entries are read from them later).
pub fn read(bytes: Vec<u8>, strict: bool, limits: &Limits) -> Result<Header> {
    // Lenient reading does not check the tables it does not read (fonts, borders...) nor the
    // entries until one is read: damage there cannot cost the document its formatting.
    let skipped = if strict {
        Skipped::Checked
    } else {
        Skipped::Unchecked
    };
    let (mut header, text) = with_repair_owned(bytes, strict, |b| index(b, limits, skipped))?;
    header.text = text;
    Ok(header)
}

/// `read` over borrowed bytes, lenient (tools and fuzzing).
pub fn parse(text: &[u8], limits: &Limits) -> Result<Header> {
    let mut header = index(text, limits, Skipped::Unchecked)?;
    header.text = text.to_vec();
    Ok(header)
}

/// The walk over the whole part: styles read, the other tables listed.
fn index(text: &[u8], limits: &Limits, skipped: Skipped) -> Result<Header> {
    let mut h = Header {
        max_depth: limits.max_xml_depth,
        max_elements: limits.max_records,
        char_props: Table::new("charPr"),
        para_props: Table::new("paraPr"),
        numberings: Table::new("numbering"),
        bullets: Table::new("bullet"),
        styles: Table::new("style"),
        track_changes: Table::new("trackChange"),
        track_authors: Table::new("trackChangeAuthor"),
        ..Header::default()
    };
    // The table whose entries the walk is listing.
    let mut listing: Option<&'static str> = None;
    walk_skipping(
        text,
        PART,
        limits.max_xml_depth,
        limits.max_records,
        skipped,
        |step, _depth| {
            match step {
                // Tables not read here are skipped unparsed (fonts, border fills, tab
                // stops, memo shapes, change tracking, compatibility options).
                Step::Open {
                    name:
                        "fontfaces" | "borderFills" | "tabProperties" | "memoProperties"
                        | "compatibleDocument" | "docOption" | "forbiddenWordList" | "switch",
                    ..
                } => return Ok(Flow::Skip),
                Step::Open {
                    name:
                        table @ ("charProperties" | "paraProperties" | "numberings" | "bullets"
                        | "styles" | "trackChanges" | "trackChangeAuthors"),
                    owpml: true,
                    ..
                } => {
                    listing = Some(match table {
                        "charProperties" => "charProperties",
                        "paraProperties" => "paraProperties",
                        "numberings" => "numberings",
                        "styles" => "styles",
                        "trackChanges" => "trackChanges",
                        "trackChangeAuthors" => "trackChangeAuthors",
                        _ => "bullets",
                    });
                    return Ok(Flow::SkipListing);
                }
                Step::Children(spans) => match listing.take() {
                    Some("charProperties") => h.char_props.add(spans),
                    Some("paraProperties") => h.para_props.add(spans),
                    Some("numberings") => h.numberings.add(spans),
                    Some("styles") => h.styles.add(spans),
                    Some("trackChanges") => h.track_changes.add(spans),
                    Some("trackChangeAuthors") => h.track_authors.add(spans),
                    Some(_) => h.bullets.add(spans),
                    None => {}
                },
                _ => {}
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
          <hh:styles><hh:style id="0" type="PARA" name="바탕글" engName="Normal"/><hh:style type="CHAR" name="no id"/><hh:style id="2" type="CHAR" name="강조" engName=""/></hh:styles></hh:refList></hh:head>"#;
        let h = parse(xml.as_bytes(), &Limits::default()).unwrap();
        let listed: Vec<_> = h
            .style_list()
            .get()
            .iter()
            .map(|s| (s.id, s.name.clone(), s.english_name.clone(), s.kind.clone()))
            .collect();
        assert_eq!(
            listed,
            [
                (
                    0,
                    "바탕글".into(),
                    Some("Normal".into()),
                    "paragraph".into()
                ),
                (2, "강조".into(), None, "character".into()),
            ]
        );
        assert_eq!(h.style_name(Some(2)), Some("강조"));
        assert_eq!(h.style_name(Some(1)), None);
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
        assert_eq!(h.bullet(1), Some("•"));
        assert_eq!(h.bullet(0), None);
        let n = h.numbering(1).unwrap();
        assert_eq!(n.levels[1].text, "^2)");
    }

    /// Entries are found by their id wherever they sit; the one at the id's position first.
    #[test]
    fn finds_entries_by_id_out_of_order() {
        let xml = r#"<hh:head xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head"><hh:refList>
          <hh:charProperties><hh:charPr id="2"><hh:italic/></hh:charPr><hh:charPr id="1"><hh:bold/></hh:charPr><hh:charPr id="0"/><!-- x --><hh:other id="3"><hh:bold/></hh:other><hh:charPr id="5"><hh:bold/></hh:charPr><hh:charPr id="5"><hh:italic/></hh:charPr></hh:charProperties>
          <hh:paraProperties><hh:paraPr id="1"><hh:heading type="NUMBER" idRef="7" level="1"/><hh:heading type="OUTLINE" level="3"/></hh:paraPr><hh:paraPr id="0"/></hh:paraProperties>
          </hh:refList></hh:head>"#;
        let h = parse(xml.as_bytes(), &Limits::default()).unwrap();
        let cs = |id| h.char_style(Some(id));
        assert!(cs(1).bold && !cs(1).italic, "at its own position");
        assert!(cs(2).italic && !cs(2).bold);
        assert!(!cs(0).bold && !cs(0).italic);
        assert_eq!(cs(3), CharFormat::default(), "not a charPr");
        assert!(cs(5).italic && !cs(5).bold, "the last of duplicates");
        assert_eq!(cs(9), CharFormat::default());
        // Asked again: the same answers, from what was read.
        assert!(cs(2).italic && cs(1).bold);
        let hd = h.heading(Some(1)).unwrap();
        assert_eq!((hd.kind, hd.id_ref, hd.level), (HeadingKind::Number, 7, 1));
        assert!(h.heading(Some(0)).is_none());
        assert!(h.heading(None).is_none());
    }

    /// Damage in what the reader does not read (a font table, an entry no paragraph uses)
    /// costs nothing when reading leniently; strict reading still refuses the part.
    #[test]
    fn damage_in_unread_tables_is_not_checked_when_lenient() {
        let xml = r#"<hh:head xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head"><hh:refList>
          <hh:fontfaces><hh:fontface lang="HANGUL"><hh:font face="a" <broken></hh:fontfaces>
          <hh:charProperties><hh:charPr id="0"><hh:bold/></hh:charPr><hh:charPr id="1"><hh:italic></hh:charPr></hh:charProperties>
          <hh:styles><hh:style id="0" type="PARA" name="바탕글"/></hh:styles></hh:refList></hh:head>"#;
        let limits = Limits::default();
        let h = read(xml.as_bytes().to_vec(), false, &limits).unwrap();
        assert!(h.char_style(Some(0)).bold);
        assert!(
            h.char_style(Some(1)).italic,
            "an entry is read as well as it can be"
        );
        assert_eq!(h.style_name(Some(0)), Some("바탕글"));
        let strict = read(xml.as_bytes().to_vec(), true, &limits).unwrap_err();
        assert!(strict.message.contains("malformed XML"), "{strict}");
    }
}
