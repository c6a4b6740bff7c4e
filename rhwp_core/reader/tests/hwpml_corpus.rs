//! The HWPML reader over real documents — the checked-in fixtures (always) and the shared
//! corpus's `hml/` with Hancom's HWP 5.0 twins (when present) — and over hostile inputs built
//! here: entity bombs, deep nesting, bad base64, truncated XML, UTF-16, an HWPML under `.hwp`.
// Test code (helpers outside #[test] functions included): a failed unwrap fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rhwp_reader::bin_data::{read_bin_data, Lookup};
use rhwp_reader::model::{Block, Document, Format};
use rhwp_reader::text::document_text;
use rhwp_reader::{read, read_guarded, sniff, ErrorCode, Options, Sniffed};
use std::collections::HashMap;
use std::path::Path;

mod common;
use common::{corpus_dir as corpus, files, fixtures, strict};

fn bigrams(s: &str) -> HashMap<(char, char), usize> {
    let chars: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let mut m = HashMap::new();
    for w in chars.windows(2) {
        *m.entry((w[0], w[1])).or_insert(0) += 1;
    }
    m
}

/// Share of `want`'s bigrams found in `got`.
fn recall(got: &str, want: &str) -> f64 {
    let (g, w) = (bigrams(got), bigrams(want));
    let total: usize = w.values().sum();
    if total == 0 {
        return 1.0;
    }
    let hit: usize = w
        .iter()
        .map(|(k, n)| (*n).min(*g.get(k).unwrap_or(&0)))
        .sum();
    hit as f64 / total as f64
}

/// Table grids, block kinds and furniture kinds, nested ones included.
fn shape_of(doc: &Document) -> Vec<String> {
    fn walk(blocks: &[Block], out: &mut Vec<String>) {
        for b in blocks {
            match b {
                Block::Table(t) => {
                    out.push(format!("table {}x{}", t.rows, t.cols));
                    for c in &t.cells {
                        walk(&c.blocks, out);
                    }
                }
                Block::Shape(s) => {
                    out.push("shape".into());
                    walk(&s.blocks, out);
                }
                other => out.push(other.kind().into()),
            }
        }
    }
    let mut out = Vec::new();
    for s in &doc.sections {
        walk(&s.blocks, &mut out);
    }
    for f in &doc.furniture {
        out.push(f.kind.clone());
        walk(&f.blocks, &mut out);
    }
    out.sort();
    out
}

fn read_path(path: &Path, options: &Options) -> rhwp_reader::Result<Document> {
    read(&std::fs::read(path).unwrap(), options)
}

