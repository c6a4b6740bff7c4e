"""The fill pack: fill_form through an in-process MCP client (where the copy goes, refusals, the
read-only switch, annotations) and over the real HTTP server (a doc: handle downloaded with
GET /documents/<handle>, behind the same token as /mcp)."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from rhwp_mcp_host.testing import pack_session, serve_http

import rhwp_core
import rhwp_mcp_tools_fill as pack

ROOT = Path(__file__).resolve().parents[2]
FORMS = ROOT / "tests" / "fixtures" / "forms"
IRB = "pyhwpx-irb_form_blank.hwpx"
VALUES = {"연구과제명": "AI 연구", "연구책임자": "홍길동"}


@pytest.fixture()
def form(tmp_path: Path) -> Path:
    copy = tmp_path / "form.hwpx"
    shutil.copy(FORMS / IRB, copy)
    return copy


def cell_texts(path: Path | bytes) -> str:
    return rhwp_core.parse(path).extract_text()


def test_a_copy_is_written_beside_the_input_and_the_input_is_untouched(form: Path) -> None:
    blank = form.read_bytes()
    with pack_session(pack) as s:
        result = s.call("fill_form", path=str(form), values=VALUES)
        again = s.call("fill_form", path=str(form), values=VALUES)
    assert result["output"] == str(form.with_name("form.filled.hwpx"))
    assert again["output"] == str(form.with_name("form.filled-2.hwpx")), "never over an existing file"
    assert result["verified"] is True
    assert [f["kind"] for f in result["filled"]] == ["label", "label"]
    assert form.read_bytes() == blank
    text = cell_texts(Path(result["output"]))
    assert "AI 연구" in text and "홍길동" in text


def test_dry_run_unmatched_and_ambiguous_write_nothing(form: Path) -> None:
    with pack_session(pack) as s:
        dry = s.call("fill_form", path=str(form), values=VALUES, dry_run=True)
        unmatched = s.call("fill_form", path=str(form), values={**VALUES, "없는 칸": "x"})
        partial = s.call("fill_form", path=str(form), values={**VALUES, "없는 칸": "x"}, partial=True)
        nothing = s.call("fill_form", path=str(form), values={"없는 칸": "x"}, partial=True)
    assert dry["output"] is None and len(dry["filled"]) == 2
    assert unmatched["output"] is None and unmatched["unmatched"] == ["없는 칸"]
    assert "nothing was written" in unmatched["warnings"][-1]
    assert partial["output"] == str(form.with_name("form.filled.hwpx"))
    assert nothing["error"] == "invalid_input"
    assert sorted(p.name for p in form.parent.iterdir()) == ["form.filled.hwpx", "form.hwpx"]


def test_output_names_a_file_never_the_input_and_never_outside_the_roots(form: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    existing = elsewhere / "mine.hwpx"
    existing.write_bytes(b"old")
    with pack_session(pack) as s:
        named = s.call("fill_form", path=str(form), values=VALUES, output=str(existing))
        over_input = s.call("fill_form", path=str(form), values=VALUES, output=str(form))
    assert named["output"] == str(existing) and "AI 연구" in cell_texts(existing)
    assert over_input["error"] == "permission_denied"
    with pack_session(pack, roots=[str(form.parent)]) as s:
        outside = s.call("fill_form", path=str(form), values=VALUES, output="/tmp/rhwp-fill-outside.hwpx")
    assert outside["error"] == "permission_denied"
    assert not Path("/tmp/rhwp-fill-outside.hwpx").exists()


def test_read_only_and_output_dir(form: Path, tmp_path: Path) -> None:
    blank = form.read_bytes()
    with pack_session(pack, env={"RHWP_MCP_READ_ONLY": "1"}) as s:
        refused = s.call("fill_form", path=str(form), values=VALUES)
    assert refused["error"] == "permission_denied"
    assert sorted(p.name for p in form.parent.iterdir()) == ["form.hwpx"]
    out = tmp_path / "results"
    out.mkdir()
    with pack_session(pack, roots=[str(form.parent)], env={"RHWP_MCP_OUTPUT_DIR": str(out)}) as s:
        result = s.call("fill_form", path=str(form), values=VALUES)
    assert result["output"] == str(out / "form.filled.hwpx")
    assert form.read_bytes() == blank


def test_the_tool_says_it_writes_fills_hwp_and_refuses_formats_it_cannot_write(tmp_path: Path) -> None:
    hwp = tmp_path / "form.hwp"
    shutil.copy(FORMS / "hwplib-getting_clickhere_text.hwp", hwp)
    hwp3 = next(iter(sorted((ROOT / "tests" / "fixtures" / "hwp3").glob("*.hwp"))))
    with pack_session(pack) as s:
        (tool,) = s.list_tools()
        filled = s.call("fill_form", path=str(hwp), values={"필드1": "홍길동"})
        refused = s.call("fill_form", path=str(hwp3), values={"a": "b"})
    hints = tool.annotations.model_dump(by_alias=True)
    assert hints["readOnlyHint"] is False
    assert hints["destructiveHint"] is False
    assert filled["output"] == str(tmp_path / "form.filled.hwp") and filled["verified"]
    fields = rhwp_core.parse(Path(filled["output"])).form_entries()
    assert [f["value"] for f in fields if f["name"] == "필드1"] == ["홍길동"]
    assert refused["error"] == "unsupported_format" and "HWPX" in refused["suggestion"]


def _is_error(result: Any) -> bool:
    value = getattr(result, "is_error", None)
    return bool(getattr(result, "isError", False) if value is None else value)


def _command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


@asynccontextmanager
async def _http(url: str, token: str) -> AsyncIterator[ClientSession]:
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}))
        streams = await stack.enter_async_context(streamable_http_client(url + "/mcp", http_client=client))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        yield session


def _embedded(result: Any) -> list[Any]:
    return [block for block in result.content if getattr(block, "type", None) == "resource"]


def test_over_http_the_copy_is_a_handle_to_download(form: Path, tmp_path: Path) -> None:
    """The copy is a doc: handle behind the token; a small copy also comes back embedded (its
    bytes exactly what the handle downloads), a copy past the server's binary cap does not."""
    token = "t" * 32
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    env["RHWP_MCP_STORE_DIR"] = str(tmp_path / "store")
    env["RHWP_MCP_AUTH_TOKEN"] = token
    # 20,000 base64 characters: the 13 KB HWP form fits embedded, the 51 KB one does not.
    env["RHWP_MCP_MAX_IMAGE_CHARS"] = "20000"
    hwp = shutil.copy(FORMS / "hwplib-getting_clickhere_text.hwp", form.parent / "clickhere.hwp")
    large = shutil.copy(
        ROOT / "tests" / "fixtures" / "hwp" / "rhwp-nested-cell-pagination.hwp", form.parent / "large.hwp"
    )
    blank = form.read_bytes()
    with serve_http("--root", str(form.parent), env=env, command=_command()) as url:

        async def main() -> Any:
            async with _http(url, token) as session:
                result = await session.call_tool("fill_form", {"path": str(form), "values": VALUES})
                named = await session.call_tool("fill_form", {"path": str(form), "values": VALUES, "output": "x.hwpx"})
                small_hwp = await session.call_tool("fill_form", {"path": str(hwp), "values": {"필드1": "홍길동"}})
                large_hwp = await session.call_tool("fill_form", {"path": str(large), "values": {"현 행": "현행"}})
                return result, named, small_hwp, large_hwp

        result, named, small_hwp, large_hwp = anyio.run(main)
        assert not _is_error(result), result
        answer = getattr(result, "structured_content", None) or result.structuredContent
        handle = answer["output"]
        assert handle.startswith("doc:")
        assert _is_error(named)
        downloads: dict[str, bytes] = {}
        with httpx.Client() as client:
            assert client.get(f"{url}/documents/{handle}").status_code == 401
            got = client.get(f"{url}/documents/{handle}", headers={"Authorization": f"Bearer {token}"})
            missing = client.get(f"{url}/documents/doc:{'0' * 64}", headers={"Authorization": f"Bearer {token}"})
            for call in (result, small_hwp, large_hwp):
                assert not _is_error(call), call
                output = (getattr(call, "structured_content", None) or call.structuredContent)["output"]
                response = client.get(f"{url}/documents/{output}", headers={"Authorization": f"Bearer {token}"})
                assert response.status_code == 200
                downloads[output] = response.content
        assert got.status_code == 200
        assert handle == "doc:" + hashlib.sha256(got.content).hexdigest()
        assert "AI 연구" in cell_texts(got.content)
        assert missing.status_code == 404
    for call, media_type in ((result, "application/hwp+zip"), (small_hwp, "application/x-hwp")):
        output = (getattr(call, "structured_content", None) or call.structuredContent)["output"]
        [embedded] = _embedded(call)
        assert str(embedded.resource.uri) == output
        resource = embedded.resource
        assert (getattr(resource, "mime_type", None) or resource.mimeType) == media_type
        assert base64.b64decode(resource.blob) == downloads[output]
    assert "홍길동" in cell_texts(
        downloads[(getattr(small_hwp, "structured_content", None) or small_hwp.structuredContent)["output"]]
    )
    assert _embedded(large_hwp) == [], "past the server's cap: the handle alone"
    assert form.read_bytes() == blank
    names = sorted(p.name for p in form.parent.iterdir() if p.is_file())
    assert names == ["clickhere.hwp", "form.hwpx", "large.hwp"], "no file on the server"


def test_from_the_shell(form: Path) -> None:
    import json

    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    values = json.dumps(VALUES, ensure_ascii=False)
    done = subprocess.run(
        [*_command(), "call", "fill_form", f"path={form}", f"values={values}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == str(form.with_name("form.filled.hwpx"))
    read_only = subprocess.run(
        [*_command(), "--read-only", "call", "fill_form", f"path={form}", f"values={values}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert read_only.returncode == 1 and json.loads(read_only.stdout)["error"] == "permission_denied"
