//! Counts and metadata for `Document.summary()`, computed natively.

use crate::model::{Block, Document};
use serde::Serialize;

#[derive(Debug, Default, Clone, Serialize)]
pub struct Counts {
    pub paragraphs: u64,
    pub tables: u64,
    pub pictures: u64,
    pub equations: u64,
    pub shapes: u64,
    pub form_controls: u64,
    pub fields: u64,
    pub other_objects: u64,
    pub characters: u64,
}

impl Counts {
    fn add_blocks(&mut self, blocks: &[Block]) {
        for b in blocks {
            self.add(b);
        }
    }

    fn add(&mut self, block: &Block) {
        match block {
            Block::Paragraph(p) => {
                self.paragraphs += 1;
                self.fields += p.fields.len() as u64;
                self.characters += p.text.chars().count() as u64;
            }
            Block::Table(t) => {
                self.tables += 1;
                self.add_blocks(&t.caption);
                for c in &t.cells {
                    self.add_blocks(&c.blocks);
                }
            }
            Block::Picture(p) => {
                self.pictures += 1;
                self.add_blocks(&p.caption);
            }
            Block::Equation(e) => {
                self.equations += 1;
                self.add_blocks(&e.caption);
            }
            Block::Shape(s) => {
                self.shapes += 1;
                self.add_blocks(&s.blocks);
                self.add_blocks(&s.caption);
            }
            Block::FormControl(_) => self.form_controls += 1,
            Block::Unknown(_) => self.other_objects += 1,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub format: &'static str,
    pub version: String,
    pub schema_version: &'static str,
    pub sections: u64,
    /// Paragraphs with text, anywhere in the body (cells and boxes included).
    pub paragraphs: u64,
    pub tables: u64,
    pub pictures: u64,
    pub equations: u64,
    pub shapes: u64,
    /// Form controls (checkboxes, radio buttons, combo/list/edit boxes, buttons) in the body.
    pub form_controls: u64,
    /// Fields (click-here, date, cross-reference, ...) in the body; hyperlinks not counted.
    pub fields: u64,
    pub other_objects: u64,
    pub characters: u64,
    pub headers: u64,
    pub footers: u64,
    pub footnotes: u64,
    pub endnotes: u64,
    pub memos: u64,
    pub pages: Option<u32>,
    pub compressed: bool,
    pub distribution: bool,
    pub title: Option<String>,
    pub subject: Option<String>,
    pub author: Option<String>,
    pub keywords: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
    pub bin_data: u64,
    pub warnings: Vec<String>,
}

pub fn summarize(doc: &Document) -> Summary {
    let mut counts = Counts::default();
    for s in &doc.sections {
        counts.add_blocks(&s.blocks);
    }
    let furniture = |k: &str| doc.furniture.iter().filter(|f| f.kind == k).count() as u64;
    Summary {
        format: match doc.format {
            crate::model::Format::Hwp => "hwp",
            crate::model::Format::Hwpx => "hwpx",
            crate::model::Format::Hwp3 => "hwp3",
            crate::model::Format::Hwpml => "hwpml",
        },
        version: doc.version.get().to_string(),
        schema_version: doc.schema_version,
        sections: doc.sections.len() as u64,
        paragraphs: counts.paragraphs,
        tables: counts.tables,
        pictures: counts.pictures,
        equations: counts.equations,
        shapes: counts.shapes,
        form_controls: counts.form_controls,
        fields: counts.fields,
        other_objects: counts.other_objects,
        characters: counts.characters,
        headers: furniture("header"),
        footers: furniture("footer"),
        footnotes: furniture("footnote"),
        endnotes: furniture("endnote"),
        memos: furniture("memo"),
        pages: doc.pages,
        compressed: doc.compressed,
        distribution: doc.distribution,
        title: doc.metadata.title.clone(),
        subject: doc.metadata.subject.clone(),
        author: doc.metadata.author.clone(),
        keywords: doc.metadata.keywords.clone(),
        created: doc.metadata.created.clone(),
        modified: doc.metadata.modified.clone(),
        bin_data: doc.bin_data.len() as u64,
        warnings: doc.warnings.clone(),
    }
}

/// A date as 한글 writes it in a document summary, as ISO 8601 local time (no zone: the text
/// names none): "2001년 10월 11일 목요일, 20시 48분" → "2001-10-11T20:48:00"; "2013년 10월 6일
/// 일요일 오후 08:47:57" → "2013-10-06T20:47:57" (오후/PM after noon, 오전/AM 12 o'clock is 0); a
/// date alone → "2001-10-11". Anything else (not year, month, day first) → None.
pub(crate) fn korean_date(s: &str) -> Option<String> {
    let mut nums = Vec::new();
    let mut cur = String::new();
    for ch in s.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_digit() {
            cur.push(ch);
        } else if !cur.is_empty() {
            nums.push(cur.parse::<u32>().ok()?);
            cur.clear();
        }
    }
    let (y, mo, d) = (*nums.first()?, *nums.get(1)?, *nums.get(2)?);
    if !(1900..=2100).contains(&y) || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let date = format!("{y:04}-{mo:02}-{d:02}");
    let (Some(&h), Some(&mi)) = (nums.get(3), nums.get(4)) else {
        return Some(date);
    };
    let sec = nums.get(5).copied().unwrap_or(0);
    let afternoon = s.contains("오후") || s.contains("PM") || s.contains("pm");
    let morning = s.contains("오전") || s.contains("AM") || s.contains("am");
    let h = match (afternoon, morning) {
        (true, false) if h < 12 => h + 12,
        (false, true) if h == 12 => 0,
        _ => h,
    };
    if h > 23 || mi > 59 || sec > 59 {
        return Some(date);
    }
    Some(format!("{date}T{h:02}:{mi:02}:{sec:02}"))
}

#[cfg(test)]
mod korean_date_tests {
    use super::korean_date;

    #[test]
    fn dates_as_hangul_writes_them() {
        let cases = [
            (
                "2001년 10월 11일 목요일, 20시 48분",
                Some("2001-10-11T20:48:00"),
            ),
            (
                "2013년 10월 6일 일요일 오후 08:47:57",
                Some("2013-10-06T20:47:57"),
            ),
            (
                "2013년 10월 6일 일요일 오전 12:05:00",
                Some("2013-10-06T00:05:00"),
            ),
            (
                "2013년 10월 6일 일요일 오후 12:05:00",
                Some("2013-10-06T12:05:00"),
            ),
            ("1997년 5월 3일", Some("1997-05-03")),
            ("1997년 5월 3일 25시 70분", Some("1997-05-03")),
            ("5월 3일", None),
            ("", None),
            ("99999999999999999999년", None),
        ];
        for (text, want) in cases {
            assert_eq!(korean_date(text).as_deref(), want, "{text:?}");
        }
    }
}
