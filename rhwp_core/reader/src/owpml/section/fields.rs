//! Fields and tracked changes.
//!
//! A `fieldBegin` (its `type`, `name`, `editable`, `dirty` and string parameters) and
//! the `fieldEnd` whose `beginIDRef` names it delimit a stretch of paragraph text:
//! - HYPERLINK: the text between them is given the link (the target is the `Command`
//!   parameter);
//! - MEMO: the memo's own paragraphs (the `subList` inside `fieldBegin`) become one
//!   furniture of kind `memo` (author and date from the `Author` and `CreateDateTime`
//!   parameters), anchored on the text between begin and end; they are never part of
//!   the body;
//! - every other type becomes a `Field` of the paragraph (click-here fields with their
//!   guide, the `Direction` parameter). A click-here field 한글 has never filled in
//!   (`dirty="0"`) holds its guide as text: it is read as empty (the guide is shown in
//!   its place by a later pass). A field running over several paragraphs is listed in
//!   each, over the part of it that paragraph holds, `continued` in all but the first.
//!
//! `bookmark` is a point bookmark (a field of kind bookmark with no text).
//!
//! Tracked changes (`insertBegin`/`insertEnd`, `deleteBegin`/`deleteEnd`, their
//! `TcId` naming the header's `trackChange`): inserted text is read as text in runs
//! marked inserted; deleted text is kept out of the paragraph's text, in runs marked
//! deleted.

use super::{Capture, Frame, ParaBuilder, Parser};
use crate::limits::MAX_OPEN_FIELDS;
use crate::model::{Block, Field, Furniture, Provenance, Run};
use crate::owpml::xml::{attr, attr_u32, attrs, Tag};

/// A string parameter of a field the model keeps.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Param {
    Command,
    Direction,
    Author,
    CreateDateTime,
    FieldValue,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Link,
    Memo,
    Field(&'static str),
}

/// A `fieldBegin` being read: its attributes, the parameters so far, a memo's paragraphs.
pub(super) struct FieldBuilder {
    kind: Kind,
    id: Option<String>,
    name: Option<String>,
    editable: bool,
    dirty: bool,
    command: Option<String>,
    direction: Option<String>,
    author: Option<String>,
    date: Option<String>,
    field_value: Option<String>,
    pub(super) blocks: Vec<Block>,
}

impl FieldBuilder {
    pub(super) fn is_memo(&self) -> bool {
        self.kind == Kind::Memo
    }

    pub(super) fn param(&mut self, param: Param, value: String) {
        let slot = match param {
            Param::Command => &mut self.command,
            Param::Direction => &mut self.direction,
            Param::Author => &mut self.author,
            Param::CreateDateTime => &mut self.date,
            Param::FieldValue => &mut self.field_value,
        };
        *slot = Some(value);
    }
}

/// A memo whose anchor has begun.
pub(super) struct Memo {
    blocks: Vec<Block>,
    author: Option<String>,
    date: Option<String>,
    /// The anchor's text in the paragraphs before the current one (memos over several).
    anchor: String,
    provenance: Provenance,
}

/// A field (or memo) begun in a paragraph and not yet ended.
pub(super) struct OpenField {
    id: Option<String>,
    field: Field,
    dirty: bool,
    /// Where it begins in the paragraph's text (bytes; `field.start` in chars).
    start_byte: usize,
    /// Begun in an earlier paragraph.
    continued: bool,
    /// A part of it is listed in an earlier paragraph (its first part may be empty, not listed):
    /// the later parts are then `continued` in the model.
    listed: bool,
    memo: Option<Box<Memo>>,
}

