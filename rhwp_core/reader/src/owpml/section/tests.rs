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

fn run_with_header(xml: &str, header: &str) -> SectionOutput {
    let limits = Limits::default();
    let header = crate::owpml::header::parse(header.as_bytes(), &limits).unwrap();
    let bins = HashMap::new();
    let charts = HashMap::new();
    let input = SectionInput {
        charts: &charts,
        index: 0,
        part: "section0.xml",
        header: &header,
        bins: &bins,
        limits: &limits,
    };
    parse(xml.as_bytes(), &input, &mut DocState::default()).unwrap()
}

fn paragraphs(blocks: &[Block]) -> Vec<&crate::model::Paragraph> {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Paragraph(p) => Some(p),
            _ => None,
        })
        .collect()
}

/// A field of `kind` whose value is `value`, in a paragraph `앞 … 뒤`.
fn field_section(kind: &str, attrs: &str, params: &str, value: &str) -> String {
    format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>앞 </hp:t><hp:ctrl><hp:fieldBegin id="7" type="{kind}" {attrs}><hp:parameters cnt="1" name="">{params}</hp:parameters></hp:fieldBegin></hp:ctrl><hp:t>{value}</hp:t><hp:ctrl><hp:fieldEnd beginIDRef="7"/></hp:ctrl><hp:t> 뒤</hp:t></hp:run></hp:p></hs:sec>"#
    )
}

