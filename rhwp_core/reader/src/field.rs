//! What HWP 5.0 and HWPX share about fields: a hyperlink field's command string.
//!
//! Both formats store a hyperlink as `target;flags...`, with `\` escaping `:` and `;` inside the
//! target; each format then tidies the target its own way.

/// The raw target of a hyperlink command: up to the first unescaped `;`, `\` escapes removed.
pub(crate) fn unescaped_target(command: &str) -> String {
    let mut out = String::with_capacity(command.len());
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            ';' => break,
            _ => out.push(c),
        }
    }
    out
}

use crate::model::Paragraph;

/// What an empty click-here field shows in its place: `[name: guide]` (or `[guide]`, `[name]`).
///
/// 한글 shows an empty click-here field (누름틀) as its guide text, in its own colour, where the
/// value will go; a reader of our text needs to see the same blank with what it asks for, and
/// to tell it from text the document holds: hence the brackets, with the field's name when it
/// has one (`[성명: 이름을 입력하세요]`). `None` when the field has neither.
pub(crate) fn empty_field_shown(name: Option<&str>, guide: Option<&str>) -> Option<String> {
    let name = name.map(str::trim).filter(|s| !s.is_empty());
    let guide = guide.map(str::trim).filter(|s| !s.is_empty());
    match (name, guide) {
        (Some(n), Some(g)) if n != g => Some(format!("[{n}: {g}]")),
        (_, Some(g)) => Some(format!("[{g}]")),
        (Some(n), None) => Some(format!("[{n}]")),
        (None, None) => None,
    }
}

/// Put the guide of each empty click-here field into the paragraph's text where the value
/// would be (`empty_field_shown`), so every view, offset and search sees what 한글 shows. The
/// field then spans the shown guide, its `value` stays "". Offsets after it move along: the
/// other fields, note references, the run holding it and the provenance's end.
pub(crate) fn show_empty_fields(p: &mut Paragraph) {
    let mut shift = 0u32;
    for i in 0..p.fields.len() {
        let field = &mut p.fields[i];
        field.start += shift;
        field.end += shift;
        let empty =
            field.kind == "click_here" && field.value.is_empty() && field.start == field.end;
        if !empty {
            continue;
        }
        let Some(shown) = empty_field_shown(field.name.as_deref(), field.guide.as_deref()) else {
            continue;
        };
        let at = field.start;
        let added = shown.chars().count() as u32;
        field.end = at + added;
        insert_chars(&mut p.text, at, &shown);
        insert_into_runs(p, at, &shown);
        for r in &mut p.note_refs {
            if r.offset >= at {
                r.offset += added;
            }
        }
        if p.provenance.char_end >= at && p.provenance.char_start <= at {
            p.provenance.char_end += added;
        }
        shift += added;
    }
}

fn insert_chars(text: &mut String, at: u32, what: &str) {
    let byte = text
        .char_indices()
        .nth(at as usize)
        .map_or(text.len(), |(b, _)| b);
    text.insert_str(byte, what);
}

/// Insert into the run (not a deleted one) whose text holds character `at` of the paragraph,
/// or ends there: the guide takes that run's formatting. Runs are empty for plain paragraphs.
fn insert_into_runs(p: &mut Paragraph, at: u32, what: &str) {
    let mut seen = 0u32;
    let mut last_kept = None;
    for (i, run) in p.runs.iter().enumerate() {
        if run.is_deleted() {
            continue;
        }
        let len = run.text.chars().count() as u32;
        if at < seen + len || (at == seen + len && at == seen) {
            insert_chars(&mut p.runs[i].text, at - seen, what);
            return;
        }
        seen += len;
        last_kept = Some(i);
    }
    if let Some(i) = last_kept {
        let end = p.runs[i].text.chars().count() as u32;
        insert_chars(&mut p.runs[i].text, end, what);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Field, NoteRef, Run, TrackedChange};

    fn click_here(name: Option<&str>, guide: Option<&str>, at: u32, value: &str) -> Field {
        Field {
            kind: "click_here".into(),
            name: name.map(Into::into),
            guide: guide.map(Into::into),
            editable: true,
            value: value.into(),
            start: at,
            end: at + value.chars().count() as u32,
        }
    }

    fn paragraph(text: &str, fields: Vec<Field>) -> Paragraph {
        Paragraph {
            text: text.into(),
            runs: Vec::new(),
            style: None,
            heading_level: None,
            list: None,
            note_refs: Vec::new(),
            break_before: None,
            fields,
            provenance: Default::default(),
        }
    }

    #[test]
    fn an_empty_click_here_field_shows_its_name_and_guide_in_place() {
        let mut p = paragraph(
            "성명: 전화: 홍길동",
            vec![
                click_here(Some("성명"), Some("이름을 입력하세요"), 3, ""),
                click_here(Some("전화"), Some("전화"), 7, ""),
                click_here(None, None, 8, "홍길동"),
            ],
        );
        p.note_refs.push(NoteRef {
            kind: "footnote".into(),
            number: 1,
            offset: 11,
        });
        p.provenance.char_end = 11;
        show_empty_fields(&mut p);
        assert_eq!(p.text, "성명:[성명: 이름을 입력하세요] 전화:[전화] 홍길동");
        let shown: Vec<String> = p
            .fields
            .iter()
            .map(|f| {
                p.text
                    .chars()
                    .skip(f.start as usize)
                    .take((f.end - f.start) as usize)
                    .collect()
            })
            .collect();
        assert_eq!(shown, ["[성명: 이름을 입력하세요]", "[전화]", "홍길동"]);
        assert!(p.fields.iter().take(2).all(|f| f.value.is_empty()));
        // The note mark after the last field moved with the text.
        assert_eq!(p.note_refs[0].offset as usize, p.text.chars().count());
        assert_eq!(p.provenance.char_end as usize, p.text.chars().count());
    }

    #[test]
    fn a_field_without_name_or_guide_and_a_filled_one_change_nothing() {
        let mut p = paragraph(
            "값",
            vec![
                click_here(None, None, 0, ""),
                click_here(Some("a"), Some("b"), 0, "값"),
            ],
        );
        show_empty_fields(&mut p);
        assert_eq!(p.text, "값");
    }

    #[test]
    fn the_guide_goes_into_the_run_at_its_place_skipping_deleted_runs() {
        let run = |text: &str, deleted: bool| Run {
            text: text.into(),
            bold: !deleted,
            change: deleted.then(|| TrackedChange {
                kind: "deleted".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut p = paragraph("가나", vec![click_here(Some("이름"), None, 1, "")]);
        p.runs = vec![run("가", false), run("지움", true), run("나", false)];
        show_empty_fields(&mut p);
        assert_eq!(p.text, "가[이름]나");
        let kept: String = p
            .runs
            .iter()
            .filter(|r| !r.is_deleted())
            .map(|r| r.text.as_str())
            .collect();
        assert_eq!(kept, p.text);
        assert_eq!(p.runs[1].text, "지움");
    }
}
