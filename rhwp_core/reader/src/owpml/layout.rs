//! OWPML (HWPX) pages as 한글 last laid them out (`crate::layout`): the header's faces,
//! character and paragraph properties and border fills, and each section's page definition,
//! `linesegarray`, runs, tables and pictures, read by a second pass into a `layout::flow` (a
//! cell's paragraphs come before its address and size in the XML, so a top-level paragraph
//! is laid out once it is complete).
//!
//! Text positions (`lineseg textpos`) count characters as HWP 5.0 does: a character one, a
//! tab and every control (a table, a picture, a section or column definition, a field's start
//! or end) eight.

use crate::error::{Error, Result};
use crate::layout::build::{CharShape, Segment};
use crate::layout::flow::{Cell, Flow, Geometry, Object, Para, Placement, Table};
use crate::layout::{Align, Border, BorderFill, Face, Script, Stroke};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// What the layout takes from `header.xml`.
#[derive(Debug, Default)]
pub struct Styles {
    pub faces: Vec<Face>,
    pub shapes: Vec<CharShape>,
    /// Per paragraph property id: alignment and first-line indent.
    pub paras: Vec<(Align, i32)>,
    pub border_fills: Vec<BorderFill>,
}

/// An element or attribute name without its namespace prefix, as bytes to match on.
fn local(name: &str) -> &[u8] {
    name.rsplit(':').next().unwrap_or(name).as_bytes()
}

fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| local(a.key.as_ref()) == name)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::default())
                .ok()
                .map(|v| v.into_owned())
        })
}

fn num(e: &BytesStart<'_>, name: &[u8]) -> i32 {
    attr(e, name)
        .and_then(|v| v.trim().parse::<i64>().ok())
        .map_or(0, |v| v.clamp(-(1 << 30), 1 << 30) as i32)
}

/// `#RRGGBB` → 0xRRGGBB; `none` and anything else → None.
fn hex_color(v: &str) -> Option<u32> {
    let h = v.strip_prefix('#')?;
    let h = if h.len() == 8 { &h[2..] } else { h };
    u32::from_str_radix(h, 16).ok().filter(|_| h.len() == 6)
}

const GROUPS: [&[u8]; 7] = [
    b"hangul",
    b"latin",
    b"hanja",
    b"japanese",
    b"other",
    b"symbol",
    b"user",
];
const LANGS: [&str; 7] = [
    "HANGUL", "LATIN", "HANJA", "JAPANESE", "OTHER", "SYMBOL", "USER",
];

/// A border's width attribute (`"0.12 mm"`) in HWPUNIT.
fn border_width(v: &str) -> i32 {
    let mm: f32 = v
        .trim()
        .trim_end_matches("mm")
        .trim()
        .parse()
        .unwrap_or(0.12);
    (mm.clamp(0.0, 50.0) * 7200.0 / 25.4) as i32
}

fn border(e: &BytesStart<'_>) -> Border {
    let kind = attr(e, b"type").unwrap_or_default();
    Border {
        stroke: match kind.as_str() {
            "NONE" | "" => Stroke::None,
            "DASH" | "LONG_DASH" | "DASH_DOT" | "DASH_DOT_DOT" => Stroke::Dash,
            "DOT" | "CIRCLE" => Stroke::Dot,
            "DOUBLE_SLIM" | "SLIM_THICK" | "THICK_SLIM" | "SLIM_THICK_SLIM" => Stroke::Double,
            _ => Stroke::Solid,
        },
        width: border_width(&attr(e, b"width").unwrap_or_default()),
        color: attr(e, b"color").and_then(|c| hex_color(&c)).unwrap_or(0),
    }
}

fn set_at<T: Default + Clone>(v: &mut Vec<T>, id: i32, value: T) {
    // Ids are small and dense; a hostile id does not make a huge table.
    if (0..100_000).contains(&id) {
        let id = id as usize;
        if v.len() <= id {
            v.resize(id + 1, T::default());
        }
        v[id] = value;
    }
}

