"""The Markdown view: structure, escaping, tables, notes, speed."""

from __future__ import annotations

import html
import re
import time
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from oracle_views.markdown import render_block_markdown, render_markdown
from rhwp_core.ir import (
    Equation,
    Furniture,
    HwpDocument,
    ListMarker,
    NoteRef,
    Paragraph,
    Provenance,
    Run,
    Section,
    Table,
    TableCell,
    iter_blocks,
)
from rhwp_core_test_support import markdown_table_count as table_count
from rhwp_core_test_support import plain_text, recall, showcase

MD = MarkdownIt("commonmark").enable("table")
GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def doc_of(*blocks: Any, furniture: list[Furniture] | None = None) -> HwpDocument:
    return HwpDocument(format="hwp", sections=[Section(blocks=list(blocks))], furniture=furniture or [])


def rendered(markdown: str) -> str:
    return MD.render(markdown)


def test_showcase_parses_and_keeps_every_table() -> None:
    doc = showcase()
    markdown = render_markdown(doc)
    assert table_count(markdown) == len(list(iter_blocks(doc, kind="table"))) == 4
    rendered(markdown)  # markdown-it accepts it


def test_showcase_keeps_every_word() -> None:
    doc = showcase()
    assert recall(plain_text(doc, include_furniture=False), render_markdown(doc)) == 1.0
    assert recall(plain_text(doc), render_markdown(doc, include_furniture=True)) == 1.0


def test_headings_runs_and_links() -> None:
    markdown = render_markdown(showcase())
    assert markdown.startswith("# 1. 개요\n\n")  # bold dropped inside a heading
    assert (
        "본 문서는 **굵게** [^1]*기울임* ~~취소선~~ [링크](https://example.com/a%20b%28c%29) 를 포함한다." in markdown
    )
    html_out = rendered(markdown)
    assert "<h1>1. 개요</h1>" in html_out
    assert "<strong>굵게</strong> [^1]<em>기울임</em> <s>취소선</s>" not in html_out  # commonmark has no ~~
    assert "<strong>굵게</strong>" in html_out and "<em>기울임</em>" in html_out
    assert '<a href="https://example.com/a%20b%28c%29">링크</a>' in html_out


def test_heading_levels_and_closing_hashes() -> None:
    blocks = [Paragraph(text=f"제목 {level} #", heading_level=level) for level in range(1, 7)]
    markdown = render_markdown(doc_of(*blocks))
    for level in range(1, 7):
        assert f"{'#' * level} 제목 {level} \\#\n" in markdown
        assert f"<h{level}>제목 {level} #</h{level}>" in rendered(markdown)


def test_nested_lists_keep_numbers_and_markers() -> None:
    markdown = render_markdown(showcase())
    assert "- 첫째 항목\n  1. 하위 번호 항목\n  - 가) 한글 번호 항목\n- 둘째 항목" in markdown
    html_out = rendered(markdown)
    assert re.search(r"<ul>\s*<li>첫째 항목\s*<ol>\s*<li>하위 번호 항목</li>", html_out)


def test_list_numbers_start_where_the_document_says() -> None:
    items = [
        Paragraph(text=t, list=ListMarker(kind="number", level=1, marker=f"{n})")) for n, t in ((3, "셋"), (4, "넷"))
    ]
    markdown = render_markdown(doc_of(*items, Paragraph(text="끝")))
    assert markdown.startswith("3) 셋\n4) 넷\n\n끝")
    assert '<ol start="3">' in rendered(markdown)


def test_simple_table_is_a_pipe_table_with_its_caption() -> None:
    markdown = render_markdown(showcase())
    assert "표 1. 단순한 표\n\n| 구분 | 값 \\| 단위 |\n| --- | --- |\n| 길이 |  |" in markdown


def test_merged_cells_and_nested_tables_become_html() -> None:
    markdown = render_markdown(showcase())
    html_blocks = [t.content for t in MD.parse(markdown) if t.type == "html_block" and "<table" in t.content]
    assert len(html_blocks) == 1
    fragment = html_blocks[0]
    assert '<th colspan="3">병합된 머리글</th>' in fragment
    assert '<td rowspan="2">세로 병합</td>' in fragment
    assert re.search(r'<td rowspan="2">\s*<table class="hwp-table">', fragment)
    assert "<td>여러 줄<br>둘째 줄</td>" in fragment
    assert "<sup>[^e1]</sup>" in fragment


def test_text_box_table_inside_blockquote() -> None:
    markdown = render_markdown(showcase())
    assert "> 글상자 안의 글\n>\n> | 상자 속 표 |\n> | --- |" in markdown
    assert re.search(r"<blockquote>\s*<p>글상자 안의 글</p>\s*<table>", rendered(markdown))


