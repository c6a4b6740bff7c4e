//! Filling an HWP 5.0 form: values into click-here fields, nothing else changed.
//!
//! Only the `BodyText/SectionN` streams holding a filled field are rewritten (deflated again
//! when the document's streams are compressed); every other stream is left as it is in the
//! compound file, which the `cfb` crate updates in place. In a rewritten stream only the
//! records of the edited paragraphs change, each kept consistent with the others:
//! - PARA_TEXT: the units between the field begin (extended control 3) and the field end
//!   (inline control 4) replaced by the value (a line feed is a line break, unit 10; a tab the
//!   8-unit tab control);
//! - PARA_HEADER: the character count, the character-shape count and the line-segment count;
//! - PARA_CHAR_SHAPE: positions after the field moved by the change in length; the value takes
//!   the shape in effect at the field begin (an unfilled field's guide text has 한글's red italic
//!   guide shape, which the value must not inherit), the text after the field keeps its own;
//! - PARA_RANGE_TAG: ranges moved likewise;
//! - PARA_LINE_SEG: dropped (count 0), so 한글 lays the paragraph out again;
//! - the field's CTRL_HEADER: property bit 15 (the field was edited; 한글 sets it on the fields
//!   it fills, as `dirty` in HWPX) set for a value, cleared for an empty one (the guide shows).
//!
//!
//! A table cell (named, or the empty neighbour of a label cell) gets its paragraphs replaced by
//! one paragraph per line of the value, as a cell 한글 typed into holds them (Enter starts a
//! paragraph): each a copy of the cell's first PARA_HEADER (paragraph shape, style) with its
//! counts set, a PARA_TEXT of the line and the paragraph end (none for an empty line: 한글 writes
//! an empty paragraph without one), a PARA_CHAR_SHAPE giving the whole line the shape at the
//! start of the cell's first paragraph, and no line layout; the last keeps the "last paragraph
//! of its list" bit (bit 31 of the character count) the cell's last paragraph had, and the cell's
//! LIST_HEADER counts the paragraphs. A cell already holding exactly the value is left as it is.
//!
//!
//! A form control's FORM_OBJECT record keeps its property string (`CommonSet:set:N:…
//! ButtonSet:set:N:… Value:int:1 …`): the item holding its state is rewritten — `Value` (1 ticked,
//! 0 not) for a checkbox or radio button, `Text` for an edit, combo or list box — and every set
//! around it re-counted (a set's length is in UTF-16 units), as are the record's two copies of
//! the string's length; a radio button ticked clears the others of its group.
//!
//! Not written here (refused or left unmatched, see `common::fill`): fields over several
//! paragraphs, a control whose properties hold no such item, distribution and
//! password-protected documents.

use super::body::{ctrl_class, CtrlClass};
use super::container::Container;
use super::fields;
use super::record::{self, ctrl_id, frame, tag, Record};
use crate::common::fill::{
    self, Address, CellAt, CellSite, FieldSite, FormMap, Output, Place, Value,
};
use crate::{Error, ErrorCode, Options, Result};
use std::io::{Cursor, Read, Write};

/// A click-here field found in a section stream.
struct Site {
    section: usize,
    /// Index of the paragraph's PARA_HEADER, PARA_TEXT and the field's CTRL_HEADER.
    header: usize,
    text: usize,
    ctrl: usize,
    /// The units of the field's content: [start, end) in the paragraph's text.
    start: usize,
    end: usize,
}

struct Section {
    path: String,
    index: u32,
    data: Vec<u8>,
    records: Vec<Record>,
}

