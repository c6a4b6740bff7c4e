//! `views/html.py`'s `HtmlRenderer`: the blocks of the HTML view (`html`), and the HTML the
//! Markdown view writes for tables GFM cannot show (merged cells, several blocks in a cell):
//! `HtmlRenderer(notes, for_markdown=True)`, which writes note references as
//! `<sup>[^label]</sup>` and keeps formatting whole within words (as the Markdown around it does).

use super::common::{
    block_is_empty_paragraph, inline_pieces, marked_heading, paragraph_is_empty, placed_cells,
    safe_url, Format, NoteIndex, Piece,
};
use crate::common::chars::{clean, decimal_value, is_decimal, lstrip, strip, words};
use crate::model::{
    Block, Equation, FormControl, ListMarker, Paragraph, Picture, Shape, Table, TableCell, Unknown,
};
use std::collections::HashMap;

/// Escaped text with line breaks as `<br>`.
pub fn text(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' => out.push_str("<br>"),
            c if crate::common::chars::is_forbidden(c) => {}
            c => out.push(c),
        }
    }
}

/// An attribute value: spaces squeezed, quotes escaped too.
pub fn attr(value: &str) -> String {
    let cleaned = clean(value);
    let mut out = String::with_capacity(value.len());
    for (i, word) in words(&cleaned).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        for c in word.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#x27;"),
                c => out.push(c),
            }
        }
    }
    out
}

fn formatted(paragraph: &Paragraph) -> bool {
    paragraph.runs.iter().any(|r| !r.is_plain())
}

/// HWPUNIT to CSS pixels, rounded half to even as Python's `round`.
fn px(hwpunit: u32) -> i64 {
    (f64::from(hwpunit) / 75.0).round_ties_even().max(0.0) as i64
}

const MAX_EMPTY_ROWS: u64 = 1000;

/// `_NUMERIC_MARKER` (`^\s*(\d{1,9})\s*[.)]?\s*$`): the number of a marker HTML can count.
fn numeric_marker(marker: &str) -> Option<u64> {
    let rest = lstrip(marker);
    let tail = rest.trim_start_matches(is_decimal);
    let digits = &rest[..rest.len() - tail.len()];
    let count = digits.chars().count();
    if !(1..=9).contains(&count) {
        return None;
    }
    let tail = lstrip(tail);
    let tail = tail.strip_prefix(['.', ')']).unwrap_or(tail);
    if !strip(tail).is_empty() {
        return None;
    }
    Some(
        digits
            .chars()
            .fold(0, |n, c| n * 10 + u64::from(decimal_value(c).unwrap_or(0))),
    )
}

pub struct HtmlFragment<'n, 'a> {
    pub(super) notes: &'n NoteIndex<'a>,
    pub out: Vec<String>,
    for_markdown: bool,
    /// Headings known by their chapter number only, by paragraph address.
    levels: Option<&'n HashMap<*const Paragraph, u8>>,
    /// How many references to each note label were written (the HTML view's back links).
    pub(super) ref_ids: HashMap<String, u32>,
}

impl<'n, 'a> HtmlFragment<'n, 'a> {
    /// The Markdown view's renderer (`for_markdown=True`).
    pub fn new(notes: &'n NoteIndex<'a>) -> Self {
        HtmlFragment {
            notes,
            out: Vec::new(),
            for_markdown: true,
            levels: None,
            ref_ids: HashMap::new(),
        }
    }

    /// The HTML view's renderer.
    pub fn for_html(
        notes: &'n NoteIndex<'a>,
        levels: Option<&'n HashMap<*const Paragraph, u8>>,
    ) -> Self {
        HtmlFragment {
            notes,
            out: Vec::new(),
            for_markdown: false,
            levels,
            ref_ids: HashMap::new(),
        }
    }

    fn level_of(&self, p: &Paragraph) -> Option<u8> {
        self.levels
            .and_then(|l| l.get(&(p as *const Paragraph)).copied())
    }

