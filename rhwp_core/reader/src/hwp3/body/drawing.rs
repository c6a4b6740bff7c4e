//! HWP 3.x drawings (그리기 개체, spec §11): the text of every object that holds some.
//!
//! A picture code (11) of kind 3 stores, in its extra data, a frame header then the objects of
//! the drawing in preorder (spec §11.2: a group is a hidden container whose children follow it).
//! Each object is (spec §11.3, and LibreOffice's HWP import filter `hwpfilter`, which shows how
//! files in the wild are laid out where the spec is silent):
//! - a common header: its length (not counting itself), kind (0 container, 1 line, 2 rectangle,
//!   3 ellipse, 4 arc, 5 polygon, 6 text box, 7 curve, 8 modified ellipse, 9 modified arc,
//!   10 extended curve / closed polygon), links (bit 0 a sibling follows, bit 1 children
//!   follow), positions and sizes, then 44 bytes of basic attributes whose last dword holds the
//!   flags saying which optional parts follow inside the header: rotation (bit 17, 32 bytes),
//!   gradation (bit 16, 28 bytes), bitmap pattern (bit 18, 278 bytes), watermark (bit 20,
//!   5 bytes), and bit 19 "as a text box": any closed shape made into a text box keeps its
//!   paragraph list 8 bytes after those parts;
//! - then, for every kind (containers too, with two zero lengths), two length-prefixed detail
//!   blocks: a text box's second block is its paragraph list; polygons and curves store their
//!   point count and points, extended/closed ones one line attribute byte per point as well.
//!
//! Only text is modelled: an object with text (or with children that have some) becomes a
//! `Shape` holding its paragraphs then its children's shapes; primitives without text are left
//! out. A damaged object ends the drawing: what was read before it is kept, with a warning.

use super::{le16, le32, Cur, State};
use crate::model::{Block, Shape};
use crate::{Error, ErrorCode, Result};

/// The fixed part of a common header after its length: kind, links, relative position, size,
/// absolute position, extent (48 − 4 bytes) and the basic attributes (44 bytes).
const COMMON: usize = 88;
/// Where the basic attributes' flags sit in the header (after its length).
const FLAGS_AT: usize = 84;
const GRADATION: u32 = 1 << 16;
const ROTATION: u32 = 1 << 17;
const BITMAP: u32 = 1 << 18;
const AS_TEXT_BOX: u32 = 1 << 19;
const WATERMARK: u32 = 1 << 20;
const HAS_NEXT: u16 = 0x01;
const HAS_CHILD: u16 = 0x02;
/// The frame header after its length: z-order, object count, extent.
const FRAME: usize = 24;
/// One hypertext entry after the frame header (spec table 67: the length is 617 × n).
const HYPERTEXT: usize = 617;

/// What one object gave: its kind, links and own text.
struct Object {
    kind: u16,
    links: u16,
    text: Vec<Block>,
}

impl<'a> State<'a> {
    /// The objects of a drawing stored in `extra`, as shapes in reading (preorder) order.
    pub(super) fn drawing(&mut self, extra: &'a [u8]) -> Result<Vec<Block>> {
        let mut c = Cur::new(extra);
        let mut out = Vec::new();
        let saved = self.depth;
        let r = frame_header(&mut c).and_then(|()| self.objects(&mut c, &mut out));
        self.depth = saved;
        match r {
            Ok(()) => {}
            Err(e) if e.code == ErrorCode::TooLarge => return Err(e),
            Err(e) => self.warnings.push(format!(
                "a drawing was read up to a damaged object: {}",
                e.message
            )),
        }
        Ok(out)
    }

