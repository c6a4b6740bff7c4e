"""rhwp_core.fill: values into a copy of a form, read back before they are handed over."""

from __future__ import annotations

import io
import random
import zipfile
from pathlib import Path
from typing import Any

import pytest
from rhwp_core.filling import fill

import rhwp_core

FORMS = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "forms"
GOLD_EMPTY = FORMS / "pyhwpx-clickhere_gold_empty.hwpx"
IRB = FORMS / "pyhwpx-irb_form_blank.hwpx"
# A government regulatory-review form (규제심사안, HWP 5.0): named cells, label cells, a table
# inside a cell.
REVIEW = FORMS.parent / "hwp" / "rhwp-nested-cell-pagination.hwp"


def section(data: bytes, name: str = "Contents/section0.xml") -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return z.read(name).decode("utf-8")


def with_section(base: Path, xml: str) -> bytes:
    """``base``'s package with its section0 replaced (every other entry as it is)."""
    out = io.BytesIO()
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = xml.encode("utf-8") if info.filename == "Contents/section0.xml" else src.read(info)
            dst.writestr(info, data)
    return out.getvalue()


NS = 'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph" xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"'


def cell(row: int, col: int, body: str, rows: int = 1, cols: int = 1, name: str = "") -> str:
    named = f' name="{name}"' if name else ""
    return (
        f'<hp:tc{named}><hp:subList><hp:p paraPrIDRef="0"><hp:run charPrIDRef="0">{body}</hp:run>'
        '<hp:linesegarray><hp:lineseg textpos="0" vertpos="0"/></hp:linesegarray></hp:p></hp:subList>'
        f'<hp:cellAddr colAddr="{col}" rowAddr="{row}"/><hp:cellSpan colSpan="{cols}" rowSpan="{rows}"/></hp:tc>'
    )


def click_here(name: str, guide: str) -> str:
    return (
        f'<hp:ctrl><hp:fieldBegin id="7{len(name)}" type="CLICK_HERE" name="{name}" editable="1" dirty="0">'
        f'<hp:parameters cnt="1" name=""><hp:stringParam name="Direction">{guide}</hp:stringParam></hp:parameters>'
        '</hp:fieldBegin></hp:ctrl></hp:run><hp:run charPrIDRef="7">'
        f'<hp:t>{guide}</hp:t></hp:run><hp:run charPrIDRef="0">'
        f'<hp:ctrl><hp:fieldEnd beginIDRef="7{len(name)}"/></hp:ctrl>'
    )


def table(rows: int, cols: int, cells: str) -> str:
    return f'<hp:tbl rowCnt="{rows}" colCnt="{cols}">{cells}</hp:tbl>'


def nested_form() -> bytes:
    """A field in a table in a table, a label over two merged columns, a named cell."""
    inner = table(1, 1, "<hp:tr>" + cell(0, 0, click_here("담당자", "이름을 입력")) + "</hp:tr>")
    outer = table(
        3,
        3,
        "<hp:tr>"
        + cell(0, 0, "<hp:t>신청 금액</hp:t>", cols=2)
        + cell(0, 2, "<hp:t/>")
        + "</hp:tr><hp:tr>"
        + cell(1, 0, inner)
        + cell(1, 1, "<hp:t>비고</hp:t>", name="메모칸")
        + cell(1, 2, "<hp:t>x</hp:t>")
        + "</hp:tr><hp:tr>"
        + cell(2, 0, "<hp:t>연락처</hp:t>")
        + cell(2, 1, "<hp:t/>")
        + cell(2, 2, "<hp:t>연락처</hp:t>")
        + "</hp:tr>",
    )
    xml = (
        f'<?xml version="1.0" encoding="UTF-8"?><hs:sec {NS}>'
        '<hp:p paraPrIDRef="0"><hp:run charPrIDRef="0"><hp:t>제목</hp:t></hp:run></hp:p>'
        f'<hp:p paraPrIDRef="0"><hp:run charPrIDRef="0">{outer}</hp:run></hp:p>'
        '<hp:p paraPrIDRef="0"><hp:run charPrIDRef="0"><hp:t>끝</hp:t></hp:run></hp:p></hs:sec>'
    )
    return with_section(IRB, xml)


