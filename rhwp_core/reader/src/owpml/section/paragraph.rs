//! Paragraphs and their runs: a paragraph opens (its heading level or list
//! marker from the header's definitions, and the page it starts on when it
//! is at section level), its text grows run by run, and it closes into a
//! Paragraph block followed by the blocks of the objects anchored in it.

use super::fields::is_deleted;
use super::pages::{set_page, set_row_pages};
use super::{Frame, ParaBuilder, Parser};
use crate::model::CharFormat;
use crate::model::{Block, ListMarker, Paragraph, Provenance, Run};
use crate::numbering::{bullet_char, expand_template, write_number, NumberStyle};
use crate::owpml::header::HeadingKind;
use crate::owpml::xml::{attr_u32, attrs, Tag};

impl Parser<'_> {
    #[inline]
    pub(super) fn open_run(&mut self, e: &Tag<'_, '_>) {
        let style = self.input.header.char_style(attr_u32(e, "charPrIDRef"));
        if let Some(p) = self.para_mut() {
            p.char_style = style;
        }
    }

    pub(super) fn open_para(&mut self, e: &Tag<'_, '_>, depth: u32) {
        let section_level = !self.in_para() && self.object_depth == 0;
        let in_cell = matches!(self.top(), Some(Frame::Cell(_)));
        let header = self.input.header;
        let [para_pr, style_id, page_break, column_break] =
            attrs(e, ["paraPrIDRef", "styleIDRef", "pageBreak", "columnBreak"]);
        let flag = |v: &Option<std::borrow::Cow<'_, str>>| {
            matches!(v.as_deref(), Some("1") | Some("true"))
        };
        let (page_break, column_break) = (flag(&page_break), flag(&column_break));
        let para_pr = para_pr.and_then(|v| v.trim().parse::<u32>().ok());
        let style_id = style_id.and_then(|v| v.trim().parse::<u32>().ok());
        let break_before = if page_break {
            Some("page".to_string())
        } else if column_break {
            Some("column".to_string())
        } else {
            None
        };
        let mut heading_level = None;
        let mut list = None;
        if let Some(h) = header.heading(para_pr) {
            match h.kind {
                HeadingKind::Outline => {
                    heading_level = Some((h.level + 1).min(6));
                    list = self
                        .outline_numbering
                        .map(|id| self.number_marker(id, h.level))
                        .filter(|m| !m.marker.trim().is_empty());
                }
                HeadingKind::Bullet => {
                    let ch = header.bullet(h.id_ref).unwrap_or_default();
                    list = Some(ListMarker {
                        kind: "bullet".into(),
                        level: h.level + 1,
                        marker: bullet_marker(ch),
                    });
                }
                HeadingKind::Number => list = Some(self.number_marker(h.id_ref, h.level)),
            }
        }
        let mut start_page = None;
        if section_level {
            if self.section.paragraph_count == 0 {
                self.blocks_mark = 0;
            }
            self.section_para = self.section.paragraph_count;
            self.section.paragraph_count += 1;
            self.blocks_mark = self.section.blocks.len();
            self.furniture_mark = self.furniture.len();
            self.memos_mark = self.memos.len();
            let st = &mut *self.state;
            if self.first_para_in_section || page_break {
                // Sections and explicit page breaks start a new page.
                st.page += 1;
                st.column = 0;
                st.prev_vertpos = None;
            } else if column_break {
                st.column += 1;
                if st.column >= self.columns {
                    st.page += 1;
                    st.column = 0;
                }
                st.prev_vertpos = None;
            }
            self.first_para_in_section = false;
            start_page = Some(st.page.max(1));
        }
        let para = ParaBuilder {
            text: String::new(),
            chars: 0,
            runs: Vec::new(),
            style_id,
            heading_level,
            list,
            note_refs: Vec::new(),
            break_before,
            objects: Vec::new(),
            char_style: CharFormat::default(),
            section_level,
            in_cell,
            pending_tables: Vec::new(),
            row_pages: Vec::new(),
            start_page,
            saw_lineseg: false,
            open_fields: Vec::new(),
            fields: Vec::new(),
        };
        let mut para = Box::new(para);
        if !self.carried.is_empty() {
            self.take_carried(&mut para, depth);
        }
        self.push(depth, Frame::Para(para));
    }

    fn number_marker(&mut self, numbering_id: u32, level: u8) -> ListMarker {
        let header = self.input.header;
        let numbering = header.numbering(numbering_id);
        let lvl = (level as usize).min(9);
        let start_of = |l: usize| {
            numbering
                .and_then(|n| n.levels.get(l))
                .map(|x| x.start)
                .unwrap_or(1)
                .max(1)
        };
        let counters = self
            .state
            .list_counters
            .entry(numbering_id)
            .or_default()
            .advance(lvl, start_of);
        let template = numbering
            .and_then(|n| n.levels.get(lvl))
            .map(|l| l.text.as_str())
            .unwrap_or("");
        let style_of = |l: usize| {
            NumberStyle::from_owpml(
                numbering
                    .and_then(|n| n.levels.get(l))
                    .map(|x| x.num_format.as_str())
                    .unwrap_or(""),
            )
        };
        let marker = if template.is_empty() {
            let mut out = String::new();
            write_number(&mut out, counters[lvl], style_of(lvl));
            out.push('.');
            out
        } else {
            expand_template(template, |l| {
                let l = l.min(9);
                (counters[l], style_of(l))
            })
        };
        ListMarker {
            kind: "number".into(),
            level: level + 1,
            marker,
        }
    }

    pub(super) fn inline_char(&mut self, c: char) {
        if matches!(self.top(), Some(Frame::Text)) {
            let mut buf = [0u8; 4];
            self.para_text(c.encode_utf8(&mut buf));
        }
    }

    /// Append text to the innermost paragraph, extending its last run when
    /// the formatting and link are the same.
    pub(super) fn para_text(&mut self, t: &str) {
        if self.change.is_some() {
            return self.changed_text(t);
        }
        let link = self.link.as_ref().map(|(_, target)| target.as_str());
        let Some(p) = self.stack.iter_mut().rev().find_map(|(_, f)| match f {
            Frame::Para(p) => Some(p.as_mut()),
            _ => None,
        }) else {
            return;
        };
        let start = p.text.len();
        p.text.push_str(t);
        p.chars += t.chars().count() as u32;
        let cs = p.char_style;
        if let Some((_, last)) = p.runs.last() {
            let same = last.format() == cs && last.link.as_deref() == link && last.change.is_none();
            if same {
                return;
            }
        }
        p.runs.push((start, run_of(cs, link)));
    }

    /// Text inside a tracked change: inserted text is text, in runs marked inserted;
    /// deleted text stays out of the paragraph's text, in runs of its own (their text set).
    #[cold]
    fn changed_text(&mut self, t: &str) {
        let link = self.link.as_ref().map(|(_, target)| target.as_str());
        let change = self.change.clone();
        let deleted = change.as_ref().is_some_and(|c| c.kind == "deleted");
        let Some(p) = self.stack.iter_mut().rev().find_map(|(_, f)| match f {
            Frame::Para(p) => Some(p.as_mut()),
            _ => None,
        }) else {
            return;
        };
        let start = p.text.len();
        if !deleted {
            p.text.push_str(t);
            p.chars += t.chars().count() as u32;
        }
        let cs = p.char_style;
        let mut run = run_of(cs, link);
        run.change = change;
        if let Some((_, last)) = p.runs.last_mut() {
            let same = last.format() == run.format()
                && last.link == run.link
                && last.change.as_ref().map(|c| (&c.kind, &c.author, &c.time))
                    == run.change.as_ref().map(|c| (&c.kind, &c.author, &c.time));
            if same {
                if deleted {
                    last.text.push_str(t);
                }
                return;
            }
        }
        if deleted {
            run.text.push_str(t);
        }
        p.runs.push((start, run));
    }

    pub(super) fn close_para(&mut self, mut p: ParaBuilder, depth: u32) {
        if !p.pending_tables.is_empty() {
            self.tables_before(&mut p, u32::MAX);
        }
        if !p.open_fields.is_empty() {
            self.carry_fields(&mut p, depth);
        }
        if p.fields.len() > 1 {
            p.fields.sort_by_key(|f| f.start);
        }
        let ParaBuilder {
            text,
            chars,
            runs,
            style_id,
            heading_level,
            list,
            note_refs,
            break_before,
            objects,
            section_level,
            start_page,
            fields,
            row_pages,
            ..
        } = p;
        let provenance = Provenance {
            section: self.input.index,
            paragraph: self.section_para,
            char_start: 0,
            char_end: chars,
            page: None,
        };
        // A paragraph whose text was all deleted (tracked) still shows its deleted runs, and
        // one that holds only an empty click-here field still holds the field.
        let shown = !text.is_empty()
            || fields.iter().any(|f| f.kind != "bookmark")
            || runs.iter().any(|(_, r)| is_deleted(r));
        if shown {
            let runs = run_texts(&text, runs);
            self.emit(Block::Paragraph(Paragraph {
                text,
                stored_text: None,
                runs,
                style: self.input.header.style_name(style_id).map(str::to_string),
                heading_level,
                list,
                note_refs,
                break_before,
                fields,
                provenance,
            }));
        }
        for block in objects {
            self.emit(block);
        }
        if section_level && self.state.has_layout {
            let page = start_page;
            let mark = self.blocks_mark.min(self.section.blocks.len());
            set_page(&mut self.section.blocks[mark..], page);
            // The objects follow the paragraph's own block (when it has one), in order.
            let first_object = mark + usize::from(shown);
            for (object, rows) in &row_pages {
                if let Some(Block::Table(table)) =
                    self.section.blocks.get_mut(first_object + object)
                {
                    set_row_pages(table, page, rows);
                }
            }
            let fmark = self.furniture_mark.min(self.furniture.len());
            let mmark = self.memos_mark.min(self.memos.len());
            for f in self.furniture[fmark..]
                .iter_mut()
                .chain(self.memos[mmark..].iter_mut())
            {
                f.provenance.page = page;
                set_page(&mut f.blocks, page);
            }
        }
    }
}

fn run_of(cs: CharFormat, link: Option<&str>) -> Run {
    Run::formatted(String::new(), cs, link.map(str::to_string))
}

/// Bullets often use private-use code points of symbol fonts; show those as a plain bullet.
fn bullet_marker(ch: &str) -> String {
    match ch.chars().next() {
        None => "•".into(),
        Some(c) if bullet_char(c) != c => bullet_char(c).to_string(),
        Some(_) => ch.to_string(),
    }
}

/// The runs of a finished paragraph with their texts cut from its text; none
/// when all of them are plain (what `Document::drop_plain_runs` would leave).
fn run_texts(text: &str, marks: Vec<(usize, Run)>) -> Vec<Run> {
    if marks.iter().all(|(_, r)| r.is_plain()) {
        return Vec::new();
    }
    let ends: Vec<usize> = marks
        .iter()
        .skip(1)
        .map(|(start, _)| *start)
        .chain(std::iter::once(text.len()))
        .collect();
    marks
        .into_iter()
        .zip(ends)
        .map(|((start, mut run), end)| {
            // Deleted runs hold their own text, which is not in the paragraph's.
            if !is_deleted(&run) {
                run.text = text.get(start..end).unwrap_or_default().to_string();
            }
            run
        })
        .collect()
}
