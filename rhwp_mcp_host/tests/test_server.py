"""The server in-process through the testing kit: what a client sees for each kind of call."""

from __future__ import annotations

import json
import os

import pytest
from rhwp_mcp_host.testing import pack_session


@pytest.fixture
def session(installed):
    with pack_session("good", "audit", "zz-dup") as s:
        yield s


def test_tools_are_listed_with_explicit_titles_and_hints(session):
    tools = {t.name: t for t in session.list_tools()}
    assert {"echo", "add", "read_head", "pick", "boom", "only_here"} <= set(tools)
    assert tools["echo"].title == "Echo text"
    assert tools["read_head"].title == "Read head"  # derived from the name, the same on fastmcp 3.x and 4.x
    hints = tools["echo"].annotations.model_dump(by_alias=True)
    assert hints["readOnlyHint"] is True and hints["idempotentHint"] is True
    boom = tools["boom"].annotations.model_dump(by_alias=True)
    assert boom["readOnlyHint"] is False and boom["idempotentHint"] is False


def test_schema_comes_from_annotations(session):
    tools = {t.name: t for t in session.list_tools()}
    schema = tools["pick"].model_dump(by_alias=True)["inputSchema"]
    assert schema["properties"]["kind"]["enum"] == ["paragraph", "table", "picture"]
    add = tools["add"].model_dump(by_alias=True)["inputSchema"]
    assert add["properties"]["b"]["minimum"] == 0
    path = tools["read_head"].model_dump(by_alias=True)["inputSchema"]["properties"]["path"]
    assert path["type"] == "string" and "file://" in path["description"]


def test_success_values(session):
    assert session.call("echo", text="안녕") == "안녕"
    assert session.call("add", a=2, b=3) == {"sum": 5}


def test_text_results_are_not_duplicated_as_structured_content(session):
    raw = session.call_raw("echo", {"text": "once"})
    assert raw.structured_content is None and [b.text for b in raw.content] == ["once"]


def test_bug_is_internal_error_without_traceback(session, caplog):
    error = session.call("boom")
    assert error["error"] == "internal_error"
    assert "boom" in error["message"] and "the widget exploded" in error["message"]
    assert "Traceback" not in json.dumps(error) and 'File "' not in json.dumps(error)
    assert "good" in error["suggestion"]
    # The traceback goes to the log (stderr in the command), never to the client.
    assert any(r.exc_info and "the widget exploded" in str(r.exc_info[1]) for r in caplog.records)


def test_duck_typed_code_and_suggestion_pass_through(session):
    assert session.call("coded") == {
        "error": "corrupt_document",
        "message": "section 2 is truncated",
        "suggestion": "try another file",
    }
    assert session.call("failure")["error"] == "unsupported_format"


def test_invalid_literal_names_argument_and_allowed_values(session):
    error = session.call("pick", kind="tabel")
    assert error["error"] == "invalid_input"
    assert "kind" in error["message"] and "tabel" in error["message"]
    assert "paragraph" in error["suggestion"] and "table" in error["suggestion"]


def test_other_validation_failures(session):
    assert "missing required argument 'a'" in session.call("add", b=1)["message"]
    assert "unknown argument 'c'" in session.call("add", a=1, c=2)["message"]
    below = session.call("add", a=1, b=-1)
    assert below["error"] == "invalid_input" and ">= 0" in below["suggestion"]
    assert session.call("add", a="x")["error"] == "invalid_input"


def test_unknown_tool_is_invalid_input_listing_tools(session):
    error = session.call("no_such_tool")
    assert error["error"] == "invalid_input" and "echo" in error["suggestion"]


def test_file_errors(session, tmp_path):
    assert session.call("read_head", path=str(tmp_path / "nope.txt"))["error"] == "file_not_found"
    locked = tmp_path / "locked.txt"
    locked.write_text("x")
    locked.chmod(0)
    try:
        if os.geteuid() != 0:  # root reads anything
            assert session.call("read_head", path=str(locked))["error"] == "permission_denied"
    finally:
        locked.chmod(0o600)


def test_file_uri_is_accepted(session, tmp_path):
    target = tmp_path / "한글 이름.txt"
    target.write_text("내용입니다", encoding="utf-8")
    assert session.call("read_head", path=target.as_uri()) == "내용입니다"
    remote = session.call("read_head", path="file://otherhost/etc/passwd")
    assert remote["error"] == "invalid_input" and "host" in remote["message"]