#[test]
fn field_kinds() {
    for (kind, model) in [
        ("CLICK_HERE", "click_here"),
        ("DATE", "date"),
        ("DOC_DATE", "date"),
        ("CROSSREF", "cross_reference"),
        ("MAILMERGE", "mail_merge"),
        ("FORMULA", "formula"),
        ("BOOKMARK", "bookmark"),
        ("TABLEOFCONTENTS", "table_of_contents"),
        ("SUMMARY", "summary"),
        ("USER_INFO", "user_info"),
        ("PATH", "file_path"),
        ("PRIVATE_INFO", "other"),
    ] {
        let xml = field_section(kind, r#"name="이름" editable="0" dirty="1""#, "", "값값");
        let (out, _) = run(&xml);
        let ps = paragraphs(&out.section.blocks);
        assert_eq!(ps.len(), 1, "{kind}");
        let p = ps[0];
        assert_eq!(p.text, "앞 값값 뒤", "{kind}");
        assert_eq!(p.fields.len(), 1, "{kind}");
        let f = &p.fields[0];
        assert_eq!(f.kind, model, "{kind}");
        assert_eq!(f.name.as_deref(), Some("이름"));
        assert!(!f.editable);
        assert_eq!(f.value, "값값");
        assert_eq!((f.start, f.end), (2, 4), "{kind}");
        assert_eq!(f.guide, None);
    }
}

#[test]
fn click_here_fields_filled_and_empty() {
    let params = r#"<hp:stringParam name="Command">Clickhere:set:44:Direction:wstring:2:성명 HelpState:wstring:0:  </hp:stringParam><hp:stringParam name="Direction">이름을 쓰세요</hp:stringParam>"#;
    // Filled in: the value is the text.
    let xml = field_section(
        "CLICK_HERE",
        r#"name="성명" editable="1" dirty="1""#,
        params,
        "홍길동",
    );
    let (out, _) = run(&xml);
    let p = paragraphs(&out.section.blocks)[0];
    let f = &p.fields[0];
    assert_eq!(f.kind, "click_here");
    assert_eq!(f.guide.as_deref(), Some("이름을 쓰세요"));
    assert!(f.editable);
    assert_eq!((f.value.as_str(), f.start, f.end), ("홍길동", 2, 5));
    assert_eq!(p.text, "앞 홍길동 뒤");
    // Never filled in: the guide 한글 stores as text is not the value.
    let xml = field_section(
        "CLICK_HERE",
        r#"name="성명" editable="1" dirty="0""#,
        params,
        "이름을 쓰세요",
    );
    let (out, _) = run(&xml);
    let p = paragraphs(&out.section.blocks)[0];
    let f = &p.fields[0];
    assert_eq!((f.value.as_str(), f.start, f.end), ("", 2, 2));
    assert_eq!(p.text, "앞  뒤");
    // Without Direction, the guide comes from the Command string.
    let params = r#"<hp:stringParam name="Command">Clickhere:set:44:Direction:wstring:2:성명 HelpState:wstring:0:  </hp:stringParam>"#;
    let xml = field_section("CLICK_HERE", r#"name="" dirty="0""#, params, "성명");
    let (out, _) = run(&xml);
    let p = paragraphs(&out.section.blocks)[0];
    assert_eq!(p.fields[0].guide.as_deref(), Some("성명"));
    assert_eq!(p.fields[0].name, None);
    assert_eq!(p.text, "앞  뒤");
}

#[test]
fn point_bookmarks_and_named_cells() {
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>1. 목적</hp:t><hp:ctrl><hp:bookmark name="목적"/></hp:ctrl><hp:tbl rowCnt="1" colCnt="2"><hp:tr>
        <hp:tc name="성명칸"><hp:subList><hp:p><hp:run><hp:t>A</hp:t></hp:run></hp:p></hp:subList><hp:cellAddr colAddr="0" rowAddr="0"/></hp:tc>
        <hp:tc name=""><hp:subList><hp:p><hp:run><hp:t>B</hp:t></hp:run></hp:p></hp:subList><hp:cellAddr colAddr="1" rowAddr="0"/></hp:tc>
        </hp:tr></hp:tbl></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let p = paragraphs(&out.section.blocks)[0];
    let f = &p.fields[0];
    assert_eq!(f.kind, "bookmark");
    assert_eq!(f.name.as_deref(), Some("목적"));
    assert_eq!((f.start, f.end, f.value.as_str()), (5, 5, ""));
    let Some(Block::Table(t)) = out.section.blocks.get(1) else {
        panic!("no table")
    };
    assert_eq!(t.cells[0].field_name.as_deref(), Some("성명칸"));
    assert_eq!(t.cells[1].field_name, None);
}

#[test]
fn form_controls() {
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run>
        <hp:checkBtn caption="동의함" value="CHECKED" name="agree"><hp:formCharPr charPrIDRef="0"/><hp:sz width="1" height="1"/></hp:checkBtn>
        <hp:checkBtn caption="동의 안 함" value="UNCHECKED" name="disagree"/>
        <hp:radioBtn caption="남" value="CHECKED" radioGroupName="성별" name="r1"/>
        <hp:radioBtn caption="여" value="UNCHECKED" radioGroupName="성별" name="r2"/>
        <hp:btn caption="보내기" value="UNCHECKED" name="send"/>
        <hp:comboBox selectedValue="서울" name="city"><hp:listItem displayText="서울" value="1"/><hp:listItem displayText="부산" value="2"/></hp:comboBox>
        <hp:listBox selectedValue="" name="lb"><hp:listItem displayText="" value="가"/></hp:listBox>
        <hp:edit name="memo"><hp:formCharPr charPrIDRef="0"/><hp:text>입력한 글</hp:text></hp:edit>
        <hp:scrollBar value="30" name="sb"/>
        <hp:t/></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let cs: Vec<&crate::model::FormControl> = out
        .section
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::FormControl(c) => Some(c),
            _ => None,
        })
        .collect();
    let summary: Vec<(&str, Option<&str>, Option<bool>)> = cs
        .iter()
        .map(|c| (c.control.as_str(), c.name.as_deref(), c.checked))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("checkbox", Some("agree"), Some(true)),
            ("checkbox", Some("disagree"), Some(false)),
            ("radio", Some("r1"), Some(true)),
            ("radio", Some("r2"), Some(false)),
            ("button", Some("send"), None),
            ("combo_box", Some("city"), None),
            ("list_box", Some("lb"), None),
            ("edit", Some("memo"), None),
            ("scroll_bar", Some("sb"), None),
        ]
    );
    assert_eq!(cs[0].caption.as_deref(), Some("동의함"));
    assert_eq!(cs[2].group.as_deref(), Some("성별"));
    assert_eq!(cs[0].group, None);
    assert_eq!(cs[4].caption.as_deref(), Some("보내기"));
    assert_eq!(cs[5].value.as_deref(), Some("서울"));
    assert_eq!(cs[5].options, vec!["서울", "부산"]);
    assert_eq!(cs[6].value, None);
    assert_eq!(cs[6].options, vec!["가"]);
    assert_eq!(cs[7].value.as_deref(), Some("입력한 글"));
    assert_eq!(cs[8].value.as_deref(), Some("30"));
}

