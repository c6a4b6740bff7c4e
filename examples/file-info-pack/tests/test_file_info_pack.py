"""Tests of the example pack through the host's testing kit: each call goes through the same
server path as a real client's (schema validation, path policy, error mapping)."""

from __future__ import annotations

import hashlib

import pytest
import rhwp_mcp_example_file_info as pack
from rhwp_mcp_host.testing import pack_session


@pytest.fixture
def session():
    with pack_session(pack) as s:
        yield s


def test_lists_its_three_tools_with_titles(session):
    tools = {t.name: t for t in session.list_tools()}
    assert set(tools) == {"file_info", "read_text", "list_directory"}
    assert tools["file_info"].title == "File info"
    annotations = tools["file_info"].annotations
    # mcp 2.x names the hint read_only_hint (reading readOnlyHint there warns); 1.x has only readOnlyHint.
    read_only = annotations.read_only_hint if hasattr(annotations, "read_only_hint") else annotations.readOnlyHint
    assert read_only is True


def test_file_info_reports_size_hash_and_type(session, tmp_path):
    target = tmp_path / "doc.hwpx"
    target.write_bytes(b"PK\x03\x04" + b"\0" * 100)
    info = session.call("file_info", path=str(target))
    assert info["size"] == 104
    assert info["sha256"] == hashlib.sha256(target.read_bytes()).hexdigest()
    assert info["type"].startswith("zip")


def test_file_info_accepts_a_file_uri(session, tmp_path):
    target = tmp_path / "a b.txt"
    target.write_text("hello")
    assert session.call("file_info", path=target.as_uri())["type"] == "text (utf-8)"


def test_missing_file_is_file_not_found(session, tmp_path):
    error = session.call("file_info", path=str(tmp_path / "missing.hwp"))
    assert error["error"] == "file_not_found"
    assert "server" in error["suggestion"]


def test_read_text_pages_with_the_next_call(tmp_path):
    target = tmp_path / "long.txt"
    target.write_text("가나다라마바사\n" * 400)  # 3200 characters
    with pack_session(pack, max_chars=1000) as session:
        first = session.call("read_text", path=str(target))
        assert first.rstrip().endswith(")]")
        cut_line = first.splitlines()[-1]
        assert len(first) - len(cut_line) - 1 == 1000  # the cap counts the content; the cut line is extra
        assert cut_line.startswith("[cut at ") and "of 3200 characters; next: read_text(" in cut_line
        next_offset = int(cut_line.split()[2])
        second = session.call("read_text", path=str(target), offset=next_offset)
        assert (first[: -len(cut_line) - 1] + second).startswith("가나다라마바사\n" * 10)


def test_unknown_encoding_is_invalid_input_naming_the_allowed_values(session, tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("x")
    error = session.call("read_text", path=str(target), encoding="euc-kr")
    assert error["error"] == "invalid_input"
    assert "encoding" in error["message"] and "cp949" in error["suggestion"]


def test_list_directory_pages(session, tmp_path):
    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text("x" * i)
    page = session.call("list_directory", path=str(tmp_path), limit=2)
    assert [e["name"] for e in page["entries"]] == ["f0.txt", "f1.txt"]
    assert page["total"] == 5 and page["next_offset"] == 2
    last = session.call("list_directory", path=str(tmp_path), offset=4, limit=2)
    assert last["next_offset"] is None


def test_roots_confine_the_pack(tmp_path):
    inside = tmp_path / "in"
    inside.mkdir()
    (tmp_path / "secret.txt").write_text("no")
    with pack_session(pack, roots=[inside]) as session:
        error = session.call("file_info", path=str(inside / ".." / "secret.txt"))
        assert error["error"] == "permission_denied"
