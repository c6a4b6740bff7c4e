//! Filling a form, whatever its format: what is asked (keys and values), what a format's writer
//! found fillable in its document (a `FormMap`: click-here fields and table cells, each with
//! where it is), which place each key names, and the answer (`Plan`).
//!
//! A key names, in this order: click-here fields of that name (all of them, as 한글 fills every
//! field of one name); table cells of that field name; a label cell, one whose text is the key
//! (spaces and a trailing colon ignored: forms space out `성 명`), whose empty neighbour, to the
//! right or else below (across merged cells, by the grid), takes the value. A label found in two
//! cells is ambiguous: both are listed with their addresses and nothing is guessed. A neighbour
//! already holding exactly the value counts as empty, so filling a filled form again changes
//! nothing.

use crate::error::{Error, ErrorCode, Result};
use serde::Serialize;

/// One value as the caller gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    /// Lines of a multi-line value.
    Lines(Vec<String>),
    /// A checkbox's or radio button's state.
    Flag(bool),
}

impl Value {
    /// The value as text for a text place (a field or a cell); a flag has none.
    pub fn text(&self, key: &str) -> Result<String> {
        match self {
            Value::Text(s) => Ok(s.clone()),
            Value::Lines(lines) => Ok(lines.join("\n")),
            Value::Flag(_) => Err(Error {
                code: ErrorCode::InvalidInput,
                message: format!("\"{key}\" names a text place but was given true/false"),
                suggestion: "Give a text value (a string) for fields and cells; true/false is for checkboxes and radio buttons.".into(),
            }),
        }
    }
}

/// Where a filled place is: the part or stream, the section, the section-level paragraph that
/// holds it (its index among the section's paragraphs), and the chain of table cells from that
/// paragraph inwards (outermost first; empty outside tables).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Address {
    pub part: String,
    pub section: u32,
    pub paragraph: u32,
    pub cells: Vec<CellAt>,
}

/// A cell in its table's grid (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CellAt {
    pub row: u32,
    pub col: u32,
}

/// One place filled (or, in a dry run, to be filled).
#[derive(Debug, Clone, Serialize)]
pub struct Filled {
    pub key: String,
    /// `click_here`, `cell` (a named cell) or `label` (the cell beside a label).
    pub kind: &'static str,
    /// The field's or cell's name; for a label, the label's text.
    pub name: String,
    pub address: Address,
    pub before: String,
    pub after: String,
    /// How many of the section's own paragraphs the place spans before and after filling: a
    /// field over several section-level paragraphs gets a paragraph per line of its value, so the
    /// section's later paragraphs move (the read-back check follows them).
    pub span_before: u32,
    pub span_after: u32,
}

/// A key that names more than one place where only one may be meant.
#[derive(Debug, Clone, Serialize)]
pub struct Ambiguous {
    pub key: String,
    pub candidates: Vec<Address>,
}

/// What a fill did (or would do).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    pub filled: Vec<Filled>,
    pub unmatched: Vec<String>,
    pub ambiguous: Vec<Ambiguous>,
    pub warnings: Vec<String>,
}

/// A writer's answer: the new document (None when nothing changed) and the plan.
pub struct Output {
    pub bytes: Option<Vec<u8>>,
    pub plan: Plan,
    /// The parts or streams rewritten (every other one is as it was).
    pub changed_parts: Vec<String>,
}

/// A click-here field a writer can fill.
#[derive(Debug, Clone)]
pub struct FieldSite {
    pub name: String,
    pub before: String,
    pub address: Address,
    /// Whether it sits in one of the section's own paragraphs (not in a table, box or note).
    pub section_level: bool,
    /// How many paragraphs its text runs over (1 for most).
    pub paragraphs: u32,
    /// Why it cannot be filled, if it cannot (it holds an object, it runs over paragraphs).
    pub refused: Option<String>,
}

