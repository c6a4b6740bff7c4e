//! Drawing objects anchored in a paragraph: pictures (their bin data, size and
//! description), equations (their script), shapes (with the paragraphs they
//! hold; text art), form controls (their name, caption, state, text and choices),
//! OLE objects and charts (kept as Unknown blocks with what text they show), and the
//! captions of objects and tables.

use super::{BinRef, Capture, Frame, Parser};
use crate::common::equation;
use crate::model::{
    Block, Equation, FormControl, Paragraph, Picture, Provenance, Run, Shape, Unknown,
};
use crate::owpml::xml::{attr, attrs, attrs_u32, Tag};
use crate::Result;

pub(super) enum ObjectKind {
    Picture {
        bin: Option<BinRef>,
        description: Option<String>,
    },
    Equation {
        script: String,
    },
    Shape {
        kind: &'static str,
    },
    Unknown {
        object: String,
        bin: Option<u32>,
        text: Option<String>,
    },
    /// A form control (`provenance` is set when it closes).
    Form(Box<FormControl>),
}

pub(super) struct ObjectBuilder {
    pub(super) kind: ObjectKind,
    width: u32,
    height: u32,
    pub(super) blocks: Vec<Block>,
    caption: Vec<Block>,
    provenance: Provenance,
    /// Whether `sz` has set the size (it wins over `curSz`).
    sized: bool,
}

fn shape_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        "rect" => "rectangle",
        "ellipse" => "ellipse",
        "polygon" => "polygon",
        "line" => "line",
        "arc" => "arc",
        "curve" => "curve",
        "connectLine" => "connect_line",
        "container" => "container",
        "textart" => "textart",
        _ => return None,
    })
}

/// Objects the model does not describe further (kept as Unknown blocks).
fn is_unknown_object(name: &str) -> bool {
    matches!(name, "ole" | "chart" | "video")
}

/// The model's name of a form control element.
fn form_control(name: &str) -> Option<&'static str> {
    Some(match name {
        "btn" => "button",
        "radioBtn" => "radio",
        "checkBtn" => "checkbox",
        "comboBox" => "combo_box",
        "listBox" => "list_box",
        "edit" => "edit",
        "scrollBar" => "scroll_bar",
        _ => return None,
    })
}

/// A form control from its element's attributes: every control has a `name`; buttons
/// a `caption` and a `value` (`CHECKED`, `UNCHECKED`, `INDETERMINATE`), radio buttons a
/// `radioGroupName`; combo and list boxes a `selectedValue`; scroll bars a numeric `value`.
/// An edit box's text (`text`) and a combo or list box's items (`listItem`) are children.
fn read_form_control(control: &str, e: &Tag<'_, '_>) -> FormControl {
    let [name, caption, value, group, selected] = attrs(
        e,
        [
            "name",
            "caption",
            "value",
            "radioGroupName",
            "selectedValue",
        ],
    );
    let own =
        |v: Option<std::borrow::Cow<'_, str>>| v.filter(|s| !s.is_empty()).map(|s| s.into_owned());
    let (checked, value) = match control {
        "checkbox" | "radio" => (
            Some(matches!(
                value.as_deref(),
                Some("CHECKED") | Some("1") | Some("true")
            )),
            None,
        ),
        "combo_box" | "list_box" => (None, own(selected)),
        "scroll_bar" => (None, own(value)),
        _ => (None, None),
    };
    FormControl {
        control: control.to_string(),
        name: own(name),
        caption: match control {
            "button" | "checkbox" | "radio" => own(caption),
            _ => None,
        },
        value,
        checked,
        options: Vec::new(),
        group: if control == "radio" { own(group) } else { None },
        provenance: Provenance::default(),
    }
}

