//! One `BODY/SECTION` into the model. HWPML's body is OWPML's ancestor element for element
//! (`P`→`p`, `TEXT`→`run`, `CHAR`→`t`, `TABLE`/`ROW`/`CELL`→`tbl`/`tr`/`tc`, `PICTURE`→`pic`,
//! `DRAWTEXT`→`drawText`, `FOOTNOTE`→`footNote`...): each element is renamed, with the
//! attributes the model needs renamed and respelled, and handed to the OWPML section parser
//! (`crate::owpml::section::SectionBuilder`), so the two formats share one mapping to the model
//! (block order, tables' grids, notes, headings and list markers, links, pages).
//!
//! Where HWPML says in an attribute what OWPML says in a child element (a cell's address and
//! span, a hyperlink's `Command`), the child is handed over as OWPML writes it.

use super::index::{escape_into, owpml_value};
use crate::owpml::section::{DocState, SectionBuilder, SectionInput, SectionOutput};
use crate::owpml::xml::{attr, attrs, own_tag, walk, Flow, Step, Tag};
use crate::{Error, Result};

/// How an attribute's value is carried over.
#[derive(Clone, Copy)]
enum Value {
    AsIs,
    /// An enumeration: `Both` → `BOTH` (`index::owpml_value`).
    Enum,
    /// `PAGEDEF Landscape`: `1` is landscape, which OWPML spells `NARROWLY`.
    Landscape,
}

use Value::{AsIs, Enum, Landscape};

/// The most attributes one element has renamed (`P`, `PAGEMARGIN`).
const MAX_RENAMES: usize = 4;

/// (HWPML attribute, OWPML attribute, how its value is carried).
type Renames = &'static [(&'static str, &'static str, Value)];

/// An HWPML element's OWPML name and the attributes the section parser reads.
fn owpml(name: &str) -> Option<(&'static str, Renames)> {
    Some(match name {
        "P" => (
            "p",
            &[
                ("ParaShape", "paraPrIDRef", AsIs),
                ("Style", "styleIDRef", AsIs),
                ("PageBreak", "pageBreak", AsIs),
                ("ColumnBreak", "columnBreak", AsIs),
            ],
        ),
        "TEXT" => ("run", &[("CharShape", "charPrIDRef", AsIs)]),
        "CHAR" => ("t", &[]),
        "TAB" => ("tab", &[]),
        "LINEBREAK" => ("lineBreak", &[]),
        // HWPML spells it without the second h; both are accepted.
        "HYPEN" | "HYPHEN" => ("hyphen", &[]),
        "NBSPACE" => ("nbSpace", &[]),
        "FWSPACE" => ("fwSpace", &[]),
        "SECDEF" => ("secPr", &[]),
        "PAGEDEF" => (
            "pagePr",
            &[
                ("Width", "width", AsIs),
                ("Height", "height", AsIs),
                ("Landscape", "landscape", Landscape),
            ],
        ),
        "PAGEMARGIN" => (
            "margin",
            &[
                ("Left", "left", AsIs),
                ("Right", "right", AsIs),
                ("Top", "top", AsIs),
                ("Bottom", "bottom", AsIs),
            ],
        ),
        "COLDEF" => ("colPr", &[("Count", "colCount", AsIs)]),
        "TABLE" => (
            "tbl",
            &[("RowCount", "rowCnt", AsIs), ("ColCount", "colCnt", AsIs)],
        ),
        "ROW" => ("tr", &[]),
        "CELL" => ("tc", &[("Header", "header", AsIs)]),
        "CAPTION" => ("caption", &[]),
        "PICTURE" => ("pic", &[]),
        "IMAGE" => ("img", &[("BinItem", "binaryItemIDRef", AsIs)]),
        "SIZE" => (
            "sz",
            &[("Width", "width", AsIs), ("Height", "height", AsIs)],
        ),
        "SHAPECOMMENT" => ("shapeComment", &[]),
        "EQUATION" => ("equation", &[]),
        "SCRIPT" => ("script", &[]),
        "RECTANGLE" => ("rect", &[]),
        "ELLIPSE" => ("ellipse", &[]),
        "POLYGON" => ("polygon", &[]),
        "LINE" => ("line", &[]),
        "ARC" => ("arc", &[]),
        "CURVE" => ("curve", &[]),
        "CONNECTLINE" => ("connectLine", &[]),
        "CONTAINER" => ("container", &[]),
        "TEXTART" => ("textart", &[("Text", "text", AsIs)]),
        "OLE" => ("ole", &[("BinItem", "binaryItemIDRef", AsIs)]),
        "BUTTON" => ("btn", &[("Caption", "caption", AsIs)]),
        "RADIOBUTTON" => ("radioBtn", &[("Caption", "caption", AsIs)]),
        "CHECKBUTTON" => ("checkBtn", &[("Caption", "caption", AsIs)]),
        // The text a combo or list box shows (its selection) is its `Text`.
        "COMBOBOX" => ("comboBox", &[("Text", "selectedValue", AsIs)]),
        "LISTBOX" => ("listBox", &[("Text", "selectedValue", AsIs)]),
        "EDIT" => ("edit", &[]),
        // An edit box's text, as OWPML's `text` child holds it.
        "EDITTEXT" => ("text", &[]),
        "SCROLLBAR" => ("scrollBar", &[("Value", "value", AsIs)]),
        "HEADER" => ("header", &[("ApplyPageType", "applyPageType", Enum)]),
        "FOOTER" => ("footer", &[("ApplyPageType", "applyPageType", Enum)]),
        "FOOTNOTE" => ("footNote", &[("Number", "number", AsIs)]),
        "ENDNOTE" => ("endNote", &[("Number", "number", AsIs)]),
        "AUTONUM" => (
            "autoNum",
            &[("Number", "num", AsIs), ("NumberType", "numType", Enum)],
        ),
        "FIELDEND" => ("fieldEnd", &[]),
        // 덧말: the base text is read as text; the ruby text goes where OWPML's goes.
        "DUTMAL" => ("dutmal", &[]),
        // 글자 겹침: OWPML keeps the characters drawn over each other in `composeText`; the HWPML
        // spec lists no text for COMPOSE, so its `ComposeText`, where a writer gives one, is read.
        "COMPOSE" => ("compose", &[("ComposeText", "composeText", AsIs)]),
        "MAINTEXT" => ("mainText", &[]),
        "SUBTEXT" => ("subText", &[]),
        _ => return None,
    })
}

