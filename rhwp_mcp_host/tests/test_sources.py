"""Document sources in the host contract: any FilePath argument takes a data: URI, a doc: handle
and (with --fetch) a URL; the pack sees a local path. In process, through the real middleware."""

from __future__ import annotations

import base64
import hashlib
import os
import urllib.parse

import pytest
from rhwp_mcp_host.documents.sources import decode_data_uri
from rhwp_mcp_host.plugin.contract import normalize_path
from rhwp_mcp_host.testing import pack_session

from rhwp_mcp_host import FilePath, ToolFailure, caller_source, format_call, hookimpl, page_text, source_scheme

TEXT = "첫 줄: 한글 문서\nsecond line\n" * 3


def _data_uri(data: bytes, media: str = "application/octet-stream") -> str:
    return f"data:{media};base64," + base64.b64encode(data).decode()


@pytest.fixture
def env(tmp_path):
    base = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    base["RHWP_MCP_STORE_DIR"] = str(tmp_path / "store")
    return base


def test_source_schemes():
    assert source_scheme("data:,x") == "data"
    assert source_scheme("doc:" + "a" * 64) == "doc"
    assert source_scheme("HTTPS://example.com/a.hwp") == "https"
    assert source_scheme(" s3://bucket/key") == "s3"
    for local in ("/tmp/a.hwp", "a.hwp", "C:\\docs\\a.hwp", "file:///tmp/a.hwp", "~/a.hwp", "./data:x"):
        assert source_scheme(local) is None, local
    with pytest.raises(ValueError):
        normalize_path("doc:" + "a" * 64)
    assert normalize_path("file:///tmp/a%20b.hwp") == "/tmp/a b.hwp"


def test_data_uris_decode_in_every_common_spelling():
    data = bytes(range(256)) * 3
    b64 = base64.b64encode(data).decode()
    assert decode_data_uri("data:;base64," + b64, 10_000) == data
    assert decode_data_uri("data:application/x-hwp;name=a.hwp;BASE64," + b64, 10_000) == data
    wrapped = "\n".join(b64[i : i + 76] for i in range(0, len(b64), 76))  # MIME line breaks
    assert decode_data_uri("data:;base64," + wrapped, 10_000) == data
    urlsafe = base64.urlsafe_b64encode(data).decode().rstrip("=")
    assert decode_data_uri("data:;base64," + urlsafe, 10_000) == data
    assert decode_data_uri("data:," + urllib.parse.quote_from_bytes(data), 10_000) == data


@pytest.mark.parametrize(
    ("uri", "code"),
    [
        ("data:application/octet-stream;base64", "invalid_input"),  # no comma
        ("data:;base64,@@@@", "invalid_input"),
        ("data:;base64,한글", "invalid_input"),
        ("data:;base64," + "A" * 2000, "too_large"),  # refused before decoding
        ("data:," + "%41" * 1001, "too_large"),
    ],
)
def test_bad_data_uris_are_refused_with_a_code(uri, code):
    with pytest.raises(ToolFailure) as err:
        decode_data_uri(uri, 1000)
    assert err.value.code == code and err.value.suggestion


def test_every_source_reaches_the_tool_as_the_same_local_text(installed, tmp_path, env):
    local = tmp_path / "doc.txt"
    local.write_text(TEXT, encoding="utf-8")
    raw = local.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    with pack_session("good", env=env) as session:
        expected = session.call("read_head", path=str(local), chars=200)
        assert expected == TEXT
        assert session.call("read_head", path=local.as_uri(), chars=200) == expected
        assert session.call("read_head", path=_data_uri(raw, "text/plain"), chars=200) == expected
        # The data: URI left the document in the store under its digest: the handle reads it.
        assert session.call("read_head", path=f"doc:{digest}", chars=200) == expected
        stored = tmp_path / "store" / digest
        assert stored.read_bytes() == raw and not stored.stat().st_mode & 0o222
        # The caller's file is untouched.
        assert local.read_text(encoding="utf-8") == TEXT


