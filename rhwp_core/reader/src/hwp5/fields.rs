//! Fields (필드), form objects (양식 개체) and the parameter data they carry.
//!
//! Format facts (HWP 5.0 spec "필드", checked on the corpus's click-here files):
//! - A field's CTRL_HEADER: control id (`%clk`, `%dte`, ...), property (u32; bit 0: editable
//!   while the document is read-only), extra property (u8), command (u16 length + UTF-16),
//!   instance id (u32), then 4 bytes: for `%unk`/`%%me` fields the memo index (i32).
//! - The field's name is not in the header but in a CTRL_DATA child record: a parameter set
//!   (set id u16 = 0x21B, item count i16, 2 bytes, then items: id u16, type u16, value) whose
//!   string item (type 1: u16 length + UTF-16) with id 0x4000 is the name. A table cell's
//!   LIST_HEADER carries the same parameter set after its standard attributes (byte 38 = 0xFF).
//! - A click-here field's command is a property string: `Clickhere:set:66:Direction:wstring:23:
//!   <guide> HelpState:wstring:0:  ` — the guide (안내문) is `Direction`.
//! - Property strings (field commands, form objects) are `name:type:value` items separated by a
//!   space; `wstring` and `set` values are length-prefixed (`name:wstring:N:<N units>`,
//!   `name:set:N:<N units of items>`), other types (`int`, `bool`) run to the next space.
//! - A form object (`form` control) has the object common properties in its CTRL_HEADER and a
//!   FORM_OBJECT child: type id (4 bytes, `+cbt` checkbox, `+rbt` radio button, `+cob` combo box,
//!   `+edt` edit box, `+pbt` push button), the type id again, a u32, then the property string
//!   (u16 length + UTF-16): `CommonSet:set:N:Name:wstring:..  ... ButtonSet:set:N:Caption:..
//!   Value:int:1 RadioGroupName:wstring:.. ` (`ComboBoxSet`/`EditSet` hold `Text`).

use super::record::{ctrl_id, utf16_string, Reader};
use crate::model::FormControl;

/// The parameter-set item id of a field's or a cell's name.
const NAME_ITEM: u16 = 0x4000;

/// The string item `item` of the parameter set at the start of `data`, if any.
pub fn parameter_string(data: &[u8], item: u16) -> Option<String> {
    let mut r = Reader::new(data);
    let _set_id = r.u16();
    let count = r.u16() as i16;
    r.skip(2);
    for _ in 0..count.max(0) {
        let id = r.u16();
        let kind = r.u16();
        if r.short {
            return None;
        }
        match kind {
            0 => {}
            1 => {
                let s = r.string();
                if id == item {
                    return (!r.short).then_some(s);
                }
            }
            2..=9 => r.skip(4),
            0x8002 => r.skip(2),
            // Nested sets and arrays: the name item comes first in every file seen; stop here.
            _ => return None,
        }
    }
    None
}

/// A field's or a cell's name from its parameter set (`None` when empty).
pub fn parameter_name(data: &[u8]) -> Option<String> {
    parameter_string(data, NAME_ITEM).filter(|s| !s.is_empty())
}

/// The name of a cell from its LIST_HEADER: after the paragraph count (4), property (4), address
/// and spans (8), size (8), margins (8), border fill (2) and text width (4), a flag byte 0xFF
/// announces a parameter set holding the field name.
pub fn cell_field_name(list_header: &[u8]) -> Option<String> {
    if list_header.get(38) != Some(&0xFF) {
        return None;
    }
    parameter_name(&list_header[39..])
}

/// The model's kind of a field control id; `None` for ids that are not fields read as such
/// (hyperlinks are runs' links, memos are furniture).
pub fn field_kind(id: &[u8; 4]) -> Option<&'static str> {
    Some(match id {
        b"%clk" => "click_here",
        b"%dte" | b"%ddt" => "date",
        b"%xrf" => "cross_reference",
        b"%mmg" => "mail_merge",
        b"%fmu" => "formula",
        b"%bmk" => "bookmark",
        b"%toc" => "table_of_contents",
        b"%smr" => "summary",
        b"%usr" => "user_info",
        b"%pat" => "file_path",
        b"%hlk" | b"%%me" => return None,
        [b'%', ..] => "other",
        _ => return None,
    })
}

/// The items of a property string, nested sets flattened in order: (name, value).
pub fn properties(s: &str) -> Vec<(String, String)> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut out = Vec::new();
    parse_items(&units, &mut out, 0);
    out
}