def test_notes_are_referenced_and_defined_at_the_end() -> None:
    markdown = render_markdown(showcase())
    # The notes are defined after the body; the memo comes after them, labelled, never in the body.
    notes = "[^1]: 각주 내용입니다.\n\n[^e1]: 미주 내용입니다.\n\n"
    memo = '**\\[메모 (검토자, 2024-03-02): "홍길동"\\]** 주민등록상 이름인지 확인\n'
    assert markdown.endswith(notes + memo)
    assert markdown.count("주민등록상 이름인지 확인") == 1


def test_restarted_note_numbers_get_distinct_labels() -> None:
    paragraphs = [
        Paragraph(text="가나", note_refs=[NoteRef(kind="footnote", number=1, offset=2)]),
        Paragraph(text="다라", note_refs=[NoteRef(kind="footnote", number=1, offset=1)]),
    ]
    notes = [
        Furniture(kind="footnote", number=1, blocks=[Paragraph(text="첫 각주")]),
        Furniture(
            kind="footnote", number=1, blocks=[Paragraph(text="둘째 각주\n둘째 줄"), Paragraph(text="둘째 문단")]
        ),
    ]
    markdown = render_markdown(doc_of(*paragraphs, furniture=notes))
    assert "가나[^1]\n\n다[^1-2]라" in markdown
    assert "[^1]: 첫 각주\n\n[^1-2]: 둘째 각주\\\n    둘째 줄\n    \n    둘째 문단\n" in markdown.replace(
        "\n\n    둘째 문단", "\n    \n    둘째 문단"
    )


def test_picture_equation_and_unknown_object() -> None:
    markdown = render_markdown(showcase())
    assert '![그림입니다. \\[원본\\] "logo"](BIN0001.png "50.8 × 25.4 mm")\n\n그림 1. 로고' in markdown
    # Alone in its paragraph: display math.
    assert "\n\n$$x = \\frac{- b \\pm \\sqrt{b^{2} - 4 ac}}{2 a}$$\n\n" in markdown
    assert "<!-- object: ole -->" in markdown


def test_equation_inline_display_and_untranslated() -> None:
    at = Provenance(paragraph=3)
    inline = doc_of(
        Paragraph(text="근의 공식:", provenance=at), Equation(script="a over b", latex=r"\frac{a}{b}", provenance=at)
    )
    assert render_markdown(inline) == "근의 공식:\n\n$\\frac{a}{b}$\n"
    alone = doc_of(Paragraph(text="앞 문단"), Equation(script="a over b", latex=r"\frac{a}{b}", provenance=at))
    assert render_markdown(alone) == "앞 문단\n\n$$\\frac{a}{b}$$\n"
    # A script that does not translate is shown as it is (escaped as text).
    assert render_markdown(doc_of(Equation(script="{a_1 over", latex=None))) == "{a\\_1 over\n"


def test_hostile_text_renders_literally() -> None:
    markdown = render_markdown(showcase())
    html_out = rendered(markdown)
    assert "<script>" not in html_out
    assert "&lt;script&gt;alert('x')&lt;/script&gt; | *별* _밑줄_ `코드` [^1] &amp;amp; # 제목 아님<br />" in html_out
    assert "1. 목록 아님<br />\n- 이것도</p>" in html_out
    assert "제어문자와삭제" in markdown
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", markdown)


HOSTILE = st.text(
    alphabet=st.sampled_from(list("\\`*_{}[]()<>#+-.!|~$&;:^=\"' \t1aA가\x00\x07\x1b\x7f\u0085\ufffe")), max_size=40
)


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
def test_any_text_renders_as_itself(text: str) -> None:
    markdown = render_markdown(doc_of(Paragraph(text=text)))
    expected = re.sub("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe]", "", text).strip(" \t")
    if not expected:
        assert markdown == ""
        return
    out = rendered(markdown)
    assert out.startswith("<p>") and out.endswith("</p>\n"), (markdown, out)
    assert html.unescape(out[3:-5]) == expected, markdown


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(HOSTILE, st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=4))
# Found by this test: a control character after a struck-out colon vanishes, so `~~:~~` met the '1'.
@example(runs=[(":", False, False, True), ("\x851", False, False, False)])
def test_formatted_runs_keep_their_text(runs: list[tuple[str, bool, bool, bool]]) -> None:
    run_models = [Run(text=t, bold=b, italic=i, strike=s) for t, b, i, s in runs]
    paragraph = Paragraph(text="".join(r.text for r in run_models), runs=run_models)
    out = GFM.render(render_markdown(doc_of(paragraph)))
    text = html.unescape(re.sub(r"<[^>]+>", "", out))
    expected = re.sub("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe]", "", paragraph.text)
    assert "".join(text.split()) == "".join(expected.split())


