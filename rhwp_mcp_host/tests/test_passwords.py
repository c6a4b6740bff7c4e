"""The host's ``password`` parameter (passwords.py): added to every tool that takes a document,
handed to the pack for the call, and never seen anywhere else — not by hooks, the trace, an
error or a next: line."""

from __future__ import annotations

import json
import logging
import types
from pathlib import Path
from typing import Any

import pytest
from rhwp_mcp_host.plugin.contract import CallOutcome, ToolCall
from rhwp_mcp_host.testing import pack_session

from rhwp_mcp_host import FilePath, current_password, format_call, hookimpl, page_text

SECRET = "s3cr3t-비밀번호"


def _pack() -> types.ModuleType:
    pack = types.ModuleType("locked_pack")

    def open_locked(path: FilePath, offset: int = 0, max_chars: int | None = None) -> str:
        """Read a 'locked' text file: its first line is the password it wants."""
        with open(path, encoding="utf-8") as f:
            wanted, _, body = f.read().partition("\n")
        given = current_password()
        if given != wanted:

            class PasswordNeeded(Exception):
                code = "password_required"
                suggestion = "pass password"

            raise PasswordNeeded("the file is locked" if given is None else "the password is wrong")
        return page_text(body, offset, max_chars, next_call=lambda o: format_call("open_locked", path=path, offset=o))

    def own_password(path: FilePath, password: str = "") -> str:
        """A tool that declares its own password parameter: the host leaves it alone."""
        return f"own:{password}:{current_password()}"

    def no_document(text: str) -> str:
        """No document, no password parameter."""
        return text

    seen: list[dict[str, Any]] = []

    @hookimpl
    def rhwp_mcp_register_tools(register: Any) -> None:
        for tool in (open_locked, own_password, no_document):
            register(tool)

    @hookimpl
    def rhwp_mcp_before_call(call: ToolCall) -> None:
        seen.append({"tool": call.tool, **call.arguments})

    @hookimpl
    def rhwp_mcp_after_call(call: ToolCall, outcome: CallOutcome) -> None:
        seen.append({"outcome": outcome.error})

    pack.rhwp_mcp_register_tools = rhwp_mcp_register_tools  # type: ignore[attr-defined]
    pack.rhwp_mcp_before_call = rhwp_mcp_before_call  # type: ignore[attr-defined]
    pack.rhwp_mcp_after_call = rhwp_mcp_after_call  # type: ignore[attr-defined]
    pack.seen = seen  # type: ignore[attr-defined]
    return pack


@pytest.fixture
def locked(tmp_path: Path) -> Path:
    path = tmp_path / "locked.txt"
    path.write_text(SECRET + "\n" + "가" * 5000, encoding="utf-8")
    return path


def test_document_tools_get_an_optional_password(locked: Path) -> None:
    with pack_session(_pack()) as session:
        schemas = {t.name: getattr(t, "input_schema", None) or t.inputSchema for t in session.list_tools()}
    assert "password" in schemas["open_locked"]["properties"]
    assert "password" not in schemas["open_locked"].get("required", [])
    assert "never" in schemas["open_locked"]["properties"]["password"]["description"]
    assert "password" not in schemas["no_document"]["properties"]
    # A tool's own password parameter is kept as declared (a string with a default of "").
    assert schemas["own_password"]["properties"]["password"].get("default") == ""


def test_the_password_reaches_the_pack_and_nothing_else(
    locked: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RHWP_MCP_TRACE", "1")
    pack = _pack()
    caplog.set_level(logging.DEBUG)
    with pack_session(pack, max_chars=1000) as session:
        missing = session.call("open_locked", path=str(locked))
        wrong = session.call("open_locked", path=str(locked), password="nope")
        page = session.call("open_locked", path=str(locked), password=SECRET)
        own = session.call("own_password", path=str(locked), password="mine")
        bad_type = session.call("open_locked", path=str(locked), password=12345)
    assert missing["error"] == "password_required" and wrong["error"] == "password_required"
    assert isinstance(page, str) and page.startswith("가" * 1000)
    # The next call is written without the password, and says to repeat it.
    assert page.rstrip().endswith('open_locked(path="' + str(locked) + '", offset=1000) with the same password]')
    assert own == "own:mine:None"
    assert bad_type["error"] == "invalid_input" and "12345" not in json.dumps(bad_type)
    everything = json.dumps([missing, wrong, page, bad_type, pack.seen], ensure_ascii=False) + caplog.text
    assert SECRET not in everything and "nope" not in everything
    assert all("password" not in args for args in pack.seen if args.get("tool") == "open_locked")
    assert any(args.get("tool") == "open_locked" for args in pack.seen)
