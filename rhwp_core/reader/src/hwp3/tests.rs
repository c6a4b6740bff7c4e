//! HWP 3.x reader: synthetic documents built byte by byte, the fixtures, and hostile input.

use super::*;
use crate::text::document_text;

/// A paragraph under construction: its `hchar` units (counted) and the bytes after them.
struct P {
    units: u16,
    chars: Vec<u8>,
    after: Vec<u8>,
}

impl P {
    fn new() -> Self {
        P {
            units: 0,
            chars: Vec::new(),
            after: Vec::new(),
        }
    }
    fn text(mut self, s: &[u16]) -> Self {
        for &c in s {
            self.chars.extend_from_slice(&c.to_le_bytes());
            self.units += 1;
        }
        self
    }
    /// An 8-byte control (code, dword, code) followed by data outside the count, written in order.
    fn control(mut self, code: u16, data: &[u8]) -> Self {
        self.chars.extend_from_slice(&code.to_le_bytes());
        self.chars.extend_from_slice(&[0; 4]);
        self.chars.extend_from_slice(&code.to_le_bytes());
        self.units += 4;
        self.chars.extend_from_slice(data);
        self
    }
    fn bytes(mut self) -> Vec<u8> {
        self = self.text(&[13]);
        let mut h = vec![0u8; 43];
        h[0] = 1; // follows the previous paragraph shape: no 187-byte shape
        h[1..3].copy_from_slice(&self.units.to_le_bytes());
        h.extend_from_slice(&self.chars);
        h.extend_from_slice(&self.after);
        h
    }
}

fn end() -> Vec<u8> {
    vec![0u8; 43]
}

fn ascii(s: &str) -> Vec<u16> {
    s.bytes().map(u16::from).collect()
}

/// Fonts (seven empty groups), no styles, the paragraphs, the end of the list, no extra blocks.
fn body(paras: &[Vec<u8>]) -> Vec<u8> {
    let mut b = vec![0u8; 14 + 2];
    for p in paras {
        b.extend_from_slice(p);
    }
    b.extend_from_slice(&end());
    b.extend_from_slice(&[0u8; 8]);
    b
}

fn list(paras: &[Vec<u8>]) -> Vec<u8> {
    let mut b: Vec<u8> = paras.concat();
    b.extend_from_slice(&end());
    b
}

fn read_body(b: &[u8]) -> Result<Document> {
    read(&with_body(b, false), &Options::default())
}

fn fixture(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/hwp3")
        .join(name);
    std::fs::read(p).expect("fixture")
}

#[test]
fn plain_paragraphs_and_charset() {
    // 가 (Johab 0x8861), 한 (0xD065), then ASCII.
    let doc = read_body(&body(&[
        P::new().text(&[0x8861, 0xD065]).text(&ascii(" ok")).bytes(),
        P::new().text(&ascii("second")).bytes(),
    ]))
    .unwrap();
    assert_eq!(doc.format, Format::Hwp3);
    assert_eq!(document_text(&doc, true), "가한 ok\nsecond");
    assert_eq!(doc.sections[0].paragraph_count, 2);
    assert_eq!(crate::summary::summarize(&doc).format, "hwp3");
}

