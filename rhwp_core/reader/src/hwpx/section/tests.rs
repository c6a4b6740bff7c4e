//! Sections end to end: small section parts through `parse`, checked on the
//! blocks, furniture and page state they give.

use super::*;
use crate::text::push_blocks;

fn run(xml: &str) -> (SectionOutput, DocState) {
    let header = Header::default();
    let bins = HashMap::new();
    let limits = Limits::default();
    let charts = HashMap::new();
    let input = SectionInput {
        charts: &charts,
        index: 0,
        part: "section0.xml",
        header: &header,
        bins: &bins,
        limits: &limits,
    };
    let mut state = DocState::default();
    let out = parse(xml.as_bytes(), &input, &mut state).unwrap();
    (out, state)
}

const NS: &str = r#"xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph" xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section""#;

#[test]
fn cells_without_cell_addr_take_their_row_and_column_from_the_grid() {
    // Minimal HWPX written by other tools has bare `tc`s with paragraphs, no cellAddr.
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:tbl><hp:tr><hp:tc><hp:p><hp:run><hp:t>a</hp:t></hp:run></hp:p></hp:tc>
        <hp:tc><hp:cellSpan colSpan="2" rowSpan="1"/><hp:p><hp:run><hp:t>b</hp:t></hp:run></hp:p></hp:tc>
        <hp:tc><hp:p><hp:run><hp:t>c</hp:t></hp:run></hp:p></hp:tc></hp:tr>
        <hp:tr><hp:tc><hp:p><hp:run><hp:t>d</hp:t></hp:run></hp:p></hp:tc></hp:tr></hp:tbl></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let Some(Block::Table(t)) = out.section.blocks.first() else {
        panic!("no table: {:?}", out.section.blocks)
    };
    let addresses: Vec<(u32, u32, u32)> =
        t.cells.iter().map(|c| (c.row, c.col, c.col_span)).collect();
    assert_eq!(addresses, vec![(0, 0, 1), (0, 1, 2), (0, 3, 1), (1, 0, 1)]);
    assert_eq!((t.rows, t.cols), (2, 4));
}

#[test]
fn paragraph_then_its_table() {
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>앞<hp:tab/>뒤</hp:t><hp:tbl rowCnt="1" colCnt="2"><hp:tr>
        <hp:tc><hp:subList><hp:p><hp:run><hp:t>A</hp:t></hp:run></hp:p></hp:subList><hp:cellAddr colAddr="1" rowAddr="0"/></hp:tc>
        <hp:tc><hp:subList><hp:p><hp:run><hp:t>B</hp:t></hp:run></hp:p></hp:subList><hp:cellAddr colAddr="0" rowAddr="0"/><hp:cellSpan colSpan="1" rowSpan="1"/></hp:tc>
        </hp:tr></hp:tbl></hp:run></hp:p></hs:sec>"#
    );
    let (out, state) = run(&xml);
    let mut text = String::new();
    push_blocks(&out.section.blocks, &mut text);
    assert_eq!(text, "앞\t뒤\nB\nA");
    assert_eq!(out.section.paragraph_count, 1);
    assert!(!state.has_layout);
    match &out.section.blocks[1] {
        Block::Table(t) => {
            assert_eq!((t.rows, t.cols), (1, 2));
            assert_eq!(t.provenance.char_start, 3);
        }
        other => panic!("expected a table, got {}", other.kind()),
    }
}

#[test]
fn other_prefixes_and_2024_namespace() {
    let xml = r#"<s:sec xmlns:s="http://www.owpml.org/owpml/2024/section" xmlns:x="http://www.owpml.org/owpml/2024/paragraph"><x:p><x:run><x:t>가 &amp; 나</x:t></x:run></x:p></s:sec>"#;
    let (out, _) = run(xml);
    let mut text = String::new();
    push_blocks(&out.section.blocks, &mut text);
    assert_eq!(text, "가 & 나");
}