/// A table cell as a writer found it.
#[derive(Debug, Clone)]
pub struct CellSite {
    /// The table it belongs to (an index the writer chose; cells of one table share it).
    pub table: usize,
    pub row: u32,
    pub col: u32,
    pub row_span: u32,
    pub col_span: u32,
    pub name: Option<String>,
    /// Its text, paragraphs joined by `\n`.
    pub text: String,
    /// Whether it holds only text (no table, picture or control): only such a cell is filled.
    pub text_only: bool,
    pub address: Address,
}

/// What a writer found fillable in a document.
#[derive(Debug, Default)]
pub struct FormMap {
    pub fields: Vec<FieldSite>,
    pub cells: Vec<CellSite>,
    pub controls: Vec<ControlSite>,
}

/// A form control (양식 개체) a writer can set.
#[derive(Debug, Clone)]
pub struct ControlSite {
    /// `checkbox`, `radio`, `edit`, `combo_box` or `list_box`.
    pub kind: &'static str,
    pub name: String,
    /// A checkbox's or radio button's state (`true`/`false`), or the text or choice.
    pub value: String,
    /// A combo or list box's choices; empty when any text goes (an editable combo box).
    pub options: Vec<String>,
    /// A radio button's group (the others of the group are cleared when it is set).
    pub group: Option<String>,
    pub address: Address,
}

/// One place a key fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Field(usize),
    Cell(usize),
    Control(usize),
}

/// A key resolved: each place it fills, with the value as text.
#[derive(Debug, Clone)]
pub struct Target {
    pub place: Place,
    pub text: String,
}

/// A label's spelling reduced to what tells it: no whitespace, no trailing colon, NFC-free
/// (Hangul in forms is precomposed).
fn label_form(s: &str) -> String {
    let kept: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    kept.trim_end_matches([':', '：']).to_string()
}

/// The cell covering grid position (row, col) of a table.
fn cell_at(map: &FormMap, table: usize, row: u32, col: u32) -> Option<usize> {
    map.cells.iter().position(|c| {
        c.table == table
            && row >= c.row
            && row < c.row + c.row_span.max(1)
            && col >= c.col
            && col < c.col + c.col_span.max(1)
    })
}

/// The neighbour of a label cell that takes the value: the cell to its right when it is empty
/// (or already holds the value), else the one below.
fn label_target(map: &FormMap, label: usize, text: &str) -> Option<usize> {
    let l = &map.cells[label];
    let takes = |i: &usize| {
        let c = &map.cells[*i];
        *i != label && c.text_only && (c.text.trim().is_empty() || c.text == text)
    };
    let right = cell_at(map, l.table, l.row, l.col + l.col_span.max(1));
    let below = cell_at(map, l.table, l.row + l.row_span.max(1), l.col);
    right.filter(takes).or(below.filter(takes))
}

/// What a control is set to: a checkbox or radio button takes true/false ("true"/"false"), an
/// edit box text, a combo or list box one of its choices (any text when it has none listed).
fn control_value(key: &str, site: &ControlSite, value: &Value) -> Result<String> {
    let refuse = |message: String, suggestion: String| Error {
        code: ErrorCode::InvalidInput,
        message,
        suggestion,
    };
    match (site.kind, value) {
        ("checkbox" | "radio", Value::Flag(on)) => Ok(on.to_string()),
        ("checkbox" | "radio", _) => Err(refuse(
            format!("\"{key}\" is a {} and takes true or false", site.kind),
            "Give true to tick it, false to clear it.".into(),
        )),
        (_, Value::Flag(_)) => Err(refuse(
            format!(
                "\"{key}\" is a {} and takes text, not true/false",
                site.kind
            ),
            "Give the text (or, for a combo or list box, one of its choices).".into(),
        )),
        ("combo_box" | "list_box", v) => {
            let text = v.text(key)?;
            if site.options.is_empty() || site.options.contains(&text) {
                Ok(text)
            } else {
                Err(refuse(
                    format!("\"{text}\" is not a choice of the {} \"{key}\"", site.kind),
                    format!("Give one of: {}", site.options.join(", ")),
                ))
            }
        }
        (_, v) => v.text(key),
    }
}