#[test]
fn controls_tables_notes_headers_comments() {
    // A 2x1 table: 84-byte info (kind 0 at 78, two cells at 80), two 27-byte cells, two cell
    // lists and an empty caption list.
    let mut info = vec![0u8; 84];
    info[80] = 2;
    let mut cells = vec![0u8; 54];
    // cell 2 at x = 100 (offset 4), both 100 wide (offset 8), 50 high
    cells[8] = 100;
    cells[10] = 50;
    cells[27 + 4] = 100;
    cells[27 + 8] = 100;
    cells[27 + 10] = 50;
    let mut table = info;
    table.extend(cells);
    table.extend(list(&[P::new().text(&ascii("left")).bytes()]));
    table.extend(list(&[P::new().text(&ascii("right")).bytes()]));
    table.extend(list(&[]));
    // Equation: kind 2, one cell holding the script.
    let mut eq = vec![0u8; 84];
    eq[78] = 2;
    eq[80] = 1;
    eq.extend(vec![0u8; 27]);
    eq.extend(list(&[P::new().text(&ascii("a over b")).bytes()]));
    eq.extend(list(&[]));
    // Footnote (14-byte info), header (10-byte info), hidden comment (8 bytes).
    let mut note = vec![0u8; 14];
    note.extend(list(&[P::new().text(&ascii("the note")).bytes()]));
    let mut header = vec![0u8; 10];
    header.extend(list(&[P::new().text(&ascii("running head")).bytes()]));
    let mut hidden = vec![0u8; 8];
    hidden.extend(list(&[P::new().text(&ascii("secret")).bytes()]));
    let tab = [9u16, 0, 0, 9];
    let doc = read_body(&body(&[P::new()
        .text(&ascii("x"))
        .control(10, &table)
        .control(10, &eq)
        .control(17, &note)
        .control(16, &header)
        .control(15, &hidden)
        .text(&tab)
        .text(&ascii("y"))
        .bytes()]))
    .unwrap();
    let text = document_text(&doc, true);
    assert_eq!(
        text,
        "x\ty\nleft\nright\n$\\frac{a}{b}$\nrunning head\nthe note"
    );
    let Block::Table(t) = &doc.sections[0].blocks[1] else {
        panic!("{:?}", doc.sections[0].blocks)
    };
    assert_eq!((t.rows, t.cols, t.cells.len()), (1, 2, 2));
    assert_eq!((t.cells[1].row, t.cells[1].col), (0, 1));
    assert!(matches!(&doc.sections[0].blocks[2], Block::Equation(e) if e.script == "a over b"));
    let Block::Paragraph(p) = &doc.sections[0].blocks[0] else {
        panic!()
    };
    assert_eq!(p.note_refs.len(), 1);
    assert!(!text.contains("secret"));
}