fn units(data: &[u8]) -> Vec<u16> {
    data.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// How many units a unit of paragraph text takes (control characters below 32 take 1 or 8).
fn width(unit: u16) -> usize {
    match (unit, ctrl_class(unit)) {
        (32.., _) | (_, CtrlClass::Char) => 1,
        _ => 8,
    }
}

/// The text of a field's content (a tab and a line break as themselves) and whether it holds
/// any other control (an object, another field), which a value cannot replace.
fn content_text(content: &[u16]) -> (String, bool) {
    let mut units = Vec::with_capacity(content.len());
    let mut other = false;
    let mut pos = 0;
    while pos < content.len() {
        let unit = content[pos];
        match unit {
            9 => units.push(9),
            10 => units.push(10),
            0..=31 => other = true,
            _ => units.push(unit),
        }
        pos += width(unit);
    }
    let text = char::decode_utf16(units)
        .map(|c| c.unwrap_or('\u{FFFD}'))
        .collect();
    (text, other)
}

/// A field's name: its CTRL_DATA child's parameter set.
fn field_name(recs: &[Record], data: &[u8], ctrl: usize) -> String {
    recs[ctrl + 1..record::subtree_end(recs, ctrl)]
        .iter()
        .find(|x| x.tag == tag::CTRL_DATA)
        .and_then(|x| fields::parameter_name(x.data(data)))
        .unwrap_or_default()
}

/// The click-here fields of one section stream, with the map's view of each.
fn find_fields(
    s: usize,
    section: &Section,
    map: &mut FormMap,
    sites: &mut Vec<FieldRecords>,
) -> Result<()> {
    let recs = &section.records;
    let data = &section.data;
    let address = |paragraph: u32, cells: &[(u16, CellAt)]| Address {
        part: section.path.clone(),
        section: section.index,
        paragraph,
        cells: cells.iter().map(|(_, c)| *c).collect(),
    };
    let mut top = 0u32;
    let mut current_top = 0u32;
    // Cell addresses of the LIST_HEADERs open at each level (a cell's paragraphs follow it).
    let mut cells: Vec<(u16, CellAt)> = Vec::new();
    let mut i = 0;
    while i < recs.len() {
        let r = recs[i];
        if r.tag == tag::LIST_HEADER {
            cells.retain(|(level, _)| *level < r.level);
            let parent_is_table = recs[..i]
                .iter()
                .rev()
                .find(|p| p.level < r.level)
                .is_some_and(|p| p.tag == tag::CTRL_HEADER && &ctrl_id(p.data(data)) == b"tbl ");
            if parent_is_table {
                let mut rd = record::Reader::at(r.data(data), 8);
                let col = rd.u16() as u32;
                let row = rd.u16() as u32;
                cells.push((r.level, CellAt { row, col }));
            }
        }
        if r.tag != tag::PARA_HEADER {
            i += 1;
            continue;
        }
        if r.level == 0 {
            current_top = top;
            top += 1;
        }
        cells.retain(|(level, _)| *level <= r.level);
        let end = record::subtree_end(recs, i);
        let children: Vec<usize> = (i + 1..end)
            .filter(|&j| recs[j].level == r.level + 1)
            .collect();
        let Some(&text_at) = children.iter().find(|&&j| recs[j].tag == tag::PARA_TEXT) else {
            i += 1;
            continue;
        };
        let ctrls: Vec<usize> = children
            .iter()
            .copied()
            .filter(|&j| recs[j].tag == tag::CTRL_HEADER)
            .collect();
        let text = units(recs[text_at].data(data));
        // Extended controls point, in order, at the paragraph's CTRL_HEADERs.
        let mut pos = 0usize;
        let mut extended = 0usize;
        let mut open: Option<(usize, usize)> = None; // (ctrl index, content start)
        while pos < text.len() {
            let unit = text[pos];
            let w = width(unit);
            let is_extended = unit < 32 && ctrl_class(unit) == CtrlClass::Extended;
            if is_extended {
                let ctrl = ctrls.get(extended).copied();
                extended += 1;
                if unit == 3 {
                    if let Some(c) = ctrl.filter(|&c| &ctrl_id(recs[c].data(data)) == b"%clk") {
                        if open.is_some() {
                            // A field inside a click-here field: not filled (its content is not text).
                            open = None;
                        } else {
                            open = Some((c, pos + w));
                        }
                    }
                }
            } else if unit == 4 {
                if let Some((c, start)) = open.take() {
                    let head = recs[c].data(data);
                    let mut rd = record::Reader::at(head, 4);
                    let property = rd.u32();
                    let name = field_name(recs, data, c);
                    let (shown, has_controls) = content_text(&text[start..pos]);
                    let edited = property & (1 << 15) != 0;
                    // Never edited, its content is the guide text, not a value.
                    let before = if edited { shown } else { String::new() };
                    map.fields.push(FieldSite {
                        name,
                        before,
                        address: address(current_top, &cells),
                        section_level: r.level == 0,
                        paragraphs: 1,
                        refused: has_controls
                            .then(|| "it holds an object, a tab or another control".to_string()),
                    });
                    sites.push(FieldRecords::One(Site {
                        section: s,
                        header: i,
                        text: text_at,
                        ctrl: c,
                        start,
                        end: pos,
                    }));
                }
            }
            pos += w;
        }
        if let Some((c, start)) = open {
            // Begun but not ended in this paragraph: a field over several paragraphs.
            let spanned = span_field(recs, data, i, text_at, start);
            let property = u32_at(recs[c].data(data), 4);
            let (before, paragraphs, refused) = match &spanned {
                Ok(many) => {
                    let edited = property & (1 << 15) != 0;
                    let shown = if edited {
                        many.before.clone()
                    } else {
                        String::new()
                    };
                    (shown, many.middles.len() as u32 + 2, None)
                }
                Err(why) => (String::new(), 1, Some(why.clone())),
            };
            map.fields.push(FieldSite {
                name: field_name(recs, data, c),
                before,
                address: address(current_top, &cells),
                section_level: r.level == 0,
                paragraphs,
                refused,
            });
            sites.push(match spanned {
                Ok(many) => FieldRecords::Many(ManySite {
                    section: s,
                    ctrl: c,
                    ..many
                }),
                Err(_) => FieldRecords::None,
            });
        }
        i += 1;
    }
    Ok(())
}

/// Where a click-here field's records are: in one paragraph, over several, or not writable.
enum FieldRecords {
    One(Site),
    Many(ManySite),
    None,
}

/// A click-here field that begins in one paragraph and ends in a later one of the same list.
struct ManySite {
    section: usize,
    ctrl: usize,
    /// The begin paragraph's PARA_HEADER and PARA_TEXT, and where the field's content starts.
    first: usize,
    first_text: usize,
    start: usize,
    /// The paragraphs wholly inside the field.
    middles: Vec<usize>,
    /// The end paragraph's PARA_HEADER and PARA_TEXT, and where its field end is.
    last: usize,
    last_text: usize,
    end: usize,
    /// The content's text, paragraphs joined by `\n`.
    before: String,
}

/// A paragraph's child record of kind `t`, if it has one.
fn child_of(recs: &[Record], header: usize, t: u16) -> Option<usize> {
    let level = recs[header].level;
    (header + 1..record::subtree_end(recs, header))
        .find(|&j| recs[j].level == level + 1 && recs[j].tag == t)
}

/// Follow a field begun in paragraph `first` (its content from unit `start`) through the next
/// paragraphs of its list to the paragraph holding its end. Refused (with why) when it runs out
/// of its list, or its content holds an object or another field.
fn span_field(
    recs: &[Record],
    data: &[u8],
    first: usize,
    first_text: usize,
    start: usize,
) -> std::result::Result<ManySite, String> {
    let holds_object = "it holds an object or another field".to_string();
    let head = units(recs[first_text].data(data));
    let head_content = &head[start.min(head.len())..];
    let head_content = head_content.strip_suffix(&[13]).unwrap_or(head_content);
    let (mut before, other) = content_text(head_content);
    if other {
        return Err(holds_object);
    }
    let level = recs[first].level;
    let mut middles = Vec::new();
    let mut at = record::subtree_end(recs, first);
    while at < recs.len() && recs[at].tag == tag::PARA_HEADER && recs[at].level == level {
        let text_at = child_of(recs, at, tag::PARA_TEXT);
        let text = text_at.map_or_else(Vec::new, |t| units(recs[t].data(data)));
        let mut pos = 0;
        while pos < text.len() {
            let unit = text[pos];
            if unit == 4 {
                let (shown, other) = content_text(&text[..pos]);
                if other {
                    return Err(holds_object);
                }
                before.push('\n');
                before.push_str(&shown);
                return Ok(ManySite {
                    section: 0,
                    ctrl: 0,
                    first,
                    first_text,
                    start,
                    middles,
                    last: at,
                    last_text: text_at.unwrap_or(at),
                    end: pos,
                    before,
                });
            }
            if unit < 32 && ctrl_class(unit) == CtrlClass::Extended {
                return Err(holds_object);
            }
            pos += width(unit);
        }
        let body = text.strip_suffix(&[13]).unwrap_or(&text);
        let (shown, other) = content_text(body);
        if other || record::subtree_end(recs, at) != at + 1 + children_count(recs, at) {
            return Err(holds_object);
        }
        before.push('\n');
        before.push_str(&shown);
        middles.push(at);
        at = record::subtree_end(recs, at);
    }
    Err("it has no field end in its list".to_string())
}

/// How many of a paragraph's child records are its own text, shapes, line layout and ranges.
fn children_count(recs: &[Record], header: usize) -> usize {
    let level = recs[header].level;
    recs[header + 1..record::subtree_end(recs, header)]
        .iter()
        .filter(|r| {
            r.level == level + 1
                && matches!(
                    r.tag,
                    tag::PARA_TEXT
                        | tag::PARA_CHAR_SHAPE
                        | tag::PARA_LINE_SEG
                        | tag::PARA_RANGE_TAG
                )
        })
        .count()
}

/// A table cell found in a section stream: its LIST_HEADER and its paragraphs' PARA_HEADERs
/// (at the LIST_HEADER's level, each followed by its own records).
struct CellRecords {
    section: usize,
    list: usize,
    paragraphs: Vec<usize>,
}

/// The text of one paragraph (a line break as `\n`, a tab as itself) and whether it holds only
/// text: no control (object, field, form control) and no record beside its text, shapes, line
/// layout and range tags.
fn paragraph_text(recs: &[Record], data: &[u8], header: usize) -> (String, bool) {
    let level = recs[header].level;
    let mut text = String::new();
    let mut text_only = true;
    for r in &recs[header + 1..record::subtree_end(recs, header)] {
        if r.level != level + 1 {
            continue;
        }
        match r.tag {
            tag::PARA_TEXT => {
                let mut all = units(r.data(data));
                if all.last() == Some(&13) {
                    all.pop();
                }
                let (shown, other) = content_text(&all);
                text = shown;
                text_only &= !other;
            }
            tag::PARA_CHAR_SHAPE | tag::PARA_LINE_SEG | tag::PARA_RANGE_TAG => {}
            _ => text_only = false,
        }
    }
    (text, text_only)
}

/// The table cells and form controls of one section stream, with the map's view of each (a
/// cell's grid place, spans, name and text; a control's kind, name and state). A table's
/// caption list (before its TABLE record) is no cell. A control whose property string lacks the
/// item its value goes in is not listed (a warning says so).
fn find_cells(
    s: usize,
    section: &Section,
    map: &mut FormMap,
    sites: &mut Vec<CellRecords>,
    controls: &mut Vec<ControlRecord>,
    warnings: &mut Vec<String>,
) {
    let recs = &section.records;
    let data = &section.data;
    let mut top = 0u32;
    let mut current_top = 0u32;
    // Open tables: (the `tbl ` CTRL_HEADER's level, the table's number, its TABLE record seen).
    let mut tables: Vec<(u16, usize, bool)> = Vec::new();
    let mut next_table = 0usize;
    // The cells open around the current record (a cell's paragraphs share its level).
    let mut chain: Vec<(u16, CellAt)> = Vec::new();
    for (i, r) in recs.iter().enumerate() {
        tables.retain(|t| t.0 < r.level);
        chain.retain(|(level, _)| {
            *level < r.level || (*level == r.level && r.tag == tag::PARA_HEADER)
        });
        match r.tag {
            tag::PARA_HEADER if r.level == 0 => {
                current_top = top;
                top += 1;
            }
            tag::CTRL_HEADER if &ctrl_id(r.data(data)) == b"tbl " => {
                tables.push((r.level, next_table, false));
                next_table += 1;
            }
            tag::TABLE => {
                if let Some(t) = tables.last_mut().filter(|t| t.0 + 1 == r.level) {
                    t.2 = true;
                }
            }
            tag::FORM_OBJECT => {
                let control = fields::form_control(r.data(data));
                let kind = match control.control.as_str() {
                    "checkbox" => "checkbox",
                    "radio" => "radio",
                    "edit" => "edit",
                    "combo_box" => "combo_box",
                    "list_box" => "list_box",
                    _ => continue,
                };
                let name = control.name.clone().unwrap_or_default();
                let (props, _) = form_properties(r.data(data));
                let item = control_item(kind);
                if !fields::properties(&String::from_utf16_lossy(&props))
                    .iter()
                    .any(|(n, _)| n == item)
                {
                    warnings.push(format!(
                        "{kind} \"{name}\" is not set: its properties hold no {item} item (not written in HWP 5.0 yet)"
                    ));
                    continue;
                }
                let value = match control.checked {
                    Some(on) => on.to_string(),
                    None => control.value.clone().unwrap_or_default(),
                };
                map.controls.push(fill::ControlSite {
                    kind,
                    name,
                    value,
                    // HWP 5.0 keeps no list of a combo or list box's choices with the control.
                    options: Vec::new(),
                    group: control.group.clone(),
                    address: Address {
                        part: section.path.clone(),
                        section: section.index,
                        paragraph: current_top,
                        cells: chain.iter().map(|(_, c)| *c).collect(),
                    },
                });
                controls.push(ControlRecord {
                    section: s,
                    record: i,
                });
            }
            tag::LIST_HEADER => {
                let Some(&(_, table, true)) = tables.last().filter(|t| t.0 + 1 == r.level) else {
                    continue;
                };
                let head = r.data(data);
                let mut rd = record::Reader::at(head, 8);
                let (col, row) = (rd.u16() as u32, rd.u16() as u32);
                let (col_span, row_span) = (rd.u16() as u32, rd.u16() as u32);
                chain.push((r.level, CellAt { row, col }));
                let mut paragraphs = Vec::new();
                let mut j = i + 1;
                while j < recs.len() && recs[j].tag == tag::PARA_HEADER && recs[j].level == r.level
                {
                    paragraphs.push(j);
                    j = record::subtree_end(recs, j);
                }
                let mut lines = Vec::with_capacity(paragraphs.len());
                let mut text_only = !paragraphs.is_empty();
                for &p in &paragraphs {
                    let (line, only) = paragraph_text(recs, data, p);
                    lines.push(line);
                    text_only &= only;
                }
                map.cells.push(CellSite {
                    table: s << 32 | table,
                    row,
                    col,
                    row_span: row_span.max(1),
                    col_span: col_span.max(1),
                    name: fields::cell_field_name(head),
                    text: lines.join("\n"),
                    text_only,
                    address: Address {
                        part: section.path.clone(),
                        section: section.index,
                        paragraph: current_top,
                        cells: chain.iter().map(|(_, c)| *c).collect(),
                    },
                });
                sites.push(CellRecords {
                    section: s,
                    list: i,
                    paragraphs,
                });
            }
            _ => {}
        }
    }
}

/// A form control's FORM_OBJECT record in a section stream.
struct ControlRecord {
    section: usize,
    record: usize,
}

/// The property-string item a control's value is kept in: `Value` (0 or 1) for a checkbox or
/// radio button, `Text` for an edit, combo or list box.
fn control_item(kind: &str) -> &'static str {
    match kind {
        "checkbox" | "radio" => "Value",
        _ => "Text",
    }
}

