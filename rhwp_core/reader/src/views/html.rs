//! The HTML view (`views/html.py`'s `render_html`): a complete HTML5 document, its blocks written
//! by the renderer the Markdown view's HTML fragments use (`html_fragment`), with foot- and
//! endnotes collected at the end, linked both ways, and page headers and footers on request.

use super::common::NoteIndex;
use super::html_fragment::{attr, text, HtmlFragment};
use crate::common::chars::{clean, len, squeeze, strip};
use crate::model::{Block, Document, Paragraph};
use crate::outline::{heading_levels, paragraph_levels};
use std::collections::HashSet;

const CSS: &str = "\
body { font-family: sans-serif; line-height: 1.5; max-width: 60rem; margin: 1rem auto; padding: 0 1rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #999; padding: 0.25rem 0.5rem; vertical-align: top; text-align: left; }
th { background: #f0f0f0; }
td > p:first-child, th > p:first-child { margin-top: 0; }
td > p:last-child, th > p:last-child { margin-bottom: 0; }
figure { margin: 0.5rem 0; }
figure img { max-width: 100%; height: auto; background: #eee; }
.shape { border: 1px dashed #bbb; padding: 0.25rem 0.75rem; margin: 0.5rem 0; }
.caption { font-size: 0.9em; color: #444; }
.equation { font-family: serif; }
section.footnotes, section.endnotes { border-top: 1px solid #ccc; margin-top: 2rem; font-size: 0.9em; }
";

/// The first paragraph at any depth, in reading order (`iter_blocks(kind="paragraph")`), that
/// `wanted` accepts.
fn find_paragraph<'a>(
    blocks: &'a [Block],
    wanted: &impl Fn(&Paragraph) -> bool,
) -> Option<&'a Paragraph> {
    blocks.iter().find_map(|block| match block {
        Block::Paragraph(p) => wanted(p).then_some(p),
        Block::Table(t) => find_paragraph(&t.caption, wanted).or_else(|| {
            t.cells
                .iter()
                .find_map(|cell| find_paragraph(&cell.blocks, wanted))
        }),
        Block::Shape(s) => {
            find_paragraph(&s.blocks, wanted).or_else(|| find_paragraph(&s.caption, wanted))
        }
        Block::Picture(p) => find_paragraph(&p.caption, wanted),
        Block::Equation(e) => find_paragraph(&e.caption, wanted),
        Block::FormControl(_) | Block::Unknown(_) => None,
    })
}

fn first_paragraph(doc: &Document, wanted: impl Fn(&Paragraph) -> bool) -> Option<&Paragraph> {
    doc.sections
        .iter()
        .find_map(|s| find_paragraph(&s.blocks, &wanted))
}

/// `document_title`: the metadata title, else the first heading or paragraph (shortened), else
/// `Untitled`.
fn document_title(doc: &Document) -> String {
    let first = first_paragraph(doc, |p| p.heading_level.is_some_and(|l| l > 0))
        .or_else(|| first_paragraph(doc, |p| !strip(&p.text).is_empty()));
    let candidates = [
        doc.metadata.title.as_deref(),
        first.map(|p| p.text.as_str()),
    ];
    for candidate in candidates {
        let title = squeeze(&clean(candidate.unwrap_or("")));
        if !title.is_empty() {
            if len(&title) <= 80 {
                return title;
            }
            let mut short: String = title.chars().take(79).collect();
            short.push('…');
            return short;
        }
    }
    "Untitled".to_owned()
}

/// `page_furniture`: each distinct page header (or footer) once, in document order.
fn page_furniture(doc: &Document, notes: &NoteIndex<'_>, kind: &str, out: &mut Vec<String>) {
    let mut seen: HashSet<String> = HashSet::new();
    let tag = if kind == "header" { "header" } else { "footer" };
    for furniture in doc.furniture.iter().filter(|f| f.kind == kind) {
        let mut inner = HtmlFragment::for_html(notes, None);
        inner.blocks(&furniture.blocks);
        let html = inner.out.join("\n");
        if html.is_empty() || seen.contains(&html) {
            continue;
        }
        let applies = match furniture.applies_to.as_deref() {
            Some(a) if !a.is_empty() => format!(" data-applies-to=\"{}\"", attr(a)),
            _ => String::new(),
        };
        out.push(format!("<{tag} class=\"page-{kind}\"{applies}>"));
        out.push(html.clone());
        out.push(format!("</{tag}>"));
        seen.insert(html);
    }
}

/// Each memo as an `<aside>` after the notes: a reviewer's note is not the document's text.
/// Its label (`text::memo_label`) says whose note it is and the words it is attached to.
fn memos(doc: &Document, renderer: &mut HtmlFragment<'_, '_>) {
    for memo in doc.furniture.iter().filter(|f| f.kind == "memo") {
        let mut label = String::new();
        text(&crate::text::memo_label(memo), &mut label);
        renderer.out.push(format!(
            "<aside class=\"memo\" role=\"note\"><p class=\"memo-label\">{label}</p>"
        ));
        renderer.blocks(&memo.blocks);
        renderer.out.push("</aside>".to_owned());
    }
}

/// `notes_section`: the notes of a kind, each linking back to its first reference.
fn notes_section(renderer: &mut HtmlFragment<'_, '_>, kind: &str) {
    let notes = renderer.notes;
    if !notes.notes.iter().any(|n| n.kind == kind) {
        return;
    }
    let (prefix, css) = if kind == "footnote" {
        ("fn", "footnotes")
    } else {
        ("en", "endnotes")
    };
    renderer
        .out
        .push(format!("<section class=\"{css}\" role=\"doc-{css}\">"));
    renderer.out.push("<ol>".to_owned());
    for note in notes.notes.iter().filter(|n| n.kind == kind) {
        renderer.out.push(format!(
            "<li id=\"{prefix}-{}\" value=\"{}\">",
            note.label, note.number
        ));
        renderer.blocks(note.blocks);
        if renderer.ref_ids.contains_key(&note.label) {
            renderer.out.push(format!(
                "<a href=\"#{prefix}ref-{}\" class=\"{kind}-back\" role=\"doc-backlink\">↩</a>",
                note.label
            ));
        }
        renderer.out.push("</li>".to_owned());
    }
    renderer.out.push("</ol>".to_owned());
    renderer.out.push("</section>".to_owned());
}

/// `render_html(doc, include_css, include_furniture)`: a complete HTML5 document.
pub fn render_html(doc: &Document, include_css: bool, include_furniture: bool) -> String {
    render_html_with_levels(doc, include_css, include_furniture, &heading_levels(doc))
}

/// `render_html` with the top-level blocks' heading levels given (`heading_levels`).
pub fn render_html_with_levels(
    doc: &Document,
    include_css: bool,
    include_furniture: bool,
    levels: &[Option<u8>],
) -> String {
    let notes = NoteIndex::new(doc);
    let levels = paragraph_levels(doc, levels);
    let mut renderer = HtmlFragment::for_html(&notes, Some(&levels));
    let mut head = vec![
        "<!DOCTYPE html>".to_owned(),
        "<html lang=\"ko\">".to_owned(),
        "<head>".to_owned(),
        "<meta charset=\"utf-8\">".to_owned(),
    ];
    let mut title = "<title>".to_owned();
    text(&document_title(doc), &mut title);
    title.push_str("</title>");
    head.push(title);
    if let Some(author) = doc.metadata.author.as_deref() {
        if !strip(&clean(author)).is_empty() {
            head.push(format!(
                "<meta name=\"author\" content=\"{}\">",
                attr(author)
            ));
        }
    }
    head.push("<meta name=\"generator\" content=\"rhwp-core\">".to_owned());
    if include_css {
        head.push(format!("<style>\n{CSS}</style>"));
    }
    head.push("</head>".to_owned());
    head.push("<body>".to_owned());
    if include_furniture {
        page_furniture(doc, &notes, "header", &mut head);
    }
    head.push("<main>".to_owned());
    renderer.out = head;
    for section in &doc.sections {
        renderer.out.push(format!(
            "<section class=\"hwp-section\" data-section=\"{}\">",
            section.index
        ));
        renderer.blocks(&section.blocks);
        renderer.out.push("</section>".to_owned());
    }
    renderer.out.push("</main>".to_owned());
    if include_furniture {
        page_furniture(doc, &notes, "footer", &mut renderer.out);
    }
    notes_section(&mut renderer, "footnote");
    notes_section(&mut renderer, "endnote");
    memos(doc, &mut renderer);
    renderer.out.push("</body>".to_owned());
    renderer.out.push("</html>".to_owned());
    let mut html = renderer.out.join("\n");
    html.push('\n');
    html
}