#[test]
fn signature_only_and_refusals() {
    let e = read(&with_body(&[], false), &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
    let e = read(&with_body(&[0u8; 4000], false), &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
    let e = read(&SIGNATURE[..30], &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
    let mut pw = with_body(&body(&[P::new().text(&ascii("a")).bytes()]), false);
    pw[30 + 96] = 1;
    let e = read(&pw, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::PasswordRequired);
    assert!(e.suggestion.contains("password"));
    let mut v2 = pw.clone();
    v2[..23].copy_from_slice(b"HWP Document File V2.00");
    let e = crate::read(&v2, &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedFormat);
}

#[test]
fn garbage_lengths_are_typed_errors() {
    // A paragraph claiming 65,535 characters, a table claiming 65,535 cells, a picture whose
    // extra data claims 4 GB: each is refused without allocating for the claim.
    let mut h = vec![0u8; 43];
    h[0] = 1;
    h[1] = 0xFF;
    h[2] = 0xFF;
    h.extend_from_slice(&[0x41, 0]);
    assert!(read_body(&body(&[h])).is_err());
    let mut info = vec![0u8; 84];
    info[80] = 0xFF;
    info[81] = 0xFF;
    let e = read(
        &with_body(&body(&[P::new().control(10, &info).bytes()]), false),
        &Options {
            strict: true,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
    let mut pic = vec![0u8; 348];
    pic[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(read_body(&body(&[P::new().control(11, &pic).bytes()])).is_err());
    // Nesting: a table in a table in ... beyond the depth limit is too_large, not a stack overflow.
    let mut nested = list(&[P::new().text(&ascii("core")).bytes()]);
    for _ in 0..200 {
        let mut info = vec![0u8; 84];
        info[80] = 1;
        info.extend(vec![0u8; 27]);
        info.extend(nested);
        info.extend(list(&[]));
        nested = list(&[P::new().control(10, &info).bytes()]);
    }
    let mut b = vec![0u8; 16];
    b.extend(nested);
    let e = read_body(&b).unwrap_err();
    assert_eq!(e.code, ErrorCode::TooLarge);
}

#[test]
fn fixture_reads_with_hanja_and_layout() {
    let doc = crate::read(&fixture("rhwp-hwp3-sample.hwp"), &Options::default()).unwrap();
    let text = document_text(&doc, true);
    assert!(text.contains("代理人"), "hanja");
    assert!(text.contains("Creating Linux Virtual Servers"));
    assert!(!text.contains('\u{FFFD}'));
    assert_eq!(doc.pages, Some(16));
    assert_eq!(
        doc.metadata.title.as_deref(),
        Some("Creating Linux Virtual Servers")
    );
    assert!(doc.bin_data.len() >= 4);
}

#[test]
fn truncated_at_every_97th_byte_never_panics() {
    for name in [
        "rhwp-hwp3-sample13.hwp",
        "rhwp-hwp3-drawing-group.hwp",
        "rhwp-hwp3-tab.hwp",
    ] {
        let bytes = fixture(name);
        for cut in (0..bytes.len()).step_by(97) {
            for strict in [false, true] {
                let options = Options {
                    strict,
                    ..Options::default()
                };
                match std::panic::catch_unwind(|| crate::read(&bytes[..cut], &options)) {
                    Ok(Ok(doc)) => {
                        let _ = document_text(&doc, true);
                    }
                    Ok(Err(e)) => assert!(
                        matches!(e.code, ErrorCode::CorruptDocument | ErrorCode::TooLarge),
                        "{name} cut at {cut}: {e}"
                    ),
                    Err(_) => panic!("{name} cut at {cut}: panic"),
                }
            }
        }
    }
}

#[test]
fn inflated_body_mutations_never_panic() {
    // Flip bytes of an inflated body (the fuzz target's input) at a stride.
    let bytes = fixture("rhwp-hwp3-drawing-group.hwp");
    let body = crate::common::inflate::inflate_prefix(&bytes[HEAD_LEN..], 1 << 24);
    assert!(body.len() > 1000);
    for i in (0..body.len()).step_by(31) {
        let mut b = body.clone();
        b[i] ^= 0xA5;
        crate::fuzzing::run("hwp3_body", &b, &Options::default());
    }
}

#[test]
fn charset_covers_symbols_hanja_and_old_hangul() {
    let mut found = std::collections::HashSet::new();
    let mut old_hangul = 0;
    for code in 0..=u16::MAX {
        let mut s = String::new();
        charset::push(code, &mut s);
        for wanted in ["①", "※", "代", "理", "人", "｢", "→"] {
            if s == wanted {
                found.insert(wanted);
            }
        }
        if code >= 0x8000 && s.chars().count() > 1 {
            assert!(
                s.chars().all(|c| ('\u{1100}'..='\u{11FF}').contains(&c)
                    || ('\u{A960}'..='\u{A97F}').contains(&c)
                    || ('\u{D7B0}'..='\u{D7FF}').contains(&c)),
                "{code:#x}: {s:?}"
            );
            old_hangul += 1;
        }
    }
    assert_eq!(found.len(), 7, "{found:?}");
    assert!(old_hangul > 1000, "{old_hangul}");
    assert_eq!(charset::decode_kchars(&[0x88, 0x61, b'A', 0]), "가A");
}

#[test]
fn embedded_pictures_are_bin_data() {
    let bytes = fixture("rhwp-hwp3-sample.hwp");
    let doc = crate::read(&bytes, &Options::default()).unwrap();
    let first = doc.bin_data.first().expect("bin data").clone();
    match crate::bin_data::read_bin_data(&bytes, &first.name, &Options::default()).unwrap() {
        crate::bin_data::Lookup::Found { data, .. } => {
            assert_eq!(data.len() as u64, first.size.unwrap());
            assert!(
                crate::bin_data::media_type(&data).is_some(),
                "{:?}",
                &data[..8]
            );
        }
        other => panic!("{other:?}"),
    }
    // Pictures in the body name their bin data.
    let mut linked = 0;
    let mut blocks = doc.sections[0].blocks.clone();
    crate::model::for_each_block_mut(&mut blocks, &mut |b| {
        if let Block::Picture(p) = b {
            linked += usize::from(p.bin_data_id.is_some());
        }
    });
    assert!(linked >= 4, "{linked}");
}

/// Paragraphs, table rows and footnotes repeated cost in proportion (`fuzzing::assert_linear`).
#[test]
fn repeated_structures_cost_in_proportion() {
    let doc_of = |paras: Vec<Vec<u8>>| with_body(&body(&paras), false);
    crate::fuzzing::assert_linear(
        "HWP 3.x paragraphs",
        400,
        |n| {
            doc_of(
                (0..n)
                    .map(|i| P::new().text(&ascii(&format!("paragraph {i}"))).bytes())
                    .collect(),
            )
        },
        |doc| doc.sections[0].blocks.len(),
    );
    crate::fuzzing::assert_linear(
        "HWP 3.x table rows",
        300,
        |n| {
            // One column of n cells (27 bytes each: y at 6, width at 8, height at 10).
            let mut table = vec![0u8; 84];
            table[80..82].copy_from_slice(&(n as u16).to_le_bytes());
            for i in 0..n {
                let mut cell = vec![0u8; 27];
                cell[6..8].copy_from_slice(&((i * 50) as u16).to_le_bytes());
                cell[8] = 100;
                cell[10] = 50;
                table.extend(cell);
            }
            for i in 0..n {
                table.extend(list(&[P::new().text(&ascii(&format!("cell {i}"))).bytes()]));
            }
            table.extend(list(&[]));
            doc_of(vec![P::new().control(10, &table).bytes()])
        },
        |doc| match doc.sections[0]
            .blocks
            .iter()
            .find(|b| matches!(b, Block::Table(_)))
        {
            Some(Block::Table(t)) => t.rows as usize,
            _ => 0,
        },
    );
    crate::fuzzing::assert_linear(
        "HWP 3.x footnotes in one paragraph",
        300,
        |n| {
            let mut p = P::new();
            for i in 0..n {
                let mut note = vec![0u8; 14];
                note.extend(list(&[P::new().text(&ascii(&format!("note {i}"))).bytes()]));
                p = p.text(&ascii("x")).control(17, &note);
            }
            doc_of(vec![p.bytes()])
        },
        |doc| {
            doc.furniture
                .iter()
                .filter(|f| f.kind == "footnote")
                .count()
        },
    );
}

/// Drawing objects (spec §11), built byte by byte.
mod drawings {
    use super::*;

    const TEXT_BOX: u32 = 1 << 19;

    /// One object: a common header of `kind` with `links` and `flags` (plus the optional parts
    /// the flags announce and `in_header` after them), then two detail blocks.
    fn object(
        kind: u16,
        links: u16,
        flags: u32,
        in_header: &[u8],
        d1: &[u8],
        d2: &[u8],
    ) -> Vec<u8> {
        let mut head = vec![0u8; 88];
        head[0..2].copy_from_slice(&kind.to_le_bytes());
        head[2..4].copy_from_slice(&links.to_le_bytes());
        head[84..88].copy_from_slice(&flags.to_le_bytes());
        for (bit, size) in [(17, 32), (16, 28), (18, 278), (20, 5)] {
            if flags & (1 << bit) != 0 {
                head.extend(vec![0xEEu8; size]);
            }
        }
        head.extend_from_slice(in_header);
        let mut v = (head.len() as u32).to_le_bytes().to_vec();
        v.extend(head);
        for d in [d1, d2] {
            v.extend_from_slice(&(d.len() as u32).to_le_bytes());
            v.extend_from_slice(d);
        }
        v
    }

    /// The text of a shape made into a text box, as it sits at the end of its header.
    fn boxed_text(s: &str) -> Vec<u8> {
        let l = list(&[P::new().text(&ascii(s)).bytes()]);
        let mut v = 0u32.to_le_bytes().to_vec();
        v.extend_from_slice(&(l.len() as u32).to_le_bytes());
        v.extend(l);
        v
    }

    fn text_box(links: u16, s: &str) -> Vec<u8> {
        object(
            6,
            links,
            0,
            &[],
            &[],
            &list(&[P::new().text(&ascii(s)).bytes()]),
        )
    }

    /// A picture code (11) of kind 3 holding `objects` after a frame header (`hypertext`
    /// entries of 617 bytes after it), then an empty caption.
    fn drawing(objects: &[u8], hypertext: usize) -> Vec<u8> {
        let mut extra = Vec::new();
        let frame_len = if hypertext > 0 {
            24 + 4 + 617 * hypertext
        } else {
            24
        };
        extra.extend_from_slice(&(frame_len as u32).to_le_bytes());
        extra.extend(vec![0u8; 24]);
        if hypertext > 0 {
            extra.extend_from_slice(&((617 * hypertext) as u32).to_le_bytes());
            extra.extend(vec![0u8; 617 * hypertext]);
        }
        extra.extend_from_slice(objects);
        let mut info = vec![0u8; 348];
        info[..4].copy_from_slice(&(extra.len() as u32).to_le_bytes());
        info[74] = 3;
        info.extend(extra);
        info.extend(list(&[]));
        info
    }

    fn text_of(paras: &[Vec<u8>]) -> (String, Document) {
        let doc = read(
            &with_body(&body(paras), false),
            &Options {
                strict: true,
                ..Options::default()
            },
        )
        .unwrap();
        (document_text(&doc, true), doc)
    }

    #[test]
    fn every_kind_and_nested_groups_in_reading_order() {
        // {container: line, rectangle-as-text-box, {container: ellipse-as-text-box (rotated,
        // gradation, bitmap, watermark), text box}, arc, polygon, curve, modified ellipse,
        // modified arc, extended curve, polygon-as-text-box}, then a text box at the top level.
        let pts = |n: u32| (n.to_le_bytes().to_vec(), vec![0u8; 8 * n as usize]);
        let (p1, p2) = pts(3);
        let mut objects = object(0, 0x03, 0, &[], &[], &[]);
        objects.extend(object(1, 0x01, 0, &[], &[0; 4], &[]));
        objects.extend(object(
            2,
            0x01,
            TEXT_BOX,
            &boxed_text("rect text"),
            &[],
            &[],
        ));
        objects.extend(object(0, 0x03, 0, &[], &[], &[]));
        objects.extend(object(
            3,
            0x01,
            TEXT_BOX | (1 << 16) | (1 << 17) | (1 << 18) | (1 << 20),
            &boxed_text("ellipse text"),
            &[],
            &[],
        ));
        objects.extend(text_box(0, "inner box"));
        objects.extend(object(4, 0x01, 0, &[], &[0; 4], &[]));
        objects.extend(object(5, 0x01, 0, &[], &p1, &p2));
        objects.extend(object(7, 0x01, 0, &[], &p1, &p2));
        objects.extend(object(8, 0x01, 0, &[], &[0; 16], &[]));
        objects.extend(object(9, 0x01, 0, &[], &[], &[]));
        // Extended curve, its line attributes after the points (spec table 81).
        objects.extend(object(10, 0x01, 0, &[], &p1, &p2));
        objects.extend([0u8; 3]);
        objects.extend(object(
            5,
            0x01,
            TEXT_BOX,
            &boxed_text("polygon text"),
            &p1,
            &p2,
        ));
        // Closed polygon, its line attributes inside the second block (as hwpfilter reads).
        let mut p2_attrs = p2.clone();
        p2_attrs.extend([0u8; 3]);
        objects.extend(object(11, 0x00, 0, &[], &p1, &p2_attrs));
        objects.extend(text_box(0, "last box"));
        let (text, doc) = text_of(&[P::new()
            .text(&ascii("before"))
            .control(11, &drawing(&objects, 0))
            .text(&ascii("after"))
            .bytes()]);
        assert_eq!(
            text,
            "beforeafter\nrect text\nellipse text\ninner box\npolygon text\nlast box"
        );
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
        // The outer group is one shape holding its members' shapes.
        let Block::Shape(frame) = &doc.sections[0].blocks[1] else {
            panic!("{:?}", doc.sections[0].blocks)
        };
        assert_eq!(frame.blocks.len(), 2, "{:?}", frame.blocks);
        let Block::Shape(group) = &frame.blocks[0] else {
            panic!()
        };
        assert_eq!(group.shape_kind, "container");
        assert_eq!(group.blocks.len(), 3, "rectangle, inner group, polygon");
    }

    #[test]
    fn hypertext_frames_and_drawings_in_tables_headers_and_notes() {
        let boxed = || drawing(&text_box(0, "boxed"), 2);
        // A table whose cell holds a drawing.
        let mut table = vec![0u8; 84];
        table[80] = 1;
        table.extend(vec![0u8; 27]);
        table.extend(list(&[P::new().control(11, &boxed()).bytes()]));
        table.extend(list(&[]));
        let mut header = vec![0u8; 10];
        header.extend(list(&[P::new().control(11, &boxed()).bytes()]));
        let mut note = vec![0u8; 14];
        note.extend(list(&[P::new().control(11, &boxed()).bytes()]));
        // A drawing inside a text box inside a drawing.
        let inner = list(&[P::new()
            .control(11, &drawing(&text_box(0, "deep"), 0))
            .bytes()]);
        let outer = object(6, 0, 0, &[], &[], &inner);
        let (text, doc) = text_of(&[P::new()
            .control(10, &table)
            .control(16, &header)
            .control(17, &note)
            .control(11, &drawing(&outer, 1))
            .bytes()]);
        assert_eq!(text, "boxed\ndeep\nboxed\nboxed");
        assert_eq!(doc.furniture.len(), 2);
    }

    #[test]
    fn a_damaged_object_keeps_what_came_before() {
        let mut objects = text_box(0x01, "kept");
        objects.extend(object(2, 0x01, 0, &[], &[], &[]));
        // A header claiming less than its fixed part.
        objects.extend(10u32.to_le_bytes());
        objects.extend([0u8; 10]);
        let doc = read_body(&body(&[P::new()
            .text(&ascii("x"))
            .control(11, &drawing(&objects, 0))
            .bytes()]))
        .unwrap();
        assert_eq!(document_text(&doc, true), "x\nkept");
        assert!(doc.warnings.iter().any(|w| w.contains("drawing")));
    }

    #[test]
    fn nesting_and_lying_lengths_are_bounded() {
        // Groups nested beyond the depth limit: too_large, not a stack overflow.
        let mut objects = Vec::new();
        for _ in 0..200 {
            objects.extend(object(0, 0x02, 0, &[], &[], &[]));
        }
        objects.extend(text_box(0, "core"));
        let e = read_body(&body(&[P::new()
            .control(11, &drawing(&objects, 0))
            .bytes()]))
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::TooLarge);
        // Lengths past the end, a text box flag with a list that runs off: typed, no panic.
        for bad in [
            object(2, 0, TEXT_BOX, &[0xFF; 12], &[], &[]),
            object(6, 0, 0, &[], &[], &[0xFF; 50]),
            object(10, 0, 0, &[], &u32::MAX.to_le_bytes(), &[]),
        ] {
            let mut objects = bad;
            objects.truncate(objects.len().saturating_sub(3));
            let r = read_body(&body(&[P::new()
                .control(11, &drawing(&objects, 0))
                .bytes()]));
            if let Err(e) = r {
                assert!(matches!(
                    e.code,
                    ErrorCode::CorruptDocument | ErrorCode::TooLarge
                ));
            }
        }
    }

    /// A drawing of n text boxes, and n drawings in one paragraph, cost in proportion.
    #[test]
    fn drawings_cost_in_proportion() {
        let read_paras = |paras: Vec<Vec<u8>>| with_body(&body(&paras), false);
        let boxes = |doc: &Document| document_text(doc, true).matches("box ").count();
        crate::fuzzing::assert_linear(
            "HWP 3.x text boxes in one drawing",
            200,
            |n| {
                let objects: Vec<u8> = (0..n)
                    .flat_map(|i| text_box(u16::from(i + 1 < n), &format!("box {i}")))
                    .collect();
                read_paras(vec![P::new().control(11, &drawing(&objects, 0)).bytes()])
            },
            boxes,
        );
        crate::fuzzing::assert_linear(
            "HWP 3.x drawings in one paragraph",
            200,
            |n| {
                let mut p = P::new();
                for i in 0..n {
                    p = p.control(11, &drawing(&text_box(0, &format!("box {i}")), 0));
                }
                read_paras(vec![p.bytes()])
            },
            boxes,
        );
    }
}