    /// A list of sibling objects (and, depth first, their children), into `out`.
    fn objects(&mut self, c: &mut Cur<'a>, out: &mut Vec<Block>) -> Result<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(Error::too_large(format!(
                "HWP 3.x drawing objects nest deeper than {} levels",
                self.limits.max_depth
            )));
        }
        loop {
            let object = self.object(c)?;
            let mut children = Vec::new();
            // Children read before a damage are kept with their parent.
            let r = if object.links & HAS_CHILD != 0 {
                self.objects(c, &mut children)
            } else {
                Ok(())
            };
            push_object(
                object.kind,
                object.text,
                children,
                self.provenance(0, 0),
                out,
            );
            r?;
            if object.links & HAS_NEXT == 0 {
                break;
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// One object: its common header, the text of a shape made into a text box, its details.
    fn object(&mut self, c: &mut Cur<'a>) -> Result<Object> {
        let len = c.u32()? as usize;
        if len < COMMON {
            return Err(Error::corrupt(format!(
                "a drawing object's header is {len} bytes, less than the {COMMON} every one has"
            )));
        }
        let start = c.pos;
        let head = c.take(len)?;
        let kind = le16(head, 0);
        let links = le16(head, 2);
        let flags = le32(head, FLAGS_AT);
        let mut text = Vec::new();
        if flags & AS_TEXT_BOX != 0 {
            let known = known_header(len, flags);
            if len > known {
                // 8 bytes (the two lengths of a text box's details), then the paragraph list,
                // which may run past the length the header claims: go on after whichever ends
                // last.
                let (blocks, end) = self.list_at(c.data, start + known + 8)?;
                text = blocks;
                c.pos = c.pos.max(end);
            }
        }
        let n1 = c.u32()? as usize;
        let d1 = c.take(n1)?;
        let n2 = c.u32()? as usize;
        let d2 = c.take(n2)?;
        match kind {
            6 if !d2.is_empty() => text.extend(self.list_in(d2)?),
            10 | 11 => {
                // Extended curves / closed polygons: one line attribute byte per point, after
                // the points (spec table 81) or inside the second block (as hwpfilter reads
                // them). Skip them when they are not inside and an object or the end follows.
                let points = le32(d1, 0) as usize;
                if n2 < points.saturating_mul(9) && points <= c.remaining() {
                    let after = Cur {
                        data: c.data,
                        pos: c.pos + points,
                    };
                    if plausible_next(&after) || !plausible_next(c) {
                        c.skip(points)?;
                    }
                }
            }
            _ => {}
        }
        Ok(Object { kind, links, text })
    }

    /// A paragraph list starting at `at` in `data`: its blocks and where it ends.
    fn list_at(&mut self, data: &'a [u8], at: usize) -> Result<(Vec<Block>, usize)> {
        let saved = std::mem::replace(&mut self.cur, Cur { data, pos: at });
        let r = self.list();
        let end = self.cur.pos;
        self.cur = saved;
        r.map(|blocks| (blocks, end))
    }
}

/// The frame header (spec table 66): its length, z-order, object count and extent, then — when
/// the length says more than those 24 bytes — hypertext information (4 + 617 × n bytes).
fn frame_header(c: &mut Cur) -> Result<()> {
    let len = c.u32()? as usize;
    c.skip(FRAME)?;
    if len > FRAME {
        let rest = len - FRAME;
        let claimed = le32(c.data, c.pos) as usize;
        // The spec's layout when its length is a whole number of entries; else what the header
        // length says (as hwpfilter skips it).
        let skip =
            if claimed > 0 && claimed.is_multiple_of(HYPERTEXT) && claimed + 4 <= c.remaining() {
                claimed + 4
            } else {
                rest
            };
        c.skip(skip)?;
    }
    Ok(())
}

/// The bytes of a common header taken by its fixed part and the optional parts its flags
/// announce (each only when the header is long enough to hold it, as hwpfilter reads them).
fn known_header(len: usize, flags: u32) -> usize {
    let mut known = COMMON;
    for (bit, size, needs) in [
        (ROTATION, 32, 32),
        (GRADATION, 28, 28),
        (BITMAP, 278, 278),
        (WATERMARK, 5, 3),
    ] {
        if flags & bit != 0 && len >= known + needs {
            known += size;
        }
    }
    known
}

/// Whether what follows looks like the next object's header, or the end of the drawing.
fn plausible_next(c: &Cur) -> bool {
    if c.remaining() == 0 {
        return true;
    }
    let len = le32(c.data, c.pos) as usize;
    let kind = le16(c.data, c.pos + 4);
    (COMMON..=c.remaining().saturating_sub(4)).contains(&len) && kind <= 15
}

/// An object as the model keeps it: a container only for its children's text, a shape for its
/// own text followed by its children's.
fn push_object(
    kind: u16,
    mut text: Vec<Block>,
    children: Vec<Block>,
    provenance: crate::model::Provenance,
    out: &mut Vec<Block>,
) {
    if text.is_empty() && children.is_empty() {
        return;
    }
    text.extend(children);
    out.push(Block::Shape(Shape {
        shape_kind: shape_kind(kind).into(),
        blocks: text,
        caption: Vec::new(),
        provenance,
    }));
}

fn shape_kind(kind: u16) -> &'static str {
    match kind {
        1 => "line",
        2 | 6 => "rectangle",
        3 | 8 => "ellipse",
        4 | 9 => "arc",
        5 | 11 => "polygon",
        7 | 10 => "curve",
        _ => "container",
    }
}
