//! Small models for unit tests: a paragraph, a table cell, a document of one section.

use super::{Block, Document, Format, Paragraph, Section, TableCell};

/// A plain paragraph block of `text`.
pub fn para(text: &str) -> Block {
    Block::Paragraph(Paragraph {
        text: text.into(),
        stored_text: None,
        ..Paragraph::default()
    })
}

/// A one-by-one cell at (`row`, `col`) holding one paragraph of `text`.
pub fn cell(row: u32, col: u32, text: &str) -> TableCell {
    TableCell {
        row,
        col,
        row_span: 1,
        col_span: 1,
        header: false,
        field_name: None,
        blocks: vec![para(text)],
    }
}

/// An HWPX document of one section holding `blocks`.
pub fn doc(blocks: Vec<Block>) -> Document {
    let mut d = Document::new(Format::Hwpx);
    d.sections.push(Section {
        blocks,
        ..Section::default()
    });
    d
}