/// A FORM_OBJECT's property string (UTF-16 units) and where it starts: after the type id twice
/// (8 bytes), the string's length (u16) and two zero bytes, the string (u16 length + units).
fn form_properties(data: &[u8]) -> (Vec<u16>, usize) {
    let n = data
        .get(12..14)
        .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let end = (14 + 2 * n).min(data.len());
    (units(data.get(14..end).unwrap_or(&[])), end)
}

/// The property string with the first item named `name` (depth first) given `value`, every set
/// holding it re-counted; every other item as it was written. `done` tells whether it was found.
fn with_property(u: &[u16], name: &str, value: &str, done: &mut bool) -> Vec<u16> {
    let find = |from: usize, c: u8| {
        u.get(from..)
            .and_then(|rest| rest.iter().position(|&x| x == c as u16))
            .map(|p| from + p)
    };
    let mut out = Vec::with_capacity(u.len() + value.len());
    let mut pos = 0usize;
    while pos < u.len() {
        if u[pos] == b' ' as u16 {
            out.push(u[pos]);
            pos += 1;
            continue;
        }
        let parsed = find(pos, b':').and_then(|c1| find(c1 + 1, b':').map(|c2| (c1, c2)));
        let Some((c1, c2)) = parsed else { break };
        let item = String::from_utf16_lossy(&u[pos..c1]);
        let kind = String::from_utf16_lossy(&u[c1 + 1..c2]);
        let hit = !*done && item == name;
        if kind == "set" || kind == "wstring" {
            let Some(c3) = find(c2 + 1, b':') else { break };
            let Ok(n) = String::from_utf16_lossy(&u[c2 + 1..c3])
                .trim()
                .parse::<usize>()
            else {
                break;
            };
            let start = c3 + 1;
            let end = start.saturating_add(n).min(u.len());
            let content: Vec<u16> = if kind == "set" {
                with_property(&u[start..end], name, value, done)
            } else if hit {
                *done = true;
                value.encode_utf16().collect()
            } else {
                u[start..end].to_vec()
            };
            if content[..] == u[start..end] {
                out.extend_from_slice(&u[pos..end]);
            } else {
                out.extend_from_slice(&u[pos..=c2]);
                out.extend(content.len().to_string().encode_utf16());
                out.push(b':' as u16);
                out.extend(content);
            }
            pos = end;
        } else {
            let end = find(c2 + 1, b' ').unwrap_or(u.len());
            out.extend_from_slice(&u[pos..=c2]);
            if hit {
                *done = true;
                out.extend(value.encode_utf16());
            } else {
                out.extend_from_slice(&u[c2 + 1..end]);
            }
            pos = end;
        }
    }
    out.extend_from_slice(&u[pos.min(u.len())..]);
    out
}

