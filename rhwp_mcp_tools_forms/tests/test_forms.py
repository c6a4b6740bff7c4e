"""The forms pack: the entries of real forms (licence-noted fixtures in tests/fixtures/forms) checked
against what their XML says, every entry's address checked against the other tools' output on every
corpus document, the tool's filters and paging through an in-process MCP client, and one call over
the real stdio server."""

from __future__ import annotations

import json
import re
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from rhwp_core.chunking import chunk_document
from rhwp_core.ir import FormControl
from rhwp_mcp_host.testing import PackSession, pack_session

import rhwp_core
import rhwp_mcp_tools_core
import rhwp_mcp_tools_forms as pack

ROOT = Path(__file__).resolve().parents[2]
FORMS = ROOT / "tests" / "fixtures" / "forms"


def fixture(name: str) -> str:
    return str(FORMS / name)


@pytest.fixture(scope="module")
def session() -> Iterator[PackSession]:
    with pack_session(rhwp_mcp_tools_core, pack) as s:
        yield s


def entries(document: str, **filters: Any) -> list[dict[str, Any]]:
    with pack_session(pack) as s:
        result = s.call("get_fields", path=fixture(document), limit=500, **filters)
    assert "error" not in result, result
    assert result["total"] == len(result["fields"]) and result["next_offset"] is None
    return result["fields"]  # type: ignore[no-any-return]


def shown_at(text: str, entry: dict[str, Any]) -> str:
    """What extract_text shows at the entry's offset, as long as the entry's own shown form."""
    assert entry["text_offset"] is not None, entry
    return text[entry["text_offset"] :]


# -- real forms, against their own XML ----------------------------------------------------------


def test_click_here_fields_filled_and_empty() -> None:
    (filled,) = entries("pyhwpx-clickhere_gold_filled.hwpx")
    assert (filled["kind"], filled["name"], filled["guide"], filled["value"]) == (
        "click_here",
        "NAMETEXT_THREE",
        "DIRTEXT_ONE",
        "FILLED_VALUE_X",
    )
    assert filled["editable"] is True
    (empty,) = entries("pyhwpx-clickhere_gold_empty.hwpx")
    assert (empty["name"], empty["guide"], empty["value"]) == ("NAMETEXT_THREE", "DIRTEXT_ONE", "")
    # The text shows the blank with its name and guide where the value will go, and only there.
    text = rhwp_core.parse(fixture("pyhwpx-clickhere_gold_empty.hwpx")).extract_text()
    assert shown_at(text, empty).startswith("[NAMETEXT_THREE: DIRTEXT_ONE]")
    assert text.count("DIRTEXT_ONE") == 1


def test_hwp_click_here_fields_hold_names_guides_and_values() -> None:
    got = entries("hwplib-getting_clickhere_text.hwp", kind="click_here")
    assert [(e["name"], e["value"]) for e in got[:3]] == [
        ("필드1", "테스트 누름틀"),
        ("필드2", "1234567"),
        ("Table필드1", "테이블안"),
    ]
    assert all(e["guide"] == "이곳을 마우스로 누르고 내용을 입력하세요." for e in got)
    assert got[2]["cell"] is not None  # the third sits in a table cell
    # A field that still holds its guide (never filled in) is empty, shown as its blank.
    unfilled = entries("hwplib-setting-fields.hwp")
    assert unfilled and all(e["value"] == "" for e in unfilled)
    assert [e["name"] for e in entries("hwplib-setting-fields.hwp", name="필드2")] == ["필드2"] * 3


