"""The viewer pack in-process (rhwp_mcp_host.testing): what a client lists and reads, the page
results under the cap, coded errors, and a hostile document's text staying text."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rhwp_mcp_host.testing import pack_session

import rhwp_core
import rhwp_mcp_tools_viewer as pack

ROOT = Path(__file__).resolve().parents[2]
PAGED = ROOT / "tests" / "fixtures" / "hwp" / "rhwp-nested-cell-pagination.hwp"
SIMPLE = ROOT / "tests" / "fixtures" / "hwpx" / "hwpxlib-SimpleTable.hwpx"
HOSTILE = '<script>alert(1)</script><a href="javascript:alert(2)">x</a><img src=x onerror="alert(3)">'


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def session() -> Any:
    with pack_session(pack) as s:
        yield s


def test_tools_and_their_ui_meta(session: Any) -> None:
    tools = {t.name: t for t in session.list_tools()}
    assert set(tools) == {"view_document", "viewer_page", "viewer_outline"}
    assert tools["view_document"].meta["ui"] == {"resourceUri": pack.VIEWER_URI}  # the model sees it
    for name in ("viewer_page", "viewer_outline"):
        assert tools[name].meta["ui"] == {"resourceUri": pack.VIEWER_URI, "visibility": ["app"]}
    assert "password" in tools["viewer_page"].input_schema["properties"]  # the host adds it


class _Refs(HTMLParser):
    """Every URL the page could fetch: src/href/action attributes, CSS url() and @import."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "action", "srcset", "poster", "data") and value:
                self.refs.append(value)


def test_resource_is_self_contained_html5(session: Any) -> None:
    (listed,) = [r for r in session.list_resources() if str(r.uri) == pack.VIEWER_URI]
    assert listed.mime_type == "text/html;profile=mcp-app"
    (content,) = session.read_resource(pack.VIEWER_URI)
    # Its CSP wish, where hosts look for it (listed and read): nothing external, data: pictures.
    for meta in (listed.meta, content.meta):
        assert meta["ui"]["csp"] == {"resourceDomains": ["data:"]}
    html = content.text
    assert content.mime_type == "text/html;profile=mcp-app"
    assert html.lstrip().lower().startswith("<!doctype html>")
    refs = _Refs()
    refs.feed(html)
    assert refs.refs == [], refs.refs  # no external (or any) script, stylesheet, font or image
    assert "link" not in refs.tags and "iframe" not in refs.tags
    assert "@import" not in html and not re.search(r"url\(\s*['\"]?(https?:)?//", html)
    script = html.split("<script>", 1)[1]
    assert not re.search(r"https?://|fetch\(|XMLHttpRequest|WebSocket|import\(", script)  # it fetches nothing
    assert "default-src 'none'" in html


def test_view_document_is_small_and_useful_as_text(session: Any) -> None:
    result = session.call("view_document", path=str(PAGED))
    doc = rhwp_core.load(str(PAGED))
    # 17 pages: the count of Hancom's own PDF of this file (one cell runs over ten of them).
    assert result["pages"] == doc.page_count == 17 and result["page"] == 1
    assert result["source"] == str(PAGED) and result["title"] == "Ⅰ"
    assert result["excerpt"] == doc.extract_text(pages="1")[: pack.EXCERPT_CHARS]
    assert session.call("view_document", path=str(PAGED), page=3)["page"] == 3


def _whole_page(session: Any, path: Path, page: int) -> dict[str, Any]:
    first = session.call("viewer_page", path=str(path), page=page)
    parts = [first] + [
        session.call("viewer_page", path=str(path), page=page, part=n) for n in range(2, first["parts"] + 1)
    ]
    return {"html": "".join(p["html"] for p in parts), "text": "".join(p["text"] for p in parts), "parts": len(parts)}


def test_each_page_matches_extract_text(session: Any) -> None:
    doc = rhwp_core.load(str(PAGED))
    for page in range(1, (doc.page_count or 0) + 1):
        whole = _whole_page(session, PAGED, page)
        assert whole["text"] == doc.extract_text(pages=str(page))
        # (A page inside a cell that runs over several pages holds no block of its own: its text
        # is what the reader says of it, `[table no rows of 1, continued from page 5]`.)
        assert "<main>" not in whole["html"] and ("<table" in whole["html"] or pack._holds_no_block(whole["text"]))


def test_a_page_inside_a_long_table_names_the_page_the_table_starts_on(session: Any) -> None:
    doc = rhwp_core.load(str(PAGED))
    inside = [p for p in range(1, (doc.page_count or 0) + 1) if pack._holds_no_block(doc.extract_text(pages=str(p)))]
    assert inside, "the fixture has a cell that runs over several pages"
    for page in inside:
        first = session.call("viewer_page", path=str(PAGED), page=page)
        start = first["continues"]
        assert start is not None and start < page
        # That page holds the block, and every page between it and this one is inside it too.
        assert not pack._holds_no_block(doc.extract_text(pages=str(start)))
        assert all(p in inside for p in range(start + 1, page))
    shown = [p for p in range(1, (doc.page_count or 0) + 1) if p not in inside]
    assert all(session.call("viewer_page", path=str(PAGED), page=p)["continues"] is None for p in shown)