/// The header's styles.
pub fn header_styles(xml: &[u8]) -> Styles {
    let mut s = Styles::default();
    let mut r = Reader::from_reader(xml);
    let mut group: Option<usize> = None;
    let mut group_faces: [Vec<u32>; 7] = Default::default();
    let mut face: Option<(String, Option<bool>)> = None;
    let mut shape: Option<(i32, CharShape, [u32; 7])> = None;
    let mut para: Option<(i32, Align, Option<i32>)> = None;
    let mut fill: Option<(i32, BorderFill)> = None;
    let mut in_default = 0u32;
    loop {
        let (e, empty) = match r.read_event() {
            Ok(Event::Start(e)) => (e, false),
            Ok(Event::Empty(e)) => (e, true),
            Ok(Event::End(e)) => {
                match local(e.name().as_ref()) {
                    b"fontface" => group = None,
                    b"font" => push_face(&mut face, group, &mut s.faces, &mut group_faces),
                    b"charPr" => push_shape(&mut shape, &mut s.shapes, &group_faces),
                    b"paraPr" => {
                        if let Some((id, a, indent)) = para.take() {
                            set_at(&mut s.paras, id, (a, indent.unwrap_or(0)));
                        }
                    }
                    b"borderFill" => {
                        if let Some((id, bf)) = fill.take() {
                            set_at(&mut s.border_fills, id, bf);
                        }
                    }
                    b"default" => in_default = in_default.saturating_sub(1),
                    _ => {}
                }
                continue;
            }
            Ok(Event::Eof) | Err(_) => break,
            _ => continue,
        };
        match local(e.name().as_ref()) {
            b"fontface" => {
                let lang = attr(&e, b"lang").unwrap_or_default();
                group = LANGS.iter().position(|l| *l == lang);
            }
            b"font" => {
                face = Some((attr(&e, b"face").unwrap_or_default(), None));
                if empty {
                    push_face(&mut face, group, &mut s.faces, &mut group_faces);
                }
            }
            b"typeInfo" => {
                if let Some(f) = face.as_mut() {
                    f.1 = match attr(&e, b"familyType").as_deref() {
                        Some("FCAT_MYUNGJO") => Some(true),
                        Some("FCAT_GOTHIC") => Some(false),
                        _ => None,
                    };
                }
            }
            b"charPr" => {
                let mut c = CharShape {
                    size: num(&e, b"height").max(1),
                    color: attr(&e, b"textColor")
                        .and_then(|v| hex_color(&v))
                        .unwrap_or(0),
                    ..CharShape::default()
                };
                c.faces = [0; 7];
                shape = Some((num(&e, b"id"), c, [0; 7]));
                if empty {
                    push_shape(&mut shape, &mut s.shapes, &group_faces);
                }
            }
            name @ (b"fontRef" | b"ratio" | b"spacing" | b"relSz" | b"offset") => {
                if let Some((_, c, refs)) = shape.as_mut() {
                    for (g, key) in GROUPS.iter().enumerate() {
                        let v = num(&e, key);
                        match name {
                            b"fontRef" => refs[g] = v.max(0) as u32,
                            b"ratio" => c.ratio[g] = v.clamp(1, 255) as u8,
                            b"spacing" => c.spacing[g] = v.clamp(-128, 127) as i8,
                            b"relSz" => c.rel_size[g] = v.clamp(1, 255) as u8,
                            _ => c.offset[g] = v.clamp(-128, 127) as i8,
                        }
                    }
                }
            }
            b"bold" => {
                if let Some((_, c, _)) = shape.as_mut() {
                    c.bold = true;
                }
            }
            b"italic" => {
                if let Some((_, c, _)) = shape.as_mut() {
                    c.italic = true;
                }
            }
            b"underline" => {
                if let Some((_, c, _)) = shape.as_mut() {
                    c.underline = attr(&e, b"type").as_deref() == Some("BOTTOM");
                }
            }
            b"strikeout" => {
                if let Some((_, c, _)) = shape.as_mut() {
                    c.strike = !matches!(
                        attr(&e, b"shape").as_deref(),
                        None | Some("NONE") | Some("3D")
                    );
                }
            }
            b"supscript" => {
                if let Some((_, c, _)) = shape.as_mut() {
                    c.script = Script::Super;
                }
            }
            b"subscript" => {
                if let Some((_, c, _)) = shape.as_mut() {
                    c.script = Script::Sub;
                }
            }
            b"paraPr" => para = Some((num(&e, b"id"), Align::Justify, None)),
            b"default" if !empty => in_default += 1,
            b"align" => {
                if let Some(p) = para.as_mut() {
                    p.1 = match attr(&e, b"horizontal").as_deref() {
                        Some("LEFT") => Align::Left,
                        Some("RIGHT") => Align::Right,
                        Some("CENTER") => Align::Center,
                        Some("DISTRIBUTE" | "DISTRIBUTE_SPACE") => Align::Distribute,
                        _ => Align::Justify,
                    };
                }
            }
            // The indent ("intent" in the schema); the first of a switch's alternatives counts.
            b"intent" if in_default == 0 => {
                if let Some(p) = para.as_mut() {
                    p.2.get_or_insert(num(&e, b"value"));
                }
            }
            b"borderFill" => fill = Some((num(&e, b"id"), BorderFill::default())),
            side @ (b"leftBorder" | b"rightBorder" | b"topBorder" | b"bottomBorder") => {
                if let Some((_, bf)) = fill.as_mut() {
                    let k = match side {
                        b"leftBorder" => 0,
                        b"rightBorder" => 1,
                        b"topBorder" => 2,
                        _ => 3,
                    };
                    bf.borders[k] = border(&e);
                }
            }
            b"winBrush" => {
                if let Some((_, bf)) = fill.as_mut() {
                    bf.fill = attr(&e, b"faceColor").and_then(|v| hex_color(&v));
                }
            }
            _ => {}
        }
    }
    s
}