/// A FORM_OBJECT's payload with its control set to `value` ("true"/"false" for a checkbox or
/// radio button, the text otherwise); None when its property string has no place for it.
fn set_control(data: &[u8], kind: &str, value: &str) -> Option<Vec<u8>> {
    let (props, end) = form_properties(data);
    let shown = match value {
        "true" if matches!(kind, "checkbox" | "radio") => "1",
        "false" if matches!(kind, "checkbox" | "radio") => "0",
        v => v,
    };
    let mut done = false;
    let new = with_property(&props, control_item(kind), shown, &mut done);
    if !done {
        return None;
    }
    let count = u16::try_from(new.len()).ok()?;
    let mut out = data.get(..8)?.to_vec();
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(data.get(10..12)?);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend(new.iter().flat_map(|u| u.to_le_bytes()));
    out.extend_from_slice(data.get(end..).unwrap_or(&[]));
    Some(out)
}

/// Records replacing a run of paragraphs (a cell's, or those a field runs over): the bytes of
/// the new paragraphs, the range of records they replace, and their list's LIST_HEADER with its
/// paragraph count (none for the section's own paragraphs).
struct SpanEdit {
    list: Option<(usize, Vec<u8>)>,
    from: usize,
    to: usize,
    records: Vec<u8>,
}

/// The control mask of a paragraph's text: a bit per control character it holds (the paragraph
/// end not counted, as 한글 writes it).
fn control_mask(text: &[u16]) -> u32 {
    let mut mask = 0u32;
    let mut pos = 0;
    while pos < text.len() {
        let unit = text[pos];
        if unit < 32 && unit != 13 {
            mask |= 1 << unit;
        }
        pos += width(unit);
    }
    mask
}

/// A paragraph to write: `header` (a PARA_HEADER payload to copy, its counts set on writing),
/// its text with the paragraph end, character shapes, range tags and its other records (controls,
/// memos) as they are.
struct NewParagraph<'a> {
    header: Vec<u8>,
    text: Vec<u16>,
    shapes: Vec<(u32, u32)>,
    ranges: Vec<(u32, u32, u32)>,
    others: Vec<(u16, u16, &'a [u8])>,
}

impl NewParagraph<'_> {
    /// Its records at `level`: the text omitted when only the paragraph end (as 한글 writes an
    /// empty paragraph), no line layout (한글 lays it out again).
    fn write(&self, level: u16, out: &mut Vec<u8>) {
        let mut head = self.header.clone();
        let last_bit = u32_at(&head, 0) & 0x8000_0000;
        put_u32(&mut head, 0, last_bit | self.text.len() as u32);
        put_u32(&mut head, 4, control_mask(&self.text));
        put_u16(&mut head, 12, self.shapes.len() as u16);
        put_u16(&mut head, 14, self.ranges.len() as u16);
        put_u16(&mut head, 16, 0);
        record_header(tag::PARA_HEADER, level, head.len(), out);
        out.extend_from_slice(&head);
        if self.text != [13] {
            record_header(tag::PARA_TEXT, level + 1, self.text.len() * 2, out);
            out.extend(self.text.iter().flat_map(|u| u.to_le_bytes()));
        }
        if !self.shapes.is_empty() {
            record_header(tag::PARA_CHAR_SHAPE, level + 1, self.shapes.len() * 8, out);
            for (p, id) in &self.shapes {
                out.extend_from_slice(&p.to_le_bytes());
                out.extend_from_slice(&id.to_le_bytes());
            }
        }
        if !self.ranges.is_empty() {
            record_header(tag::PARA_RANGE_TAG, level + 1, self.ranges.len() * 12, out);
            for (a, b, t) in &self.ranges {
                out.extend_from_slice(&a.to_le_bytes());
                out.extend_from_slice(&b.to_le_bytes());
                out.extend_from_slice(&t.to_le_bytes());
            }
        }
        for (t, l, d) in &self.others {
            record_header(*t, *l, d.len(), out);
            out.extend_from_slice(d);
        }
    }
}