def test_punctuation_edges_fall_back_to_html_tags() -> None:
    runs = [
        Run(text="회사"),
        Run(text="(주)", bold=True),
        Run(text="이름 "),
        Run(text="굵게!", bold=True),
        Run(text="기울게", italic=True),
    ]
    paragraph = Paragraph(text="".join(r.text for r in runs), runs=runs)
    out = rendered(render_markdown(doc_of(paragraph)))
    assert out == "<p>회사<strong>(주)</strong>이름 <strong>굵게!</strong><em>기울게</em></p>\n"


def test_formatting_never_splits_a_word() -> None:
    runs = [
        Run(text="몇", bold=True, italic=True),
        Run(text="교시", bold=True),
        Run(text=" 본문 "),
        Run(text="내용", bold=True),
    ]
    runs.append(Run(text="입니다"))
    paragraph = Paragraph(text="".join(r.text for r in runs), runs=runs)
    assert render_markdown(doc_of(paragraph)) == "**몇교시** 본문 내용입니다\n"
    cell = TableCell(row=0, col=0, row_span=2, blocks=[paragraph])
    table = render_markdown(doc_of(Table(rows=2, cols=1, cells=[cell])))
    assert "<strong>몇교시</strong> 본문 내용입니다" in table


def test_unsafe_links_are_not_linked() -> None:
    run = Run(text="누르세요", link="javascript:alert(1)")
    markdown = render_markdown(doc_of(Paragraph(text="누르세요", runs=[run])))
    assert markdown == "누르세요\n"


def test_runs_that_do_not_spell_the_text_are_ignored() -> None:
    paragraph = Paragraph(text="전체 글", runs=[Run(text="일부", bold=True)])
    assert render_markdown(doc_of(paragraph)) == "전체 글\n"


def test_furniture_only_on_request() -> None:
    doc = showcase()
    assert "머리말" not in render_markdown(doc)
    with_furniture = render_markdown(doc, include_furniture=True)
    assert with_furniture.startswith("머리말 텍스트\n\n# 1. 개요")
    assert with_furniture.index("꼬리말 텍스트") > with_furniture.index("제어문자와삭제")
    assert with_furniture.index("꼬리말 텍스트") < with_furniture.index("[^1]: ")


def test_deep_nesting_renders() -> None:
    block: Any = Paragraph(text="바닥")
    for _ in range(64):
        block = Table(rows=1, cols=1, cells=[TableCell(row=0, col=0, blocks=[block]), TableCell(row=0, col=0)])
    markdown = render_markdown(doc_of(block))
    assert table_count(markdown) == 64 and "바닥" in markdown


def test_deterministic() -> None:
    assert render_markdown(showcase(), include_furniture=True) == render_markdown(showcase(), include_furniture=True)


def big_document(chars: int) -> HwpDocument:
    blocks: list[Any] = []
    line = "대한민국 헌법 제1조 ① 대한민국은 민주공화국이다. *강조* [링크] <태그> | 세로선 & 기타 문자 "
    total = 0
    while total < chars:
        runs = [Run(text=line[:20]), Run(text=line[20:40], bold=True), Run(text=line[40:])]
        blocks.append(Paragraph(text=line, runs=runs))
        if len(blocks) % 50 == 0:
            cells = [TableCell(row=r, col=c, blocks=[Paragraph(text=line[:30])]) for r in range(3) for c in range(3)]
            blocks.append(Table(rows=3, cols=3, cells=cells))
            total += 9 * 30
        total += len(line)
    return doc_of(*blocks)


@pytest.mark.slow
def test_a_million_characters_render_quickly() -> None:
    doc = big_document(1_000_000)
    start = time.perf_counter()
    markdown = render_markdown(doc)
    elapsed = time.perf_counter() - start
    assert len(markdown) > 1_000_000
    assert elapsed < 3.0, f"{elapsed:.2f}s"  # about 0.3 s on a quiet machine; generous for shared CI


def test_one_block_renders_like_in_the_whole_document() -> None:
    doc = showcase()
    merged = doc.sections[0].blocks[7]
    assert isinstance(merged, Table)
    alone = render_block_markdown(doc, merged)
    assert alone in render_markdown(doc) and "<sup>[^e1]</sup>" in alone
    assert render_block_markdown(doc, merged) == alone  # second call: cached labels


def test_cells_without_addresses_make_a_pipe_table() -> None:
    cells = [TableCell(row=0, col=0, blocks=[Paragraph(text=f"칸{i}")]) for i in range(4)]
    assert (
        render_markdown(doc_of(Table(rows=2, cols=2, cells=cells))) == "| 칸0 | 칸1 |\n| --- | --- |\n| 칸2 | 칸3 |\n"
    )


def test_absurd_table_size_is_not_a_pipe_table() -> None:
    table = Table(rows=0xFFFF_FFFF, cols=0xFFFF_FFFF, cells=[TableCell(row=5, col=5, blocks=[Paragraph(text="칸")])])
    markdown = render_markdown(doc_of(table))
    assert len(markdown) < 10_000 and "<table" in markdown and "칸" in markdown
