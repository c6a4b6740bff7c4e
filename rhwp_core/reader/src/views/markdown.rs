//! The Markdown view (CommonMark + GFM tables and footnotes) rendered from the model, byte for
//! byte what `rhwp_core/python/rhwp_core/views/markdown.py` renders from the IR (that module's
//! docstring states the rules: escaping, inline delimiters or HTML tags, headings, lists,
//! tables, notes, pictures, equations, shapes). The Python view stays as the reference the
//! differential test compares with; the comments here say only what is particular to Rust.
//!
//! Lengths are counted in bytes while rendering and turned into character offsets (Python
//! string indices) once at the end, for the block starts.

use super::common::{
    block_is_empty_paragraph, inline_pieces, marked_heading, paragraph_is_empty, placed_cells,
    safe_url, NoteIndex, Piece,
};
use super::html_fragment::HtmlFragment;
use super::markdown_inline::{delimited, escape, escape_line_start, md_formatted, wrap};
use crate::common::chars::{self, clean, is_alnum, is_decimal, lstrip, rstrip, strip, words};
use crate::model::{
    Block, Document, Equation, FormControl, Paragraph, Picture, Shape, Table, TableCell, Unknown,
};
use crate::outline::{heading_levels, paragraph_levels};
use std::collections::HashMap;

fn pipe_grid_is_simple(table: &Table, placed: &[(&TableCell, u64, u64)]) -> bool {
    let (rows, cols) = (u64::from(table.rows), u64::from(table.cols));
    if rows < 1 || cols < 1 || rows * cols > 4 * table.cells.len() as u64 + 16 {
        return false;
    }
    let mut seen = std::collections::HashSet::new();
    for &(cell, row, col) in placed {
        if cell.row_span > 1
            || cell.col_span > 1
            || row >= rows
            || col >= cols
            || !seen.insert((row, col))
        {
            return false;
        }
        let mut content = cell.blocks.iter().filter(|b| !block_is_empty_paragraph(b));
        if cell.blocks.len() == 1 {
            if !matches!(cell.blocks[0], Block::Paragraph(_)) {
                return false;
            }
            continue;
        }
        let first = content.next();
        if content.next().is_some() || first.is_some_and(|b| !matches!(b, Block::Paragraph(_))) {
            return false;
        }
    }
    true
}

struct Renderer<'a> {
    notes: NoteIndex<'a>,
    levels: HashMap<*const Paragraph, u8>,
}

impl<'a> Renderer<'a> {
    fn level_of(&self, p: &Paragraph) -> Option<u8> {
        p.heading_level
            .filter(|&l| l > 0)
            .or_else(|| self.levels.get(&(p as *const Paragraph)).copied())
    }

    fn is_list_item(&self, p: &Paragraph) -> bool {
        p.list.is_some()
            && !marked_heading(p)
            && !self.levels.contains_key(&(p as *const Paragraph))
    }

    /// The paragraph's inline Markdown; in a heading, bold is dropped (headings are bold).
    fn inline(&self, paragraph: &Paragraph, heading: bool) -> String {
        let formatted = paragraph.runs.iter().any(|r| {
            r.bold || r.italic || r.strike || r.superscript || r.subscript || r.link.is_some()
        });
        if paragraph.note_refs.is_empty() && !formatted {
            return escape(&paragraph.text);
        }
        let mut pieces = inline_pieces(paragraph, true);
        if heading {
            for piece in &mut pieces {
                if let Piece::Text(_, format) = piece {
                    format.chars.bold = false;
                }
            }
        }
        let mut out: Vec<String> = Vec::with_capacity(pieces.len());
        for (index, piece) in pieces.iter().enumerate() {
            let (value, format) = match piece {
                Piece::Note(r) => {
                    out.push(match self.notes.label_for(r) {
                        Some(label) => format!("[^{label}]"),
                        None => format!("<sup>{}</sup>", r.number),
                    });
                    continue;
                }
                Piece::Text(value, format) => (value, format),
            };
            let text = escape(value);
            if !md_formatted(format) {
                out.push(text);
                continue;
            }
            let core = strip(&text);
            if core.is_empty() {
                out.push(text);
                continue;
            }
            let lead = &text[..text.len() - lstrip(&text).len()];
            let trail = &text[rstrip(&text).len()..];
            let before =
                chars::last(lead).or_else(|| out.iter().rev().find_map(|p| chars::last(p)));
            let mut after = chars::first(trail);
            if after.is_none() {
                after = match pieces.get(index + 1) {
                    // A formatted neighbour's delimiters would merge with ours: `*` forces tags.
                    Some(Piece::Text(next, next_format)) => {
                        if delimited(next_format) {
                            Some('*')
                        } else {
                            chars::first(&escape(next))
                        }
                    }
                    Some(Piece::Note(_)) => Some('['),
                    None => None,
                };
            }
            out.push(format!(
                "{lead}{}{trail}",
                wrap(core.to_owned(), format, before, after)
            ));
        }
        out.concat()
    }

