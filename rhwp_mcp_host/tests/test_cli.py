"""The `rhwp-mcp` command as a user runs it: packs, call, zero packs, a clean stdout."""

from __future__ import annotations

import json
import subprocess
import types

import pytest
from _servers import command, cwd
from rhwp_mcp_host.cli import fill_path_parameters, parse_call_arguments, split_call_arguments

from rhwp_mcp_host import cli


def run(args, env, stdin=b""):
    return subprocess.run(command() + args, input=stdin, capture_output=True, env=env, cwd=cwd(), timeout=120)


def test_call_arguments_parse_as_json_when_they_can():
    assert parse_call_arguments(["path=a.hwp", "limit=5", "flag=true", 'kind="5"', "x=[1,2]", "e="]) == {
        "path": "a.hwp",
        "limit": 5,
        "flag": True,
        "kind": "5",
        "x": [1, 2],
        "e": "",
    }


def test_bare_call_arguments_fill_the_document_parameters_in_order():
    named, bare = split_call_arguments(["a.hwp", "format=table", "./x=1.hwp", "b.hwpx"])
    assert (named, bare) == ({"format": "table"}, ["a.hwp", "./x=1.hwp", "b.hwpx"])
    arguments = {"format": "table"}
    fill_path_parameters(arguments, ["a.hwp", "b.hwpx"], ("old", "new"))
    assert arguments == {"format": "table", "old": "a.hwp", "new": "b.hwpx"}
    # A parameter named already is skipped; one too many is an error that names the parameters.
    arguments = {"old": "a.hwp"}
    fill_path_parameters(arguments, ["b.hwpx"], ("old", "new"))
    assert arguments == {"old": "a.hwp", "new": "b.hwpx"}
    with pytest.raises(ValueError, match="takes old, new"):
        fill_path_parameters({}, ["a", "b", "c"], ("old", "new"))
    with pytest.raises(ValueError, match="takes no document"):
        fill_path_parameters({}, ["a"], ())


def test_packs_json_lists_status_errors_and_fixes(subprocess_env):
    subprocess_env.pop("RHWP_MCP_ENABLE")
    done = run(["packs", "--json"], subprocess_env)
    assert done.returncode == 0, done.stderr
    packs = {p["name"]: p for p in json.loads(done.stdout)["packs"]}
    assert packs["good"]["status"] == "loaded" and "echo" in packs["good"]["tools"]
    assert packs["good"]["distribution"] == "fake-good" and packs["good"]["version"] == "0.1"
    assert packs["broken-import"]["status"] == "failed" and "--force-reinstall" in packs["broken-import"]["fix"]
    assert packs["typo"]["status"] == "failed"
    assert any("zz-dup" in c for c in packs["good"]["conflicts"])


def test_packs_human_listing_and_disable(subprocess_env):
    subprocess_env.pop("RHWP_MCP_ENABLE")
    done = run(["packs", "--disable", "typo,broken-import"], subprocess_env)
    out = done.stdout.decode()
    assert "good  [loaded]  fake-good 0.1" in out
    assert "typo  [disabled]" in out and "broken-import  [disabled]" in out
    assert "conflict: tool 'echo' is offered by packs 'good' and 'zz-dup'" in out


def test_call_prints_result_and_exits_zero(subprocess_env):
    done = run(["call", "add", "a=2", "b=40"], subprocess_env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"sum": 42}
    done = run(["call", "echo", "text=안녕하세요"], subprocess_env)
    assert done.stdout.decode().strip() == "안녕하세요"


def test_call_output_writes_the_result_to_a_file(subprocess_env, tmp_path):
    """--output FILE: the text (or, for a tool that sends a picture, its bytes) goes to the file."""
    out = tmp_path / "answer.txt"
    done = run(["call", "echo", "text=안녕하세요", "--output", str(out)], subprocess_env)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == "안녕하세요\n"
    assert done.stdout == b"" and b"wrote" in done.stderr
    # A file that cannot be written is an error that says so, nothing half-done.
    done = run(["call", "echo", "text=x", "-o", str(tmp_path / "missing" / "a.txt")], subprocess_env)
    assert done.returncode == 1 and b"cannot write" in done.stderr


def test_call_error_prints_the_error_json_and_exits_one(subprocess_env, tmp_path):
    done = run(["call", "pick", "kind=nope"], subprocess_env)
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"] == "invalid_input"
    outside = tmp_path / "x.txt"
    outside.write_text("x")
    inside = tmp_path / "in"
    inside.mkdir()
    done = run(["--root", str(inside), "call", "read_head", f"path={outside}"], subprocess_env)
    assert done.returncode == 1 and json.loads(done.stdout)["error"] == "permission_denied"