fn push_face(
    face: &mut Option<(String, Option<bool>)>,
    group: Option<usize>,
    faces: &mut Vec<Face>,
    groups: &mut [Vec<u32>; 7],
) {
    if let (Some((name, serif)), Some(g)) = (face.take(), group) {
        if faces.len() < 100_000 {
            groups[g].push(faces.len() as u32);
            faces.push(Face { name, serif });
        }
    }
}

fn push_shape(
    shape: &mut Option<(i32, CharShape, [u32; 7])>,
    shapes: &mut Vec<CharShape>,
    groups: &[Vec<u32>; 7],
) {
    if let Some((id, mut c, refs)) = shape.take() {
        for g in 0..7 {
            c.faces[g] = groups[g].get(refs[g] as usize).copied().unwrap_or(u32::MAX);
        }
        set_at(shapes, id, c);
    }
}

/// Elements that take eight text positions (a control) where they sit in a paragraph's text.
fn is_control(name: &[u8]) -> bool {
    matches!(
        name,
        b"secPr"
            | b"tbl"
            | b"pic"
            | b"container"
            | b"rect"
            | b"ellipse"
            | b"line"
            | b"arc"
            | b"polygon"
            | b"curve"
            | b"connectLine"
            | b"equation"
            | b"ole"
            | b"textart"
            | b"compose"
            | b"dutmal"
            | b"chart"
            | b"video"
            | b"colPr"
            | b"fieldBegin"
            | b"fieldEnd"
            | b"bookmark"
            | b"header"
            | b"footer"
            | b"footNote"
            | b"endNote"
            | b"autoNum"
            | b"newNum"
            | b"pageNumCtrl"
            | b"pageHiding"
            | b"pageNum"
            | b"indexmark"
    )
}

/// What is being read: the stack of open paragraphs, tables and cells.
enum Open {
    Para(Para),
    /// A control whose content is not laid out (a header, a note, a shape's text): its
    /// paragraphs are read and dropped.
    Skipped,
    Table(Table),
    Cell(Cell),
    Picture(Placement, (i32, i32), String),
    /// A header or footer: footer or not, on which pages (0 all, 1 even, 2 odd), its paragraphs.
    Furniture(bool, u32, Vec<Para>),
}