    /// Inline Markdown split at line breaks, each line trimmed and escaped at its start.
    fn lines(&self, paragraph: &Paragraph) -> Vec<String> {
        let text = self.inline(paragraph, false);
        text.split('\n')
            .map(strip)
            .filter(|l| !l.is_empty())
            .map(escape_line_start)
            .collect()
    }

    /// Sibling blocks: blank lines between blocks, none between list items. With `starts`, each
    /// block's byte offset in the result (None when it renders empty).
    fn blocks(&self, blocks: &[Block], mut starts: Option<&mut Vec<Option<usize>>>) -> String {
        let mut out = String::new();
        let mut list_indents: Vec<usize> = Vec::new();
        let mut previous_was_item = false;
        for (index, block) in blocks.iter().enumerate() {
            if let Block::Paragraph(p) = block {
                if self.is_list_item(p) {
                    let item = self.list_item(p, &mut list_indents);
                    let gap = match (out.is_empty() || item.is_empty(), previous_was_item) {
                        (true, _) => "",
                        (false, true) => "\n",
                        (false, false) => "\n\n",
                    };
                    if let Some(starts) = starts.as_deref_mut() {
                        starts.push((!item.is_empty()).then_some(out.len() + gap.len()));
                    }
                    if !item.is_empty() {
                        out.push_str(gap);
                        out.push_str(&item);
                        previous_was_item = true;
                    }
                    continue;
                }
            }
            let text = match block {
                Block::Equation(e) => self.equation(e, stands_alone(blocks, index)),
                _ => self.block(block),
            };
            let gap = if !out.is_empty() && !text.is_empty() {
                "\n\n"
            } else {
                ""
            };
            if let Some(starts) = starts.as_deref_mut() {
                starts.push((!text.is_empty()).then_some(out.len() + gap.len()));
            }
            if !text.is_empty() {
                list_indents.clear();
                out.push_str(gap);
                out.push_str(&text);
                previous_was_item = false;
            }
        }
        out
    }

    fn list_item(&self, paragraph: &Paragraph, list_indents: &mut Vec<usize>) -> String {
        let mut lines = self.lines(paragraph);
        let Some(marker) = paragraph.list.as_ref().filter(|_| !lines.is_empty()) else {
            return String::new();
        };
        let level = usize::from(marker.level.max(1));
        list_indents.truncate(level - 1);
        let indent = list_indents.last().copied().unwrap_or(0);
        let shown = strip(&marker.marker);
        let bullet = if marker.kind == "number" && is_number_marker(shown) {
            shown
        } else {
            if marker.kind == "number" && !shown.is_empty() {
                lines[0] = format!("{} {}", escape(shown), lines[0]);
            }
            "-"
        };
        let width = indent + chars::len(bullet) + 1;
        list_indents.push(width);
        let separator = format!("\\\n{}", " ".repeat(width));
        format!("{}{bullet} {}", " ".repeat(indent), lines.join(&separator))
    }

    fn block(&self, block: &Block) -> String {
        match block {
            Block::Paragraph(p) => self.paragraph(p),
            Block::Table(t) => self.table(t),
            Block::Picture(p) => self.picture(p),
            Block::Equation(e) => self.equation(e, false),
            Block::Shape(s) => self.shape(s),
            Block::FormControl(c) => form_control(c),
            Block::Unknown(u) => unknown(u),
        }
    }