def test_roots_takes_several_folders_at_once(subprocess_env, tmp_path):
    """--roots A B is --root A --root B (a bundle's folder list arrives as one argument per folder)."""
    a, b, outside = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for folder in (a, b, outside):
        folder.mkdir()
        (folder / "x.txt").write_text("text of " + folder.name)
    for folder, code in ((a, 0), (b, 0), (outside, 1)):
        done = run(["call", "read_head", f"path={folder / 'x.txt'}", "--roots", str(a), str(b)], subprocess_env)
        assert done.returncode == code, done.stdout
    done = run(["call", "read_head", f"path={outside / 'x.txt'}", "--roots", str(a), str(b)], subprocess_env)
    assert json.loads(done.stdout)["error"] == "permission_denied"


def test_bad_root_is_a_usage_error(subprocess_env, tmp_path):
    done = run(["call", "echo", "text=x", "--root", str(tmp_path / "missing")], subprocess_env)
    assert done.returncode == 2 and b"not a directory" in done.stderr


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def converse(env, request):
    """Raw JSON-RPC over the real stdio pipes: initialize, one request, then close stdin.

    Returns every stdout line (all must be JSON-RPC), the exit code and stderr."""
    lines = []
    # As a context manager the process's pipes are closed and the process reaped whatever happens.
    with subprocess.Popen(
        command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd()
    ) as process:
        try:
            for message in (INIT, INITIALIZED, request):
                process.stdin.write(json.dumps(message).encode() + b"\n")
                process.stdin.flush()
                if "id" in message:
                    while True:
                        line = process.stdout.readline()
                        assert line, process.stderr.read().decode()
                        lines.append(line.decode())
                        if json.loads(line).get("id") == message["id"]:
                            break
            process.stdin.close()  # the client goes away: the server must exit by itself, cleanly
            process.wait(timeout=30)
            rest, err = process.stdout.read(), process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
    lines += rest.decode().splitlines()
    return [json.loads(line) for line in lines if line.strip()], process.returncode, err.decode()


def test_zero_packs_starts_lists_nothing_and_says_why(subprocess_env):
    subprocess_env["RHWP_MCP_ENABLE"] = "none-of-these"
    replies, code, err = converse(subprocess_env, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert code == 0
    assert all(r.get("jsonrpc") == "2.0" for r in replies)  # nothing but protocol on stdout
    assert next(r for r in replies if r.get("id") == 2)["result"]["tools"] == []
    assert "0 tools" in err


def test_stdout_is_protocol_only_even_when_a_pack_prints(subprocess_env):
    subprocess_env["RHWP_MCP_ENABLE"] = "printer"
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hello", "arguments": {}}}
    replies, code, err = converse(subprocess_env, call)
    assert code == 0 and all(r["jsonrpc"] == "2.0" for r in replies)
    result = next(r for r in replies if r.get("id") == 2)["result"]
    assert result["content"][0]["text"] == "hello"
    assert "prints to stdout at import time" in err


class _EntryPoint:
    """An entry point of the group rhwp.mcp_commands, as importlib.metadata gives it."""

    def __init__(self, name: str, obj: object) -> None:
        self.name, self.value, self._obj = name, f"fake_{name}:command", obj

    def load(self) -> object:
        if isinstance(self._obj, Exception):
            raise self._obj
        return self._obj


def test_a_command_missing_its_distribution_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setattr(cli, "_command_entry_points", lambda: [])
    for argv in (["setup", "claude-desktop", "--root", "/nowhere"], ["setup", "--list"], ["--root", "/x", "setup"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.splitlines() == [
            "rhwp-mcp: `rhwp-mcp setup` comes with the rhwp-mcp distribution, which is not installed: "
            "pip install rhwp-mcp (or run: uvx rhwp-mcp setup ...)"
        ], err
    with pytest.raises(SystemExit) as exited:  # other unknown arguments stay argparse's usage errors
        cli.main(["packs", "--bogus"])
    assert exited.value.code == 2 and "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_commands_of_other_distributions_are_found_by_entry_point(monkeypatch, capsys):
    ran: list[object] = []

    def add_parser(sub):
        parser = sub.add_parser("setup", help="a stand-in")
        parser.add_argument("client")
        return parser

    def run(args):
        ran.append(args.client)
        return 7

    setup = types.SimpleNamespace(add_parser=add_parser, run=run)
    broken = _EntryPoint("broken", ImportError("no module named fake_broken"))
    monkeypatch.setattr(cli, "_command_entry_points", lambda: [broken, _EntryPoint("setup", setup)])
    assert cli.main(["setup", "cursor"]) == 7 and ran == ["cursor"]
    err = capsys.readouterr().err
    assert "the command 'broken' (fake_broken:command) cannot be loaded and is left out" in err, err
    with pytest.raises(SystemExit):  # the stand-in's own arguments, not the placeholder's
        cli.main(["setup", "cursor", "--list"])