/// Fields never ended are listed in every paragraph they run over, with its text: only
/// `MAX_OPEN_FIELDS` are open at once; a memo begun past them keeps its own text, unanchored.
#[test]
fn open_fields_are_bounded() {
    use crate::limits::MAX_OPEN_FIELDS;
    let begins: String = (0..3 * MAX_OPEN_FIELDS)
        .map(|i| format!(r#"<hp:ctrl><hp:fieldBegin id="{i}" type="CLICK_HERE" name="f{i}" dirty="1"/></hp:ctrl>"#))
        .collect();
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run>{begins}<hp:ctrl><hp:fieldBegin id="m" type="MEMO"><hp:subList><hp:p><hp:run><hp:t>메모</hp:t></hp:run></hp:p></hp:subList></hp:fieldBegin></hp:ctrl><hp:t>하나</hp:t></hp:run></hp:p>
        <hp:p><hp:run><hp:t>둘</hp:t></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let ps = paragraphs(&out.section.blocks);
    assert_eq!(
        ps.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
        ["하나", "둘"]
    );
    for (p, value) in ps.iter().zip(["하나", "둘"]) {
        assert_eq!(p.fields.len(), MAX_OPEN_FIELDS);
        assert!(p.fields.iter().all(|f| f.value == value));
    }
    assert_eq!(out.memos.len(), 1);
    assert_eq!(out.memos[0].anchor_text.as_deref(), Some(""));
    let mut memo_text = String::new();
    push_blocks(&out.memos[0].blocks, &mut memo_text);
    assert_eq!(memo_text, "메모");
}

#[test]
fn memo_in_a_cell_is_furniture() {
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>표</hp:t><hp:footNote number="1"><hp:subList><hp:p><hp:run><hp:t>각주</hp:t></hp:run></hp:p></hp:subList></hp:footNote><hp:tbl rowCnt="1" colCnt="1"><hp:tr><hp:tc name=""><hp:subList>
        <hp:p><hp:run><hp:t>제목 </hp:t><hp:ctrl><hp:fieldBegin id="9" type="MEMO" name="" editable="1" dirty="1"><hp:parameters cnt="3" name=""><hp:stringParam name="Author">검토자</hp:stringParam><hp:integerParam name="Number">1</hp:integerParam><hp:stringParam name="CreateDateTime">2024-09-27T11:21:50Z</hp:stringParam></hp:parameters>
        <hp:subList><hp:p><hp:run><hp:t>구체적으로 적기</hp:t></hp:run></hp:p><hp:p><hp:run><hp:t>둘째 줄</hp:t></hp:run></hp:p></hp:subList></hp:fieldBegin></hp:ctrl><hp:t>내용</hp:t><hp:ctrl><hp:fieldEnd beginIDRef="9"/></hp:ctrl><hp:t> 끝</hp:t></hp:run></hp:p>
        </hp:subList><hp:cellAddr colAddr="0" rowAddr="0"/></hp:tc></hp:tr></hp:tbl></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let mut text = String::new();
    push_blocks(&out.section.blocks, &mut text);
    assert_eq!(text, "표\n제목 내용 끝");
    let Some(Block::Table(t)) = out.section.blocks.get(1) else {
        panic!("no table: {:?}", out.section.blocks)
    };
    assert_eq!(t.cells[0].blocks.len(), 1);
    let p = paragraphs(&t.cells[0].blocks)[0];
    assert_eq!(p.text, "제목 내용 끝");
    assert!(p.fields.is_empty());
    // The footnote stays with the other furniture; the memo is apart.
    assert_eq!(out.furniture.len(), 1);
    assert_eq!(out.furniture[0].kind, "footnote");
    assert_eq!(out.memos.len(), 1);
    let memo = &out.memos[0];
    assert_eq!(memo.kind, "memo");
    assert_eq!(memo.author.as_deref(), Some("검토자"));
    assert_eq!(memo.date.as_deref(), Some("2024-09-27T11:21:50Z"));
    assert_eq!(memo.anchor_text.as_deref(), Some("내용"));
    assert_eq!(
        (memo.provenance.char_start, memo.provenance.char_end),
        (3, 5)
    );
    let mut memo_text = String::new();
    push_blocks(&memo.blocks, &mut memo_text);
    assert_eq!(memo_text, "구체적으로 적기\n둘째 줄");
}

#[test]
fn tracked_changes_keep_deleted_text_out() {
    let header = r#"<hh:head xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head"><hh:refList>
        <hh:trackChanges itemCnt="2"><hh:trackChange type="Insert" date="2023-02-07T10:21:00Z" authorID="1" hide="0" id="1"/><hh:trackChange type="Delete" date="2023-02-08T09:00:00Z" authorID="1" hide="0" id="2"/></hh:trackChanges>
        <hh:trackChangeAuthors itemCnt="1"><hh:trackChangeAuthor name="김검토" mark="1" id="0"/></hh:trackChangeAuthors>
        </hh:refList></hh:head>"#;
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>변경<hp:deleteBegin Id="2" TcId="2"/> 추적<hp:deleteEnd Id="2" TcId="2" paraend="0"/> <hp:insertBegin Id="1" TcId="1"/>인간은<hp:insertEnd Id="1" TcId="1" paraend="0"/></hp:t><hp:ctrl><hp:bookmark name="끝"/></hp:ctrl></hp:run></hp:p>
        <hp:p><hp:run><hp:t><hp:deleteBegin Id="2" TcId="2"/>다 지움<hp:deleteEnd Id="2" TcId="2" paraend="0"/></hp:t></hp:run></hp:p></hs:sec>"#
    );
    let out = run_with_header(&xml, header);
    let ps = paragraphs(&out.section.blocks);
    let p = ps[0];
    assert_eq!(p.text, "변경 인간은");
    let runs: Vec<(&str, Option<&str>)> = p
        .runs
        .iter()
        .map(|r| (r.text.as_str(), r.change.as_ref().map(|c| c.kind.as_str())))
        .collect();
    assert_eq!(
        runs,
        vec![
            ("변경", None),
            (" 추적", Some("deleted")),
            (" ", None),
            ("인간은", Some("inserted")),
        ]
    );
    let deleted = p.runs[1].change.as_ref().unwrap();
    assert_eq!(deleted.author.as_deref(), Some("김검토"));
    assert_eq!(deleted.time.as_deref(), Some("2023-02-08T09:00:00Z"));
    // Offsets after the change count the final text.
    assert_eq!((p.fields[0].start, p.fields[0].end), (6, 6));
    // A paragraph whose text was all deleted keeps its deleted run.
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[1].text, "");
    assert_eq!(ps[1].runs[0].text, "다 지움");
}