    fn paragraph(&self, paragraph: &Paragraph) -> String {
        if paragraph_is_empty(paragraph) {
            return String::new();
        }
        if let Some(level) = self.level_of(paragraph) {
            let inline = self.inline(paragraph, true);
            let text: Vec<&str> = inline
                .split('\n')
                .map(strip)
                .filter(|l| !l.is_empty())
                .collect();
            let mut text = text.join(" ");
            // The heading's number as the document shows it (`crate::text::marker_prefix`).
            if let Some(marker) = heading_marker(paragraph) {
                text = format!("{} {text}", escape(marker));
            }
            // Every `#` escaped: a trailing run would be taken as a closing sequence.
            let text = text.replace('#', "\\#");
            return format!("{} {text}", "#".repeat(usize::from(level.min(6))));
        }
        self.lines(paragraph).join("\\\n")
    }

    fn table(&self, table: &Table) -> String {
        let mut parts = Vec::new();
        if !table.caption.is_empty() {
            parts.push(self.blocks(&table.caption, None));
        }
        let placed = placed_cells(table);
        if pipe_grid_is_simple(table, &placed) {
            parts.push(self.pipe_table(table, &placed));
        } else {
            let mut html = HtmlFragment::new(&self.notes);
            html.table_with(table, Some(placed), true);
            // An HTML block ends at a blank line: the fragment has none.
            let joined = html.out.join("\n");
            let lines: Vec<&str> = joined
                .split('\n')
                .filter(|l| !strip(l).is_empty())
                .collect();
            parts.push(lines.join("\n"));
        }
        join_nonempty(&parts, "\n\n")
    }

    fn cell_text(&self, cell: &TableCell) -> String {
        let Some(paragraph) = cell.blocks.iter().find_map(|b| match b {
            Block::Paragraph(p) if !paragraph_is_empty(p) => Some(p),
            _ => None,
        }) else {
            return String::new();
        };
        let inline = self.inline(paragraph, false);
        let lines: Vec<&str> = inline
            .split('\n')
            .map(strip)
            .filter(|l| !l.is_empty())
            .collect();
        let prefix = match &paragraph.list {
            Some(list) if !strip(&list.marker).is_empty() => {
                format!("{} ", escape(strip(&list.marker)))
            }
            _ => String::new(),
        };
        prefix + &lines.join("<br>")
    }

    fn pipe_table(&self, table: &Table, placed: &[(&TableCell, u64, u64)]) -> String {
        let cols = table.cols as usize;
        let mut grid = vec![vec![String::new(); cols]; table.rows as usize];
        for &(cell, row, col) in placed {
            grid[row as usize][col as usize] = self.cell_text(cell);
        }
        let mut rows: Vec<String> = grid
            .iter()
            .map(|row| format!("| {} |", row.join(" | ")))
            .collect();
        rows.insert(1, format!("|{}|", vec![" --- "; cols].join("|")));
        rows.join("\n")
    }

    fn picture(&self, picture: &Picture) -> String {
        let alt_escaped = escape(picture.description.as_deref().unwrap_or(""));
        let alt: Vec<&str> = words(&alt_escaped).collect();
        let url = safe_url(picture.bin_data_name.as_deref()).unwrap_or_default();
        let title = if picture.width != 0 && picture.height != 0 {
            let mm = |v: u32| f64::from(v) * 25.4 / 7200.0;
            format!(
                " \"{:.1} × {:.1} mm\"",
                mm(picture.width),
                mm(picture.height)
            )
        } else {
            String::new()
        };
        let image = format!("![{}]({url}{title})", alt.join(" "));
        let caption = self.blocks(&picture.caption, None);
        if caption.is_empty() {
            image
        } else {
            format!("{image}\n\n{caption}")
        }
    }

    /// `$LaTeX$`, or `$$LaTeX$$` for an equation its paragraph holds alone; a script that does
    /// not translate is shown as it is.
    fn equation(&self, equation: &Equation, display: bool) -> String {
        let mut parts = Vec::new();
        match &equation.latex {
            Some(latex) if display => parts.push(format!("$${latex}$$")),
            Some(latex) => parts.push(format!("${latex}$")),
            None => {
                let script = chars::squeeze(&clean(&equation.script));
                if !script.is_empty() {
                    parts.push(escape_line_start(&escape(&script)));
                }
            }
        }
        let caption = self.blocks(&equation.caption, None);
        if !caption.is_empty() {
            parts.push(caption);
        }
        parts.join("\n\n")
    }

