//! One walk over the whole document that reads `HEAD` and lists where everything else lies:
//! the `BODY`'s sections and the `TAIL`'s stored bin data are skipped by the walk (listed as
//! spans), so the body is read section by section afterwards and base64 data is decoded only
//! when an item is asked for (`super::bin_data`). `SCRIPTCODE` is skipped unread.
//!
//! `HEAD/MAPPINGTABLE`'s char shapes, paragraph shapes, numberings, bullets and styles are
//! OWPML's `charPr`, `paraPr`, `numbering`, `bullet` and `style` under older names: they are
//! written out in OWPML's vocabulary, and the OWPML header reader (`crate::owpml::header`) reads
//! them, so formatting, headings, list markers and style names mean the same in both formats.

use crate::limits::Limits;
use crate::model::Metadata;
use crate::owpml::xml::{attr, start_tag, walk_skipping, Flow, Skipped, Span, Step, Tag};
use crate::{Error, Result};

/// A `BINDATALIST/BINITEM`: what pictures and OLE objects refer to (by 1-based position).
#[derive(Debug, Clone, Default)]
pub struct BinItem {
    /// `Link`, `Embedding` or `Storage`.
    pub kind: String,
    /// The `BINDATA` `Id` that holds the bytes (embedded and storage items).
    pub data_id: Option<u32>,
    /// `Format`: the extension (`jpg`, `png`, `OLE`...).
    pub format: Option<String>,
    /// A linked item's path (`APath`, else `RPath`).
    pub path: Option<String>,
}

pub struct Index {
    /// `HWPML`'s `Version` (2.1 to 2.91).
    pub version: String,
    pub metadata: Metadata,
    /// `MAPPINGTABLE` in OWPML's header vocabulary (for `crate::owpml::header::parse`).
    pub header: String,
    pub bin_items: Vec<BinItem>,
    /// Each `BODY/SECTION` element's bytes in the text.
    pub sections: Vec<Span>,
    /// Each `TAIL/BINDATASTORAGE/BINDATA` element's bytes in the text.
    pub bin_data: Vec<Span>,
}

/// Header tables, in the order the OWPML header lists them.
const TABLES: [&str; 5] = [
    "charProperties",
    "paraProperties",
    "numberings",
    "bullets",
    "styles",
];

#[derive(Clone, Copy)]
enum Listing {
    Sections,
    BinData,
}

#[derive(Clone, Copy)]
enum Summary {
    Title,
    Subject,
    Author,
    Keywords,
    Comments,
    /// The summary's date as 한글 writes it ("2013년 10월 6일 일요일 오후 08:47:57"): `created`.
    Date,
}

impl Summary {
    fn slot(self, m: &mut Metadata) -> &mut Option<String> {
        match self {
            Summary::Title => &mut m.title,
            Summary::Subject => &mut m.subject,
            Summary::Author => &mut m.author,
            Summary::Keywords => &mut m.keywords,
            Summary::Comments => &mut m.comments,
            Summary::Date => &mut m.created,
        }
    }
}

struct Indexer {
    index: Index,
    tables: [String; 5],
    /// Per open element of `HEAD`: the OWPML end tag to write when it closes, if any.
    open: Vec<Option<&'static str>>,
    /// The table the entry being written belongs to.
    table: usize,
    listing: Option<Listing>,
    summary: Option<Summary>,
    /// Inside a `PARAHEAD` (its text is the number template).
    para_head: bool,
}

/// Index the document text (UTF-8, without a byte order mark).
pub fn index(text: &str, limits: &Limits, skipped: Skipped) -> Result<Index> {
    let mut ix = Indexer {
        index: Index {
            version: String::new(),
            metadata: Metadata::default(),
            header: String::new(),
            bin_items: Vec::new(),
            sections: Vec::new(),
            bin_data: Vec::new(),
        },
        tables: Default::default(),
        open: Vec::new(),
        table: 0,
        listing: None,
        summary: None,
        para_head: false,
    };
    let mut saw_root = false;
    walk_skipping(
        text.as_bytes(),
        "HWPML",
        limits.max_xml_depth,
        limits.max_records,
        skipped,
        |step, depth| {
            match step {
                Step::Open { name, start, .. } => {
                    if depth == 1 {
                        if name != "HWPML" {
                            return Err(Error::corrupt(format!(
                                "not an HWPML document (its root element is <{name}>, not <HWPML>)"
                            )));
                        }
                        saw_root = true;
                        ix.index.version = attr(start, "Version")
                            .map(|v| v.into_owned())
                            .unwrap_or_default();
                        return Ok(Flow::Continue);
                    }
                    return Ok(ix.open(name, start));
                }
                Step::Close => ix.close(),
                Step::Text(t) => ix.text(t),
                Step::Children(spans) => ix.children(text, spans),
            }
            Ok(Flow::Continue)
        },
    )?;
    if !saw_root {
        return Err(Error::corrupt("not an HWPML document (no root element)"));
    }
    let mut header = String::from("<head>");
    for (name, body) in TABLES.iter().zip(&ix.tables) {
        header.push_str(&format!("<{name}>{body}</{name}>"));
    }
    header.push_str("</head>");
    ix.index.header = header;
    Ok(ix.index)
}