/// A PARA_HEADER payload with the "last paragraph of its list" bit set as `last` says and,
/// for a paragraph of its own, no instance id.
fn header_as(header: &[u8], last: bool, own: bool) -> Vec<u8> {
    let mut head = header.to_vec();
    let count = u32_at(&head, 0) & 0x7FFF_FFFF;
    put_u32(&mut head, 0, count | if last { 0x8000_0000 } else { 0 });
    if own {
        put_u32(&mut head, 18, 0);
    }
    head
}

/// The value's line as paragraph text with its paragraph end.
fn line_units(line: &str) -> Vec<u16> {
    let mut text = value_units(line);
    text.push(13);
    text
}

fn edit_cell(section: &Section, cell: &CellRecords, text: &str) -> Option<SpanEdit> {
    let recs = &section.records;
    let data = &section.data;
    let (&first, &last) = (cell.paragraphs.first()?, cell.paragraphs.last()?);
    let level = recs[first].level;
    let template = recs[first].data(data);
    let last_in_list = u32_at(recs[last].data(data), 0) & 0x8000_0000 != 0;
    // The shape at the start of the cell's first paragraph: what a value typed there would take.
    let shapes: Vec<(u32, u32)> = child_of(recs, first, tag::PARA_CHAR_SHAPE)
        .map(|j| vec![(0, u32_at(recs[j].data(data), 4))])
        .unwrap_or_default();
    let lines: Vec<&str> = text.split('\n').collect();
    let mut records = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let last = k + 1 == lines.len();
        NewParagraph {
            header: header_as(template, last && last_in_list, k > 0),
            text: line_units(line),
            shapes: shapes.clone(),
            ranges: Vec::new(),
            others: Vec::new(),
        }
        .write(level, &mut records);
    }
    let mut list_header = recs[cell.list].data(data).to_vec();
    put_u16(
        &mut list_header,
        0,
        lines.len().min(u16::MAX as usize) as u16,
    );
    Some(SpanEdit {
        list: Some((cell.list, list_header)),
        from: first,
        to: record::subtree_end(recs, last),
        records,
    })
}

fn char_shapes(recs: &[Record], data: &[u8], header: usize) -> Vec<(u32, u32)> {
    child_of(recs, header, tag::PARA_CHAR_SHAPE).map_or_else(Vec::new, |j| {
        recs[j]
            .data(data)
            .chunks_exact(8)
            .map(|c| (u32_at(c, 0), u32_at(c, 4)))
            .collect()
    })
}

fn range_tags(recs: &[Record], data: &[u8], header: usize) -> Vec<(u32, u32, u32)> {
    child_of(recs, header, tag::PARA_RANGE_TAG).map_or_else(Vec::new, |j| {
        recs[j]
            .data(data)
            .chunks_exact(12)
            .map(|c| (u32_at(c, 0), u32_at(c, 4), u32_at(c, 8)))
            .collect()
    })
}

/// The shape in effect at position `p`.
fn shape_at(list: &[(u32, u32)], p: usize) -> u32 {
    list.iter()
        .take_while(|(q, _)| *q as usize <= p)
        .last()
        .map_or(0, |(_, id)| *id)
}

/// A paragraph's records other than its text, shapes, line layout and ranges (its controls,
/// memos...), in order; the record at `changed` (if among them) with `data` instead.
fn other_records<'a>(
    recs: &[Record],
    data: &'a [u8],
    header: usize,
    changed: (usize, &'a [u8]),
) -> Vec<(u16, u16, &'a [u8])> {
    let level = recs[header].level;
    (header + 1..record::subtree_end(recs, header))
        .filter(|&j| {
            !(recs[j].level == level + 1
                && matches!(
                    recs[j].tag,
                    tag::PARA_TEXT
                        | tag::PARA_CHAR_SHAPE
                        | tag::PARA_LINE_SEG
                        | tag::PARA_RANGE_TAG
                ))
        })
        .map(|j| {
            let body = if j == changed.0 {
                changed.1
            } else {
                recs[j].data(data)
            };
            (recs[j].tag, recs[j].level, body)
        })
        .collect()
}

/// The LIST_HEADER of the list holding the paragraph at `header` (none for the section's own).
fn list_of(recs: &[Record], header: usize) -> Option<usize> {
    let level = recs[header].level;
    let mut k = header;
    while k > 0 {
        k -= 1;
        let r = recs[k];
        if r.level > level {
            continue;
        }
        if r.level == level && r.tag == tag::PARA_HEADER {
            continue;
        }
        return (r.level == level && r.tag == tag::LIST_HEADER).then_some(k);
    }
    None
}

