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
    /// Tracked deletions (runs marked deleted), left out of every text and view.
    #[serde(skip)]
    pub deleted_runs: u64,
    /// Their characters.
    #[serde(skip)]
    pub deleted_characters: u64,
}

/// Private-use code points left in the shown text of every paragraph (body and furniture,
/// list markers included): those without a known mapping (`common::private_use`).
fn private_use_left(doc: &Document) -> u64 {
    use crate::common::private_use::count_private_use;
    let mut left = 0;
    let mut count = |blocks: &[Block]| {
        crate::model::for_each_block(blocks, &mut |b| {
            if let Block::Paragraph(p) = b {
                left += count_private_use(&p.text);
                if let Some(list) = &p.list {
                    left += count_private_use(&list.marker);
                }
            }
        });
    };
    for s in &doc.sections {
        count(&s.blocks);
    }
    for f in &doc.furniture {
        count(&f.blocks);
    }
    left
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
                for run in p.runs.iter().filter(|r| r.is_deleted()) {
                    self.deleted_runs += 1;
                    self.deleted_characters += run.text.chars().count() as u64;
                }
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
    /// Private-use code points still in the text (body, furniture and list markers): Hancom
    /// symbols or old Hangul the reader has no mapping for, shown as stored.
    pub private_use_left: u64,
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
    let mut warnings = doc.warnings.clone();
    if let Some(warning) = deletion_warning(doc, &counts) {
        warnings.push(warning);
    }
    Summary {
        format: crate::formats::name(doc.format),
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
        private_use_left: private_use_left(doc),
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
        warnings,
    }
}

/// A document with tracked deletions reads as its final text: what was deleted is in no text or
/// view, so the reader is told how much was left out and where it still is.
fn deletion_warning(doc: &Document, body: &Counts) -> Option<String> {
    let mut all = Counts::default();
    for furniture in &doc.furniture {
        all.add_blocks(&furniture.blocks);
    }
    let runs = body.deleted_runs + all.deleted_runs;
    let characters = body.deleted_characters + all.deleted_characters;
    (runs > 0).then(|| {
        format!(
            "{runs} tracked deletion(s) ({characters} characters) left out of the text and views, \
             which show the document as changed; get_ir keeps the deleted text (runs whose \
             change.kind is \"deleted\")"
        )
    })
}