def test_click_here_value_replaces_the_guide_and_nothing_else_changes() -> None:
    result = fill(GOLD_EMPTY, {"NAMETEXT_THREE": "홍길동"})
    assert result.changed and result.verified
    assert result.changed_parts == ["Contents/section0.xml"]
    (entry,) = result.plan["filled"]
    assert entry["kind"] == "click_here"
    assert (entry["before"], entry["after"]) == ("", "홍길동")
    assert entry["address"]["block"] == 0
    xml = section(result.data)
    assert "DIRTEXT_ONE</hp:t>" not in xml, "guide text left in the field"
    assert 'dirty="1"' in xml
    assert "<hp:t></hp:t>" not in xml
    fields = [e for e in rhwp_core.parse(result.data).form_entries() if e["kind"] == "click_here"]
    assert [f["value"] for f in fields] == ["홍길동"]
    # The input is untouched on disk and in the result when nothing is asked.
    assert fill(GOLD_EMPTY, {}).data == GOLD_EMPTY.read_bytes()


@pytest.mark.parametrize(
    "value",
    ["a<b & c>d", "탭\t다음", "첫 줄\n둘째 줄", "漢字 😀 \u00a0", ""],
)
def test_escapes_and_line_breaks_read_back(value: str) -> None:
    result = fill(GOLD_EMPTY, {"NAMETEXT_THREE": value})
    doc = rhwp_core.parse(result.data)
    (field,) = [e for e in doc.form_entries() if e["kind"] == "click_here"]
    assert field["value"] == value
    if not value:
        # A blank value leaves the field as never edited: 한글 shows its guide.
        assert 'dirty="0"' in section(result.data)


def test_labels_fill_the_empty_cell_beside_them_and_a_refill_changes_nothing() -> None:
    values = {"연구과제명": "인공지능 연구", "연구목적": ["첫째", "둘째"], "연 구 책 임 자": "홍길동"}
    once = fill(IRB, values)
    assert once.changed and once.verified
    assert [f["kind"] for f in once.plan["filled"]] == ["label"] * 3
    assert once.plan["filled"][0]["address"]["cells"] == [{"row": 0, "col": 1}]
    xml = section(once.data)
    assert "<hp:t>첫째</hp:t></hp:run></hp:p><hp:p><hp:run><hp:t>둘째</hp:t>" in xml, "a line per paragraph"
    twice = fill(once.data, values)
    assert not twice.changed
    assert twice.data == once.data
    assert [f["before"] for f in twice.plan["filled"]] == ["인공지능 연구", "첫째\n둘째", "홍길동"]


def test_nested_tables_merged_labels_named_cells_and_ambiguity() -> None:
    form = nested_form()
    result = fill(form, {"담당자": "김철수", "신청금액": "1,000원", "메모칸": "없음"})
    assert result.verified
    by_key = {f["key"]: f for f in result.plan["filled"]}
    assert by_key["담당자"]["address"]["cells"] == [{"row": 1, "col": 0}, {"row": 0, "col": 0}]
    assert by_key["신청금액"]["address"]["cells"] == [{"row": 0, "col": 2}], "past the merged label"
    assert by_key["메모칸"]["kind"] == "cell"
    assert by_key["메모칸"]["before"] == "비고"
    text = rhwp_core.parse(result.data).extract_text()
    for value in ("김철수", "1,000원", "없음"):
        assert value in text
    assert "이름을 입력" not in text
    ambiguous = fill(form, {"연락처": "010"})
    assert not ambiguous.changed
    (amb,) = ambiguous.plan["ambiguous"]
    assert len(amb["candidates"]) == 2
    assert {c["block"] for c in amb["candidates"]} == {1}


def test_unmatched_keys_and_refused_formats() -> None:
    result = fill(IRB, {"없는 칸": "x"})
    assert result.plan["unmatched"] == ["없는 칸"] and not result.changed
    with pytest.raises(rhwp_core.InvalidRequestError):
        fill(IRB, {"연구과제명": True})
    hwp3 = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hwp3"
    sample = next(iter(sorted(hwp3.glob("*.hwp"))), None)
    if sample is not None:
        with pytest.raises(rhwp_core.UnsupportedFormatError) as refused:
            fill(sample, {"a": "b"})
        assert "HWPX" in refused.value.suggestion
    distribution = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hwp" / "hwplib-distribution.hwp"
    with pytest.raises(rhwp_core.UnsupportedFormatError) as refused:
        fill(distribution, {"a": "b"})
    assert "distribution" in str(refused.value) and "HWPX" in refused.value.suggestion
    locked = (
        Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "encrypted" / "kordoc-hwpx-password-123456.hwpx"
    )
    for password in (None, "123456"):  # with or without it: not written either way
        with pytest.raises(rhwp_core.UnsupportedFormatError) as refused:
            fill(locked, {"a": "b"}, password=password)
        assert "password-protected" in str(refused.value)