    fn shape(&self, shape: &Shape) -> String {
        let inner = join_nonempty(
            &[
                self.blocks(&shape.blocks, None),
                self.blocks(&shape.caption, None),
            ],
            "\n\n",
        );
        if inner.is_empty() {
            return inner;
        }
        let quoted: Vec<String> = inner
            .split('\n')
            .map(|line| {
                if line.is_empty() {
                    ">".to_owned()
                } else {
                    format!("> {line}")
                }
            })
            .collect();
        quoted.join("\n")
    }

    /// Each distinct header (or footer) once, in document order.
    fn page_furniture(&self, doc: &Document, kind: &str) -> Vec<String> {
        let mut seen: Vec<String> = Vec::new();
        for furniture in doc.furniture.iter().filter(|f| f.kind == kind) {
            let text = self.blocks(&furniture.blocks, None);
            if !text.is_empty() && !seen.contains(&text) {
                seen.push(text);
            }
        }
        seen
    }

    /// Each memo after the notes, as a paragraph of its own: its label (`text::memo_label`:
    /// whose note, on which words) in bold, then the note. Never inside the text it annotates.
    fn memos(&self, doc: &Document) -> Vec<String> {
        doc.furniture
            .iter()
            .filter(|f| f.kind == "memo")
            .map(|memo| {
                let label = format!("**{}**", escape(&crate::text::memo_label(memo)));
                let body = self.blocks(&memo.blocks, None);
                if body.is_empty() {
                    label
                } else {
                    format!("{label} {body}")
                }
            })
            .collect()
    }

    fn note_definitions(&self) -> Vec<String> {
        self.notes
            .notes
            .iter()
            .map(|note| {
                let body = self.blocks(note.blocks, None);
                let mut lines = body.split('\n');
                let mut definition = format!("[^{}]: {}", note.label, lines.next().unwrap_or(""));
                for line in lines {
                    definition.push('\n');
                    if !line.is_empty() {
                        definition.push_str("    ");
                        definition.push_str(line);
                    }
                }
                rstrip(&definition).to_owned()
            })
            .collect()
    }
}

/// A form control as the text it shows (`FormControl::shown`), escaped like any text.
fn form_control(control: &FormControl) -> String {
    let shown = control.shown();
    let text = strip(&shown);
    if text.is_empty() {
        return String::new();
    }
    escape_line_start(&escape(text))
}

fn unknown(unknown: &Unknown) -> String {
    let cleaned = clean(unknown.text.as_deref().unwrap_or(""));
    let text = strip(&cleaned);
    if !text.is_empty() {
        let escaped = escape(text);
        let lines: Vec<String> = escaped
            .split('\n')
            .map(strip)
            .filter(|l| !l.is_empty())
            .map(escape_line_start)
            .collect();
        return lines.join("\\\n");
    }
    let name: String = clean(&unknown.object)
        .chars()
        .filter(|&c| is_alnum(c) || matches!(c, '_' | ' ' | '.' | ':' | '-'))
        .collect();
    let name = name.replace("--", "-");
    let name = name.trim_matches([' ', '-']);
    format!(
        "<!-- object: {} -->",
        if name.is_empty() { "unknown" } else { name }
    )
}

/// `_NUMBER_MARKER.fullmatch`: 1–9 digits and `.` or `)`.
/// The number or bullet shown before a heading: the stripped marker, when there is one.
pub(super) fn heading_marker(paragraph: &Paragraph) -> Option<&str> {
    let marker = strip(&paragraph.list.as_ref()?.marker);
    (!marker.is_empty()).then_some(marker)
}

fn is_number_marker(shown: &str) -> bool {
    let after = shown.trim_start_matches(is_decimal);
    let count = shown[..shown.len() - after.len()].chars().count();
    (1..=9).contains(&count) && (after == "." || after == ")")
}

/// Whether the equation at `index` stands alone in the paragraph that anchors it: the model
/// keeps an equation as a block after that paragraph, so the paragraph (same section and
/// paragraph, before it past the other objects it anchors) is missing or blank.
fn stands_alone(blocks: &[Block], index: usize) -> bool {
    let Some(at) = blocks.get(index).map(Block::provenance) else {
        return false;
    };
    for block in blocks[..index].iter().rev() {
        let p = block.provenance();
        if (p.section, p.paragraph) != (at.section, at.paragraph) {
            return true;
        }
        if let Block::Paragraph(paragraph) = block {
            return paragraph_is_empty(paragraph);
        }
    }
    true
}