def test_a_large_page_comes_in_parts_under_the_cap() -> None:
    doc = rhwp_core.load(str(PAGED))
    cap = 1500
    with pack_session(pack, max_chars=cap) as small:
        first = small.call("viewer_page", path=str(PAGED), page=2)
        assert first["parts"] > 1
        parts = [first] + [
            small.call("viewer_page", path=str(PAGED), page=2, part=n) for n in range(2, first["parts"] + 1)
        ]
        for part in parts:
            assert "error" not in part
            raw = small.call_raw("viewer_page", {"path": str(PAGED), "page": 2, "part": part["part"]})
            assert sum(len(b.text) for b in raw.content) <= cap
        assert "".join(p["text"] for p in parts) == doc.extract_text(pages="2")
        body = re.search(r"<main>\s*(.*?)\s*</main>", doc.to_html(pages="2"), re.S)
        assert body is not None and "".join(p["html"] for p in parts) == body.group(1)
        assert small.call("viewer_page", path=str(PAGED), page=2, part=99)["error"] == "invalid_input"


def test_errors_are_coded(session: Any, tmp_path: Path) -> None:
    assert session.call("view_document", path=str(tmp_path / "nope.hwp"))["error"] == "file_not_found"
    junk = tmp_path / "junk.hwp"
    junk.write_bytes(b"not a document at all")
    assert session.call("view_document", path=str(junk))["error"] in {"unsupported_format", "corrupt_document"}
    past = session.call("viewer_page", path=str(PAGED), page=99)
    assert past["error"] == "invalid_input" and "1 to 17" in past["suggestion"]


def hostile_document(tmp_path: Path, text: str = HOSTILE, link: str | None = None) -> Path:
    """An HWPX document whose text is markup meant to run (XML-escaped in the file, so it is text);
    with ``link``, that text is also a hyperlink field to that target (as 한글 stores one)."""
    import zipfile
    from xml.sax.saxutils import escape

    run = f"<hp:t>{escape(text)}</hp:t>"
    if link is not None:
        command = escape(link.replace(":", "\\:").replace(";", "\\;")) + ";1;0;0;"
        run = (
            '<hp:ctrl><hp:fieldBegin id="7" type="HYPERLINK"><hp:parameters>'
            f'<hp:stringParam name="Command">{command}</hp:stringParam></hp:parameters></hp:fieldBegin></hp:ctrl>'
            f'{run}<hp:ctrl><hp:fieldEnd beginIDRef="7"/></hp:ctrl>'
        )
    path = tmp_path / "hostile.hwpx"
    with zipfile.ZipFile(SIMPLE) as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "Contents/section0.xml":
                xml = data.decode("utf-8")
                xml, count = re.subn(r"<hp:t>[^<]*</hp:t>", lambda _: run, xml, count=1)
                assert count == 1, "the HWPX fixture has a text run"
                data = xml.encode("utf-8")
            out.writestr(info, data)
    return path


class _Markup(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [name for name, _ in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_hostile_text_stays_escaped(session: Any, tmp_path: Path) -> None:
    path = hostile_document(tmp_path)
    result = session.call("viewer_page", path=str(path), page=1)
    assert HOSTILE in result["text"]
    # Parsed as a browser would: the markup is text, never an element or an attribute.
    parsed = _Markup()
    parsed.feed(result["html"])
    assert "script" not in parsed.tags and "img" not in parsed.tags and "a" not in parsed.tags
    assert not [a for a in parsed.attrs if a.startswith("on")]
    assert HOSTILE in "".join(parsed.text)


def test_outline_tool_pages(session: Any) -> None:
    result = session.call("viewer_outline", path=str(PAGED))
    # The headings of a document laid out in tables (its lines `Ⅰ. 규제 심사(안) 개요` ...).
    headings = rhwp_core.load(str(PAGED)).outline()
    assert result["total"] == len(headings) == len(result["outline"]) > 0 and result["next_offset"] is None
    assert [(e["level"], e["text"], e["page"]) for e in result["outline"]] == [
        (h.level, h.text, h.page) for h in headings
    ]


PICTURE = ROOT / "tests" / "fixtures" / "hwp" / "hwplib-getting_clickhere_text.hwp"  # BIN0001.png on page 2


def test_page_pictures_come_as_image_blocks(session: Any) -> None:
    import base64

    raw = session.call_raw("viewer_page", {"path": str(PICTURE), "page": 2})
    (ref,) = raw.structured_content["pictures"]
    assert ref == {"name": "BIN0001.png", "media_type": "image/png", "block": 1, "note": None}
    block = raw.content[ref["block"]]
    assert block.type == "image" and block.mime_type == "image/png"
    stored = rhwp_core.read_bin_item(str(PICTURE), "BIN0001.png").data
    assert base64.b64decode(block.data) == stored  # as stored: browsers show PNG themselves
    assert session.call_raw("viewer_page", {"path": str(PICTURE), "page": 1}).structured_content["pictures"] == []


def test_pictures_beyond_the_picture_cap_are_notes() -> None:
    with pack_session(pack, max_chars=2000, max_image_chars=2000) as small:
        first = small.call_raw("viewer_page", {"path": str(PICTURE), "page": 2})
        refs = []
        for part in range(1, first.structured_content["parts"] + 1):
            raw = small.call_raw("viewer_page", {"path": str(PICTURE), "page": 2, "part": part})
            assert not raw.is_error and [b.type for b in raw.content] == ["text"]
            assert len(raw.content[0].text) <= 2000  # the picture list counts against the text cap
            refs += raw.structured_content["pictures"]
        (ref,) = refs
        assert ref["block"] is None and "picture cap" in ref["note"]