#[test]
fn fixtures_read_strictly_as_hwpml() {
    let dir = fixtures().join("hml");
    let all = files(&dir, "hml");
    assert_eq!(all.len(), 2, "tests/fixtures/hml holds two documents");
    for f in all {
        let doc = read_path(&f, &strict()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(doc.format, Format::Hwpml);
        let text = document_text(&doc, true);
        assert!(!text.trim().is_empty(), "{}", f.display());
        assert!(!text.contains('\u{FFFD}'), "{}", f.display());
    }
    let doc = read_path(&dir.join("nodehwp-sample-sample-1.hml"), &strict()).unwrap();
    let text = document_text(&doc, true);
    assert!(text.contains("근의 공식"));
    // The text shows the equation as LaTeX; the model keeps the script beside it.
    assert!(
        text.contains(r"$y = \frac{- b \pm \sqrt{b^{2} - 4 ac}}{2 a}$"),
        "the equation as LaTeX"
    );
    let script = doc.sections[0].blocks.iter().find_map(|b| match b {
        Block::Equation(e) => Some(e.script.as_str()),
        _ => None,
    });
    assert_eq!(script, Some("y={-b +- sqrt{b^2 - 4ac}}over{2a}"));
    assert!(shape_of(&doc).contains(&"table 4x5".to_string()));
    // Formatted runs from CHARSHAPE ids (bold, italic).
    let bold = doc.sections[0].blocks.iter().any(|b| match b {
        Block::Paragraph(p) => p.runs.iter().any(|r| r.bold && r.text == "Bold"),
        _ => false,
    });
    assert!(bold, "CHARSHAPE 5 is bold");
    assert_eq!(doc.bin_data.len(), 1);
    assert_eq!(doc.bin_data[0].name, "BIN0001.OLE");
    // DOCSUMMARY: its DATE ("2013년 10월 6일 일요일 오후 08:47:57") as ISO local time.
    let m = &doc.metadata;
    assert_eq!(
        (
            m.title.as_deref(),
            m.author.as_deref(),
            m.created.as_deref()
        ),
        (
            Some("테스트 문서"),
            Some("JiminP"),
            Some("2013-10-06T20:47:57")
        )
    );
    // Inline characters.
    let doc = read_path(&dir.join("nodehwp-text-text-2.hml"), &strict()).unwrap();
    let text = document_text(&doc, true);
    assert!(text.contains("TAB\tTA"), "{text}");
    assert!(text.contains("NBSPACE\u{a0}FWSPACE"), "{text}");
}

#[test]
fn bin_data_decodes_from_base64_on_demand() {
    let bytes = std::fs::read(fixtures().join("hml/nodehwp-sample-sample-1.hml")).unwrap();
    match read_bin_data(&bytes, "BIN0001.OLE", &Options::default()).unwrap() {
        Lookup::Found { name, data } => {
            assert_eq!(name, "BIN0001.OLE");
            assert_eq!(
                rhwp_reader::bin_data::media_type(&data),
                Some("application/x-ole-storage")
            );
        }
        other => panic!("{other:?}"),
    }
    match read_bin_data(&bytes, "BIN0009.png", &Options::default()).unwrap() {
        Lookup::Unknown { stored } => assert_eq!(stored, vec!["BIN0001.OLE".to_string()]),
        other => panic!("{other:?}"),
    }
}

/// A minimal HWPML document around a body and a tail.
fn hml(head: &str, body: &str, tail: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><HWPML Version=\"2.8\"><HEAD SecCnt=\"1\"><MAPPINGTABLE>{head}</MAPPINGTABLE></HEAD><BODY><SECTION Id=\"0\">{body}</SECTION></BODY><TAIL>{tail}</TAIL></HWPML>"
    )
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90wS\xde";

fn base64(data: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().fold(0u32, |n, &b| (n << 8) | b as u32) << (8 * (3 - chunk.len()));
        for k in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
        }
        out.push_str(&"=".repeat(3 - chunk.len()));
        out.push('\n');
    }
    out
}

fn picture_doc(payload: &str, compress: &str) -> String {
    hml(
        "<BINDATALIST Count=\"1\"><BINITEM BinData=\"1\" Format=\"png\" Type=\"Embedding\"/></BINDATALIST>",
        "<P ParaShape=\"0\" Style=\"0\"><TEXT CharShape=\"0\"><PICTURE><SHAPEOBJECT><SIZE Width=\"100\" Height=\"50\"/></SHAPEOBJECT><IMAGE BinItem=\"1\"/></PICTURE><CHAR>캡션 옆</CHAR></TEXT></P>",
        &format!("<BINDATASTORAGE><BINDATA Encoding=\"Base64\" Id=\"1\" Size=\"3\"{compress}>{payload}</BINDATA></BINDATASTORAGE>"),
    )
}