    fn inline(&mut self, paragraph: &Paragraph) -> String {
        let mut html = String::new();
        if paragraph.note_refs.is_empty() && !formatted(paragraph) {
            text(&paragraph.text, &mut html);
            return html;
        }
        for piece in inline_pieces(paragraph, self.for_markdown) {
            match piece {
                Piece::Text(value, format) => self.piece(&value, &format, &mut html),
                Piece::Note(r) => match self.notes.note_for(r) {
                    Some(note) if self.for_markdown => {
                        html.push_str(&format!("<sup>[^{}]</sup>", note.label));
                    }
                    Some(note) => {
                        let prefix = if note.kind == "footnote" { "fn" } else { "en" };
                        let count = self.ref_ids.entry(note.label.clone()).or_insert(0);
                        *count += 1;
                        let mut ref_id = format!("{prefix}ref-{}", note.label);
                        if *count > 1 {
                            ref_id.push_str(&format!("-{count}"));
                        }
                        html.push_str(&format!(
                            "<sup class=\"{}-ref\"><a href=\"#{prefix}-{}\" id=\"{ref_id}\" \
                             role=\"doc-noteref\">{}</a></sup>",
                            note.kind, note.label, note.number
                        ));
                    }
                    None => html.push_str(&format!("<sup class=\"note-ref\">{}</sup>", r.number)),
                },
            }
        }
        html
    }

    fn piece(&self, value: &str, format: &Format<'_>, html: &mut String) {
        let mut inner = String::new();
        text(value, &mut inner);
        for (on, tag) in [
            (format.chars.subscript, "sub"),
            (format.chars.superscript, "sup"),
            (format.chars.strike, "s"),
            (format.chars.underline, "u"),
            (format.chars.italic, "em"),
            (format.chars.bold, "strong"),
        ] {
            if on {
                inner = format!("<{tag}>{inner}</{tag}>");
            }
        }
        if let Some(url) = safe_url(format.link) {
            inner = format!("<a href=\"{}\">{inner}</a>", attr(&url));
        }
        html.push_str(&inner);
    }