fn parse_items(u: &[u16], out: &mut Vec<(String, String)>, depth: u32) {
    let text = |a: usize, b: usize| String::from_utf16_lossy(&u[a.min(u.len())..b.min(u.len())]);
    let find = |from: usize, c: u16| {
        u[from.min(u.len())..]
            .iter()
            .position(|&x| x == c)
            .map(|p| from + p)
    };
    let mut pos = 0usize;
    while pos < u.len() {
        if u[pos] == b' ' as u16 {
            pos += 1;
            continue;
        }
        let Some(c1) = find(pos, b':' as u16) else {
            return;
        };
        let name = text(pos, c1);
        let Some(c2) = find(c1 + 1, b':' as u16) else {
            return;
        };
        let kind = text(c1 + 1, c2);
        match kind.as_str() {
            "set" | "wstring" => {
                let Some(c3) = find(c2 + 1, b':' as u16) else {
                    return;
                };
                let Ok(n) = text(c2 + 1, c3).trim().parse::<usize>() else {
                    return;
                };
                let start = c3 + 1;
                let end = start.saturating_add(n).min(u.len());
                if kind == "set" {
                    if depth < 8 {
                        parse_items(&u[start..end], out, depth + 1);
                    }
                } else {
                    out.push((name, text(start, end)));
                }
                pos = end;
            }
            _ => {
                let end = find(c2 + 1, b' ' as u16).unwrap_or(u.len());
                out.push((name, text(c2 + 1, end)));
                pos = end;
            }
        }
    }
}

fn property<'p>(props: &'p [(String, String)], name: &str) -> Option<&'p str> {
    props
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// A click-here field's guide (안내문): `Direction` in its command.
pub fn click_here_guide(command: &str) -> Option<String> {
    if !command.contains("Direction:") {
        return None;
    }
    property(&properties(command), "Direction")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A FORM_OBJECT record's payload → a form control (provenance left default).
pub fn form_control(data: &[u8]) -> FormControl {
    let type_id = ctrl_id(data);
    let mut r = Reader::at(data, 12);
    let n = r.u16() as usize;
    let raw = r.bytes(n * 2);
    let raw = if r.short {
        data.get(14..).unwrap_or(&[])
    } else {
        raw
    };
    let props = properties(&utf16_string(raw));
    let get = |name: &str| property(&props, name).map(str::to_string);
    let non_empty = |name: &str| get(name).filter(|s| !s.is_empty());
    let has = |name: &str| props.iter().any(|(n, _)| n == name);
    let control = match &type_id {
        b"+cbt" => "checkbox",
        b"+rbt" => "radio",
        b"+cob" => "combo_box",
        b"+edt" => "edit",
        b"+pbt" => "button",
        b"+lbx" | b"+lst" => "list_box",
        b"+sbr" | b"+scb" => "scroll_bar",
        _ if has("RadioGroupName") => "radio",
        _ if has("TriState") => "checkbox",
        _ if has("ListBoxRows") => "combo_box",
        _ if has("MultiLine") => "edit",
        _ => "button",
    };
    let value_int = get("Value").and_then(|v| v.trim().parse::<i64>().ok());
    let mut fc = FormControl {
        control: control.into(),
        name: non_empty("Name"),
        caption: non_empty("Caption"),
        ..FormControl::default()
    };
    match control {
        "checkbox" | "radio" => {
            fc.checked = Some(value_int == Some(1));
            if control == "radio" {
                fc.group = non_empty("RadioGroupName").or_else(|| non_empty("GroupName"));
            }
        }
        "button" => {}
        _ => fc.value = get("Text").or_else(|| get("Value")),
    }
    fc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn property_strings() {
        let cmd = "Clickhere:set:66:Direction:wstring:23:이곳을 마우스로 누르고 내용을 입력하세요. HelpState:wstring:0:  ";
        assert_eq!(
            properties(cmd),
            vec![
                (
                    "Direction".into(),
                    "이곳을 마우스로 누르고 내용을 입력하세요.".into()
                ),
                ("HelpState".into(), String::new()),
            ]
        );
        assert_eq!(
            click_here_guide(cmd).as_deref(),
            Some("이곳을 마우스로 누르고 내용을 입력하세요.")
        );
        // A wstring value holding separators is taken by its length; a lying length is cut.
        assert_eq!(
            properties("A:wstring:5:x y:z B:int:3 C:bool:1"),
            vec![
                ("A".into(), "x y:z".into()),
                ("B".into(), "3".into()),
                ("C".into(), "1".into())
            ]
        );
        assert_eq!(
            properties("A:wstring:99:ab"),
            vec![("A".into(), "ab".into())]
        );
        assert!(properties("garbage").is_empty());
        assert_eq!(click_here_guide("=SUM(A1:A3)"), None);
    }

    #[test]
    fn parameter_set_name() {
        // Set 0x21B, one item: id 0x4000, type string, "필드1".
        let data = [
            0x1b, 0x02, 0x01, 0x00, 0, 0, 0x00, 0x40, 0x01, 0x00, 0x03, 0x00, 0x44, 0xd5, 0xdc,
            0xb4, 0x31, 0x00,
        ];
        assert_eq!(parameter_name(&data).as_deref(), Some("필드1"));
        assert_eq!(parameter_name(&data[..12]), None);
        assert_eq!(parameter_name(&[]), None);
    }
}