#[test]
fn pictures_and_their_bytes() {
    let deflated = {
        use std::io::Write;
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(PNG).unwrap();
        enc.finish().unwrap()
    };
    for (payload, compress) in [
        (base64(PNG), ""),
        (base64(PNG), " Compress=\"false\""),
        (base64(&deflated), " Compress=\"true\""),
    ] {
        let doc_text = picture_doc(&payload, compress);
        let doc = read(doc_text.as_bytes(), &strict()).unwrap();
        let pic = doc.sections[0]
            .blocks
            .iter()
            .find_map(|b| match b {
                Block::Picture(p) => Some(p),
                _ => None,
            })
            .expect("a picture block");
        assert_eq!(pic.bin_data_name.as_deref(), Some("BIN0001.png"));
        assert_eq!((pic.width, pic.height), (100, 50));
        match read_bin_data(doc_text.as_bytes(), "BIN0001.png", &Options::default()).unwrap() {
            Lookup::Found { data, .. } => assert_eq!(data, PNG, "{compress}"),
            other => panic!("{other:?}"),
        }
    }
    // Bad base64 is the document's damage, not a panic; the body still reads.
    let bad = picture_doc("iVBOR*w0K", "");
    assert!(read(bad.as_bytes(), &strict()).is_ok());
    let e = read_bin_data(bad.as_bytes(), "BIN0001.png", &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
    // Declared compressed but not deflate.
    let bad = picture_doc(&base64(b"not deflate at all"), " Compress=\"true\"");
    let e = read_bin_data(bad.as_bytes(), "BIN0001.png", &Options::default()).unwrap_err();
    assert_eq!(e.code, ErrorCode::CorruptDocument);
}

#[test]
fn tables_notes_headers_and_links() {
    let body = "<P ParaShape=\"0\"><TEXT CharShape=\"0\"><SECDEF><PAGEDEF Width=\"59528\" Height=\"84188\" Landscape=\"0\"><PAGEMARGIN Left=\"8504\" Right=\"8504\" Top=\"5668\" Bottom=\"4252\"/></PAGEDEF></SECDEF>\
        <HEADER ApplyPageType=\"Odd\"><PARALIST><P><TEXT><CHAR>머리말</CHAR></TEXT></P></PARALIST></HEADER>\
        <CHAR>본문</CHAR><FOOTNOTE><PARALIST><P><TEXT><CHAR>각주</CHAR></TEXT></P></PARALIST></FOOTNOTE>\
        <FIELDBEGIN Type=\"Hyperlink\" Command=\"https\\://example.com;1;0;0\" InstId=\"7\"/><CHAR>링크</CHAR><FIELDEND Type=\"Hyperlink\"/>\
        <TABLE RowCount=\"2\" ColCount=\"2\"><ROW><CELL ColAddr=\"0\" RowAddr=\"0\" ColSpan=\"2\" RowSpan=\"1\"><PARALIST><P><TEXT><CHAR>합친 칸</CHAR>\
        <TABLE RowCount=\"1\" ColCount=\"1\"><ROW><CELL ColAddr=\"0\" RowAddr=\"0\"><PARALIST><P><TEXT><CHAR>안쪽</CHAR></TEXT></P></PARALIST></CELL></ROW></TABLE></TEXT></P></PARALIST></CELL></ROW>\
        <ROW><CELL ColAddr=\"0\" RowAddr=\"1\"><PARALIST><P><TEXT><CHAR>a</CHAR></TEXT></P></PARALIST></CELL><CELL ColAddr=\"1\" RowAddr=\"1\"><PARALIST><P><TEXT><CHAR>b</CHAR></TEXT></P></PARALIST></CELL></ROW></TABLE>\
        </TEXT></P><P PageBreak=\"true\" ParaShape=\"1\"><TEXT CharShape=\"1\"><CHAR>제목</CHAR></TEXT></P>";
    let head = "<CHARSHAPELIST><CHARSHAPE Id=\"0\"/><CHARSHAPE Id=\"1\"><BOLD/><UNDERLINE Type=\"Bottom\"/></CHARSHAPE></CHARSHAPELIST>\
        <PARASHAPELIST><PARASHAPE Id=\"0\" HeadingType=\"None\"/><PARASHAPE Id=\"1\" HeadingType=\"Outline\" Level=\"1\"/></PARASHAPELIST>\
        <STYLELIST><STYLE Id=\"0\" Name=\"바탕글\" EngName=\"Normal\" Type=\"Para\"/></STYLELIST>";
    let doc = read(hml(head, body, "").as_bytes(), &strict()).unwrap();
    let shape = shape_of(&doc);
    assert!(shape.contains(&"table 2x2".to_string()), "{shape:?}");
    assert!(shape.contains(&"table 1x1".to_string()), "{shape:?}");
    assert!(shape.contains(&"header".to_string()) && shape.contains(&"footnote".to_string()));
    let header = doc.furniture.iter().find(|f| f.kind == "header").unwrap();
    assert_eq!(header.applies_to.as_deref(), Some("odd"));
    let page = doc.sections[0].page.as_ref().unwrap();
    assert_eq!(
        (page.width, page.margin_left, page.landscape),
        (59528, 8504, false)
    );
    let paras: Vec<_> = doc.sections[0]
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(paras[0].text, "본문링크");
    assert_eq!(paras[0].note_refs.len(), 1);
    assert!(paras[0]
        .runs
        .iter()
        .any(|r| r.text == "링크" && r.link.as_deref() == Some("https://example.com")));
    let title = paras.last().unwrap();
    assert_eq!(title.text, "제목");
    assert_eq!(title.heading_level, Some(2));
    assert_eq!(title.break_before.as_deref(), Some("page"));
    assert!(title.runs.iter().all(|r| r.bold && r.underline));
    assert_eq!(doc.styles.get()[0].name, "바탕글");
}

#[test]
fn encodings_and_entities() {
    let doc = hml(
        "",
        "<P><TEXT><CHAR>한글 &co; &#54620;</CHAR></TEXT></P>",
        "",
    );
    let with_doctype = doc.replacen(
        "<HWPML",
        "<!DOCTYPE HWPML [<!ENTITY co \"한컴\">]><HWPML",
        1,
    );
    let want = "한글 한컴 한";
    let text_of = |bytes: &[u8]| document_text(&read(bytes, &strict()).unwrap(), true);
    assert_eq!(text_of(with_doctype.as_bytes()).trim(), want);
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend_from_slice(with_doctype.as_bytes());
    assert_eq!(text_of(&bom).trim(), want);
    let le: Vec<u8> = with_doctype
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let be: Vec<u8> = with_doctype
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    for (mark, body) in [(&[0xFF, 0xFE], &le), (&[0xFE, 0xFF], &be)] {
        assert_eq!(sniff(body), Sniffed::Hwpml);
        assert_eq!(text_of(body).trim(), want);
        let mut marked = mark.to_vec();
        marked.extend_from_slice(body);
        assert_eq!(sniff(&marked), Sniffed::Hwpml);
        assert_eq!(text_of(&marked).trim(), want);
    }
}

#[test]
fn hostile_inputs_get_codes_not_panics() {
    let lenient = Options::default();
    let code = |bytes: &[u8]| read_guarded(bytes, &lenient).err().map(|e| e.code);
    // Billion laughs.
    let mut bomb = String::from("<!DOCTYPE HWPML [<!ENTITY l0 \"lol\">");
    for k in 1..10 {
        bomb.push_str(&format!(
            "<!ENTITY l{k} \"{}\">",
            format!("&l{};", k - 1).repeat(10)
        ));
    }
    bomb.push_str("]>");
    bomb.push_str(&hml("", "<P><TEXT><CHAR>&l9;</CHAR></TEXT></P>", ""));
    let started = std::time::Instant::now();
    assert_eq!(code(bomb.as_bytes()), Some(ErrorCode::TooLarge));
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // Deep nesting: tables in cells far past the object bound, and XML past the element bound.
    let deep = "<TABLE><ROW><CELL><PARALIST><P><TEXT>".repeat(200);
    assert_eq!(
        code(hml("", &format!("<P><TEXT>{deep}</TEXT></P>"), "").as_bytes()),
        Some(ErrorCode::TooLarge)
    );
    let deeper = "<X>".repeat(5000);
    assert!(matches!(
        code(hml("", &deeper, "").as_bytes()),
        Some(ErrorCode::TooLarge | ErrorCode::CorruptDocument)
    ));
    // Truncated anywhere: an error with a code, never an empty success.
    let whole = std::fs::read(fixtures().join("hml/nodehwp-text-text-2.hml")).unwrap();
    for cut in [10, 200, 3000, whole.len() / 2, whole.len() - 20] {
        let outcome = read_guarded(&whole[..cut], &lenient);
        match outcome {
            Err(e) => assert!(
                matches!(
                    e.code,
                    ErrorCode::CorruptDocument | ErrorCode::UnsupportedFormat
                ),
                "cut at {cut}: {e}"
            ),
            Ok(doc) => panic!(
                "cut at {cut} read as a document of {} sections",
                doc.sections.len()
            ),
        }
    }
    // No body section.
    assert_eq!(
        code(b"<?xml version=\"1.0\"?><HWPML><HEAD/><BODY/></HWPML>"),
        Some(ErrorCode::CorruptDocument)
    );
    // Scripts are never read as text.
    let scripted = hml(
        "",
        "<P><TEXT><CHAR>본문</CHAR></TEXT></P>",
        "<SCRIPTCODE Type=\"JScript\"><SCRIPTSOURCE>function OnDocument_New() { alert(1); }</SCRIPTSOURCE></SCRIPTCODE>",
    );
    let text = document_text(&read(scripted.as_bytes(), &strict()).unwrap(), true);
    assert!(!text.contains("alert"));
}

#[test]
fn hwpml_under_another_name_is_sniffed_by_content() {
    // The bytes decide: an HWPML document saved as `.hwp` (국가법령정보센터 serves laws so).
    let bytes = std::fs::read(fixtures().join("hml/nodehwp-text-text-2.hml")).unwrap();
    let dir = std::env::temp_dir().join(format!("rhwp-hwpml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let as_hwp = dir.join("law.hwp");
    std::fs::write(&as_hwp, &bytes).unwrap();
    let doc = read_path(&as_hwp, &strict()).unwrap();
    assert_eq!(doc.format, Format::Hwpml);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `hml/` document reads as HWPML without U+FFFD; where Hancom's HWP 5.0 twin exists,
/// the text is the same both ways (bigram recall ≥ 0.99) and so are the tables, notes and
/// headers (block kinds and grid sizes).
#[test]
fn corpus_documents_equal_their_twins() {
    let Some(root) = corpus() else { return };
    let dir = root.join("hml");
    let all = files(&dir, "hml");
    if std::env::var_os("CI").is_none() && all.is_empty() {
        return;
    }
    assert!(!all.is_empty(), "{} holds no .hml", dir.display());
    for f in all {
        let doc =
            read_path(&f, &Options::default()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(doc.format, Format::Hwpml, "{}", f.display());
        let text = document_text(&doc, true);
        assert!(!text.contains('\u{FFFD}'), "{}", f.display());
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        let twin = dir.join("twins").join(format!("{stem}.hwp5.hwp"));
        if !twin.exists() {
            continue;
        }
        let twin = read_path(&twin, &Options::default()).unwrap();
        let want = document_text(&twin, true);
        let (r1, r2) = (recall(&text, &want), recall(&want, &text));
        assert!(r1 >= 0.99 && r2 >= 0.99, "{stem}: recall {r1:.3} / {r2:.3}");
        // Grids and furniture as in the twin; HWP 5.0 models a connector as a plain line, so
        // only kinds that mean the same are compared.
        let ours: Vec<String> = shape_of(&doc);
        let theirs: Vec<String> = shape_of(&twin);
        assert_eq!(ours, theirs, "{stem}");
    }
}

/// HWPML repeated structures (rhwp_reader::fuzzing::assert_linear): the renaming layer and the section
/// reader it feeds cost in proportion to the elements, whatever repeats.
#[test]
fn repeated_structures_cost_in_proportion() {
    let para = |text: &str| format!("<P><TEXT><CHAR>{text}</CHAR></TEXT></P>");
    let doc = |body: String| hml("", &body, "").into_bytes();
    rhwp_reader::fuzzing::assert_linear(
        "HWPML paragraphs",
        400,
        |n| doc((0..n).map(|i| para(&format!("문단 {i}"))).collect()),
        |d| d.sections[0].blocks.len(),
    );
    rhwp_reader::fuzzing::assert_linear(
        "HWPML table rows",
        300,
        |n| {
            let rows: String = (0..n)
                .map(|r| {
                    format!("<ROW><CELL ColAddr=\"0\" RowAddr=\"{r}\"><PARALIST>{}</PARALIST></CELL><CELL ColAddr=\"1\" RowAddr=\"{r}\"><PARALIST>{}</PARALIST></CELL></ROW>", para("가"), para("나"))
                })
                .collect();
            doc(format!(
                "<P><TEXT><TABLE RowCount=\"{n}\" ColCount=\"2\">{rows}</TABLE></TEXT></P>"
            ))
        },
        |d| match &d.sections[0].blocks[0] {
            Block::Table(t) => t.rows as usize,
            _ => 0,
        },
    );
    rhwp_reader::fuzzing::assert_linear(
        "HWPML footnotes and links in one paragraph",
        300,
        |n| {
            let inner: String = (0..n)
                .map(|i| format!("<CHAR>본문{i}</CHAR><FOOTNOTE><PARALIST>{}</PARALIST></FOOTNOTE><FIELDBEGIN Type=\"Hyperlink\" Command=\"https\\://example.com/{i};1;0;0\" InstId=\"{i}\"/><CHAR>링크</CHAR><FIELDEND Type=\"Hyperlink\"/>", para(&format!("각주 {i}"))))
                .collect();
            doc(format!("<P><TEXT>{inner}</TEXT></P>"))
        },
        |d| d.furniture.iter().filter(|f| f.kind == "footnote").count(),
    );
    rhwp_reader::fuzzing::assert_linear(
        "HWPML click-here fields",
        300,
        |n| {
            doc((0..n)
                .map(|i| format!("<P><TEXT><FIELDBEGIN Type=\"ClickHere\" Name=\"칸{i}\" InstId=\"{i}\" Editable=\"true\"/><CHAR>값{i}</CHAR><FIELDEND Type=\"ClickHere\"/></TEXT></P>"))
                .collect())
        },
        |d| {
            d.sections[0]
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Paragraph(p) => Some(p.fields.len()),
                    _ => None,
                })
                .sum()
        },
    );
}

/// HWPML's form controls carry their name on a `FORMOBJECT` child and a button's caption, state
/// and radio group on a `BUTTONSET` child (HWPML spec §5.8), an edit box's text in `EDITTEXT`,
/// a combo box's shown text in `Text`; a named cell is a form field; master pages (바탕쪽,
/// §5.2.6-7) decorate pages and are not the document's text (as in HWPX and HWP 5.0).
#[test]
fn form_controls_named_cells_and_master_pages() {
    let body = "<P><TEXT><SECDEF><PAGEDEF Width=\"59528\" Height=\"84188\"/>\
        <MASTERPAGE Type=\"Both\"><PARALIST><P><TEXT><CHAR>바탕쪽 글</CHAR></TEXT></P></PARALIST></MASTERPAGE>\
        <EXT_MASTERPAGE Type=\"LastPage\"><PARALIST><P><TEXT><CHAR>마지막쪽 글</CHAR></TEXT></P></PARALIST></EXT_MASTERPAGE></SECDEF>\
        <CHAR>신청서</CHAR>\
        <CHECKBUTTON><SHAPEOBJECT/><FORMOBJECT Name=\"agree\"/><BUTTONSET Caption=\"동의합니다\" Value=\"Checked\"/></CHECKBUTTON>\
        <RADIOBUTTON><FORMOBJECT Name=\"r1\"/><BUTTONSET Caption=\"남\" Value=\"Unchecked\" RadioGroupName=\"성별\"/></RADIOBUTTON>\
        <EDIT MultiLine=\"false\"><FORMOBJECT Name=\"이름칸\"/><EDITTEXT>홍길동</EDITTEXT></EDIT>\
        <COMBOBOX Text=\"서울\"><FORMOBJECT Name=\"지역\"/></COMBOBOX>\
        <SCROLLBAR Value=\"30\" Min=\"0\" Max=\"100\"><FORMOBJECT Name=\"s\"/></SCROLLBAR>\
        </TEXT></P><P><TEXT><TABLE RowCount=\"1\" ColCount=\"1\"><ROW><CELL Name=\"성명\" ColAddr=\"0\" RowAddr=\"0\">\
        <PARALIST><P><TEXT><CHAR>홍길동</CHAR></TEXT></P></PARALIST></CELL></ROW></TABLE></TEXT></P>";
    let doc = read(hml("", body, "").as_bytes(), &strict()).unwrap();
    let text = document_text(&doc, true);
    assert!(
        !text.contains("바탕쪽") && !text.contains("마지막쪽"),
        "{text:?}"
    );
    // 글자 겹침 with the characters as OWPML spells them, and without (the spec's form).
    let composed = "<P><TEXT><CHAR>가</CHAR><COMPOSE CircleType=\"Char\" ComposeText=\"㉠\"><COMPCHARSHAPE ShapeID=\"0\"/></COMPOSE><COMPOSE/><CHAR>나</CHAR></TEXT></P>";
    let doc_composed = read(hml("", composed, "").as_bytes(), &strict()).unwrap();
    assert_eq!(document_text(&doc_composed, true).trim(), "가㉠나");
    let seen = common::form_rows(&doc.sections[0].blocks);
    assert_eq!(
        seen,
        [
            (
                "checkbox",
                Some("agree"),
                Some("동의합니다"),
                None,
                Some(true),
                None
            ),
            (
                "radio",
                Some("r1"),
                Some("남"),
                None,
                Some(false),
                Some("성별")
            ),
            ("edit", Some("이름칸"), None, Some("홍길동"), None, None),
            ("combo_box", Some("지역"), None, Some("서울"), None, None),
            ("scroll_bar", Some("s"), None, Some("30"), None, None),
        ]
    );
    let Some(Block::Table(t)) = doc.sections[0].blocks.last() else {
        panic!("a table last: {:?}", doc.sections[0].blocks)
    };
    assert_eq!(t.cells[0].field_name.as_deref(), Some("성명"));
}
