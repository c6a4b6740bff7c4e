//! The document's furniture: page headers and footers, footnotes and endnotes.
//! Their blocks go to the furniture, not to the section; a note leaves a
//! reference (kind, number, offset) in the paragraph that anchors it.

use super::{Frame, Parser};
use crate::model::{Block, Furniture, NoteRef, Provenance};
use crate::owpml::xml::{attr, attr_u32, Tag};
use crate::Result;

pub(super) struct FurnitureBuilder {
    kind: &'static str,
    applies_to: Option<String>,
    number: Option<u32>,
    pub(super) blocks: Vec<Block>,
    provenance: Provenance,
    /// Offset of the note's reference mark in the anchoring paragraph.
    anchor_offset: u32,
}

impl Parser<'_> {
    #[inline]
    pub(super) fn open_header_footer(
        &mut self,
        name: &str,
        e: &Tag<'_, '_>,
        depth: u32,
    ) -> Result<()> {
        self.enter_object()?;
        let applies_to = match attr(e, "applyPageType").as_deref() {
            Some("EVEN") => "even",
            Some("ODD") => "odd",
            _ => "both",
        };
        let kind = if name == "header" { "header" } else { "footer" };
        let provenance = self.provenance_here();
        self.push(
            depth,
            Frame::Furniture(Box::new(FurnitureBuilder {
                kind,
                applies_to: Some(applies_to.into()),
                number: None,
                blocks: Vec::new(),
                anchor_offset: provenance.char_start,
                provenance,
            })),
        );
        Ok(())
    }

    #[inline]
    pub(super) fn open_note(&mut self, name: &str, e: &Tag<'_, '_>, depth: u32) -> Result<()> {
        self.enter_object()?;
        let kind = if name == "footNote" {
            "footnote"
        } else {
            "endnote"
        };
        let provenance = self.provenance_here();
        self.push(
            depth,
            Frame::Furniture(Box::new(FurnitureBuilder {
                kind,
                applies_to: None,
                number: attr_u32(e, "number").filter(|&n| n > 0),
                blocks: Vec::new(),
                anchor_offset: provenance.char_start,
                provenance,
            })),
        );
        Ok(())
    }

    #[inline]
    pub(super) fn auto_num(&mut self, e: &Tag<'_, '_>) {
        let num = attr_u32(e, "num");
        let num_type = attr(e, "numType");
        if matches!(num_type.as_deref(), Some("FOOTNOTE") | Some("ENDNOTE")) {
            for (_, f) in self.stack.iter_mut().rev() {
                if let Frame::Furniture(n) = f {
                    if n.number.is_none() {
                        n.number = num;
                    }
                    break;
                }
            }
        }
    }

    #[inline]
    pub(super) fn close_furniture(&mut self, f: FurnitureBuilder) {
        self.object_depth = self.object_depth.saturating_sub(1);
        let FurnitureBuilder {
            kind,
            applies_to,
            mut number,
            blocks,
            provenance,
            anchor_offset,
        } = f;
        if kind == "footnote" || kind == "endnote" {
            let counter = if kind == "footnote" {
                &mut self.state.footnotes
            } else {
                &mut self.state.endnotes
            };
            *counter += 1;
            let n = *number.get_or_insert(*counter);
            if let Some(p) = self.para_mut() {
                p.note_refs.push(NoteRef {
                    kind: kind.into(),
                    number: n,
                    offset: anchor_offset,
                });
            }
        }
        self.furniture.push(Furniture {
            kind: kind.into(),
            applies_to,
            number,
            author: None,
            date: None,
            anchor_text: None,
            blocks,
            provenance,
        });
    }
}
