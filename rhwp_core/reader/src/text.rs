//! Plain text of a document, computed on the native model: all the text it shows,
//! the body in reading order — table cells, text boxes, captions and
//! equations (`$LaTeX$`, the script when it does not translate) included — then each distinct page header/footer once,
//! then foot- and endnotes. Paragraphs are joined by `\n`.

use crate::model::{Block, Document, Furniture, Paragraph};

/// Ruby text (덧말: small text set above or below its base text) is kept in the paragraph's
/// text right after its base, in parentheses: `본말(덧말)`. That is how a reader of plain text
/// sees both, every word of each is kept, and every view (text, Markdown, HTML, chunks) and
/// search shows it without a model change; an empty one adds nothing. The HWPX reader (`dutmal`: `mainText`, `subText`)
/// and the HWP 5.0 reader (the `tdut` control) write it this way; HWP 3.x has no ruby text.
pub fn push_ruby(ruby: &str, out: &mut String) {
    let ruby = ruby.trim();
    if !ruby.is_empty() {
        out.push('(');
        out.push_str(ruby);
        out.push(')');
    }
}
use std::collections::HashSet;

/// Paragraph and outline numbers (문단 번호, 개요 번호) and bullets are not stored in the text:
/// 한글 draws them from the numbering definitions, and the readers compute them into
/// `Paragraph::list` (`crate::numbering`). The IR's `text` stays the stored text — field, note
/// and run offsets count in it — and every view shows the number in front of it, as the page
/// does: `{marker} {text}`, one space between (how 한글's own table of contents writes an
/// outline heading: `1. 개요 첫 번째`). The text view, `block_text` (chunks, search, the
/// outline) and the Markdown/HTML headings all go through this; Markdown/HTML list items show
/// the marker as the list's own (see the views). An empty paragraph shows nothing, and a blank
/// marker adds nothing.
pub fn marker_prefix(p: &Paragraph) -> Option<&str> {
    let marker = crate::common::chars::strip(&p.list.as_ref()?.marker);
    (!marker.is_empty() && !p.text.is_empty()).then_some(marker)
}

/// The paragraph's line as shown: its number or bullet, a space, its text.
pub fn paragraph_line(p: &Paragraph) -> std::borrow::Cow<'_, str> {
    match marker_prefix(p) {
        Some(marker) => format!("{marker} {}", p.text).into(),
        None => p.text.as_str().into(),
    }
}

/// Append the text of `blocks` to `out`, one line per paragraph.
pub fn push_blocks(blocks: &[Block], out: &mut String) {
    for block in blocks {
        push_block(block, out);
    }
}

fn push_line(line: &str, out: &mut String) {
    if line.is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
}

pub fn push_block(block: &Block, out: &mut String) {
    match block {
        Block::Paragraph(p) => push_line(&paragraph_line(p), out),
        Block::Table(t) => {
            push_blocks(&t.caption, out);
            for cell in &t.cells {
                push_blocks(&cell.blocks, out);
            }
        }
        Block::Picture(p) => push_blocks(&p.caption, out),
        Block::Equation(e) => {
            push_line(&e.shown(), out);
            push_blocks(&e.caption, out);
        }
        Block::Shape(s) => {
            push_blocks(&s.blocks, out);
            push_blocks(&s.caption, out);
        }
        Block::FormControl(c) => push_line(&c.shown(), out),
        Block::Unknown(u) => {
            if let Some(t) = &u.text {
                push_line(t, out);
            }
        }
    }
}

/// The text of one block, as `push_block` would write it.
pub fn block_text(block: &Block) -> String {
    let mut out = String::new();
    push_block(block, &mut out);
    out
}

/// How every view introduces a memo: `[메모 (author, date): "anchor"]`, the parts it has.
/// A memo is a reviewer's note, not the document's text: the label says so and names the
/// words it is attached to, so an agent never reads it as what the form says.
pub fn memo_label(memo: &Furniture) -> String {
    fn nonempty(s: &Option<String>) -> Option<&str> {
        s.as_deref().map(str::trim).filter(|s| !s.is_empty())
    }
    let by: Vec<&str> = [nonempty(&memo.author), nonempty(&memo.date)]
        .into_iter()
        .flatten()
        .collect();
    let mut label = String::from("[메모");
    if !by.is_empty() {
        label.push_str(&format!(" ({})", by.join(", ")));
    }
    if let Some(anchor) = nonempty(&memo.anchor_text) {
        let anchor: String = anchor.split_whitespace().collect::<Vec<_>>().join(" ");
        label.push_str(&format!(": \"{anchor}\""));
    }
    label.push(']');
    label
}

/// Headers and footers repeat on every page (and are often stored once per
/// section with the same words): each distinct one is written once.
pub fn push_furniture(furniture: &[Furniture], out: &mut String) {
    let mut seen: HashSet<String> = HashSet::new();
    for order in [
        ["header", "footer"],
        ["footnote", "endnote"],
        ["memo", "memo"],
    ] {
        for f in furniture
            .iter()
            .filter(|f| order.contains(&f.kind.as_str()))
        {
            let mut text = String::new();
            push_blocks(&f.blocks, &mut text);
            if text.is_empty() {
                continue;
            }
            let repeating = matches!(f.kind.as_str(), "header" | "footer");
            if repeating && !seen.insert(text.clone()) {
                continue;
            }
            if f.kind == "memo" {
                text = format!("{} {text}", memo_label(f));
            }
            push_line(&text, out);
        }
    }
}

pub fn document_text(doc: &Document, include_furniture: bool) -> String {
    let mut out = String::new();
    for section in &doc.sections {
        push_blocks(&section.blocks, &mut out);
    }
    if include_furniture {
        push_furniture(&doc.furniture, &mut out);
    }
    out
}

/// Text of the furniture alone.
pub fn furniture_text(doc: &Document) -> String {
    let mut out = String::new();
    push_furniture(&doc.furniture, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ListMarker, Provenance};

    fn paragraph(text: &str, marker: Option<&str>) -> Paragraph {
        Paragraph {
            text: text.into(),
            stored_text: None,
            runs: Vec::new(),
            style: None,
            heading_level: None,
            list: marker.map(|m| ListMarker {
                kind: "number".into(),
                level: 1,
                marker: m.into(),
            }),
            note_refs: Vec::new(),
            break_before: None,
            fields: Vec::new(),
            provenance: Provenance::default(),
        }
    }

    #[test]
    fn numbers_shown_before_the_text() {
        let line = |text: &str, marker: Option<&str>| {
            block_text(&Block::Paragraph(paragraph(text, marker)))
        };
        assert_eq!(line("2-1", Some("가.")), "가. 2-1");
        assert_eq!(line(" 한컴메일", Some("가.")), "가.  한컴메일");
        assert_eq!(line("총칙", Some(" 제1장 ")), "제1장 총칙");
        assert_eq!(line("text", Some(" ")), "text");
        assert_eq!(line("text", None), "text");
        // An empty paragraph shows nothing, its number neither.
        assert_eq!(line("", Some("3.")), "");
    }
}