/// The model's kind of a field type (`None`: hyperlinks and memos, read apart).
fn field_kind(kind: &str) -> Kind {
    Kind::Field(match kind {
        "HYPERLINK" => return Kind::Link,
        "MEMO" => return Kind::Memo,
        "CLICK_HERE" => "click_here",
        "DATE" | "DOC_DATE" => "date",
        "CROSSREF" => "cross_reference",
        "MAILMERGE" => "mail_merge",
        "FORMULA" => "formula",
        "BOOKMARK" => "bookmark",
        "TABLEOFCONTENTS" | "TABLE_OF_CONTENTS" => "table_of_contents",
        "SUMMARY" => "summary",
        "USER_INFO" => "user_info",
        "PATH" => "file_path",
        "PAGE" | "PAGE_NUMBER" | "PAGENUM" => "page_number",
        _ => "other",
    })
}

fn non_empty(s: Option<std::borrow::Cow<'_, str>>) -> Option<String> {
    s.filter(|v| !v.is_empty()).map(|v| v.into_owned())
}

impl Parser<'_> {
    #[inline]
    pub(super) fn field_begin(&mut self, e: &Tag<'_, '_>, depth: u32) {
        let [kind, id, name, editable, dirty] =
            attrs(e, ["type", "id", "name", "editable", "dirty"]);
        let flag =
            |v: Option<std::borrow::Cow<'_, str>>| matches!(v.as_deref(), Some("1") | Some("true"));
        let builder = FieldBuilder {
            kind: field_kind(kind.as_deref().unwrap_or("")),
            id: id.map(|s| s.into_owned()),
            name: non_empty(name),
            editable: flag(editable),
            dirty: flag(dirty),
            command: None,
            direction: None,
            author: None,
            date: None,
            field_value: None,
            blocks: Vec::new(),
        };
        self.push(depth, Frame::Field(Box::new(builder)));
    }

    #[inline]
    pub(super) fn string_param(&mut self, e: &Tag<'_, '_>, depth: u32) {
        if !matches!(self.top(), Some(Frame::Field(_))) {
            return;
        }
        let param = match attr(e, "name").as_deref() {
            Some("Command") => Param::Command,
            Some("Direction") => Param::Direction,
            Some("Author") => Param::Author,
            Some("CreateDateTime") => Param::CreateDateTime,
            Some("FieldValue") => Param::FieldValue,
            _ => return,
        };
        self.push(depth, Frame::Capture(Capture::Param(param), String::new()));
    }

    /// The `fieldBegin` element closes: a hyperlink comes into force; any other field
    /// (or memo) opens in the innermost paragraph, at its current end.
    pub(super) fn close_field(&mut self, f: FieldBuilder) {
        let FieldBuilder {
            kind,
            id,
            name,
            editable,
            dirty,
            command,
            direction,
            author,
            date,
            field_value,
            blocks,
        } = f;
        let kind = match kind {
            Kind::Link => {
                if let Some(target) = command.as_deref().and_then(link_target) {
                    self.link = Some((id, target));
                }
                return;
            }
            Kind::Memo => None,
            Kind::Field(k) => Some(k),
        };
        let section = self.input.index;
        let paragraph = self.section_para;
        let Some(p) = self.para_mut() else {
            return;
        };
        let start = p.chars;
        let memo = kind.is_none().then(|| {
            Box::new(Memo {
                blocks,
                author,
                date,
                anchor: String::new(),
                provenance: Provenance {
                    section,
                    paragraph,
                    char_start: start,
                    char_end: start,
                    page: None,
                },
            })
        });
        if p.open_fields.len() >= MAX_OPEN_FIELDS {
            // Too many open at once (`MAX_OPEN_FIELDS`): its text stays text; a memo keeps
            // its own paragraphs, with no anchor.
            if let Some(memo) = memo {
                self.memos.push(finish_memo(*memo, None));
            }
            return;
        }
        let guide = match kind {
            Some("click_here") => direction
                .filter(|d| !d.is_empty())
                .or_else(|| command.as_deref().and_then(guide_from_command)),
            _ => None,
        };
        let name = match kind {
            Some("mail_merge") => name.or(field_value).or(command.filter(|c| !c.is_empty())),
            _ => name,
        };
        let field = Field {
            kind: kind.unwrap_or("memo").to_string(),
            name,
            guide,
            editable,
            value: String::new(),
            start,
            end: start,
            continued: false,
        };
        p.open_fields.push(OpenField {
            id,
            field,
            dirty,
            start_byte: p.text.len(),
            continued: false,
            listed: false,
            memo,
        });
    }

    /// A `fieldEnd`: the hyperlink or the field it closes ends here.
    #[inline]
    pub(super) fn field_end(&mut self, e: &Tag<'_, '_>) {
        let begin = attr(e, "beginIDRef");
        if let Some((id, _)) = &self.link {
            if id.is_none() || begin.is_none() || begin.as_deref() == id.as_deref() {
                self.link = None;
                return;
            }
        }
        let Some(p) = self.para_mut() else {
            return;
        };
        let k = match begin.as_deref() {
            Some(b) => p
                .open_fields
                .iter()
                .rposition(|f| f.id.as_deref() == Some(b) || f.id.is_none()),
            None => p.open_fields.len().checked_sub(1),
        };
        let Some(k) = k else {
            return;
        };
        let open = p.open_fields.remove(k);
        if let Some(memo) = end_field(p, open) {
            self.memos.push(memo);
        }
    }

    /// Fields still open when their paragraph closes: listed over the part it holds, and
    /// carried to the next paragraph at the same depth.
    pub(super) fn carry_fields(&mut self, p: &mut ParaBuilder, depth: u32) {
        for mut open in std::mem::take(&mut p.open_fields) {
            let value = p.text.get(open.start_byte..).unwrap_or_default();
            if let Some(memo) = open.memo.as_mut() {
                if !memo.anchor.is_empty() || open.continued {
                    memo.anchor.push('\n');
                }
                memo.anchor.push_str(value);
                if !open.continued {
                    memo.provenance.char_end = p.chars;
                }
            } else if !value.is_empty() {
                // (An empty piece of a field that goes on is not a blank to fill in: not listed.)
                let mut field = open.field.clone();
                field.value = value.to_string();
                field.end = p.chars;
                field.continued = open.listed;
                p.fields.push(field);
                open.listed = true;
            }
            open.continued = true;
            open.start_byte = 0;
            open.field.start = 0;
            self.carried.push((depth, open));
        }
    }

    /// A paragraph opens at this depth: it continues the fields carried to it.
    pub(super) fn take_carried(&mut self, p: &mut ParaBuilder, depth: u32) {
        let mut k = 0;
        while k < self.carried.len() {
            if self.carried[k].0 == depth {
                p.open_fields.push(self.carried.remove(k).1);
            } else {
                k += 1;
            }
        }
    }

    /// The section ends with fields never ended: their memos are kept.
    pub(super) fn flush_carried(&mut self) {
        for (_, open) in std::mem::take(&mut self.carried) {
            if let Some(memo) = open.memo {
                self.memos.push(finish_memo(*memo, None));
            }
        }
    }

    /// `bookmark`: a point bookmark, a field with no text.
    #[inline]
    pub(super) fn bookmark(&mut self, e: &Tag<'_, '_>) {
        let name = non_empty(attr(e, "name"));
        if let Some(p) = self.para_mut() {
            p.fields.push(Field {
                kind: "bookmark".into(),
                name,
                start: p.chars,
                end: p.chars,
                ..Field::default()
            });
        }
    }

    /// `insertBegin`/`deleteBegin`: the change its `TcId` names in the header.
    #[inline]
    pub(super) fn change_begin(&mut self, name: &str, e: &Tag<'_, '_>) {
        let deleted = name == "deleteBegin";
        let id = attr_u32(e, "TcId").or_else(|| attr_u32(e, "Id"));
        let mut change = id
            .and_then(|id| self.input.header.track_change(id))
            .unwrap_or_default();
        change.kind = if deleted { "deleted" } else { "inserted" }.into();
        self.change = Some(change);
    }
}