def test_random_values_into_corpus_forms_always_read_back(corpus_dir: Path) -> None:
    """Every click-here field and named cell of the corpus's HWPX and HWP 5.0 forms, random values."""
    rng = random.Random(34)
    alphabet = "가나다漢字abc<>&\"' \t\n😀0123456789"
    filled = 0
    for path in [*sorted((corpus_dir / "hwpx").glob("*.hwpx")), *sorted((corpus_dir / "hwp").glob("*.hwp"))]:
        try:
            doc = rhwp_core.parse(path)
        except rhwp_core.HwpError:
            continue
        kinds = ("click_here", "cell")
        names = sorted({e["name"] for e in doc.form_entries() if e["kind"] in kinds and e["name"]})
        if not names:
            continue
        values = {n: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for n in names}
        try:
            result = fill(path, values)  # raises FillVerificationError if it does not read back
        except rhwp_core.UnsupportedFormatError:
            continue  # distribution documents: refused, tested apart
        assert result.verified
        filled += len(result.plan["filled"])
    assert filled >= 10


@pytest.mark.parametrize(
    ("form", "name", "before", "cases"),
    [
        # The 기안문's 본문 field begins in the section's first paragraph (after the letterhead
        # table) and ends in its fifth.
        (
            "pyhwpx-seoul_sihaengmun.hwpx",
            "본문",
            "국토교통부 도심주택공급협력과",
            (("한 줄 본문", -4), ("첫째 문단\n둘째 문단\n\n넷째", -1), ("", -4)),
        ),
        # hwplib's sample field runs over three paragraphs (HWP 5.0).
        (
            "hwplib-getting_clickhere_text.hwp",
            "멀티라인누름틀",
            "여러줄 문자열1\n여러줄 문자열2",
            (("한 줄", -2), ("첫째\n둘째\n셋째\n넷째", 1), ("", -2)),
        ),
    ],
)
def test_a_field_over_several_paragraphs_gets_a_paragraph_per_line(
    form: str, name: str, before: str, cases: tuple[tuple[str, int], ...]
) -> None:
    """A field over several paragraphs: its value's lines become its paragraphs, the section's
    later paragraphs move along and read as before."""
    blank = sum(s.paragraph_count for s in rhwp_core.parse(FORMS / form).to_ir().sections)
    for value, added in cases:
        result = fill(FORMS / form, {name: value})
        assert result.verified
        (entry,) = result.plan["filled"]
        assert entry["before"].startswith(before)
        filled = rhwp_core.parse(result.data)
        assert sum(s.paragraph_count for s in filled.to_ir().sections) == blank + added
        (field,) = [e for e in filled.form_entries() if e["name"] == name]
        assert field["value"] == value.replace("\n\n", "\n")


def test_hwp5_a_field_over_paragraphs_holding_a_picture_is_refused() -> None:
    refused = fill(FORMS / "hwplib-getting_clickhere_text.hwp", {"long": "x"})
    assert refused.plan["unmatched"] == ["long"] and not refused.changed
    assert "holds an object" in refused.plan["warnings"][0]


def test_form_controls_are_set_and_read_back() -> None:
    buttons = fill(FORMS / "hwpxlib-SimpleButtons.hwpx", {"CheckBox1": True, "RadioButton1": True})
    assert buttons.verified
    entries = {e["name"]: e for e in rhwp_core.parse(buttons.data).form_entries()}
    assert entries["CheckBox1"]["checked"] is True and entries["RadioButton1"]["checked"] is True
    edit = fill(FORMS / "hwpxlib-SimpleEdit.hwpx", {"Edit1": "5 < 6"})
    (entry,) = edit.plan["filled"]
    assert (entry["kind"], entry["before"], entry["after"]) == ("edit", "1234", "5 < 6")
    with pytest.raises(rhwp_core.InvalidRequestError):
        fill(FORMS / "hwpxlib-SimpleButtons.hwpx", {"CheckBox1": "yes"})