/// OWPML's `fieldBegin` type for an HWPML `FIELDBEGIN Type` (spelled `ClickHere`,
/// `Hyperlink`, `MailMerge`...: compared without case or underscores).
fn owpml_field_type(kind: &str) -> Option<&'static str> {
    let mut key = String::with_capacity(kind.len());
    key.extend(
        kind.chars()
            .filter(|c| *c != '_')
            .map(|c| c.to_ascii_lowercase()),
    );
    Some(match key.as_str() {
        "hyperlink" => "HYPERLINK",
        "clickhere" => "CLICK_HERE",
        "date" => "DATE",
        "docdate" => "DOC_DATE",
        "crossref" => "CROSSREF",
        "mailmerge" => "MAILMERGE",
        "formula" => "FORMULA",
        "bookmark" => "BOOKMARK",
        "tableofcontents" => "TABLEOFCONTENTS",
        "summary" | "summery" => "SUMMARY",
        "userinfo" => "USER_INFO",
        "path" => "PATH",
        "memo" => "MEMO",
        "" => return None,
        _ => "OTHER",
    })
}

/// Elements whose content holds nothing the model keeps (layout and rendering details,
/// hidden comments, scripts): skipped unread, as the HWPX reader skips their OWPML twins.
fn skipped(name: &str) -> bool {
    matches!(
        name,
        "HIDDENCOMMENT"
            | "SCRIPTCODE"
            | "PAGEBORDERFILL"
            | "FOOTNOTESHAPE"
            | "ENDNOTESHAPE"
            | "RENDERINGINFO"
            | "LINESHAPE"
            | "FILLBRUSH"
            | "SHADOW"
            | "IMAGERECT"
            | "IMAGECLIP"
            | "EFFECTS"
            | "STARTNUMBER"
            | "HIDE"
            | "POSITION"
            | "OUTSIDEMARGIN"
            | "INSIDEMARGIN"
            | "TEXTMARGIN"
            | "CELLZONELIST"
            // Master pages (바탕쪽) decorate every page; like HWPX's master-page parts and HWP
            // 5.0's, their text is not the document's.
            | "MASTERPAGE"
            | "EXT_MASTERPAGE"
            // Index marks' keywords are not shown where they sit.
            | "INDEXMARK"
    )
}