/// A cell filled (by its name or by a label beside it).
fn cell_filled(key: &str, kind: &'static str, name: String, site: &CellSite, text: &str) -> Filled {
    Filled {
        key: key.to_string(),
        kind,
        name,
        address: site.address.clone(),
        before: site.text.clone(),
        after: text.to_string(),
        span_before: 1,
        span_after: 1,
    }
}

/// Resolve every key against the map: the targets to write, and the plan (filled entries with
/// before and after; unmatched and ambiguous keys; warnings for places that cannot be filled).
pub fn resolve(map: &FormMap, values: &[(String, Value)]) -> Result<(Vec<Target>, Plan)> {
    let mut plan = Plan::default();
    let mut targets = Vec::new();
    for (key, value) in values {
        let fields: Vec<usize> = (0..map.fields.len())
            .filter(|&i| map.fields[i].name == *key)
            .collect();
        if !fields.is_empty() {
            let text = value.text(key)?;
            for i in fields {
                let site = &map.fields[i];
                if let Some(why) = &site.refused {
                    plan.warnings
                        .push(format!("click-here field \"{key}\" is not filled: {why}"));
                    continue;
                }
                let (span_before, span_after) = if site.section_level && site.paragraphs > 1 {
                    (site.paragraphs, text.split('\n').count() as u32)
                } else {
                    (1, 1)
                };
                plan.filled.push(Filled {
                    key: key.clone(),
                    kind: "click_here",
                    name: site.name.clone(),
                    address: site.address.clone(),
                    before: site.before.clone(),
                    after: text.clone(),
                    span_before,
                    span_after,
                });
                targets.push(Target {
                    place: Place::Field(i),
                    text: text.clone(),
                });
            }
            if !plan.filled.iter().any(|f| f.key == *key) {
                plan.unmatched.push(key.clone());
            }
            continue;
        }
        let named: Vec<usize> = (0..map.cells.len())
            .filter(|&i| map.cells[i].name.as_deref() == Some(key.as_str()))
            .collect();
        if !named.is_empty() {
            let text = value.text(key)?;
            let mut any = false;
            for i in named {
                let site = &map.cells[i];
                if !site.text_only {
                    plan.warnings.push(format!(
                        "cell \"{key}\" is not filled: it holds a table, picture or control, not only text"
                    ));
                    continue;
                }
                any = true;
                plan.filled
                    .push(cell_filled(key, "cell", key.clone(), site, &text));
                targets.push(Target {
                    place: Place::Cell(i),
                    text: text.clone(),
                });
            }
            if !any {
                plan.unmatched.push(key.clone());
            }
            continue;
        }
        let controls: Vec<usize> = (0..map.controls.len())
            .filter(|&i| map.controls[i].name == *key)
            .collect();
        if !controls.is_empty() {
            for i in controls {
                let site = &map.controls[i];
                let after = control_value(key, site, value)?;
                plan.filled.push(Filled {
                    key: key.clone(),
                    kind: site.kind,
                    name: site.name.clone(),
                    address: site.address.clone(),
                    before: site.value.clone(),
                    after: after.clone(),
                    span_before: 1,
                    span_after: 1,
                });
                targets.push(Target {
                    place: Place::Control(i),
                    text: after,
                });
            }
            continue;
        }
        let wanted = label_form(key);
        let labels: Vec<usize> = if wanted.is_empty() {
            Vec::new()
        } else {
            (0..map.cells.len())
                .filter(|&i| label_form(&map.cells[i].text) == wanted)
                .collect()
        };
        match labels.as_slice() {
            [] => plan.unmatched.push(key.clone()),
            [label] => {
                let text = value.text(key)?;
                match label_target(map, *label, &text) {
                    Some(i) => {
                        let name = map.cells[*label].text.clone();
                        plan.filled
                            .push(cell_filled(key, "label", name, &map.cells[i], &text));
                        targets.push(Target {
                            place: Place::Cell(i),
                            text,
                        });
                    }
                    None => {
                        plan.warnings.push(format!(
                            "label \"{key}\" found, but neither the cell to its right nor the one below is empty"
                        ));
                        plan.unmatched.push(key.clone());
                    }
                }
            }
            several => plan.ambiguous.push(Ambiguous {
                key: key.clone(),
                candidates: several
                    .iter()
                    .map(|&i| map.cells[i].address.clone())
                    .collect(),
            }),
        }
    }
    // Two keys on one place would overwrite each other: the caller must choose.
    for (k, a) in targets.iter().enumerate() {
        if let Some(b) = targets[..k].iter().find(|b| b.place == a.place) {
            if b.text != a.text {
                return Err(Error {
                    code: ErrorCode::InvalidInput,
                    message: "two keys fill the same place with different values".into(),
                    suggestion:
                        "Give each place one key (a label and a cell name may name the same cell)."
                            .into(),
                });
            }
        }
    }
    Ok((targets, plan))
}