def _cells(data: bytes) -> list[tuple[str | None, list[str]]]:
    """Every table cell's name and paragraph texts, tables in cells too."""
    from rhwp_core.ir import child_blocks

    out: list[tuple[str | None, list[str]]] = []

    def walk(blocks: list[Any]) -> None:
        for b in blocks:
            if b.kind == "table":
                for c in b.cells:
                    out.append((c.field_name, [p.text for p in c.blocks if p.kind == "paragraph"]))
                    walk(list(c.blocks))
            else:
                walk(list(child_blocks(b)))

    for s in rhwp_core.parse(data).to_ir().sections:
        walk(list(s.blocks))
    return out


@pytest.mark.parametrize("value", ["a<b & c>d", "탭\t다음", "첫 줄\n둘째 줄", "漢字 😀 \u00a0", ""])
def test_hwp5_named_and_labelled_cells_read_back(value: str) -> None:
    result = fill(REVIEW, {"reg_nm_cnts2": value, "현 행": value})
    assert result.changed and result.verified
    assert result.changed_parts == ["BodyText/Section0"]
    kinds = [(f["kind"], len(f["address"]["cells"])) for f in result.plan["filled"]]
    assert kinds == [("cell", 1), ("label", 2)], "the label's cell is in a table in a cell"
    lines = [line for line in value.split("\n") if line]  # the model keeps no empty paragraph
    cells = _cells(result.data)
    assert ("reg_nm_cnts2", lines) in cells
    blank = _cells(REVIEW.read_bytes())
    assert len([1 for a, b in zip(blank, cells, strict=True) if a != b]) == (2 if value else 1)


def test_hwp5_cell_refill_changes_nothing_and_refusals_are_said() -> None:
    values = {"reg_nm_cnts2": "규제 사무\n둘째", "개정안": "개정 내용"}
    once = fill(REVIEW, values)
    twice = fill(once.data, values)
    assert not twice.changed and twice.data == once.data
    assert [f["before"] for f in twice.plan["filled"]] == ["규제 사무\n둘째", "개정 내용"]
    held = fill(REVIEW, {"cmpar_chart": "x"})
    assert not held.changed and held.plan["unmatched"] == ["cmpar_chart"]
    assert "not only text" in held.plan["warnings"][0]
    with pytest.raises(rhwp_core.InvalidRequestError):
        fill(REVIEW, {"reg_nm_cnts2": True})


def test_every_label_cell_of_the_corpus_hwp_forms_fills_and_reads_back(corpus_dir: Path) -> None:
    """Each short cell text of the corpus's HWP 5.0 documents, tried as a label with a random
    value: whatever it fills reads back (``fill`` raises otherwise), nothing is guessed."""
    rng = random.Random(3405)
    alphabet = "가나다漢字abc<>&\"' \t\n😀0123456789"
    filled = documents = 0
    for path in sorted((corpus_dir / "hwp").glob("*.hwp")):
        if path.stat().st_size > 1_000_000:
            continue
        data = path.read_bytes()
        try:
            fill(data, {})
        except rhwp_core.HwpError:
            continue  # unreadable, or not written (distribution documents): tested apart
        keys: list[str] = []
        for _, lines in _cells(data):
            text = "\n".join(lines).strip()
            if text and "\n" not in text and len(text) <= 20 and text not in keys:
                keys.append(text)
        if not keys:
            continue
        documents += 1
        for start in range(0, len(keys), 8):
            batch = {
                k: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for k in keys[start : start + 8]
            }
            try:
                result = fill(data, batch)
            except rhwp_core.InvalidRequestError:
                # Two labels of this batch name one cell (a label left of it, one above): alone.
                results = []
                for k, v in batch.items():
                    try:
                        results.append(fill(data, {k: v}))
                    except rhwp_core.InvalidRequestError:
                        continue
                filled += sum(len(r.plan["filled"]) for r in results)
                continue
            assert result.verified
            filled += len(result.plan["filled"])
            for f in result.plan["filled"]:
                assert f["kind"] in ("label", "cell", "click_here")
    assert documents >= 5 and filled >= 30, (documents, filled)