impl Indexer {
    fn open(&mut self, name: &str, e: &Tag<'_, '_>) -> Flow {
        let mut end = None;
        let flow = match name {
            // Where the rest lies; read later, on demand.
            "BODY" => {
                self.listing = Some(Listing::Sections);
                Flow::SkipListing
            }
            "BINDATASTORAGE" => {
                self.listing = Some(Listing::BinData);
                Flow::SkipListing
            }
            // Scripts are never run, nor read; the rest says nothing the model keeps.
            "SCRIPTCODE"
            | "FACENAMELIST"
            | "BORDERFILLLIST"
            | "TABDEFLIST"
            | "DOCSETTING"
            | "MEMOSHAPELIST"
            | "FORBIDDENSTRINGLIST"
            | "COMPATIBLEDOCUMENT"
            | "LAYOUTCOMPATIBILITY" => Flow::Skip,
            "TITLE" => self.summary(Summary::Title),
            "SUBJECT" => self.summary(Summary::Subject),
            "AUTHOR" => self.summary(Summary::Author),
            "KEYWORDS" => self.summary(Summary::Keywords),
            "COMMENTS" => self.summary(Summary::Comments),
            "DATE" => self.summary(Summary::Date),
            "BINITEM" => {
                let [kind, data, format, apath, rpath] =
                    crate::owpml::xml::attrs(e, ["Type", "BinData", "Format", "APath", "RPath"]);
                self.index.bin_items.push(BinItem {
                    kind: kind.map(|v| v.into_owned()).unwrap_or_default(),
                    data_id: data.and_then(|v| crate::owpml::xml::parse_u32(&v)),
                    format: format.map(|v| v.into_owned()).filter(|v| !v.is_empty()),
                    path: apath
                        .filter(|v| !v.is_empty())
                        .or(rpath)
                        .map(|v| v.into_owned())
                        .filter(|v| !v.is_empty()),
                });
                Flow::Skip
            }
            "CHARSHAPE" => {
                self.table = 0;
                self.entry("charPr", &[("id", attr(e, "Id"))], false);
                end = Some("charPr");
                Flow::Continue
            }
            "BOLD" | "ITALIC" | "SUPERSCRIPT" | "SUBSCRIPT" if self.in_entry("charPr") => {
                let owpml = match name {
                    "BOLD" => "bold",
                    "ITALIC" => "italic",
                    "SUPERSCRIPT" => "supscript",
                    _ => "subscript",
                };
                self.entry(owpml, &[], true);
                Flow::Skip
            }
            "UNDERLINE" if self.in_entry("charPr") => {
                let kind = owpml_value(attr(e, "Type").as_deref().unwrap_or("Bottom"));
                self.entry("underline", &[("type", Some(kind.into()))], true);
                Flow::Skip
            }
            "STRIKEOUT" if self.in_entry("charPr") => {
                let shape = match attr(e, "Type").as_deref() {
                    Some("None") => "NONE",
                    _ => "SOLID",
                };
                self.entry("strikeout", &[("shape", Some(shape.into()))], true);
                Flow::Skip
            }
            "PARASHAPE" => {
                self.table = 1;
                let [id, kind, id_ref, level] =
                    crate::owpml::xml::attrs(e, ["Id", "HeadingType", "Heading", "Level"]);
                self.entry("paraPr", &[("id", id)], false);
                let kind = kind.map(|k| owpml_value(&k).into());
                self.entry(
                    "heading",
                    &[("type", kind), ("idRef", id_ref), ("level", level)],
                    true,
                );
                self.tables[1].push_str("</paraPr>");
                Flow::Skip
            }
            "NUMBERING" => {
                self.table = 2;
                self.entry("numbering", &[("id", attr(e, "Id"))], false);
                end = Some("numbering");
                Flow::Continue
            }
            "PARAHEAD" if self.in_entry("numbering") => {
                let [level, first, format] =
                    crate::owpml::xml::attrs(e, ["Level", "Start", "NumFormat"]);
                let format = format.map(|f| owpml_value(&f).into());
                self.entry(
                    "paraHead",
                    &[("level", level), ("start", first), ("numFormat", format)],
                    false,
                );
                self.para_head = true;
                end = Some("paraHead");
                Flow::Continue
            }
            "BULLET" => {
                self.table = 3;
                let [id, ch] = crate::owpml::xml::attrs(e, ["Id", "Char"]);
                self.entry("bullet", &[("id", id), ("char", ch)], true);
                Flow::Skip
            }
            "STYLE" => {
                self.table = 4;
                let [id, kind, name, eng] =
                    crate::owpml::xml::attrs(e, ["Id", "Type", "Name", "EngName"]);
                let kind = kind.map(|k| owpml_value(&k).into());
                self.entry(
                    "style",
                    &[("id", id), ("type", kind), ("name", name), ("engName", eng)],
                    true,
                );
                Flow::Skip
            }
            _ => Flow::Continue,
        };
        if flow != Flow::Skip && flow != Flow::SkipListing {
            self.open.push(end);
        } else {
            // A skipped element still closes: keep the stack in step.
            self.open.push(None);
        }
        flow
    }