/// A field (or memo) ends at the paragraph's current end; a memo is handed back.
fn end_field(p: &mut ParaBuilder, open: OpenField) -> Option<Furniture> {
    let OpenField {
        mut field,
        dirty,
        start_byte,
        continued,
        listed,
        memo,
        ..
    } = open;
    let value = p.text.get(start_byte..).unwrap_or_default();
    if let Some(memo) = memo {
        return Some(finish_memo(*memo, Some((value, p.chars, continued))));
    }
    field.end = p.chars;
    field.continued = listed;
    // A click-here field never filled in holds its guide (in the guide's colour).
    let placeholder = field.kind == "click_here"
        && !dirty
        && !continued
        && (value.is_empty() || field.guide.as_deref() == Some(value));
    if placeholder {
        p.text.truncate(start_byte);
        p.chars = field.start;
        p.runs.retain(|(s, r)| *s < start_byte || is_deleted(r));
        field.end = field.start;
    } else if continued && value.is_empty() {
        // The field ended at the start of this paragraph: nothing of it is here.
        return None;
    } else {
        field.value = value.to_string();
    }
    p.fields.push(field);
    None
}

pub(super) fn is_deleted(r: &Run) -> bool {
    r.change.as_ref().is_some_and(|c| c.kind == "deleted")
}

