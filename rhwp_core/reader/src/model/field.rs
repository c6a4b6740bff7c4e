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

/// Put the guide of each unfilled click-here field into the paragraph's text where the value
/// would be (`empty_field_shown`), so every view, offset and search sees what 한글 shows. A
/// field is unfilled when it holds nothing, or holds exactly its own guide (HWP 5.0 keeps the
/// guide as the field's text until someone types; HWPX marks it `dirty="0"`). The field then
/// spans the shown guide and its `value` is "". Offsets after it move along: the other fields,
/// note references, the run holding it and the provenance's end.
pub(crate) fn show_empty_fields(p: &mut Paragraph) {
    for i in 0..p.fields.len() {
        let field = &p.fields[i];
        // (The part of a field in a later paragraph is never its blank: the field began earlier.)
        if field.kind != "click_here" || field.continued {
            continue;
        }
        let guide = field.guide.as_deref().map(str::trim).unwrap_or("");
        let holds_guide = !guide.is_empty() && field.value.trim() == guide;
        if !(holds_guide || field.value.is_empty() && field.start == field.end) {
            continue;
        }
        let Some(shown) = empty_field_shown(field.name.as_deref(), field.guide.as_deref()) else {
            continue;
        };
        let (from, to) = (field.start, field.end);
        let added = shown.chars().count() as u32;
        replace_chars(&mut p.text, from, to, &shown);
        replace_in_runs(p, from, to, &shown);
        let moved = |at: u32| {
            if at >= to {
                at - (to - from) + added
            } else {
                at.min(from)
            }
        };
        for (j, other) in p.fields.iter_mut().enumerate() {
            if j == i {
                other.value = String::new();
                other.end = from + added;
            } else {
                other.start = moved(other.start);
                other.end = moved(other.end);
            }
        }
        for r in &mut p.note_refs {
            r.offset = moved(r.offset);
        }
        if p.provenance.char_start <= from && p.provenance.char_end >= to {
            p.provenance.char_end = moved(p.provenance.char_end);
        }
    }
}

/// The byte index of character `at` of `text` (its length past the end).
fn byte_at(text: &str, at: u32) -> usize {
    text.char_indices()
        .nth(at as usize)
        .map_or(text.len(), |(b, _)| b)
}

fn replace_chars(text: &mut String, from: u32, to: u32, with: &str) {
    let (a, b) = (byte_at(text, from), byte_at(text, to));
    text.replace_range(a..b, with);
}

/// Cut characters `[from, to)` of the paragraph out of its runs (deleted runs are not part of
/// the text and are skipped) and put `with` at `from`, in the run that holds that character or
/// ends there: the guide takes that run's formatting. Runs are empty for plain paragraphs.
fn replace_in_runs(p: &mut Paragraph, from: u32, to: u32, with: &str) {
    let mut seen = 0u32;
    let mut target = None;
    let mut last_kept = None;
    for (i, run) in p.runs.iter_mut().enumerate() {
        if run.is_deleted() {
            continue;
        }
        let len = run.text.chars().count() as u32;
        let (a, b) = (from.clamp(seen, seen + len), to.clamp(seen, seen + len));
        if a < b {
            replace_chars(&mut run.text, a - seen, b - seen, "");
        }
        if target.is_none() && (from < seen + len || (len == 0 && from == seen)) {
            target = Some((i, from - seen));
        }
        seen += len;
        last_kept = Some(i);
    }
    match (target, last_kept) {
        (Some((i, at)), _) => {
            let b = byte_at(&p.runs[i].text, at);
            p.runs[i].text.insert_str(b, with);
        }
        (None, Some(i)) => p.runs[i].text.push_str(with),
        (None, None) => {}
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
            continued: false,
        }
    }

    fn paragraph(text: &str, fields: Vec<Field>) -> Paragraph {
        Paragraph {
            text: text.into(),
            stored_text: None,
            fields,
            ..Paragraph::default()
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

    #[test]
    fn a_field_holding_its_own_guide_is_unfilled_and_shown_as_a_blank() {
        let guide = "이곳을 마우스로 누르고 내용을 입력하세요.";
        let text = format!("가{guide}나");
        let mut f = click_here(Some("필드1"), Some(guide), 1, guide);
        f.end = 1 + guide.chars().count() as u32;
        let after = 1 + guide.chars().count() as u32;
        let mut p = paragraph(&text, vec![f, click_here(None, None, after, "나")]);
        p.runs = vec![
            Run {
                text: format!("가{}", &guide[..6]),
                bold: true,
                ..Default::default()
            },
            Run {
                text: format!("{}나", &guide[6..]),
                ..Default::default()
            },
        ];
        show_empty_fields(&mut p);
        let shown = format!("[필드1: {guide}]");
        assert_eq!(p.text, format!("가{shown}나"));
        assert_eq!(p.fields[0].value, "");
        assert_eq!(
            p.fields[0].end - p.fields[0].start,
            shown.chars().count() as u32
        );
        assert_eq!(p.fields[1].start as usize, p.text.chars().count() - 1);
        let joined: String = p.runs.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(joined, p.text);
    }
}