/// A cell whose lines are `(vertpos, horzpos)`, at `row` spanning `span` rows.
fn cell_xml(row: u32, col: u32, span: u32, lines: &[(i32, i32)]) -> String {
    let segs: String = lines
        .iter()
        .enumerate()
        .map(|(k, (v, h))| {
            format!(r#"<hp:lineseg textpos="{k}" vertpos="{v}" horzpos="{h}" flags="393216"/>"#)
        })
        .collect();
    format!(
        r#"<hp:tc><hp:subList><hp:p><hp:run><hp:t>c{row}{col}</hp:t></hp:run><hp:linesegarray>{segs}</hp:linesegarray></hp:p></hp:subList><hp:cellAddr colAddr="{col}" rowAddr="{row}"/><hp:cellSpan colSpan="1" rowSpan="{span}"/></hp:tc>"#
    )
}

fn para_xml(text: &str, attrs: &str, vpos: &[i32], inner: &str) -> String {
    let segs: String = vpos
        .iter()
        .map(|v| format!(r#"<hp:lineseg textpos="0" vertpos="{v}" horzpos="0"/>"#))
        .collect();
    format!(
        r#"<hp:p {attrs}><hp:run><hp:t>{text}</hp:t>{inner}</hp:run><hp:linesegarray>{segs}</hp:linesegarray></hp:p>"#
    )
}

#[test]
fn tables_running_on_add_pages_once_per_break() {
    // Row 0: two cells restart together (one page break, counted once). Row 1: one cell laid
    // out in two columns (its lines fall back to a column further right: no page) and one
    // that restarts twice. A cell spanning both rows restarts once, within the same breaks.
    let table = format!(
        r#"<hp:tbl rowCnt="2" colCnt="3"><hp:tr>{}{}{}</hp:tr><hp:tr>{}{}</hp:tr></hp:tbl>"#,
        cell_xml(0, 0, 1, &[(0, 0), (60000, 0), (0, 0), (2000, 0)]),
        cell_xml(0, 1, 1, &[(0, 0), (50000, 0), (0, 0)]),
        cell_xml(0, 2, 2, &[(0, 0), (30000, 0), (0, 0), (9000, 0)]),
        cell_xml(1, 0, 1, &[(0, 0), (40000, 0), (0, 20000), (40000, 20000)]),
        cell_xml(
            1,
            1,
            1,
            &[(0, 0), (60000, 0), (0, 0), (60000, 0), (0, 0), (1000, 0)]
        ),
    );
    let xml = format!(
        r#"<hs:sec {NS}>{}{}{}{}{}</hs:sec>"#,
        para_xml("one", "", &[0], ""),
        para_xml("", "", &[5000], &table),
        // After the table, on its last page (below where the table's content ended).
        para_xml("after", "", &[4000], ""),
        // An explicit break whose line also falls back: one page.
        para_xml("broken", r#"pageBreak="1""#, &[0], ""),
        para_xml("same", "", &[1500], ""),
    );
    let (out, state) = run(&xml);
    let pages: Vec<(String, Option<u32>)> = out
        .section
        .blocks
        .iter()
        .map(|b| match b {
            Block::Paragraph(p) => (p.text.clone(), p.provenance.page),
            Block::Table(t) => {
                // Blocks inside the table take the table's page.
                for c in &t.cells {
                    for b in &c.blocks {
                        if let Block::Paragraph(p) = b {
                            assert_eq!(p.provenance.page, t.provenance.page);
                        }
                    }
                }
                ("table".into(), t.provenance.page)
            }
            _ => ("?".into(), None),
        })
        .collect();
    let expect = |s: &str, p: u32| (s.to_string(), Some(p));
    assert_eq!(
        pages,
        vec![
            expect("one", 1),
            expect("table", 1),
            expect("after", 4),
            expect("broken", 5),
            expect("same", 5)
        ]
    );
    assert_eq!(state.page, 5);
}

#[test]
fn columns_and_nested_tables_in_cells() {
    // A cell's two columns are no page; a table nested in a cell that restarts adds its page
    // to the outer cell's, and the outer table adds it once.
    let inner = format!(
        r#"<hp:tbl rowCnt="1" colCnt="1"><hp:tr>{}</hp:tr></hp:tbl>"#,
        cell_xml(0, 0, 1, &[(0, 0), (60000, 0), (0, 0)])
    );
    let outer = format!(
        r#"<hp:tbl rowCnt="1" colCnt="2"><hp:tr><hp:tc><hp:subList>{}{}</hp:subList><hp:cellAddr colAddr="0" rowAddr="0"/></hp:tc>{}</hp:tr></hp:tbl>"#,
        para_xml("", "", &[0], &inner),
        para_xml("below", "", &[500], ""),
        cell_xml(0, 1, 1, &[(0, 0), (60000, 0), (0, 30000), (60000, 30000)]),
    );
    let xml = format!(
        r#"<hs:sec {NS}>{}{}</hs:sec>"#,
        para_xml("", "", &[0], &outer),
        para_xml("end", "", &[900], ""),
    );
    let (_, state) = run(&xml);
    assert_eq!(state.page, 2);
}

#[test]
fn a_field_begun_at_a_paragraphs_end_is_first_listed_where_its_text_is() {
    // Nothing of it in the first paragraph: its first listed part is the second's, not continued.
    let xml = format!(
        r#"<hs:sec {NS}><hp:p><hp:run><hp:t>앞</hp:t><hp:ctrl><hp:fieldBegin id="7" type="CLICK_HERE" name="본문" editable="1" dirty="1"><hp:parameters cnt="0" name=""/></hp:fieldBegin></hp:ctrl></hp:run></hp:p>
        <hp:p><hp:run><hp:t>둘</hp:t></hp:run></hp:p>
        <hp:p><hp:run><hp:t>셋</hp:t><hp:ctrl><hp:fieldEnd beginIDRef="7"/></hp:ctrl></hp:run></hp:p></hs:sec>"#
    );
    let (out, _) = run(&xml);
    let parts: Vec<(&str, bool)> = paragraphs(&out.section.blocks)
        .iter()
        .flat_map(|p| &p.fields)
        .map(|f| (f.value.as_str(), f.continued))
        .collect();
    assert_eq!(parts, [("둘", false), ("셋", true)]);
}