fn join_nonempty(parts: &[String], separator: &str) -> String {
    let kept: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    kept.join(separator)
}

/// Byte offsets into `text`, in increasing order, as character offsets.
fn char_offsets(text: &str, starts: Vec<Option<usize>>) -> Vec<Option<usize>> {
    let (mut byte, mut count) = (0usize, 0usize);
    starts
        .into_iter()
        .map(|start| {
            start.map(|b| {
                if b < byte {
                    (byte, count) = (0, 0);
                }
                count += text[byte..b].chars().count();
                byte = b;
                count
            })
        })
        .collect()
}

/// Markdown for `doc` and the start of each top-level body block in it (a character offset, or
/// None when the block renders empty), as `render_markdown(doc, include_furniture, block_starts)`.
pub fn render_markdown(doc: &Document, include_furniture: bool) -> (String, Vec<Option<usize>>) {
    render_markdown_with_levels(doc, include_furniture, &heading_levels(doc))
}

/// `render_markdown` with the top-level blocks' heading levels given (`heading_levels`).
pub fn render_markdown_with_levels(
    doc: &Document,
    include_furniture: bool,
    levels: &[Option<u8>],
) -> (String, Vec<Option<usize>>) {
    let renderer = Renderer {
        notes: NoteIndex::new(doc),
        levels: paragraph_levels(doc, levels),
    };
    let mut parts: Vec<String> = Vec::new();
    if include_furniture {
        parts.extend(renderer.page_furniture(doc, "header"));
    }
    let mut length: usize = parts.iter().map(|p| p.len() + 2).sum();
    let mut block_starts = Vec::new();
    for section in &doc.sections {
        let mut starts = Vec::new();
        let text = renderer.blocks(&section.blocks, Some(&mut starts));
        block_starts.extend(starts.into_iter().map(|s| s.map(|s| length + s)));
        if !text.is_empty() {
            length += text.len() + 2;
            parts.push(text);
        }
    }
    if include_furniture {
        parts.extend(renderer.page_furniture(doc, "footer"));
    }
    parts.extend(renderer.note_definitions());
    parts.extend(renderer.memos(doc));
    if parts.is_empty() {
        return (String::new(), block_starts);
    }
    let mut text = parts.join("\n\n");
    text.push('\n');
    let starts = char_offsets(&text, block_starts);
    (text, starts)
}

/// Markdown of one block of `doc` (e.g. a table for a chunk), labelled as in `render_markdown`
/// over the whole document, as `render_block_markdown(doc, block)`: note references get the
/// whole document's labels, the notes themselves are not appended, and no heading is detected.
pub fn render_block_markdown(doc: &Document, blocks: &[&Block]) -> Vec<String> {
    let renderer = Renderer {
        notes: NoteIndex::new(doc),
        levels: HashMap::new(),
    };
    blocks.iter().map(|block| renderer.block(block)).collect()
}

/// `render_block_markdown` of what of each block is printed on `pages` (sorted; `Block::on_pages`:
/// a table laid out over several pages gives its rows on those pages), labelled the same way.
pub fn render_block_markdown_on_pages(
    doc: &Document,
    blocks: &[&Block],
    pages: &[u32],
) -> Vec<String> {
    let mut notes = NoteIndex::new(doc);
    let parts: Vec<Block> = blocks.iter().map(|b| b.on_pages(pages)).collect();
    for (block, part) in blocks.iter().zip(&parts) {
        if let (Block::Table(t), Block::Table(p)) = (block, part) {
            if let Some(kept) = t.cells_on_pages(pages) {
                for (&i, cell) in kept.iter().zip(&p.cells) {
                    notes.alias(&t.cells[i].blocks, &cell.blocks);
                }
                if !p.caption.is_empty() {
                    notes.alias(&t.caption, &p.caption);
                }
            }
        }
    }
    let renderer = Renderer {
        notes,
        levels: HashMap::new(),
    };
    parts.iter().map(|block| renderer.block(block)).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals() {
        assert_eq!(format!("{:.1}", 0.25), "0.2");
    }
}