impl Parser<'_> {
    #[inline]
    pub(super) fn open_caption(&mut self, depth: u32) {
        if matches!(self.top(), Some(Frame::Table(_)) | Some(Frame::Object(_))) {
            self.push(depth, Frame::Caption(Vec::new()));
        }
    }

    #[inline]
    pub(super) fn open_script(&mut self, depth: u32) {
        if let Some(Frame::Object(o)) = self.top() {
            if matches!(o.kind, ObjectKind::Equation { .. }) {
                self.push(depth, Frame::Capture(Capture::Script, String::new()));
            }
        }
    }

    #[inline]
    pub(super) fn open_form_text(&mut self, depth: u32) {
        if let Some(Frame::Object(o)) = self.top() {
            if matches!(o.kind, ObjectKind::Form(_)) {
                self.push(depth, Frame::Capture(Capture::FormText, String::new()));
            }
        }
    }

    /// Details of the open form control given apart from its element (see
    /// `SectionBuilder::form_details`): each fills what the control's own element left unset.
    pub(super) fn form_details(&mut self, e: &Tag<'_, '_>) {
        if let Some(Frame::Object(o)) = self.top() {
            if let ObjectKind::Form(form) = &mut o.kind {
                let more = read_form_control(&form.control, e);
                form.name = form.name.take().or(more.name);
                form.caption = form.caption.take().or(more.caption);
                form.value = form.value.take().or(more.value);
                form.group = form.group.take().or(more.group);
                // A button's state is its `value`: where the details carry one, it decides.
                if form.checked.is_some() && attr(e, "value").is_some() {
                    form.checked = more.checked;
                }
            }
        }
    }

    /// `listItem` of a combo or list box: one of its choices (what it displays).
    #[inline]
    pub(super) fn list_item(&mut self, e: &Tag<'_, '_>) {
        if let Some(Frame::Object(o)) = self.top() {
            if let ObjectKind::Form(form) = &mut o.kind {
                let [display, value] = attrs(e, ["displayText", "value"]);
                if let Some(item) = display.filter(|s| !s.is_empty()).or(value) {
                    if !item.is_empty() {
                        form.options.push(item.into_owned());
                    }
                }
            }
        }
    }

    #[inline]
    pub(super) fn open_shape_comment(&mut self, depth: u32) {
        if matches!(self.top(), Some(Frame::Object(_))) {
            self.push(depth, Frame::Capture(Capture::Comment, String::new()));
        }
    }

    #[inline]
    pub(super) fn img(&mut self, e: &Tag<'_, '_>) {
        let bin =
            attr(e, "binaryItemIDRef").and_then(|id| self.input.bins.get(id.as_ref()).cloned());
        if let Some(Frame::Object(o)) = self.top() {
            if let ObjectKind::Picture { bin: slot, .. } = &mut o.kind {
                if slot.is_none() {
                    *slot = bin;
                }
            }
        }
    }

    #[inline]
    pub(super) fn size(&mut self, name: &str, e: &Tag<'_, '_>) {
        if name == "sz" && matches!(self.top(), Some(Frame::Table(_))) {
            return self.table_size(e);
        }
        let [w, h] = attrs_u32(e, ["width", "height"]).map(|v| v.unwrap_or(0));
        match self.top() {
            Some(Frame::Object(o)) if name == "sz" || !o.sized => {
                o.width = w;
                o.height = h;
                o.sized |= name == "sz";
            }
            _ => {}
        }
    }

    #[inline]
    pub(super) fn open_other(&mut self, name: &str, e: &Tag<'_, '_>, depth: u32) -> Result<()> {
        if let Some(kind) = shape_kind(name) {
            self.open_object(depth, ObjectKind::Shape { kind })?;
            if name == "textart" {
                if let Some(text) = attr(e, "text") {
                    self.textart(&text);
                }
            }
        } else if let Some(control) = form_control(name) {
            let form = read_form_control(control, e);
            self.open_object(depth, ObjectKind::Form(Box::new(form)))?;
        } else if is_unknown_object(name) {
            let bin = attr(e, "binaryItemIDRef")
                .and_then(|id| self.input.bins.get(id.as_ref()).map(|b| b.id));
            // Charts show their series (read from the chart part beforehand).
            let text = None
                .or_else(|| {
                    let part = attr(e, "chartIDRef")?;
                    self.input.charts.get(part.trim_start_matches('/')).cloned()
                })
                .filter(|s| !s.trim().is_empty());
            self.open_object(
                depth,
                ObjectKind::Unknown {
                    object: name.to_string(),
                    bin,
                    text,
                },
            )?;
        }
        Ok(())
    }

    pub(super) fn open_object(&mut self, depth: u32, kind: ObjectKind) -> Result<()> {
        self.enter_object()?;
        let provenance = self.provenance_here();
        self.push(
            depth,
            Frame::Object(Box::new(ObjectBuilder {
                kind,
                width: 0,
                height: 0,
                blocks: Vec::new(),
                caption: Vec::new(),
                provenance,
                sized: false,
            })),
        );
        Ok(())
    }

    /// Text art keeps its words in an attribute; they become one paragraph per line.
    fn textart(&mut self, text: &str) {
        let provenance = self.provenance_here();
        let Some((_, Frame::Object(o))) = self.stack.last_mut() else {
            return;
        };
        // Hancom writes the line breaks of text art as the visible symbols ␍␊.
        for line in text
            .split(['\r', '\n', '\u{240D}', '\u{240A}'])
            .filter(|l| !l.trim().is_empty())
        {
            let chars = line.chars().count() as u32;
            o.blocks.push(Block::Paragraph(Paragraph {
                text: line.to_string(),
                stored_text: None,
                runs: vec![Run {
                    text: line.to_string(),
                    ..Run::default()
                }],
                provenance: Provenance {
                    char_start: 0,
                    char_end: chars,
                    ..provenance.clone()
                },
                ..Paragraph::default()
            }));
        }
    }

    #[inline]
    pub(super) fn close_caption(&mut self, blocks: Vec<Block>) {
        match self.top() {
            Some(Frame::Table(t)) => t.caption.extend(blocks),
            Some(Frame::Object(o)) => o.caption.extend(blocks),
            _ => {}
        }
    }

    #[inline]
    pub(super) fn close_object(&mut self, o: ObjectBuilder) {
        self.object_depth = self.object_depth.saturating_sub(1);
        let ObjectBuilder {
            kind,
            width,
            height,
            blocks,
            caption,
            provenance,
            ..
        } = o;
        let block = match kind {
            ObjectKind::Picture { bin, description } => Block::Picture(Picture {
                bin_data_id: bin.as_ref().map(|b| b.id),
                bin_data_name: bin.map(|b| b.name),
                width,
                height,
                description,
                caption,
                provenance,
            }),
            ObjectKind::Equation { script } => Block::Equation(Equation {
                latex: equation::to_latex(&script),
                script,
                caption,
                provenance,
            }),
            ObjectKind::Shape { kind } => Block::Shape(Shape {
                shape_kind: kind.to_string(),
                blocks,
                caption,
                provenance,
            }),
            ObjectKind::Form(form) => Block::FormControl(FormControl {
                provenance,
                ..*form
            }),
            ObjectKind::Unknown { object, bin, text } => Block::Unknown(Unknown {
                object,
                bin_data_id: bin,
                text,
                provenance,
            }),
        };
        self.emit(block);
    }
}