/// The refusal for a format no writer writes.
pub fn not_writable(format: &str, why: &str) -> Error {
    Error::unsupported(
        format!("filling a {format} document is not supported: {why}"),
        "Open the document in 한글 (Hancom Office) and save a copy as HWPX (.hwpx), then fill that copy.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(table: usize, row: u32, col: u32, text: &str) -> CellSite {
        CellSite {
            table,
            row,
            col,
            row_span: 1,
            col_span: 1,
            name: None,
            text: text.into(),
            text_only: true,
            address: Address {
                part: "p".into(),
                section: 0,
                paragraph: 0,
                cells: vec![CellAt { row, col }],
            },
        }
    }

    #[test]
    fn a_label_fills_the_empty_cell_right_else_below_and_twice_is_ambiguous() {
        let mut map = FormMap::default();
        map.cells.push(cell(0, 0, 0, "성 명 :"));
        map.cells.push(cell(0, 0, 1, ""));
        map.cells.push(cell(0, 1, 0, "주소"));
        map.cells.push(cell(0, 1, 1, "서울"));
        map.cells.push(cell(0, 2, 0, ""));
        map.cells.push(cell(1, 0, 0, "연락처"));
        map.cells.push(cell(2, 0, 0, "연락처"));
        let values = vec![
            ("성명".to_string(), Value::Text("홍길동".into())),
            ("주소".to_string(), Value::Text("부산".into())),
            ("연락처".to_string(), Value::Text("010".into())),
            ("없음".to_string(), Value::Text("x".into())),
        ];
        let (targets, plan) = resolve(&map, &values).unwrap();
        assert_eq!(targets.len(), 2);
        assert_eq!(targets[0].place, Place::Cell(1));
        assert_eq!(
            targets[1].place,
            Place::Cell(4),
            "below, the right one is full"
        );
        assert_eq!(plan.ambiguous.len(), 1);
        assert_eq!(plan.ambiguous[0].candidates.len(), 2);
        assert_eq!(plan.unmatched, vec!["없음".to_string()]);
    }

    #[test]
    fn a_merged_label_reaches_past_its_span_and_a_flag_is_no_text() {
        let mut map = FormMap::default();
        let mut label = cell(0, 0, 0, "신청금액");
        label.col_span = 2;
        map.cells.push(label);
        map.cells.push(cell(0, 0, 2, ""));
        let (targets, _) = resolve(&map, &[("신청금액".into(), Value::Text("1".into()))]).unwrap();
        assert_eq!(targets[0].place, Place::Cell(1));
        let err = resolve(&map, &[("신청금액".into(), Value::Flag(true))]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
    }
}
