"""The paging helpers on their own."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rhwp_mcp_host.plugin.paging import _active_cap, current_max_chars, parse_max_chars

from rhwp_mcp_host import ToolFailure, format_call, next_call_of, page_list, page_text


@pytest.fixture(autouse=True)
def _cap_1000():
    token = _active_cap.set(1000)
    yield
    _active_cap.reset(token)


def test_short_text_is_returned_whole():
    assert page_text("안녕", 0) == "안녕"
    assert page_text("abc", 1) == "bc"
    assert page_text("abc", 3) == ""


def test_cut_line_names_total_and_next_call():
    text = "가" * 5000
    page = page_text(text, 0, next_call='extract_text(path="/a.hwp", offset={offset})')
    body, line = page.rsplit("\n", 1)
    assert len(body) == 1000  # max_chars (here the cap) counts the content; the cut line is extra
    assert line == f'[cut at {len(body)} of 5000 characters; next: extract_text(path="/a.hwp", offset={len(body)})]'


@given(st.integers(min_value=1, max_value=1200), st.integers(min_value=0, max_value=3000), st.integers(0, 500))
def test_a_page_is_never_shorter_than_max_chars_or_what_is_left(max_chars, length, path_length):
    """However long the path in the cut line, the page holds min(max_chars, cap, what is left)."""
    token = _active_cap.set(1000)
    try:
        text = "가나다\n" * (length // 4)
        path = "/" + "p" * path_length
        page = page_text(text, 0, max_chars, next_call=lambda o: format_call("extract_text", path=path, offset=o))
        body = page.split("\n[cut at ", 1)[0] if "\n[cut at " in page else page
        assert len(body) == min(max_chars, 1000, len(text))
    finally:
        _active_cap.reset(token)


def test_max_chars_is_lowered_to_the_cap():
    assert len(page_text("y" * 5000, 0, max_chars=10**9).split("\n[cut at")[0]) == 1000


@given(st.text(min_size=0, max_size=3000), st.integers(min_value=50, max_value=1000))
def test_pages_cover_the_text_exactly(text, limit):
    token = _active_cap.set(1000)
    try:
        pieces, offset = [], 0
        for _ in range(10_000):
            page = page_text(text, offset, max_chars=limit, next_call=lambda o: format_call("t", offset=o))
            marker = page.rfind("\n[cut at ")
            if marker < 0 or not page.endswith(")]"):
                pieces.append(page)
                break
            pieces.append(page[:marker])
            new_offset = int(page[marker:].split()[2])
            assert new_offset > offset
            offset = new_offset
        assert "".join(pieces) == text
    finally:
        _active_cap.reset(token)


@pytest.mark.parametrize("offset", [-1, 4, "1", 1.5, True])
def test_bad_offsets_are_invalid_input(offset):
    with pytest.raises(ToolFailure) as info:
        page_text("abc", offset)
    assert info.value.code == "invalid_input"


def test_page_list_shape_and_limit():
    assert page_list([1, 2, 3], 0, 2, key="blocks") == {"blocks": [1, 2], "total": 3, "next_offset": 2}
    assert page_list([1, 2, 3], 2, 2) == {"items": [3], "total": 3, "next_offset": None}
    assert page_list([], 0) == {"items": [], "total": 0, "next_offset": None}
    with pytest.raises(ToolFailure):
        page_list([1], 0, 0)


def test_page_list_shrinks_a_page_to_the_cap():
    items = [{"text": "z" * 100} for _ in range(50)]
    page = page_list(items, 0, 50)
    assert 0 < len(page["items"]) < 50 and page["next_offset"] == len(page["items"])
    assert len(json.dumps(page, ensure_ascii=False)) <= 1000


def test_page_list_item_too_large_alone():
    with pytest.raises(ToolFailure) as info:
        page_list(["w" * 5000], 0)
    assert info.value.code == "too_large"


def _split_string(item, room):
    # JSON quotes cost two characters; the pieces' JSON must fit the room.
    width = room - 2
    return [item[i : i + width] for i in range(0, len(item), width)]


def test_an_item_too_large_alone_comes_in_parts():
    items = ["a", "w" * 5000, "b"]
    next_call = lambda offset, part: format_call("t", offset=offset, part=part)  # noqa: E731
    first = page_list(items, 1, split=_split_string, next_call=next_call)
    assert first["part"] == 1 and first["parts"] > 5 and first["next_offset"] == 1
    assert first["next"] == "t(offset=1, part=2)"
    assert len(json.dumps(first, ensure_ascii=False)) <= 1000
    pieces, part = [first["items"][0]], 2
    while True:
        page = page_list(items, 1, part=part, split=_split_string, next_call=next_call)
        assert len(json.dumps(page, ensure_ascii=False)) <= 1000
        pieces.append(page["items"][0])
        if page["part"] == page["parts"]:
            assert page["next_offset"] == 2 and page["next"] == "t(offset=2, part=null)"
            break
        part += 1
    assert "".join(pieces) == items[1]
    for bad in (0, first["parts"] + 1):
        with pytest.raises(ToolFailure) as info:
            page_list(items, 1, part=bad, split=_split_string)
        assert info.value.code == "invalid_input"
    with pytest.raises(ToolFailure) as whole:
        page_list(items, 0, part=2, split=_split_string)
    assert whole.value.code == "invalid_input" and "no parts" in whole.value.message


def test_cap_from_environment(monkeypatch):
    token = _active_cap.set(None)
    try:
        monkeypatch.setenv("RHWP_MCP_MAX_CHARS", "12345")
        assert current_max_chars() == 12345
        monkeypatch.setenv("RHWP_MCP_MAX_CHARS", "junk")
        assert current_max_chars() == 20_000
    finally:
        _active_cap.reset(token)
    with pytest.raises(ValueError):
        parse_max_chars("10")


def test_format_call_quotes_values():
    assert (
        format_call("extract_text", path='C:\\a "b".hwp', offset=5)
        == 'extract_text(path="C:\\\\a \\"b\\".hwp", offset=5)'
    )


def _texts(path: str, pages: str | None = None, offset: int = 0, max_chars: int | None = None) -> str:
    return ""


def _items(path: str, kind: str | None = None, offset: int = 0, limit: int = 20, part: int | None = None) -> dict:
    return {}


def test_next_call_of_repeats_what_the_caller_chose():
    # Arguments at their defaults are left out; the offset comes last.
    assert next_call_of(_texts, path="/a.hwp", pages=None, max_chars=None)(40) == '_texts(path="/a.hwp", offset=40)'
    assert next_call_of(_texts, path="/a.hwp", pages="3-5", max_chars=500)(40) == (
        '_texts(path="/a.hwp", pages="3-5", max_chars=500, offset=40)'
    )
    # A tool with a part: given when page_list splits one item, left out otherwise.
    call = next_call_of(_items, path="/a.hwp", kind="table", limit=20)
    assert call(7, 2) == '_items(path="/a.hwp", kind="table", part=2, offset=7)'
    assert call(8, None) == '_items(path="/a.hwp", kind="table", offset=8)'
    # Through page_text: the cut line names the next call.
    text = page_text("가" * 3000, 0, 1000, next_call=next_call_of(_texts, path="/a.hwp"))
    assert text.endswith('next: _texts(path="/a.hwp", offset=1000)]'), text[-80:]