    fn summary(&mut self, which: Summary) -> Flow {
        self.summary = Some(which);
        Flow::Continue
    }

    fn in_entry(&self, owpml: &str) -> bool {
        self.open.contains(&Some(owpml))
    }

    /// Write an OWPML start tag (or empty element) into the current table.
    fn entry(
        &mut self,
        name: &str,
        attrs: &[(&str, Option<std::borrow::Cow<'_, str>>)],
        empty: bool,
    ) {
        let out = &mut self.tables[self.table];
        out.push('<');
        out.push_str(name);
        for (key, value) in attrs {
            if let Some(v) = value {
                out.push(' ');
                out.push_str(key);
                out.push_str("=\"");
                escape_into(out, v);
                out.push('"');
            }
        }
        out.push_str(if empty { "/>" } else { ">" });
    }

    fn text(&mut self, t: &str) {
        if self.para_head {
            escape_into(&mut self.tables[2], t);
        } else if let Some(which) = self.summary {
            let s = which
                .slot(&mut self.index.metadata)
                .get_or_insert_with(String::new);
            // Summary fields are short; a hostile one is cut rather than kept whole.
            if s.len() < 4096 {
                s.push_str(t);
            }
        }
    }

    fn close(&mut self) {
        if let Some(Some(end)) = self.open.pop() {
            if end == "paraHead" {
                self.para_head = false;
            }
            let table = match end {
                "charPr" => 0,
                _ => 2,
            };
            let out = &mut self.tables[table];
            out.push_str("</");
            out.push_str(end);
            out.push('>');
        }
        if let Some(which) = self.summary.take() {
            // Trim what was captured once the field closes; a date in ISO form where it reads.
            let slot = which.slot(&mut self.index.metadata);
            *slot = slot
                .take()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty());
            if matches!(which, Summary::Date) {
                *slot = slot
                    .take()
                    .map(|s| crate::common::dates::korean_date(&s).unwrap_or(s));
            }
        }
    }

    fn children(&mut self, text: &str, spans: &[Span]) {
        let Some(listing) = self.listing.take() else {
            return;
        };
        let (wanted, out) = match listing {
            Listing::Sections => ("SECTION", &mut self.index.sections),
            Listing::BinData => ("BINDATA", &mut self.index.bin_data),
        };
        for &(a, b) in spans {
            let named = text
                .as_bytes()
                .get(a..b)
                .and_then(start_tag)
                .is_some_and(|(name, _)| name == wanted);
            if named {
                out.push((a, b));
            }
        }
    }
}

/// An HWPML enumeration value (`HangulSyllable`, `Both`, `Outline`) in OWPML's spelling
/// (`HANGUL_SYLLABLE`, `BOTH`, `OUTLINE`): the same names, upper snake case.
pub fn owpml_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 4);
    let mut prev_lower = false;
    for c in v.chars() {
        if c.is_ascii_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Text or an attribute value escaped for the XML written here.
pub fn escape_into(out: &mut String, s: &str) {
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"')) {
        out.push_str(s);
        return;
    }
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumeration_values_in_owpml_spelling() {
        assert_eq!(owpml_value("HangulSyllable"), "HANGUL_SYLLABLE");
        assert_eq!(owpml_value("Both"), "BOTH");
        assert_eq!(owpml_value("CircledDigit"), "CIRCLED_DIGIT");
        assert_eq!(owpml_value("Para"), "PARA");
    }
}