/// A memo's furniture; `end`: the anchor's text in the paragraph where it ends, that
/// paragraph's end offset and whether the anchor began in an earlier one.
fn finish_memo(memo: Memo, end: Option<(&str, u32, bool)>) -> Furniture {
    let Memo {
        blocks,
        author,
        date,
        mut anchor,
        mut provenance,
    } = memo;
    if let Some((text, chars, continued)) = end {
        if continued {
            anchor.push('\n');
        } else {
            provenance.char_end = chars;
        }
        anchor.push_str(text);
    }
    Furniture {
        kind: "memo".into(),
        applies_to: None,
        number: None,
        author,
        date,
        anchor_text: Some(anchor),
        blocks,
        provenance,
    }
}

/// The guide of a click-here field from its `Command` parameter, which reads
/// `Clickhere:set:<n>:Direction:wstring:<n>:<guide> HelpState:wstring:<n>:<help> `,
/// each length counting the characters that follow.
fn guide_from_command(command: &str) -> Option<String> {
    let at = command.find("Direction:wstring:")?;
    let rest = &command[at + "Direction:wstring:".len()..];
    let (len, rest) = rest.split_once(':')?;
    let len: usize = len.trim().parse().ok()?;
    let guide: String = rest.chars().take(len).collect();
    (!guide.is_empty()).then_some(guide)
}

/// The target of a hyperlink field from its `Command` parameter, which
/// reads `target;flags...` with `\` escaping `:` and `;` inside the target.
fn link_target(command: &str) -> Option<String> {
    let mut out = crate::model::field::unescaped_target(command);
    // Hancom appends `|-` style suffixes to some targets.
    if let Some(i) = out.find('|') {
        out.truncate(i);
    }
    let out = out.trim().to_string();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_targets() {
        assert_eq!(
            link_target("http\\://www.hancom.com;1;0;0;").as_deref(),
            Some("http://www.hancom.com")
        );
        assert_eq!(
            link_target("www.daum.net|-;1;0;0").as_deref(),
            Some("www.daum.net")
        );
        assert_eq!(link_target(";1;0"), None);
    }

    #[test]
    fn guides_from_commands() {
        assert_eq!(
            guide_from_command(
                "Clickhere:set:77:Direction:wstring:26:이곳을 마우스로 누르고 본문 내용을 입력하세요. HelpState:wstring:8:본문 내용 입력  "
            )
            .as_deref(),
            Some("이곳을 마우스로 누르고 본문 내용을 입력하세요.")
        );
        assert_eq!(
            guide_from_command("Clickhere:set:44:Direction:wstring:2:날짜 HelpState:wstring:0:  ")
                .as_deref(),
            Some("날짜")
        );
        assert_eq!(guide_from_command("Clickhere:set:0:"), None);
        assert_eq!(
            guide_from_command("Clickhere:set:40:Direction:wstring:0: HelpState:wstring:0:  "),
            None
        );
    }
}