/// Read one section part and lay its paragraphs out.
pub fn section(xml: &[u8], styles: &Styles, flow: &mut Flow<'_>, max_depth: u32) -> Result<()> {
    let mut r = Reader::from_reader(xml);
    let mut stack: Vec<Open> = Vec::new();
    let mut in_text = false;
    let mut skip_depth = 0u32;
    let mut page = (59_528, 84_188, false);
    let mut margins = [8_504, 8_504, 5_668, 4_252, 4_252, 4_252, 0];
    loop {
        let ev = match r.read_event() {
            Ok(ev) => ev,
            Err(e) => return Err(Error::corrupt(format!("section XML: {e}"))),
        };
        let (e, empty) = match ev {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::Text(t) if in_text => {
                if let Some(Open::Para(p)) = stack.last_mut() {
                    push_text(p, &t);
                }
                continue;
            }
            Event::GeneralRef(g) if in_text => {
                if let Some(Open::Para(p)) = stack.last_mut() {
                    let c = match g.resolve_char_ref() {
                        Ok(Some(c)) => Some(c),
                        _ => match &*g {
                            "amp" => Some('&'),
                            "lt" => Some('<'),
                            "gt" => Some('>'),
                            "quot" => Some('"'),
                            "apos" => Some('\''),
                            _ => None,
                        },
                    };
                    if let Some(c) = c {
                        push_text(p, &c.to_string());
                    }
                }
                continue;
            }
            Event::End(e) => {
                let name = local(e.name().as_ref()).to_vec();
                match name.as_slice() {
                    b"t" => in_text = false,
                    b"p" => {
                        if let Some(Open::Para(p)) = stack.pop() {
                            match stack.last_mut() {
                                None => flow.paragraph(&p)?,
                                Some(Open::Cell(c)) => c.paras.push(p),
                                Some(Open::Furniture(_, _, paras)) if paras.len() < 10_000 => {
                                    paras.push(p)
                                }
                                _ => {}
                            }
                        }
                    }
                    b"tc" => {
                        if let Some(Open::Cell(c)) = stack.pop() {
                            if let Some(Open::Table(t)) = stack.last_mut() {
                                if t.cells.len() < 100_000 {
                                    t.cells.push(c);
                                }
                            }
                        }
                    }
                    b"tbl" => {
                        if let Some(Open::Table(t)) = stack.pop() {
                            anchor_object(&mut stack, Object::Table(t));
                        }
                    }
                    b"pic" => {
                        if let Some(Open::Picture(placement, size, bin)) = stack.pop() {
                            if !bin.is_empty() {
                                anchor_object(
                                    &mut stack,
                                    Object::Picture {
                                        placement,
                                        size,
                                        bin,
                                    },
                                );
                            }
                        }
                    }
                    b"header" | b"footer" if matches!(stack.last(), Some(Open::Furniture(..))) => {
                        if let Some(Open::Furniture(footer, parity, paras)) = stack.pop() {
                            flow.furniture(footer, parity, paras);
                        }
                    }
                    b"subList" | b"drawText" | b"header" | b"footer" | b"footNote" | b"endNote"
                        if skip_depth > 0 && matches!(stack.last(), Some(Open::Skipped)) =>
                    {
                        stack.pop();
                        skip_depth -= 1;
                    }
                    b"pagePr" => {
                        flow.geometry = Geometry::new((page.0, page.1), margins, page.2);
                        flow.pages.size = (flow.geometry.width, flow.geometry.height);
                    }
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        if stack.len() > max_depth as usize * 4 + 8 {
            return Err(Error::too_large("section XML nested too deep to lay out"));
        }
        let name = local(e.name().as_ref()).to_vec();
        if is_control(&name) {
            if let Some(Open::Para(p)) = stack.last_mut() {
                p.pos = p.pos.saturating_add(8);
            }
        }
        match name.as_slice() {
            b"p" if !empty => {
                let id = num(&e, b"paraPrIDRef");
                let (align, indent) = styles
                    .paras
                    .get(id.max(0) as usize)
                    .copied()
                    .unwrap_or_default();
                let para = Para {
                    align,
                    indent: indent / 2,
                    page_break: attr(&e, b"pageBreak").as_deref() == Some("1"),
                    ..Para::default()
                };
                stack.push(Open::Para(para));
            }
            b"run" => {
                if let Some(Open::Para(p)) = stack.last_mut() {
                    let id = num(&e, b"charPrIDRef").max(0) as u32;
                    let pos = p.pos;
                    if p.shapes.last().is_none_or(|s| s.1 != id) && p.shapes.len() < 1_000_000 {
                        p.shapes.push((pos, id));
                    }
                }
            }
            b"t" if !empty => in_text = true,
            b"tab" => push_para(&mut stack, '\t', 8),
            b"lineBreak" => push_para(&mut stack, '\n', 1),
            b"nbSpace" | b"fwSpace" => push_para(&mut stack, ' ', 1),
            b"hyphen" => push_para(&mut stack, '-', 1),
            b"lineseg" => {
                if let Some(Open::Para(p)) = stack.last_mut() {
                    if p.segs.len() < 1_000_000 {
                        p.segs.push(Segment {
                            start: num(&e, b"textpos").max(0) as u32,
                            vpos: num(&e, b"vertpos"),
                            height: num(&e, b"vertsize"),
                            text_height: num(&e, b"textheight"),
                            baseline: num(&e, b"baseline"),
                            spacing: num(&e, b"spacing"),
                            x: num(&e, b"horzpos"),
                            width: num(&e, b"horzsize"),
                            flags: attr(&e, b"flags").and_then(|v| v.parse().ok()).unwrap_or(0),
                        });
                    }
                }
            }
            b"pagePr" => {
                page = (
                    num(&e, b"width"),
                    num(&e, b"height"),
                    attr(&e, b"landscape").as_deref() == Some("NARROWLY"),
                );
            }
            b"margin"
                if matches!(stack.last(), Some(Open::Para(_))) && attr(&e, b"header").is_some() =>
            {
                margins = [
                    num(&e, b"left"),
                    num(&e, b"right"),
                    num(&e, b"top"),
                    num(&e, b"bottom"),
                    num(&e, b"header"),
                    num(&e, b"footer"),
                    num(&e, b"gutter"),
                ];
            }
            b"colPr" => {
                if let Some(Open::Para(p)) = stack.last_mut() {
                    p.columns = Some((num(&e, b"colCount").max(1), num(&e, b"sameGap")));
                }
            }
            b"tbl" if !empty => stack.push(Open::Table(Table {
                rows: num(&e, b"rowCnt").max(0) as u32,
                cols: num(&e, b"colCnt").max(0) as u32,
                ..Table::default()
            })),
            b"pic" if !empty => {
                stack.push(Open::Picture(Placement::default(), (0, 0), String::new()))
            }
            b"sz" => {
                let size = (num(&e, b"width"), num(&e, b"height"));
                match stack.last_mut() {
                    Some(Open::Table(t)) => t.size = size,
                    Some(Open::Picture(_, s, _)) => *s = size,
                    _ => {}
                }
            }
            b"pos" => {
                let p = placement(&e);
                match stack.last_mut() {
                    Some(Open::Table(t)) => t.placement = p,
                    Some(Open::Picture(pl, _, _)) => *pl = p,
                    _ => {}
                }
            }
            b"img" => {
                if let Some(Open::Picture(_, _, bin)) = stack.last_mut() {
                    *bin = attr(&e, b"binaryItemIDRef").unwrap_or_default();
                }
            }
            b"tc" if !empty => {
                let bf = num(&e, b"borderFillIDRef");
                let border_fill = styles
                    .border_fills
                    .get(bf.max(0) as usize)
                    .copied()
                    .unwrap_or_default();
                stack.push(Open::Cell(Cell {
                    border_fill,
                    cols: 1,
                    rows: 1,
                    ..Cell::default()
                }));
            }
            name @ (b"header" | b"footer") if !empty => {
                let parity = match attr(&e, b"applyPageType").as_deref() {
                    Some("EVEN") => 1,
                    Some("ODD") => 2,
                    _ => 0,
                };
                stack.push(Open::Furniture(name == b"footer", parity, Vec::new()));
            }
            b"pageNum" => {
                let position = match attr(&e, b"pos").as_deref() {
                    Some("TOP_LEFT") => 1,
                    Some("TOP_CENTER") => 2,
                    Some("TOP_RIGHT") => 3,
                    Some("BOTTOM_LEFT") => 4,
                    Some("BOTTOM_CENTER") => 5,
                    Some("BOTTOM_RIGHT") => 6,
                    _ => 0,
                };
                let side = attr(&e, b"sideChar")
                    .filter(|c| !c.is_empty() && c.chars().count() == 1)
                    .map(|c| (format!("{c} "), format!(" {c}")))
                    .unwrap_or_default();
                flow.page_numbers(position, side.0, side.1);
            }
            b"subList" if !empty && matches!(stack.last(), Some(Open::Furniture(..))) => {}
            b"subList" if !empty => {
                if let Some(Open::Cell(c)) = stack.last_mut() {
                    c.valign = match attr(&e, b"vertAlign").as_deref() {
                        Some("CENTER") => 1,
                        Some("BOTTOM") => 2,
                        _ => 0,
                    };
                } else {
                    stack.push(Open::Skipped);
                    skip_depth += 1;
                }
            }
            b"drawText" | b"footNote" | b"endNote" if !empty => {
                stack.push(Open::Skipped);
                skip_depth += 1;
            }
            b"cellAddr" => {
                if let Some(Open::Cell(c)) = stack.last_mut() {
                    c.col = num(&e, b"colAddr").max(0) as u32;
                    c.row = num(&e, b"rowAddr").max(0) as u32;
                }
            }
            b"cellSpan" => {
                if let Some(Open::Cell(c)) = stack.last_mut() {
                    c.cols = num(&e, b"colSpan").max(1) as u32;
                    c.rows = num(&e, b"rowSpan").max(1) as u32;
                }
            }
            b"cellSz" => {
                if let Some(Open::Cell(c)) = stack.last_mut() {
                    c.size = (num(&e, b"width"), num(&e, b"height"));
                }
            }
            b"cellMargin" => {
                if let Some(Open::Cell(c)) = stack.last_mut() {
                    c.margins = [
                        num(&e, b"left"),
                        num(&e, b"right"),
                        num(&e, b"top"),
                        num(&e, b"bottom"),
                    ];
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn push_text(p: &mut Para, text: &str) {
    for c in text.chars() {
        if p.chars.len() >= 4_000_000 {
            return;
        }
        let units = c.len_utf16() as u32;
        p.chars.push((p.pos, c));
        p.pos = p.pos.saturating_add(units);
    }
}

fn push_para(stack: &mut [Open], c: char, units: u32) {
    if let Some(Open::Para(p)) = stack.last_mut() {
        if p.chars.len() < 4_000_000 {
            p.chars.push((p.pos, c));
        }
        p.pos = p.pos.saturating_add(units);
    }
}

/// The object's anchor: the paragraph it sits in (its position there, the control already
/// counted), skipping a cell or table level never (objects sit in paragraphs).
fn anchor_object(stack: &mut [Open], obj: Object) {
    if let Some(Open::Para(p)) = stack.last_mut() {
        if p.objects.len() < 100_000 {
            let at = p.pos.saturating_sub(8);
            p.objects.push((at, obj));
        }
    }
}

fn placement(e: &BytesStart<'_>) -> Placement {
    let rel = |v: Option<String>, para: u8| match v.as_deref() {
        Some("PAPER") => 0,
        Some("PAGE") => 1,
        Some("COLUMN") => 2,
        Some("PARA") => para,
        _ => para,
    };
    let align = |v: Option<String>| match v.as_deref() {
        Some("CENTER") => 1,
        Some("BOTTOM" | "RIGHT") => 2,
        _ => 0,
    };
    Placement {
        inline: attr(e, b"treatAsChar").as_deref() == Some("1"),
        vert_rel: rel(attr(e, b"vertRelTo"), 2),
        horz_rel: rel(attr(e, b"horzRelTo"), 3),
        vert_align: align(attr(e, b"vertAlign")),
        horz_align: align(attr(e, b"horzAlign")),
        vert_offset: num(e, b"vertOffset"),
        horz_offset: num(e, b"horzOffset"),
    }
}