def test_form_controls_kind_name_caption_and_state() -> None:
    controls = entries("hwpxlib-SimpleButtons.hwpx", kind="form_control")
    section = zipfile.ZipFile(FORMS / "hwpxlib-SimpleButtons.hwpx").read("Contents/section0.xml").decode()
    # Every control element of the XML, in order, with its name and whether it says CHECKED.
    xml = [
        (m.group(1), re.search(r'name="([^"]*)"', m.group(0)).group(1))  # type: ignore[union-attr]
        for m in re.finditer(r"<hp:(btn|checkBtn|radioBtn)\b[^>]*>", section)
    ]
    kinds = {"btn": "button", "checkBtn": "checkbox", "radioBtn": "radio"}
    assert [(e["kind"], e["name"]) for e in controls] == [(kinds[k], n) for k, n in xml]
    boxes = [e for e in controls if e["kind"] in ("checkbox", "radio")]
    checked_in_xml = re.findall(r"<hp:(?:checkBtn|radioBtn)\b[^>]*value=\"(\w+)\"", section)
    assert [e["checked"] for e in boxes] == [v == "CHECKED" for v in checked_in_xml]
    assert all(e["caption"] for e in controls)
    text = rhwp_core.parse(fixture("hwpxlib-SimpleButtons.hwpx")).extract_text()
    for e in boxes:
        mark = {("checkbox", True): "☑", ("checkbox", False): "☐", ("radio", True): "◉", ("radio", False): "○"}
        assert shown_at(text, e).startswith(f"{mark[(e['kind'], e['checked'])]} {e['caption']}")
    (edit,) = entries("hwpxlib-SimpleEdit.hwpx", kind="edit")
    edit_text = rhwp_core.parse(fixture("hwpxlib-SimpleEdit.hwpx")).extract_text()
    assert edit["value"] == "1234" and shown_at(edit_text, edit).startswith("1234")
    (combo,) = entries("hwpxlib-SimpleComboBox.hwpx", kind="combo_box")
    assert combo["name"]


def test_memos_are_annotations_never_cell_text() -> None:
    doc = rhwp_core.parse(fixture("pyhwpx-note_example.hwpx"))
    memos = entries("pyhwpx-note_example.hwpx", kind="memo")
    section = zipfile.ZipFile(FORMS / "pyhwpx-note_example.hwpx").read("Contents/section0.xml").decode()
    assert len(memos) == len(re.findall(r'<hp:fieldBegin\b[^>]*type="MEMO"', section)) == 5
    body = doc.extract_text(include_furniture=False)
    for memo in memos:
        assert memo["value"] and memo["value"] not in body, memo  # not poured into the cell
        assert memo["anchor"] and memo["name"] == "user" and memo["date"]
    # The first memo sits on the words it is attached to.
    assert body[memo_offset(memos[0]) :].startswith(memos[0]["anchor"])
    # In the text with furniture, in Markdown and in HTML each memo comes after the body, labelled.
    full = doc.extract_text()
    assert full.index("[메모 (user, ") > len(body) - 1
    markdown = doc.to_markdown()
    assert markdown.count("11월 4일") == 1 and "**\\[메모 (user" in markdown
    html = doc.to_html()
    assert html.count('<aside class="memo" role="note">') == 5 and html.index("<aside") > html.index("</main>")
    # Chunks: annotation scope, only with furniture.
    chunks = chunk_document(doc, source="x", mode="ir-blocks", include_furniture=True)
    assert sum(c["metadata"]["scope"] == "annotation" for c in chunks) >= 5


def memo_offset(memo: dict[str, Any]) -> int:
    assert memo["text_offset"] is not None
    return int(memo["text_offset"])


def test_tracked_deletion_is_out_of_every_view() -> None:
    doc = rhwp_core.parse(fixture("hwpxlib-ChangeTrack.hwpx"))
    html_body = doc.to_html()[doc.to_html().index("<body>") :]  # (the title is the document's metadata)
    assert "추적" not in doc.extract_text() and "추적" not in doc.to_markdown() and "추적" not in html_body
    runs = [r for b in doc.iter_blocks(kind="paragraph") for r in b.runs]  # type: ignore[union-attr]
    deleted = [r for r in runs if r.change is not None and r.change.kind == "deleted"]
    assert [r.text for r in deleted] == [" 추적"] and deleted[0].change.author  # type: ignore[union-attr]