/// A field over several paragraphs filled: the first line ends the begin's paragraph, the last
/// starts the end's, a paragraph for each line between (as the HWPX writer does); a one-line
/// value joins the two paragraphs into one. The value takes the shape at the field begin.
fn edit_many(section: &Section, site: &ManySite, value: &str) -> SpanEdit {
    let recs = &section.records;
    let data = &section.data;
    let (a, b) = (site.first, site.last);
    let level = recs[a].level;
    let a_text = units(recs[site.first_text].data(data));
    let b_text = units(recs[site.last_text].data(data));
    let (start, end) = (site.start.min(a_text.len()), site.end.min(b_text.len()));
    let a_shapes = char_shapes(recs, data, a);
    let b_shapes = char_shapes(recs, data, b);
    let begin_shape = shape_at(&a_shapes, start.saturating_sub(1));
    let after_shape = shape_at(&b_shapes, end);
    let a_ranges: Vec<(u32, u32, u32)> = range_tags(recs, data, a)
        .into_iter()
        .filter(|r| r.1 as usize <= start)
        .collect();
    let ctrl = edited_field(recs[site.ctrl].data(data), value);
    let a_others = other_records(recs, data, a, (site.ctrl, &ctrl));
    let b_others = other_records(recs, data, b, (usize::MAX, &[]));
    let lines: Vec<&str> = value.split('\n').collect();
    // The end paragraph's text from its field end, shapes and ranges moved to follow `at`.
    let tail = |at: usize| {
        let mut shapes = vec![(at as u32, after_shape)];
        shapes.extend(
            b_shapes
                .iter()
                .filter(|(q, _)| *q as usize >= end)
                .map(|(q, id)| ((*q as usize - end + at) as u32, *id)),
        );
        let ranges: Vec<(u32, u32, u32)> = range_tags(recs, data, b)
            .into_iter()
            .filter(|r| r.0 as usize >= end)
            .map(|(x, y, t)| {
                (
                    (x as usize - end + at) as u32,
                    (y as usize - end + at) as u32,
                    t,
                )
            })
            .collect();
        (shapes, ranges)
    };
    let head_shapes = |at: usize| {
        let mut shapes: Vec<(u32, u32)> = a_shapes
            .iter()
            .filter(|(p, _)| (*p as usize) < at)
            .copied()
            .collect();
        shapes.push((at as u32, begin_shape));
        shapes
    };
    let b_last = u32_at(recs[b].data(data), 0) & 0x8000_0000 != 0;
    let mut paragraphs = Vec::new();
    if let [only] = lines.as_slice() {
        let value = value_units(only);
        let mut text = a_text[..start].to_vec();
        text.extend(&value);
        text.extend(&b_text[end..]);
        let mut shapes = head_shapes(start);
        let (more, b_ranges) = tail(start + value.len());
        shapes.extend(more);
        let mut ranges = a_ranges;
        ranges.extend(b_ranges);
        let mut others = a_others;
        others.extend(b_others);
        paragraphs.push(NewParagraph {
            header: header_as(recs[a].data(data), b_last, false),
            text,
            shapes: normalized(shapes),
            ranges,
            others,
        });
    } else {
        let mut text = a_text[..start].to_vec();
        text.extend(line_units(lines[0]));
        paragraphs.push(NewParagraph {
            header: header_as(recs[a].data(data), false, false),
            text,
            shapes: normalized(head_shapes(start)),
            ranges: a_ranges,
            others: a_others,
        });
        let template = header_as(recs[b].data(data), false, true);
        for line in &lines[1..lines.len() - 1] {
            paragraphs.push(NewParagraph {
                header: template.clone(),
                text: line_units(line),
                shapes: vec![(0, begin_shape)],
                ranges: Vec::new(),
                others: Vec::new(),
            });
        }
        let value = value_units(lines[lines.len() - 1]);
        let (more, b_ranges) = tail(value.len());
        let mut text = value;
        text.extend(&b_text[end..]);
        let mut shapes = vec![(0, begin_shape)];
        shapes.extend(more);
        paragraphs.push(NewParagraph {
            header: header_as(recs[b].data(data), b_last, false),
            text,
            shapes: normalized(shapes),
            ranges: b_ranges,
            others: b_others,
        });
    }
    let mut records = Vec::new();
    for paragraph in &paragraphs {
        paragraph.write(level, &mut records);
    }
    let list = list_of(recs, a).map(|l| {
        let mut head = recs[l].data(data).to_vec();
        let count = u16::from_le_bytes([head[0], head[1]]) as usize;
        let spanned = site.middles.len() + 2;
        let now = (count + lines.len()).saturating_sub(spanned);
        put_u16(&mut head, 0, now.min(u16::MAX as usize) as u16);
        (l, head)
    });
    SpanEdit {
        list,
        from: a,
        to: record::subtree_end(recs, b),
        records,
    }
}

/// The value as paragraph-text units: a line feed is a line break, a tab the tab control.
fn value_units(text: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push(10),
            // The tab control's 6 data units (width, leader, type) are layout 한글 recomputes.
            '\t' => out.extend_from_slice(&[9, 0, 0, 0, 0, 0, 0, 9]),
            c => {
                let mut buf = [0u16; 2];
                out.extend_from_slice(c.encode_utf16(&mut buf));
            }
        }
    }
    out
}