def test_source_refusals_carry_codes_and_fixes(installed, env):
    with pack_session("good", env=env) as session:
        cases = {
            "doc:" + "0" * 64: ("file_not_found", "upload it again"),
            "doc:nothex": ("invalid_input", "64 hex digits"),
            "https://example.com/a.hwp": ("permission_denied", "--fetch"),
            "http://example.com/a.hwp": ("permission_denied", "--fetch"),
            "ftp://example.com/a.hwp": ("invalid_input", "data: URI"),
            "data:;base64,%%%": ("invalid_input", "base64"),
        }
        for path, (code, hint) in cases.items():
            error = session.call("read_head", path=path)
            assert error["error"] == code, (path, error)
            assert hint in error["suggestion"], (path, error)
        # Still serving.
        assert session.call("echo", text="ok") == "ok"


def test_data_uri_cap_comes_from_the_settings(installed, env):
    env["RHWP_MCP_UPLOAD_MAX_MB"] = "0.001"  # 1048 bytes
    with pack_session("good", env=env) as session:
        error = session.call("read_head", path=_data_uri(b"x" * 2000))
        assert error["error"] == "too_large" and "--upload-max-mb" in error["suggestion"]
        assert session.call("read_head", path=_data_uri(b"y" * 500), chars=3) == "yyy"


def test_the_root_policy_applies_to_local_paths_not_to_sources(installed, tmp_path, env):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("secret", encoding="utf-8")
    with pack_session("good", roots=[allowed], env=env) as session:
        assert session.call("read_head", path=str(outside))["error"] == "permission_denied"
        assert session.call("read_head", path=outside.as_uri())["error"] == "permission_denied"
        # A document the caller sends is not a file of the server's: --root does not restrict it.
        assert session.call("read_head", path=_data_uri(b"sent by the caller"), chars=4) == "sent"


class S3LikeSources:
    """A third-party plugin teaching every tool a scheme of its own."""

    def __init__(self, folder):
        self.folder = folder

    @hookimpl
    def rhwp_mcp_open_source(self, source, scheme, call):
        if scheme != "bucket":
            return None
        name = source.split("://", 1)[1]
        if "/" in name:
            raise ToolFailure("invalid_input", "flat names only", "name one object")
        return str(self.folder / name)


def test_a_pack_can_add_a_source_scheme(installed, tmp_path, env):
    (tmp_path / "obj.txt").write_text("from the bucket", encoding="utf-8")
    with pack_session("good", {"bucket": S3LikeSources(tmp_path)}, env=env) as session:
        assert session.call("read_head", path="bucket://obj.txt", chars=8) == "from the"
        assert session.call("read_head", path="bucket://a/b")["error"] == "invalid_input"
        assert session.call("read_head", path="other://x")["error"] == "invalid_input"


def _pages(path: FilePath, offset: int = 0) -> str:
    """Pages of a file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return page_text(text, offset, 1000, next_call=lambda o: format_call("pages", path=path, offset=o))


def _where(path: FilePath) -> dict:
    """Where the caller's document is, as the caller may name it."""
    return {"path": caller_source(path)}


class Pager:
    @hookimpl
    def rhwp_mcp_register_tools(self, register):
        register(_pages, name="pages")
        register(_where, name="where")


def test_next_page_names_the_handle_not_the_storage_path(installed, tmp_path, env):
    """A cut page's next call must be one the caller can make: the doc: handle."""
    raw = ("x" * 99 + "\n").encode() * 30
    digest = hashlib.sha256(raw).hexdigest()
    with pack_session({"pager": Pager()}, env=env) as session:
        page = session.call("pages", path=_data_uri(raw))
        assert f'next: pages(path="doc:{digest}", offset=' in page.splitlines()[-1]
        assert str(tmp_path) not in page
        assert session.call("where", path=f"doc:{digest}") == {"path": f"doc:{digest}"}
        local = tmp_path / "plain.txt"
        local.write_text("x", encoding="utf-8")
        assert session.call("where", path=str(local)) == {"path": str(local)}