def test_named_cells_and_their_text() -> None:
    cells = entries("hwpxlib-Table.hwpx", kind="cell")
    section = zipfile.ZipFile(FORMS / "hwpxlib-Table.hwpx").read("Contents/section0.xml").decode()
    assert [c["name"] for c in cells] == [n for n in re.findall(r'<hp:tc\b[^>]*\bname="([^"]*)"', section) if n]
    text = rhwp_core.parse(fixture("hwpxlib-Table.hwpx")).extract_text()
    for c in cells:
        assert c["cell"]["name"] == c["name"]
        if c["value"]:
            assert shown_at(text, c).startswith(c["value"])


# -- every corpus document: every address lands on what the entry says ----------------------------


def _documents(corpus_dir: Path) -> list[Path]:
    return sorted(p for folder in ("hwp", "hwpx", "hml") for p in (corpus_dir / folder).glob("*.*") if p.is_file())


def test_every_entry_address_lands_on_its_value(corpus_dir: Path) -> None:
    checked = 0
    for path in _documents(corpus_dir):
        try:
            doc = rhwp_core.parse(path)
        except rhwp_core.HwpError:
            continue
        text = doc.extract_text()
        body_blocks = list(doc.iter_blocks())
        for e in doc.form_entries():
            where = f"{path.name}: {e}"
            if e["block"] is not None:
                assert 0 <= e["block"] < len(body_blocks), where
            if e["text_offset"] is None:
                continue
            at = text[e["text_offset"] :]
            if e["kind"] == "memo":
                assert at.startswith(e["anchor"] or ""), where
            elif e["kind"] == "cell":
                assert at.startswith((e["value"] or "").split("\n")[0]), where
            elif e["kind"] in pack_kinds("form_control"):
                control = FormControl(control=e["kind"], caption=e["caption"], value=e["value"], checked=e["checked"])
                assert at.startswith(control.shown), where
            elif e["value"]:
                assert at.startswith(e["value"].split("\n")[0]), where
            elif e["kind"] == "click_here" and (e["guide"] or e["name"]):
                assert at.startswith("["), where
            checked += 1
    assert checked > 200


def pack_kinds(group: str) -> tuple[str, ...]:
    from rhwp_core.forms import KIND_GROUPS

    return KIND_GROUPS[group]


def test_hwpx_click_here_fields_all_listed(corpus_dir: Path) -> None:
    """Every CLICK_HERE fieldBegin of every HWPX document is an entry with its name (an independent count)."""
    for path in sorted((corpus_dir / "hwpx").glob("*.hwpx")):
        try:
            z = zipfile.ZipFile(path)
        except zipfile.BadZipFile:
            continue
        xml = "".join(z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.startswith("Contents/section"))
        begins = re.findall(r'<hp:fieldBegin\b[^>]*type="CLICK_HERE"[^>]*>', xml)
        if not begins:
            continue
        names = sorted((m.group(1) if (m := re.search(r'\bname="([^"]*)"', b)) else "") or "" for b in begins)
        got = rhwp_core.parse(path).form_entries()
        listed = sorted({(e["name"] or "") for e in got if e["kind"] == "click_here"})
        assert set(names) <= set(listed) | {""}, path.name
        # One entry per field, a field over several paragraphs included.
        assert sum(e["kind"] == "click_here" for e in got) == len(begins), path.name


def test_a_field_over_several_paragraphs_is_one_entry(corpus_dir: Path) -> None:
    """Listed once, its value the text of every paragraph it covers (line breaks between), in
    both formats: HWP 5.0 (the fixture's multi-line field) and HWPX (a press release whose body
    is one click-here field over six paragraphs)."""
    (multi,) = entries("hwplib-getting_clickhere_text.hwp", name="멀티라인누름틀")
    assert multi["value"] == "여러줄 문자열1\n여러줄 문자열2\n여러줄 문자열3   "
    doc = rhwp_core.parse(corpus_dir / "hwpx" / "hwpxlib-mot.hwpx")
    (body,) = [e for e in doc.form_entries() if e["name"] == "본문"]
    lines = body["value"].split("\n")
    assert len(lines) == 6, lines
    text = doc.extract_text()
    assert body["text_offset"] is not None and text[body["text_offset"] :].startswith(lines[0])
    assert all(line in text for line in lines)


# -- the tool: filters, pages, paging, errors ---------------------------------------------------


