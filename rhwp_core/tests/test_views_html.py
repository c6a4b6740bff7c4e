"""The HTML view: a complete document that a strict HTML5 parser reads without one error."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_views.html import render_html
from rhwp_core.ir import (
    Equation,
    Furniture,
    HwpDocument,
    ListMarker,
    Metadata,
    NoteRef,
    Paragraph,
    Picture,
    Run,
    Section,
    Shape,
    Table,
    TableCell,
    Unknown,
    iter_blocks,
)
from rhwp_core_test_support import parse_html_strictly, plain_text, recall, showcase


def doc_of(*blocks: Any, furniture: list[Furniture] | None = None, title: str | None = None) -> HwpDocument:
    return HwpDocument(
        format="hwpx",
        metadata=Metadata(title=title),
        sections=[Section(blocks=list(blocks))],
        furniture=furniture or [],
    )


def text_of(element: Any) -> str:
    return "".join(element.itertext())


@pytest.mark.parametrize("include_css", [False, True])
@pytest.mark.parametrize("include_furniture", [False, True])
def test_showcase_parses_strictly(include_css: bool, include_furniture: bool) -> None:
    out = render_html(showcase(), include_css=include_css, include_furniture=include_furniture)
    tree = parse_html_strictly(out)
    assert out.startswith('<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n')
    assert tree.find("head/title").text == '보고서 <초안> & "따옴표"'
    assert (tree.find("head/style") is not None) == include_css
    assert (tree.find("body/header") is not None) == include_furniture
    assert (tree.find("body/footer") is not None) == include_furniture


def test_keeps_every_word() -> None:
    doc = showcase()
    assert recall(plain_text(doc, include_furniture=False), render_html(doc)) == 1.0
    tree = parse_html_strictly(render_html(doc, include_furniture=True))
    assert recall(plain_text(doc), text_of(tree.find("body"))) == 1.0


def test_table_count_spans_and_nesting() -> None:
    doc = showcase()
    tree = parse_html_strictly(render_html(doc))
    tables = list(tree.iter("table"))
    assert len(tables) == len(list(iter_blocks(doc, kind="table"))) == 4
    simple, merged, nested, boxed = tables
    assert simple.find("caption/p").text == "표 1. 단순한 표"
    assert [th.text for th in simple.iter("th")] == ["구분", "값 | 단위"]
    header = merged.find("tbody/tr/th")
    assert header.get("colspan") == "3" and header.text == "병합된 머리글"
    second_row = merged.findall("tbody/tr")[1]
    assert [(td.get("rowspan"), td.get("colspan")) for td in second_row.findall("td")] == [
        ("2", None),
        (None, None),
        ("2", None),
    ]
    assert second_row.findall("td")[2].find("table") is nested
    assert [text_of(td) for td in nested.iter("td")] == ["안쪽 표", "두 번째 칸"]
    assert merged.findall("tbody/tr")[2].find("td").find("br") is not None
    assert boxed in list(tree.find(".//div[@class='shape']").iter("table"))


def test_no_block_inside_a_paragraph() -> None:
    tree = parse_html_strictly(render_html(showcase(), include_furniture=True))
    for paragraph in tree.iter("p"):
        for inner in paragraph.iter():
            assert inner.tag not in ("table", "figure", "div", "p", "ul", "ol", "section") or inner is paragraph


def test_runs_become_semantic_elements() -> None:
    tree = parse_html_strictly(render_html(showcase()))
    paragraph = tree.findall(".//main//p")[0]
    assert paragraph.find("strong").text == "굵게"
    assert paragraph.find("em").text == "기울임"
    assert paragraph.find("u/s").text == "취소선" or paragraph.find("s/u").text == "취소선"
    link = paragraph.find("a[@href]")
    assert link.get("href") == "https://example.com/a%20b%28c%29" and link.text == "링크"
    assert text_of(tree.find(".//h1")) == "1. 개요"


def test_lists_nest() -> None:
    tree = parse_html_strictly(render_html(showcase()))
    outer = tree.find(".//main//ul")
    first = outer.find("li")
    assert first.text.strip() == "첫째 항목"
    inner = first.find("ol")
    items = inner.findall("li")
    assert items[0].get("value") == "1" and items[0].text.strip() == "하위 번호 항목"
    assert items[1].find("span").text == "가)" and "한글 번호 항목" in text_of(items[1])
    assert text_of(outer.findall("li")[1]).strip() == "둘째 항목"


def test_footnotes_link_both_ways() -> None:
    out = render_html(showcase())
    tree = parse_html_strictly(out)
    ids = [e.get("id") for e in tree.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    for anchor in tree.iter("a"):
        href = anchor.get("href", "")
        if href.startswith("#"):
            assert href[1:] in ids, href
    footnotes = tree.find(".//section[@class='footnotes']")
    note = footnotes.find("ol/li")
    assert note.get("id") == "fn-1" and note.find("p").text == "각주 내용입니다."
    assert note.find("a").get("href") == "#fnref-1"
    assert tree.find(".//main//sup/a[@id='fnref-1']").get("href") == "#fn-1"
    endnote = tree.find(".//section[@class='endnotes']/ol/li")
    assert endnote.get("id") == "en-e1"


def test_picture_equation_shape_object() -> None:
    tree = parse_html_strictly(render_html(showcase()))
    image = tree.find(".//figure/img")
    assert image.get("data-bin-data") == "BIN0001.png" and image.get("src") == "BIN0001.png"
    assert (image.get("width"), image.get("height")) == ("192", "96")
    assert image.get("alt") == '그림입니다. [원본] "logo"'
    assert tree.find(".//figure/figcaption/p").text == "그림 1. 로고"
    equation = tree.find(".//span[@class='equation']")
    assert equation.text == "\\(x = \\frac{- b \\pm \\sqrt{b^{2} - 4 ac}}{2 a}\\)"
    assert equation.get("data-script") == "x = {-b +- sqrt {b^2 - 4ac}} over {2a}"
    assert tree.find(".//div[@data-object='ole']") is not None


def test_hostile_text_is_escaped_and_control_characters_removed() -> None:
    out = render_html(showcase())
    tree = parse_html_strictly(out)
    assert not list(tree.iter("script"))
    hostile = tree.find(".//p[@data-break='page']")
    assert text_of(hostile) == (
        "<script>alert('x')</script> | *별* _밑줄_ `코드` [^1] &amp; # 제목 아님1. 목록 아님- 이것도"
    )
    assert len(hostile.findall("br")) == 2
    assert "제어문자와삭제" in out
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", out)


def test_attributes_are_escaped() -> None:
    picture = Picture(bin_data_name='a" onerror="alert(1).png', description='"><script>x</script>', width=75, height=75)
    shape = Shape(shape_kind='"><b>', blocks=[Paragraph(text="x")])
    link = Run(text="링크", link='https://e.com/"><script>')
    out = render_html(doc_of(picture, shape, Paragraph(text="링크", runs=[link]), Unknown(object="<ole>")))
    tree = parse_html_strictly(out)
    image = tree.find(".//img")
    assert image.get("data-bin-data") == 'a" onerror="alert(1).png' and image.get("onerror") is None
    assert not list(tree.iter("script")) and not list(tree.iter("b"))
    assert tree.find(".//a").get("href") == "https://e.com/%22%3E%3Cscript%3E"


def test_unsafe_link_schemes_are_dropped() -> None:
    run = Run(text="누르세요", link="JavaScript:alert(1)")
    tree = parse_html_strictly(render_html(doc_of(Paragraph(text="누르세요", runs=[run]))))
    assert not list(tree.iter("a"))


def test_title_falls_back_to_the_first_heading() -> None:
    doc = doc_of(Paragraph(text="본문"), Paragraph(text="첫 제목", heading_level=2))
    assert parse_html_strictly(render_html(doc)).find("head/title").text == "첫 제목"
    assert parse_html_strictly(render_html(doc_of())).find("head/title").text == "Untitled"


def test_furniture_repeats_once() -> None:
    header = Furniture(kind="header", applies_to="both", blocks=[Paragraph(text="머리말")])
    doc = doc_of(Paragraph(text="본문"), furniture=[header, header.model_copy(), header.model_copy()])
    tree = parse_html_strictly(render_html(doc, include_furniture=True))
    assert [text_of(h).strip() for h in tree.iter("header")] == ["머리말"]


def test_unmatched_note_reference_shows_its_number() -> None:
    paragraph = Paragraph(text="본문", note_refs=[NoteRef(kind="footnote", number=7, offset=2)])
    tree = parse_html_strictly(render_html(doc_of(paragraph)))
    assert tree.find(".//p/sup").text == "7" and tree.find(".//section[@class='footnotes']") is None


def test_deep_nesting_renders() -> None:
    block: Any = Paragraph(text="바닥")
    for depth in range(64):
        inner = Shape(shape_kind="rectangle", blocks=[block]) if depth % 2 else block
        block = Table(rows=1, cols=1, cells=[TableCell(row=0, col=0, blocks=[inner])])
    tree = parse_html_strictly(render_html(doc_of(block)))
    assert len(list(tree.iter("table"))) == 64


TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(list("\x00\x0c\r\x7f\x85\ufffe\ufdd0<>&\"'"))
)


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, st.booleans())
def test_any_text_parses_strictly(text: str, other: str, heading: bool) -> None:
    runs = [Run(text=text, bold=True), Run(text=other, link=other)]
    blocks = [
        Paragraph(text=text + other, runs=runs, heading_level=2 if heading else None),
        Paragraph(text=other, list=ListMarker(kind="number", level=2, marker=text)),
        Table(rows=1, cols=2, cells=[TableCell(row=0, col=1, col_span=1, blocks=[Paragraph(text=text)])]),
        Equation(script=text),
        Picture(description=text, bin_data_name=other),
        Unknown(object=text, text=other),
    ]
    notes = [Furniture(kind="footnote", number=1, blocks=[Paragraph(text=other)])]
    parse_html_strictly(render_html(doc_of(*blocks, furniture=notes, title=text), include_furniture=True))


def test_cells_without_addresses_are_laid_out_in_rows() -> None:
    # A writer that leaves cell addresses out: every cell says (0, 0).
    cells = [TableCell(row=0, col=0, blocks=[Paragraph(text=f"칸{i}")]) for i in range(4)]
    tree = parse_html_strictly(render_html(doc_of(Table(rows=2, cols=2, cells=cells))))
    assert [[text_of(td) for td in tr] for tr in tree.iter("tr")] == [["칸0", "칸1"], ["칸2", "칸3"]]


def test_absurd_sizes_and_spans_stay_small() -> None:
    huge = 0xFFFF_FFFF
    cells = [
        TableCell(row=0, col=0, row_span=huge, col_span=huge, blocks=[Paragraph(text="큰 칸")]),
        TableCell(row=0, col=0, blocks=[Paragraph(text="겹친 칸")]),
        TableCell(row=huge - 1, col=huge - 1, blocks=[Paragraph(text="먼 칸")]),
    ]
    out = render_html(doc_of(Table(rows=huge, cols=huge, cells=cells)))
    assert len(out) < 100_000
    tree = parse_html_strictly(out)
    assert "먼 칸" in text_of(tree.find("body"))