def test_before_call_deny_and_failing_after_call(session, caplog):
    denied = session.call("echo", text="forbidden")
    assert denied == {
        "error": "permission_denied",
        "message": "the audit pack refuses this text",
        "suggestion": "say something else",
    }
    # The audit pack's after-call hook raises on every call: logged, never fatal.
    assert session.call("echo", text="fine") == "fine"
    assert any("after-call hook of 'audit'" in r.getMessage() for r in caplog.records)
    import rhwp_fake_audit

    assert ("echo", False) in rhwp_fake_audit.SEEN and ("echo", True) in rhwp_fake_audit.SEEN


def test_configure_hook_receives_settings(installed, tmp_path):
    with pack_session("good", roots=[tmp_path], max_chars=5000):
        import rhwp_fake_good

        config = rhwp_fake_good.CONFIG[-1]
        assert config.max_chars == 5000 and config.roots == (tmp_path.resolve(),)


def test_cap_is_set_per_call_and_enforced(installed):
    with pack_session("good", max_chars=2000) as session:
        assert session.call("cap") == 2000
        error = session.call("big", n=5000)
        assert error["error"] == "too_large" and "2000" in error["message"]
        assert session.call("big", n=100) == "x" * 100


def test_paged_text_walks_the_whole_text(installed):
    with pack_session("good", max_chars=20_000) as session:
        pieces, offset = [], 0
        while True:
            page = session.call("long_text", offset=offset)
            last = page.rsplit("\n", 1)[-1]
            if not last.startswith("[cut at "):
                pieces.append(page)
                break
            # The page is the cap's worth of content; its cut line comes on top (and passes the cap check).
            assert len(page) - len(last) - 1 == 20_000
            assert "of 110000 characters; next: long_text(offset=" in last
            pieces.append(page[: -len(last) - 1])
            offset = int(last.split()[2])
        assert "".join(pieces) == "".join(f"line {i:05d}\n" for i in range(10000))


def test_paged_list_and_bad_offsets(installed):
    with pack_session("good") as session:
        page = session.call("numbers", offset=990, limit=50)
        assert page == {"numbers": list(range(990, 1000)), "total": 1000, "next_offset": None}
        assert session.call("numbers", offset=1001)["error"] == "invalid_input"
        assert session.call("long_text", offset=-1)["error"] == "invalid_input"
        assert session.call("long_text", max_chars=0)["error"] == "invalid_input"


def test_roots_refuse_outside_paths_symlinks_and_dotdot(installed, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "ok.txt").write_text("inside")
    outside = tmp_path / "secret.txt"
    outside.write_text("outside")
    (root / "link.txt").symlink_to(outside)
    (root / "dirlink").symlink_to(tmp_path)
    with pack_session("good", roots=[root]) as session:
        assert session.call("read_head", path=str(root / "ok.txt")) == "inside"
        assert session.call("read_head", path=(root / "ok.txt").as_uri()) == "inside"
        for sneaky in (
            str(outside),
            str(root / "link.txt"),
            str(root / ".." / "secret.txt"),
            str(root / "dirlink" / "secret.txt"),
            outside.as_uri(),
        ):
            error = session.call("read_head", path=sneaky)
            assert error["error"] == "permission_denied", sneaky
            assert str(root.resolve()) in error["suggestion"]


def test_root_that_is_not_a_directory_is_refused(installed, tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        pack_session("good", roots=[tmp_path / "missing"])


def test_tracing_prints_every_hook_call(installed, monkeypatch, capfd):
    monkeypatch.setenv("RHWP_MCP_TRACE", "1")
    with pack_session("good") as session:
        session.call("echo", text="hi")
    err = capfd.readouterr().err
    assert "trace: rhwp_mcp_register_tools[good]" in err
    assert "trace: rhwp_mcp_before_call[builtin:path-policy]" in err
    assert "trace: done echo in" in err


def test_build_server_is_public_and_lazy():
    from fastmcp import FastMCP

    import rhwp_mcp_host

    server = rhwp_mcp_host.build_server(entry_points=False, env={})
    assert isinstance(server, FastMCP)