def test_filters_paging_and_errors(session: PackSession) -> None:
    path = fixture("pyhwpx-note_example.hwpx")
    everything = session.call("get_fields", path=path)
    assert everything["total"] == len(everything["fields"]) == 5
    first = session.call("get_fields", path=path, limit=2)
    second = session.call("get_fields", path=path, limit=2, offset=first["next_offset"])
    assert first["fields"] + second["fields"] == everything["fields"][:4]
    assert session.call("get_fields", path=path, kind="field")["total"] == 0
    groups = session.call("get_fields", path=fixture("hwplib-getting_clickhere_text.hwp"), kind="field")["fields"]
    assert len(groups) == 5 and all(e["kind"] in pack_kinds("field") for e in groups)
    assert session.call("get_fields", path=fixture("hwpxlib-SimpleButtons.hwpx"), kind="form_control")["total"] == 3
    memos = session.call("get_fields", path=path, kind="memo")["fields"]
    assert [e for e in everything["fields"] if e["kind"] == "memo"] == memos
    assert session.call("get_fields", path=path, name="user", kind="memo")["total"] == 5
    assert session.call("get_fields", path=path, pages="1")["total"] == everything["total"]
    assert session.call("get_fields", path=path, pages="9")["error"] == "invalid_input"  # past the last page
    assert session.call("get_fields", path=path, kind="nonsense")["error"] == "invalid_input"
    assert session.call("get_fields", path=path, offset=10_000)["error"] == "invalid_input"
    assert session.call("get_fields", path=str(FORMS / "missing.hwpx"))["error"] == "file_not_found"
    # The address takes you there with the core tools.
    memo = memos[0]
    text = session.call("extract_text", path=path, offset=memo["text_offset"], max_chars=20)
    assert text.startswith(memo["anchor"])
    block = session.call("iter_blocks", path=path, offset=memo["block"], limit=1)["blocks"][0]
    assert memo["anchor"] in json.dumps(block, ensure_ascii=False)


@pytest.mark.e2e
def test_get_fields_over_the_stdio_server() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    script = Path(sys.executable).with_name("rhwp-mcp")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]
    params = StdioServerParameters(command=command[0], args=[*command[1:], "--enable", "forms"])

    async def main() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == ["get_fields"]
            result = await client.call_tool(
                "get_fields", {"path": fixture("hwplib-getting_clickhere_text.hwp"), "kind": "click_here"}
            )
            assert not result.is_error  # (isError is deprecated: reading it warns)
            payload: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            return payload

    payload = anyio.run(main)
    assert payload["total"] == 5 and payload["fields"][0]["name"] == "필드1"


def test_the_pack_answers_with_the_cores_kinds_and_entry_shape() -> None:
    """The pack declares its entries with rhwp_core.forms' shape, and offers every kind of entry
    and every group of kinds the core's filter knows (and nothing else)."""
    import typing

    from rhwp_core.forms import ENTRY_KINDS, KIND_GROUPS, FormEntry, KindFilter

    assert set(typing.get_args(KindFilter)) == set(ENTRY_KINDS) | set(KIND_GROUPS)
    assert typing.get_type_hints(pack.get_fields, include_extras=True)["kind"].__origin__ == KindFilter | None
    assert typing.get_type_hints(pack.FieldsResult)["fields"] == list[FormEntry]


def test_fields_never_ended_are_listed_in_bounded_time() -> None:
    """The fuzz regression where fields begun and never ended run on through 1,000 long paragraphs
    (the reader keeps at most 8 open): eight entries, each the whole text, joined once (appending
    part by part to the values took 18 s on this input)."""
    import time

    hostile = ROOT / "rhwp_core" / "reader" / "fuzz" / "regressions" / "read-hwp5-fields-never-ended.bin"
    doc = rhwp_core.parse(hostile.read_bytes())
    started = time.monotonic()
    got = doc.form_entries()
    elapsed = time.monotonic() - started
    text = doc.extract_text(include_furniture=False).rstrip("\n")
    assert len(got) == 8 and all(e["value"] == text for e in got)
    assert elapsed < 5, f"{elapsed:.1f} s"