    /// Sibling blocks; consecutive list paragraphs become (nested) lists.
    pub fn blocks(&mut self, blocks: &[Block]) {
        let mut open: Vec<(u8, &'static str)> = Vec::new();
        for block in blocks {
            if let Block::Paragraph(p) = block {
                let listed = p
                    .list
                    .as_ref()
                    .filter(|_| !marked_heading(p) && self.level_of(p).is_none());
                if let Some(marker) = listed {
                    if !paragraph_is_empty(p) {
                        self.list_item(p, marker, &mut open);
                    }
                    continue;
                }
                if paragraph_is_empty(p) {
                    continue;
                }
            }
            self.close_lists(&mut open, 0);
            self.block(block);
        }
        self.close_lists(&mut open, 0);
    }

    fn close_lists(&mut self, open: &mut Vec<(u8, &'static str)>, level: u8) {
        while open.last().is_some_and(|&(l, _)| l > level) {
            if let Some((_, tag)) = open.pop() {
                self.out.push(format!("</li></{tag}>"));
            }
        }
    }

    fn list_item(
        &mut self,
        p: &Paragraph,
        marker: &ListMarker,
        open: &mut Vec<(u8, &'static str)>,
    ) {
        let level = marker.level.max(1);
        let numeric = numeric_marker(&marker.marker);
        let tag = if marker.kind == "number" { "ol" } else { "ul" };
        self.close_lists(open, level);
        if let Some(&(l, t)) = open.last() {
            if l == level {
                if t == tag {
                    self.out.push("</li>".to_owned());
                } else {
                    open.pop();
                    self.out.push(format!("</li></{t}>"));
                }
            }
        }
        if open.last().is_none_or(|&(l, _)| l < level) {
            self.out.push(format!("<{tag}>"));
            open.push((level, tag));
        }
        let has_marker = !strip(&marker.marker).is_empty();
        let mut attributes = if has_marker {
            format!(" data-marker=\"{}\"", attr(&marker.marker))
        } else {
            String::new()
        };
        let mut shown = String::new();
        if tag == "ol" {
            if let Some(n) = numeric {
                attributes.push_str(&format!(" value=\"{n}\""));
            } else if has_marker {
                attributes.push_str(" style=\"list-style-type: none\"");
                shown.push_str("<span class=\"list-marker\">");
                text(&marker.marker, &mut shown);
                shown.push_str("</span> ");
            }
        }
        let inline = self.inline(p);
        self.out.push(format!("<li{attributes}>{shown}{inline}"));
    }

    fn block(&mut self, block: &Block) {
        match block {
            Block::Paragraph(p) => self.paragraph(p),
            Block::Table(t) => self.table(t, None),
            Block::Picture(p) => self.picture(p),
            Block::Equation(e) => self.equation(e),
            Block::Shape(s) => self.shape(s),
            Block::FormControl(c) => self.form_control(c),
            Block::Unknown(u) => self.unknown(u),
        }
    }

    fn paragraph(&mut self, p: &Paragraph) {
        if paragraph_is_empty(p) {
            return;
        }
        let attributes = match &p.break_before {
            Some(b) if !b.is_empty() => format!(" data-break=\"{}\"", attr(b)),
            _ => String::new(),
        };
        let inline = self.inline(p);
        match p
            .heading_level
            .filter(|&l| l > 0)
            .or_else(|| self.level_of(p).filter(|&l| l > 0))
        {
            Some(level) => {
                let level = level.clamp(1, 6);
                // The heading's number, marked as list items' markers are.
                let mut shown = String::new();
                if let Some(marker) = super::markdown::heading_marker(p) {
                    shown.push_str("<span class=\"list-marker\">");
                    text(marker, &mut shown);
                    shown.push_str("</span> ");
                }
                self.out
                    .push(format!("<h{level}{attributes}>{shown}{inline}</h{level}>"));
            }
            None => self.out.push(format!("<p{attributes}>{inline}</p>")),
        }
    }

    fn caption_div(&mut self, caption: &[Block]) {
        if caption.iter().any(|b| !block_is_empty_paragraph(b)) {
            self.out.push("<div class=\"caption\">".to_owned());
            self.blocks(caption);
            self.out.push("</div>".to_owned());
        }
    }

    /// `placed`: the cells' positions when the caller has them; `skip_caption` for the Markdown
    /// view, which writes the caption itself.
    pub fn table(&mut self, table: &Table, placed: Option<Vec<(&TableCell, u64, u64)>>) {
        self.table_with(table, placed, false);
    }

    pub fn table_with(
        &mut self,
        table: &Table,
        placed: Option<Vec<(&TableCell, u64, u64)>>,
        skip_caption: bool,
    ) {
        let caption: &[Block] = if skip_caption { &[] } else { &table.caption };
        self.out.push("<table class=\"hwp-table\">".to_owned());
        let caption_inside = caption.iter().all(|b| matches!(b, Block::Paragraph(_)));
        if caption_inside
            && caption
                .iter()
                .any(|b| matches!(b, Block::Paragraph(p) if !paragraph_is_empty(p)))
        {
            self.out.push("<caption>".to_owned());
            self.blocks(caption);
            self.out.push("</caption>".to_owned());
        }
        self.out.push("<tbody>".to_owned());
        let mut placed = placed.unwrap_or_else(|| placed_cells(table));
        // Rows in order, each row's cells by column, both stable (as the dict and sorts in Python).
        placed.sort_by_key(|&(_, row, col)| (row, col));
        let mut previous: i128 = -1;
        let mut index = 0;
        while index < placed.len() {
            let row = placed[index].1;
            let gap = (i128::from(row) - previous - 1).clamp(0, i128::from(MAX_EMPTY_ROWS));
            for _ in 0..gap {
                self.out.push("<tr></tr>".to_owned());
            }
            previous = i128::from(row);
            self.out.push("<tr>".to_owned());
            while index < placed.len() && placed[index].1 == row {
                self.cell(placed[index].0);
                index += 1;
            }
            self.out.push("</tr>".to_owned());
        }
        self.out.push("</tbody></table>".to_owned());
        if !caption_inside {
            self.caption_div(caption);
        }
    }

    fn cell(&mut self, cell: &TableCell) {
        let tag = if cell.header { "th" } else { "td" };
        let mut attributes = String::new();
        if cell.row_span > 1 {
            attributes.push_str(&format!(" rowspan=\"{}\"", cell.row_span));
        }
        if cell.col_span > 1 {
            attributes.push_str(&format!(" colspan=\"{}\"", cell.col_span));
        }
        let content: Vec<&Block> = cell
            .blocks
            .iter()
            .filter(|b| !block_is_empty_paragraph(b))
            .collect();
        if let [Block::Paragraph(only)] = content.as_slice() {
            if only.list.is_none() && !marked_heading(only) {
                // One plain paragraph: its text goes straight into the cell, without a <p>.
                let inline = self.inline(only);
                self.out
                    .push(format!("<{tag}{attributes}>{inline}</{tag}>"));
                return;
            }
        }
        if content.is_empty() {
            self.out.push(format!("<{tag}{attributes}></{tag}>"));
            return;
        }
        self.out.push(format!("<{tag}{attributes}>"));
        // Python renders the filtered list; the cell's own blocks render the same, since empty
        // paragraphs are skipped without closing a list.
        self.blocks(&cell.blocks);
        self.out.push(format!("</{tag}>"));
    }

    fn picture(&mut self, picture: &Picture) {
        let mut attributes = String::new();
        if let Some(name) = picture.bin_data_name.as_deref().filter(|n| !n.is_empty()) {
            if let Some(url) = safe_url(Some(name)) {
                attributes.push_str(&format!(" src=\"{}\"", attr(&url)));
            }
            attributes.push_str(&format!(" data-bin-data=\"{}\"", attr(name)));
        }
        attributes.push_str(&format!(
            " alt=\"{}\"",
            attr(picture.description.as_deref().unwrap_or(""))
        ));
        if picture.width != 0 && picture.height != 0 {
            attributes.push_str(&format!(
                " width=\"{}\" height=\"{}\"",
                px(picture.width),
                px(picture.height)
            ));
        }
        self.out
            .push(format!("<figure class=\"picture\"><img{attributes}>"));
        if picture
            .caption
            .iter()
            .all(|b| matches!(b, Block::Paragraph(_)))
        {
            if picture
                .caption
                .iter()
                .any(|b| matches!(b, Block::Paragraph(p) if !paragraph_is_empty(p)))
            {
                self.out.push("<figcaption>".to_owned());
                self.blocks(&picture.caption);
                self.out.push("</figcaption>".to_owned());
            }
            self.out.push("</figure>".to_owned());
        } else {
            self.out.push("</figure>".to_owned());
            self.caption_div(&picture.caption);
        }
    }

    /// The LaTeX between `\(` and `\)` (for MathJax or KaTeX's auto-render), 한글's script kept
    /// in `data-script`; a script that does not translate is shown as it is.
    fn equation(&mut self, equation: &Equation) {
        let script = crate::common::chars::squeeze(&clean(&equation.script));
        if !script.is_empty() {
            let mut shown = String::new();
            match &equation.latex {
                Some(latex) => {
                    text(&format!("\\({latex}\\)"), &mut shown);
                    self.out.push(format!(
                        "<p class=\"equation-block\"><span class=\"equation\" data-script=\"{}\">{shown}</span></p>",
                        attr(&script)
                    ));
                }
                None => {
                    text(&script, &mut shown);
                    self.out.push(format!(
                        "<p class=\"equation-block\"><span class=\"equation untranslated\">{shown}</span></p>"
                    ));
                }
            }
        }
        self.caption_div(&equation.caption);
    }

    fn shape(&mut self, shape: &Shape) {
        self.out.push(format!(
            "<div class=\"shape\" data-shape=\"{}\">",
            attr(&shape.shape_kind)
        ));
        self.blocks(&shape.blocks);
        self.caption_div(&shape.caption);
        self.out.push("</div>".to_owned());
    }

    /// A form control as the text it shows (`FormControl::shown`), marked as a control with
    /// its kind and, for boxes that tick, its state (so styles and scripts need not parse ☑).
    fn form_control(&mut self, control: &FormControl) {
        let shown = control.shown();
        let mut body = String::new();
        text(strip(&shown), &mut body);
        let state = match control.checked {
            Some(true) => " data-checked=\"true\"",
            Some(false) => " data-checked=\"false\"",
            None => "",
        };
        self.out.push(format!(
            "<p class=\"form-control\" data-control=\"{}\"{state}>{body}</p>",
            attr(&control.control)
        ));
    }

    fn unknown(&mut self, unknown: &Unknown) {
        let cleaned = clean(unknown.text.as_deref().unwrap_or(""));
        let value = strip(&cleaned);
        let mut body = String::new();
        if !value.is_empty() {
            body.push_str("<p>");
            text(value, &mut body);
            body.push_str("</p>");
        }
        self.out.push(format!(
            "<div class=\"object\" data-object=\"{}\">{body}</div>",
            attr(&unknown.object)
        ));
    }
}