fn u32_at(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Character shapes by position: at one position the later entry wins, a repeat of the shape
/// before it is no change.
fn normalized(list: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(list.len());
    for (p, id) in list {
        if out.last().is_some_and(|l| l.0 == p) {
            out.pop();
        }
        if out.last().is_some_and(|l| l.1 == id) {
            continue;
        }
        out.push((p, id));
    }
    out
}

fn put_u16(d: &mut [u8], at: usize, v: u16) {
    if let Some(b) = d.get_mut(at..at + 2) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

fn put_u32(d: &mut [u8], at: usize, v: u32) {
    if let Some(b) = d.get_mut(at..at + 4) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}

/// A field's CTRL_HEADER payload with property bit 15 (edited; 한글 sets it on the fields it
/// fills) set for a value, cleared for an empty one (the guide shows again).
fn edited_field(header: &[u8], value: &str) -> Vec<u8> {
    let mut head = header.to_vec();
    let property = u32_at(&head, 4);
    let property = if value.is_empty() {
        property & !(1 << 15)
    } else {
        property | (1 << 15)
    };
    put_u32(&mut head, 4, property);
    head
}

/// One paragraph's records after filling its fields (several fields of one paragraph are
/// filled from the last to the first, so earlier positions stay valid).
struct Edit {
    header: Vec<u8>,
    text: Vec<u8>,
    shapes: Option<Vec<u8>>,
    ranges: Option<Vec<u8>>,
    /// The fields' CTRL_HEADERs, rewritten.
    ctrls: Vec<(usize, Vec<u8>)>,
}

fn edit_paragraph(section: &Section, sites: &[(&Site, &str)]) -> Edit {
    let recs = &section.records;
    let data = &section.data;
    let first = sites[0].0;
    let header_i = first.header;
    let end = record::subtree_end(recs, header_i);
    let level = recs[header_i].level;
    let child =
        |t: u16| (header_i + 1..end).find(|&j| recs[j].level == level + 1 && recs[j].tag == t);
    let mut header = recs[header_i].data(data).to_vec();
    let mut text = units(recs[first.text].data(data));
    let mut shapes = child(tag::PARA_CHAR_SHAPE).map(|_| char_shapes(recs, data, header_i));
    let mut ranges = child(tag::PARA_RANGE_TAG).map(|_| range_tags(recs, data, header_i));
    let mut ctrls = Vec::new();
    let mut ordered: Vec<&(&Site, &str)> = sites.iter().collect();
    ordered.sort_by_key(|(s, _)| std::cmp::Reverse(s.start));
    for (site, value) in ordered {
        let new = value_units(value);
        let (start, old_end) = (site.start, site.end);
        let delta = new.len() as i64 - (old_end - start) as i64;
        text.splice(start..old_end, new.iter().copied());
        let moved = |p: u32| -> u32 {
            let p = p as usize;
            if p <= start {
                p as u32
            } else if p >= old_end {
                (p as i64 + delta).max(0) as u32
            } else {
                start as u32
            }
        };
        if let Some(list) = shapes.as_mut() {
            let before = shape_at(list, start.saturating_sub(1));
            let after = shape_at(list, old_end);
            let mut out: Vec<(u32, u32)> = list
                .iter()
                .filter(|(p, _)| (*p as usize) < start)
                .copied()
                .collect();
            if out.last().map(|(_, id)| *id) != Some(before) {
                out.push((start as u32, before));
            }
            let new_end = (old_end as i64 + delta) as u32;
            if after != before && !list.iter().any(|(p, _)| *p as usize == old_end) {
                out.push((new_end, after));
            }
            out.extend(
                list.iter()
                    .filter(|(p, _)| *p as usize >= old_end)
                    .map(|(p, id)| (moved(*p), *id)),
            );
            *list = normalized(out);
        }
        if let Some(list) = ranges.as_mut() {
            for r in list.iter_mut() {
                r.0 = moved(r.0);
                r.1 = moved(r.1);
            }
        }
        ctrls.push((site.ctrl, edited_field(recs[site.ctrl].data(data), value)));
    }
    // The character count keeps its top bit (a flag), the counts follow the records.
    let count = u32_at(&header, 0);
    put_u32(&mut header, 0, (count & 0x8000_0000) | text.len() as u32);
    if let Some(list) = &shapes {
        put_u16(&mut header, 12, list.len() as u16);
    }
    put_u16(&mut header, 16, 0);
    Edit {
        header,
        text: text.iter().flat_map(|u| u.to_le_bytes()).collect(),
        shapes: shapes.map(|l| {
            l.iter()
                .flat_map(|(p, id)| [p.to_le_bytes(), id.to_le_bytes()].concat())
                .collect()
        }),
        ranges: ranges.map(|l| {
            l.iter()
                .flat_map(|(a, b, t)| [a.to_le_bytes(), b.to_le_bytes(), t.to_le_bytes()].concat())
                .collect()
        }),
        ctrls,
    }
}

fn record_header(tag: u16, level: u16, size: usize, out: &mut Vec<u8>) {
    let small = size.min(0xFFF) as u32;
    let word = tag as u32 | (level as u32) << 10 | small << 20;
    out.extend_from_slice(&word.to_le_bytes());
    if size >= 0xFFF {
        out.extend_from_slice(&(size as u32).to_le_bytes());
    }
}

/// The section stream with the edits applied: edited records re-framed, the line layout of an
/// edited paragraph dropped, a filled cell's paragraphs replaced, every other record copied as
/// it was.
fn rewrite(
    section: &Section,
    edits: &[(usize, Edit)],
    cells: &[SpanEdit],
    controls: &[(usize, Vec<u8>)],
) -> Vec<u8> {
    let recs = &section.records;
    let data = &section.data;
    let mut replaced: std::collections::HashMap<usize, &[u8]> = std::collections::HashMap::new();
    let mut dropped = std::collections::HashSet::new();
    for (header_i, edit) in edits {
        let end = record::subtree_end(recs, *header_i);
        let level = recs[*header_i].level;
        replaced.insert(*header_i, &edit.header);
        for (j, r) in recs.iter().enumerate().take(end).skip(header_i + 1) {
            if r.level != level + 1 {
                continue;
            }
            match r.tag {
                tag::PARA_TEXT => {
                    replaced.insert(j, &edit.text);
                }
                tag::PARA_CHAR_SHAPE => {
                    if let Some(s) = &edit.shapes {
                        replaced.insert(j, s);
                    }
                }
                tag::PARA_RANGE_TAG => {
                    if let Some(r) = &edit.ranges {
                        replaced.insert(j, r);
                    }
                }
                tag::PARA_LINE_SEG => {
                    dropped.insert(j);
                }
                _ => {}
            }
        }
        for (c, head) in &edit.ctrls {
            replaced.insert(*c, head);
        }
    }
    let mut spans: std::collections::HashMap<usize, &SpanEdit> = std::collections::HashMap::new();
    for (record, data) in controls {
        replaced.insert(*record, data);
    }
    for cell in cells {
        if let Some((list, head)) = &cell.list {
            replaced.insert(*list, head);
        }
        spans.insert(cell.from, cell);
    }
    let mut out = Vec::with_capacity(data.len() + 256);
    let mut skip_to = 0;
    for (j, r) in recs.iter().enumerate() {
        if let Some(cell) = spans.get(&j) {
            out.extend_from_slice(&cell.records);
            skip_to = cell.to;
        }
        if j < skip_to || dropped.contains(&j) {
            continue;
        }
        let body = replaced.get(&j).copied().unwrap_or_else(|| r.data(data));
        record_header(r.tag, r.level, body.len(), &mut out);
        out.extend_from_slice(body);
    }
    out
}

fn deflate(data: &[u8]) -> Result<Vec<u8>> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data)
        .and_then(|_| enc.finish())
        .map_err(|e| Error::corrupt(format!("compressing a section: {e}")))
}

fn cfb_failed(e: std::io::Error) -> Error {
    Error::corrupt(format!("writing the compound file: {e}"))
}

/// A field over several paragraphs replaces them whole, so no other field written in those
/// paragraphs can be kept with it: such a field is left (unmatched, with a warning saying to
/// fill it in a call of its own). `targets` and `plan.filled` run in step.
fn drop_shared_paragraphs(
    sections: &[Section],
    sites: &[FieldRecords],
    targets: &mut Vec<fill::Target>,
    plan: &mut fill::Plan,
) {
    let span_of = |t: &fill::Target| match t.place {
        Place::Field(i) => match sites.get(i) {
            Some(FieldRecords::Many(m)) => {
                let end = record::subtree_end(&sections[m.section].records, m.last);
                Some((m.section, m.first, end, i))
            }
            _ => None,
        },
        _ => None,
    };
    let header_of = |t: &fill::Target| match t.place {
        Place::Field(i) => match sites.get(i) {
            Some(FieldRecords::One(site)) => Some((site.section, site.header, i)),
            _ => None,
        },
        _ => None,
    };
    let spans: Vec<(usize, usize, usize, usize)> = targets.iter().filter_map(span_of).collect();
    let shares = |t: &fill::Target| {
        let Some((s, from, to, i)) = span_of(t) else {
            return false;
        };
        let inside = |section: usize, at: usize| section == s && at >= from && at < to;
        targets
            .iter()
            .filter_map(header_of)
            .any(|(section, h, _)| inside(section, h))
            || spans
                .iter()
                .any(|&(t, f, e, j)| j != i && t == s && f < to && from < e)
    };
    let keep: Vec<bool> = targets.iter().map(|t| !shares(t)).collect();
    if keep.iter().all(|&k| k) || keep.len() != plan.filled.len() {
        return;
    }
    let mut k = 0;
    targets.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    let mut k = 0;
    let mut left = Vec::new();
    plan.filled.retain(|f| {
        k += 1;
        if !keep[k - 1] {
            left.push(f.key.clone());
        }
        keep[k - 1]
    });
    for key in left {
        plan.warnings.push(format!(
            "click-here field \"{key}\" is not filled: it runs over several paragraphs that another filled field shares; fill it in a call of its own"
        ));
        if !plan.filled.iter().any(|f| f.key == key) && !plan.unmatched.contains(&key) {
            plan.unmatched.push(key);
        }
    }
}