#[test]
fn notes_links_and_pages() {
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>본문</hp:t><hp:ctrl><hp:footNote number="3"><hp:subList><hp:p><hp:run><hp:t>각주</hp:t></hp:run></hp:p></hp:subList></hp:footNote></hp:ctrl>
        <hp:ctrl><hp:fieldBegin id="7" type="HYPERLINK"><hp:parameters><hp:stringParam name="Command">http\://x.kr;1;0;0;</hp:stringParam></hp:parameters></hp:fieldBegin></hp:ctrl><hp:t>링크</hp:t><hp:ctrl><hp:fieldEnd beginIDRef="7"/></hp:ctrl><hp:t>끝</hp:t></hp:run>
        <hp:linesegarray><hp:lineseg vertpos="0"/><hp:lineseg vertpos="1000"/></hp:linesegarray></hp:p>
        <hp:p><hp:run><hp:t>둘째</hp:t></hp:run><hp:linesegarray><hp:lineseg vertpos="0"/></hp:linesegarray></hp:p></hs:sec>"#
    );
    let (out, state) = run(&xml);
    assert_eq!(out.furniture.len(), 1);
    assert_eq!(out.furniture[0].number, Some(3));
    let Block::Paragraph(p) = &out.section.blocks[0] else {
        panic!()
    };
    assert_eq!(p.text, "본문링크끝");
    assert_eq!(p.note_refs[0].offset, 2);
    assert_eq!(p.runs[1].link.as_deref(), Some("http://x.kr"));
    assert_eq!(p.runs[2].link, None);
    assert_eq!(p.provenance.page, Some(1));
    let Block::Paragraph(p2) = &out.section.blocks[1] else {
        panic!()
    };
    assert_eq!(p2.provenance.page, Some(2));
    assert_eq!(state.page, 2);
}

#[test]
fn switch_reads_first_case_only() {
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:switch><hp:case><hp:t>케이스</hp:t></hp:case><hp:default><hp:t>기본</hp:t></hp:default></hp:switch></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let mut text = String::new();
    push_blocks(&out.section.blocks, &mut text);
    assert_eq!(text, "케이스");
}

#[test]
fn deep_nesting_is_refused() {
    let mut xml = format!("<hs:sec {NS}>");
    for _ in 0..5000 {
        xml.push_str("<hp:p>");
    }
    let header = Header::default();
    let bins = HashMap::new();
    let limits = Limits::default();
    let charts = HashMap::new();
    let input = SectionInput {
        charts: &charts,
        index: 0,
        part: "s",
        header: &header,
        bins: &bins,
        limits: &limits,
    };
    let err = parse(xml.as_bytes(), &input, &mut DocState::default())
        .err()
        .unwrap();
    assert_eq!(err.code, crate::ErrorCode::TooLarge);
}

#[test]
fn ruby_text_follows_its_base_in_parentheses() {
    // 덧말: the base (`mainText`) and the ruby (`subText`) are both kept, in reading order;
    // an empty ruby adds nothing.
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>앞 </hp:t><hp:dutmal posType="TOP" szRatio="0" option="0" styleIDRef="0" align="CENTER"><hp:mainText>본말</hp:mainText><hp:subText>덧말</hp:subText></hp:dutmal><hp:t> 뒤</hp:t>
        <hp:dutmal><hp:mainText>x</hp:mainText><hp:subText> </hp:subText></hp:dutmal></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let mut text = String::new();
    push_blocks(&out.section.blocks, &mut text);
    assert_eq!(text, "앞 본말(덧말) 뒤x");
}

#[test]
fn overlapped_characters_are_read_from_their_attribute() {
    // 글자 겹침: `composeText` holds the characters; the charPr children are their shapes.
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>제</hp:t><hp:compose circleType="CHAR" charSz="-3" composeType="SPREAD" charPrCnt="2" composeText="12"><hp:charPr prIDRef="0"/><hp:charPr prIDRef="0"/></hp:compose><hp:t>조</hp:t><hp:compose composeText=""/></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let mut text = String::new();
    push_blocks(&out.section.blocks, &mut text);
    assert_eq!(text, "제12조");
}