struct Translator<'a> {
    builder: SectionBuilder<'a>,
    /// The OWPML start tag being handed over (reused: one per element).
    tag: String,
}

/// Read one section: `text` is the `SECTION` element's bytes.
pub fn read(text: &str, input: &SectionInput<'_>, state: &mut DocState) -> Result<SectionOutput> {
    let mut t = Translator {
        builder: SectionBuilder::new(input, state),
        tag: String::with_capacity(128),
    };
    walk(
        text.as_bytes(),
        input.part,
        input.limits.max_xml_depth,
        input.limits.max_records,
        |step, depth| match step {
            Step::Open { name, start, .. } => t.open(name, start, depth),
            Step::Close => {
                t.builder.close(depth);
                Ok(Flow::Continue)
            }
            Step::Text(s) => {
                t.builder.text(s);
                Ok(Flow::Continue)
            }
            Step::Children(_) => Ok(Flow::Continue),
        },
    )?;
    Ok(t.builder.finish())
}

impl Translator<'_> {
    fn open(&mut self, name: &str, e: &Tag<'_, '_>, depth: u32) -> Result<Flow> {
        if skipped(name) {
            return Ok(Flow::Skip);
        }
        match name {
            "FIELDBEGIN" => return self.field_begin(e, depth),
            "CELL" => {
                // One scan of the cell's tag (it has a dozen attributes) for the six wanted: a
                // named cell (`Name`) is a form's field, as OWPML's `tc name`; OWPML gives the
                // address and span as children of the cell.
                let [header, name, row, col, row_span, col_span] = attrs(
                    e,
                    ["Header", "Name", "RowAddr", "ColAddr", "RowSpan", "ColSpan"],
                );
                self.write("tc", [("header", header), ("name", name)], AsIs);
                let flow = self.open_tag("tc", depth)?;
                self.write("cellAddr", [("rowAddr", row), ("colAddr", col)], AsIs);
                self.open_tag("cellAddr", depth + 1)?;
                self.builder.close(depth + 1);
                self.write(
                    "cellSpan",
                    [("rowSpan", row_span), ("colSpan", col_span)],
                    AsIs,
                );
                self.open_tag("cellSpan", depth + 1)?;
                self.builder.close(depth + 1);
                return Ok(flow);
            }
            // A form control's name (FORMOBJECT) and a button's caption, state and radio group
            // (BUTTONSET) are children here, attributes of the control in OWPML.
            "FORMOBJECT" | "BUTTONSET" => {
                self.form_details(name, e);
                return Ok(Flow::Continue);
            }
            _ => {}
        }
        match owpml(name) {
            Some((owpml_name, renames)) => self.hand_over(owpml_name, renames, e, depth),
            // Structure the section parser has no use for (`SHAPEOBJECT`, `PARALIST`...):
            // its content is still read.
            None => Ok(Flow::Continue),
        }
    }

    /// A field: OWPML's `fieldBegin` with its type (`Hyperlink` → `HYPERLINK`, `ClickHere` →
    /// `CLICK_HERE`...), name, editable and dirty flags, and its `Command` as the string
    /// parameter of that name (a hyperlink's target; a click-here field's guide is read from it).
    fn field_begin(&mut self, e: &Tag<'_, '_>, depth: u32) -> Result<Flow> {
        let [kind, id, name, editable, dirty] =
            attrs(e, ["Type", "InstId", "Name", "Editable", "Dirty"]);
        let kind = kind.as_deref().and_then(owpml_field_type);
        self.tag.clear();
        self.tag.push_str("<fieldBegin");
        for (key, value) in [
            ("type", kind.map(std::borrow::Cow::Borrowed)),
            ("id", id),
            ("name", name),
            ("editable", editable),
            ("dirty", dirty),
        ] {
            if let Some(v) = value {
                self.tag.push(' ');
                self.tag.push_str(key);
                self.tag.push_str("=\"");
                escape_into(&mut self.tag, &v);
                self.tag.push('"');
            }
        }
        self.tag.push_str("/>");
        let flow = self.open_tag("fieldBegin", depth)?;
        if let Some(command) = attr(e, "Command").filter(|_| kind.is_some()) {
            self.tag.clear();
            self.tag.push_str("<stringParam name=\"Command\"/>");
            self.open_tag("stringParam", depth + 1)?;
            self.builder.text(&command);
            self.builder.close(depth + 1);
        }
        Ok(flow)
    }

    fn form_details(&mut self, name: &str, e: &Tag<'_, '_>) {
        const FORM_OBJECT: Renames = &[("Name", "name", AsIs)];
        const BUTTON_SET: Renames = &[
            ("Caption", "caption", AsIs),
            ("Value", "value", Enum),
            ("RadioGroupName", "radioGroupName", AsIs),
        ];
        let renames = if name == "FORMOBJECT" {
            FORM_OBJECT
        } else {
            BUTTON_SET
        };
        self.restate("details", renames, e);
        if let Some(tag) = own_tag(&self.tag, "details".len()) {
            self.builder.form_details(&tag);
        }
    }

    fn hand_over(
        &mut self,
        owpml_name: &str,
        renames: Renames,
        e: &Tag<'_, '_>,
        depth: u32,
    ) -> Result<Flow> {
        self.restate(owpml_name, renames, e);
        self.open_tag(owpml_name, depth)
    }

    /// `self.tag` := an empty OWPML element `owpml_name` with `e`'s attributes renamed.
    fn restate(&mut self, owpml_name: &str, renames: Renames, e: &Tag<'_, '_>) {
        // One scan of the tag for all the attributes wanted (no element renames more than 4).
        let mut keys = [""; MAX_RENAMES];
        for (k, &(from, ..)) in keys.iter_mut().zip(renames) {
            *k = from;
        }
        let values = if renames.is_empty() {
            Default::default()
        } else {
            attrs(e, keys)
        };
        self.tag.clear();
        self.tag.push('<');
        self.tag.push_str(owpml_name);
        for (&(_, to, how), v) in renames.iter().zip(values) {
            self.attribute(to, v, how);
        }
        self.tag.push_str("/>");
    }

    /// `self.tag` := an empty OWPML element `owpml_name` with the given attributes.
    fn write<const N: usize>(
        &mut self,
        owpml_name: &str,
        values: [(&str, Option<std::borrow::Cow<'_, str>>); N],
        how: Value,
    ) {
        self.tag.clear();
        self.tag.push('<');
        self.tag.push_str(owpml_name);
        for (to, v) in values {
            self.attribute(to, v, how);
        }
        self.tag.push_str("/>");
    }

    fn attribute(&mut self, to: &str, value: Option<std::borrow::Cow<'_, str>>, how: Value) {
        let Some(v) = value else { return };
        self.tag.push(' ');
        self.tag.push_str(to);
        self.tag.push_str("=\"");
        match how {
            AsIs => escape_into(&mut self.tag, &v),
            Enum => escape_into(&mut self.tag, &owpml_value(&v)),
            Landscape => self.tag.push_str(if matches!(v.trim(), "1" | "true") {
                "NARROWLY"
            } else {
                "WIDELY"
            }),
        }
        self.tag.push('"');
    }

    fn open_tag(&mut self, owpml_name: &str, depth: u32) -> Result<Flow> {
        let tag = own_tag(&self.tag, owpml_name.len()).ok_or_else(|| {
            Error::corrupt(format!(
                "HWPML: could not restate <{owpml_name}> for the reader"
            ))
        })?;
        self.builder.open(owpml_name, &tag, depth)
    }
}

#[cfg(test)]
mod field_type_tests {
    use super::owpml_field_type;

    #[test]
    fn hwpml_field_types_to_owpml() {
        assert_eq!(owpml_field_type("ClickHere"), Some("CLICK_HERE"));
        assert_eq!(owpml_field_type("CLICK_HERE"), Some("CLICK_HERE"));
        assert_eq!(owpml_field_type("Hyperlink"), Some("HYPERLINK"));
        assert_eq!(owpml_field_type("MailMerge"), Some("MAILMERGE"));
        assert_eq!(owpml_field_type("Summery"), Some("SUMMARY"));
        assert_eq!(owpml_field_type("Something"), Some("OTHER"));
        assert_eq!(owpml_field_type(""), None);
    }
}
