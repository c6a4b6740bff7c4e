//! Drawing objects anchored in a paragraph: pictures (their bin data, size and
//! description), equations (their script), shapes (with the paragraphs they
//! hold; text art), form controls, OLE objects and charts (kept as Unknown
//! blocks with what text they show), and the captions of objects and tables.

use super::{BinRef, Capture, Frame, Parser};
use crate::hwpx::xml::{attr, attrs_u32, Tag};
use crate::model::{Block, Equation, Paragraph, Picture, Provenance, Run, Shape, Unknown};
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
    matches!(
        name,
        "ole"
            | "chart"
            | "video"
            | "btn"
            | "radioBtn"
            | "checkBtn"
            | "comboBox"
            | "listBox"
            | "edit"
            | "scrollBar"
    )
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
            if matches!(o.kind, ObjectKind::Unknown { .. }) {
                self.push(depth, Frame::Capture(Capture::FormText, String::new()));
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
        } else if is_unknown_object(name) {
            let bin = attr(e, "binaryItemIDRef")
                .and_then(|id| self.input.bins.get(id.as_ref()).map(|b| b.id));
            // Buttons show a caption, combo boxes their selected value, charts their
            // series (read from the chart part beforehand).
            let text = attr(e, "caption")
                .or_else(|| attr(e, "selectedValue"))
                .map(|s| s.into_owned())
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
                runs: vec![Run {
                    text: line.to_string(),
                    ..Run::default()
                }],
                style: None,
                heading_level: None,
                list: None,
                note_refs: Vec::new(),
                break_before: None,
                fields: Vec::new(),
                provenance: Provenance {
                    char_start: 0,
                    char_end: chars,
                    ..provenance.clone()
                },
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