/// Fill the HWP 5.0 form in `bytes` with `values`.
pub fn fill(bytes: &[u8], values: &[(String, Value)], options: &Options) -> Result<Output> {
    let (mut container, header) = Container::open_document(bytes, options)?;
    if header.distribution {
        return Err(fill::not_writable(
            "distribution (배포용) HWP",
            "its body is encrypted for viewing only and 한글 forbids editing it",
        ));
    }
    if header.encrypted {
        return Err(fill::not_writable(
            "password-protected HWP",
            "its streams are encrypted and would have to be encrypted again",
        ));
    }
    let mut sections = Vec::new();
    for (index, (_, name)) in super::section_streams(&container, "BodyText")
        .iter()
        .enumerate()
    {
        let path = format!("BodyText/{name}");
        let data = container.read_stream(&path, header.compressed)?;
        let records = frame(&data, options.limits.max_records)?;
        sections.push(Section {
            path,
            index: index as u32,
            data,
            records,
        });
    }
    let mut map = FormMap::default();
    let mut sites = Vec::new();
    let mut cell_sites = Vec::new();
    let mut control_sites = Vec::new();
    let mut warnings = Vec::new();
    for (s, section) in sections.iter().enumerate() {
        find_fields(s, section, &mut map, &mut sites)?;
        find_cells(
            s,
            section,
            &mut map,
            &mut cell_sites,
            &mut control_sites,
            &mut warnings,
        );
    }
    let (mut targets, mut plan) = fill::resolve(&map, values)?;
    drop_shared_paragraphs(&sections, &sites, &mut targets, &mut plan);
    // Only the unset controls an unmatched key names are worth a word.
    let said: Vec<String> = warnings
        .into_iter()
        .filter(|w| {
            plan.unmatched
                .iter()
                .any(|k| w.contains(&format!("\"{k}\"")))
        })
        .collect();
    plan.warnings.extend(said);
    // A radio button ticked clears the others of its group (as 한글 does), wherever they are.
    let mut control_values: Vec<(usize, String)> = Vec::new();
    for t in &targets {
        let Place::Control(i) = t.place else { continue };
        let site = &map.controls[i];
        if site.kind == "radio" && t.text == "true" && site.group.is_some() {
            for (k, other) in map.controls.iter().enumerate() {
                if k != i && other.kind == "radio" && other.group == site.group {
                    control_values.retain(|(j, _)| *j != k);
                    control_values.push((k, "false".to_string()));
                }
            }
        }
        control_values.retain(|(j, _)| *j != i);
        control_values.push((i, t.text.clone()));
    }
    let mut changed_parts = Vec::new();
    let mut streams: Vec<(String, Vec<u8>)> = Vec::new();
    for (s, section) in sections.iter().enumerate() {
        let mut by_para: std::collections::BTreeMap<usize, Vec<(&Site, &str)>> = Default::default();
        let mut cells = Vec::new();
        for t in &targets {
            let Place::Field(i) = t.place else { continue };
            match sites.get(i) {
                Some(FieldRecords::One(site)) if site.section == s => by_para
                    .entry(site.header)
                    .or_default()
                    .push((site, t.text.as_str())),
                Some(FieldRecords::Many(site)) if site.section == s => {
                    // Holding the value already (as edited), the field is left as it is.
                    let held = map.fields.get(i).is_some_and(|f| f.before == t.text);
                    if !held || t.text.is_empty() {
                        cells.push(edit_many(section, site, &t.text));
                    }
                }
                _ => {}
            }
        }
        for t in &targets {
            let Place::Cell(i) = t.place else { continue };
            let (Some(cell), Some(site)) = (cell_sites.get(i), map.cells.get(i)) else {
                continue;
            };
            // Holding the value already, the cell is left as it is (a refill changes nothing).
            if cell.section == s && site.text != t.text {
                cells.extend(edit_cell(section, cell, &t.text));
            }
        }
        let mut controls = Vec::new();
        for (i, value) in &control_values {
            let Some(c) = control_sites.get(*i).filter(|c| c.section == s) else {
                continue;
            };
            let record = section.records[c.record].data(&section.data);
            if let Some(data) = set_control(record, map.controls[*i].kind, value) {
                controls.push((c.record, data));
            }
        }
        if by_para.is_empty() && cells.is_empty() && controls.is_empty() {
            continue;
        }

        let edits: Vec<(usize, Edit)> = by_para
            .iter()
            .map(|(h, list)| (*h, edit_paragraph(section, list)))
            .collect();
        let new = rewrite(section, &edits, &cells, &controls);
        if new == section.data {
            continue;
        }
        let stored = if header.compressed {
            deflate(&new)?
        } else {
            new
        };
        changed_parts.push(section.path.clone());
        streams.push((section.path.clone(), stored));
    }
    drop(container);
    if streams.is_empty() {
        return Ok(Output {
            bytes: None,
            plan,
            changed_parts,
        });
    }
    let mut compound = cfb::CompoundFile::open(Cursor::new(bytes.to_vec())).map_err(cfb_failed)?;
    for (path, stored) in &streams {
        let mut stream = compound.create_stream(path).map_err(cfb_failed)?;
        stream.write_all(stored).map_err(cfb_failed)?;
    }
    compound.flush().map_err(cfb_failed)?;
    let out = compound.into_inner().into_inner();
    check_untouched(bytes, &out, &changed_parts)?;
    Ok(Output {
        bytes: Some(out),
        plan,
        changed_parts,
    })
}

/// Every stream but the rewritten ones as it was: the compound file was updated in place.
fn check_untouched(before: &[u8], after: &[u8], changed: &[String]) -> Result<()> {
    let mut old = cfb::CompoundFile::open(Cursor::new(before)).map_err(cfb_failed)?;
    let mut new = cfb::CompoundFile::open(Cursor::new(after)).map_err(cfb_failed)?;
    let paths: Vec<std::path::PathBuf> = old
        .walk()
        .filter(|e| e.is_stream())
        .map(|e| e.path().to_path_buf())
        .collect();
    for path in paths {
        let shown = path.to_string_lossy().trim_start_matches('/').to_string();
        if changed.contains(&shown) {
            continue;
        }
        let read = |c: &mut cfb::CompoundFile<Cursor<&[u8]>>| -> std::io::Result<Vec<u8>> {
            let mut v = Vec::new();
            c.open_stream(&path)?.read_to_end(&mut v)?;
            Ok(v)
        };
        let (a, b) = (read(&mut old), read(&mut new));
        if a.ok() != b.ok() {
            return Err(Error {
                code: ErrorCode::CorruptDocument,
                message: format!("writing the compound file changed the stream {shown}"),
                suggestion: "Nothing was written. Report the document; save it as HWPX in 한글 and fill that meanwhile.".into(),
            });
        }
    }
    Ok(())
}
