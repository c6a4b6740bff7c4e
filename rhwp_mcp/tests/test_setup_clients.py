"""`rhwp-mcp setup CLIENT` for every client on every OS layout, against a fake home and APPDATA.

Results are read back with real parsers as each client reads its file: `json` for the clients that
take plain JSON, `json5` (a superset of JSONC) for VS Code and Gemini CLI, `tomllib`/`tomli` for
Codex. The end-to-end test runs the installed command and starts what it wrote with the MCP SDK.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import tempfile
from pathlib import Path, PurePosixPath, PureWindowsPath

import anyio
import json5
import pytest
from rhwp_mcp.setup_clients import (
    CLIENTS,
    Layout,
    Runtime,
    ServerCommand,
    find_client,
    find_server_command,
    run,
)
from rhwp_mcp_host.cli import make_parser

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 CI leg
    import tomli as tomllib

PLATFORMS = ("darwin", "win32", "linux")
KEYS = [c.key for c in CLIENTS]


def _layout(tmp: Path, platform: str) -> Layout:
    home = tmp / "home"
    environ = {"APPDATA": str(tmp / "AppData" / "Roaming")} if platform == "win32" else {}
    return Layout(platform, home, environ)  # type: ignore[arg-type]


def _runtime(tmp: Path) -> Runtime:
    """A frozen build at a known path: the command written is then exactly that path."""
    return Runtime(
        platform="linux",
        executable=str(tmp / "bin" / "rhwp-mcp"),
        argv0=str(tmp / "bin" / "rhwp-mcp"),
        prefix=str(tmp / "bin"),
        frozen=True,
        environ={},
        scripts_dirs=(),
        installed=lambda _name: True,
        pack_distributions=list,
    )


def _setup(tmp: Path, platform: str, *argv: str) -> int:
    args = make_parser().parse_args(["setup", *argv])
    return run(args, layout=_layout(tmp, platform), runtime=_runtime(tmp))


def _path(tmp: Path, platform: str, key: str) -> Path:
    return Path(find_client(key).config_path(_layout(tmp, platform)))


def _read(key: str, path: Path) -> dict:
    text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    fmt = find_client(key).format
    if fmt == "json":
        return json.loads(text)  # strict: these clients run JSON.parse
    if fmt == "jsonc":
        return json5.loads(text)
    return tomllib.loads(text)


def _check_schema(key: str, data: dict, name: str, cmd: str, args: list[str]) -> None:
    """The client's own rules for a stdio entry."""
    client = find_client(key)
    entry = data[client.servers_key][name]
    assert entry["command"] == cmd and os.path.isabs(entry["command"])
    assert entry["args"] == args and all(isinstance(a, str) for a in entry["args"])
    if key == "vscode":
        assert entry["type"] == "stdio"  # required by VS Code's schema; servers at top level
        assert "mcpServers" not in data
    elif key == "claude-code":
        assert entry["type"] == "stdio"
    else:
        assert "type" not in entry
    if key == "codex":
        assert set(entry) <= {"command", "args", "env", "startup_timeout_sec", "tool_timeout_sec", "enabled"}


# --------------------------------------------------------------------------- where the files are


def test_paths_on_each_os_as_the_clients_document_them():
    win = Layout("win32", PureWindowsPath(r"C:\Users\kim"), {"APPDATA": r"C:\Users\kim\AppData\Roaming"})
    mac = Layout("darwin", PurePosixPath("/Users/kim"), {})
    lin = Layout("linux", PurePosixPath("/home/kim"), {})
    expected = {
        "claude-desktop": (
            r"C:\Users\kim\AppData\Roaming\Claude\claude_desktop_config.json",
            "/Users/kim/Library/Application Support/Claude/claude_desktop_config.json",
            "/home/kim/.config/Claude/claude_desktop_config.json",
        ),
        "claude-code": (r"C:\Users\kim\.claude.json", "/Users/kim/.claude.json", "/home/kim/.claude.json"),
        "cursor": (r"C:\Users\kim\.cursor\mcp.json", "/Users/kim/.cursor/mcp.json", "/home/kim/.cursor/mcp.json"),
        "vscode": (
            r"C:\Users\kim\AppData\Roaming\Code\User\mcp.json",
            "/Users/kim/Library/Application Support/Code/User/mcp.json",
            "/home/kim/.config/Code/User/mcp.json",
        ),
        "windsurf": (
            r"C:\Users\kim\.codeium\windsurf\mcp_config.json",
            "/Users/kim/.codeium/windsurf/mcp_config.json",
            "/home/kim/.codeium/windsurf/mcp_config.json",
        ),
        "gemini": (
            r"C:\Users\kim\.gemini\settings.json",
            "/Users/kim/.gemini/settings.json",
            "/home/kim/.gemini/settings.json",
        ),
        "codex": (r"C:\Users\kim\.codex\config.toml", "/Users/kim/.codex/config.toml", "/home/kim/.codex/config.toml"),
    }
    assert set(expected) == set(KEYS)
    for key, paths in expected.items():
        client = find_client(key)
        assert tuple(str(client.config_path(lay)) for lay in (win, mac, lin)) == paths, key


def test_environment_overrides_and_fallbacks():
    lin = Layout(
        "linux",
        PurePosixPath("/home/kim"),
        {"XDG_CONFIG_HOME": "/cfg", "CLAUDE_CONFIG_DIR": "/cc", "CODEX_HOME": "/cx", "GEMINI_CLI_HOME": "/gh"},
    )
    got = {c.key: str(c.config_path(lin)) for c in CLIENTS}
    assert got["claude-desktop"] == "/cfg/Claude/claude_desktop_config.json"
    assert got["vscode"] == "/cfg/Code/User/mcp.json"
    assert got["claude-code"] == "/cc/.claude.json"
    assert got["codex"] == "/cx/config.toml"
    assert got["gemini"] == "/gh/.gemini/settings.json"
    # A relative XDG_CONFIG_HOME is invalid (XDG spec) and ignored; Windows without APPDATA uses the profile's.
    assert str(find_client("vscode").config_path(Layout("linux", PurePosixPath("/h"), {"XDG_CONFIG_HOME": "x"}))) == (
        "/h/.config/Code/User/mcp.json"
    )
    bare = Layout("win32", PureWindowsPath(r"D:\u"), {})
    assert (
        str(find_client("claude-desktop").config_path(bare))
        == r"D:\u\AppData\Roaming\Claude\claude_desktop_config.json"
    )


def test_client_names_and_aliases():
    assert find_client("VS Code").key == "vscode" and find_client("gemini-cli").key == "gemini"
    assert find_client("Claude_Desktop").key == "claude-desktop"


# --------------------------------------------------------------------------- every client x every OS

SEED_JSON = """{
  "globalShortcut": "Ctrl+Space",
  "SERVERS": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me"],
      "env": {"A": "1"}
    }
  },
  "zeta": [1, 2, 3]
}
"""

SEED_JSONC = """// my MCP servers
{
\t"SERVERS": {
\t\t// a tool I use
\t\t"filesystem": {
\t\t\t"type": "stdio",
\t\t\t"command": "npx", // from npm
\t\t\t"args": ["-y", "@modelcontextprotocol/server-filesystem",],
\t\t},
\t},
\t/* inputs, for secrets */
\t"inputs": [],
}
"""

SEED_TOML = """# Codex settings
model = "o3"  # the model

[mcp_servers.filesystem]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem"]  # keep me

[profiles.fast]
model = "o4-mini"
"""


def _seed(key: str) -> str:
    client = find_client(key)
    if client.format == "toml":
        return SEED_TOML
    return (SEED_JSONC if client.format == "jsonc" else SEED_JSON).replace("SERVERS", client.servers_key)


def _only_insertions(old: str, new: str) -> bool:
    ops = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False).get_opcodes()
    return all(tag in ("equal", "insert") for tag, *_ in ops)


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("key", KEYS)
def test_fresh_file_is_created_with_parent_folders(tmp_path, key, platform, capsys):
    root = tmp_path / "docs"
    root.mkdir()
    path = _path(tmp_path, platform, key)
    assert not path.parent.exists()
    assert _setup(tmp_path, platform, key, "--root", str(root), "--root", str(tmp_path)) == 0
    data = _read(key, path)
    _check_schema(key, data, "hwp", str(tmp_path / "bin" / "rhwp-mcp"), ["--root", str(root), "--root", str(tmp_path)])
    assert list(data) == [find_client(key).servers_key]
    assert list(path.parent.glob("*.bak")) == []  # nothing to back up
    assert "created" in capsys.readouterr().err


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("key", KEYS)
def test_existing_entries_settings_and_comments_are_kept_idempotently(tmp_path, key, platform, capsys):
    path = _path(tmp_path, platform, key)
    path.parent.mkdir(parents=True)
    seed = _seed(key)
    path.write_text(seed, encoding="utf-8")
    before = _read(key, path)

    assert _setup(tmp_path, platform, key) == 0
    first = path.read_text(encoding="utf-8")
    after = _read(key, path)
    servers = find_client(key).servers_key
    assert after[servers]["filesystem"] == before[servers]["filesystem"]
    assert list(after[servers]) == [*before[servers], "hwp"]
    assert list(after) == list(before)  # key order kept
    assert {k: v for k, v in after.items() if k != servers} == {k: v for k, v in before.items() if k != servers}
    _check_schema(key, after, "hwp", str(tmp_path / "bin" / "rhwp-mcp"), [])
    if key != "codex":
        assert _only_insertions(seed, first), first  # every line of the user's file is still there
    for comment in ("// my MCP servers", "// a tool I use", "// from npm", "/* inputs, for secrets */", "# keep me"):
        if comment in seed:
            assert comment in first, comment
    backups = list(path.parent.glob(path.name + ".*.bak"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == seed

    capsys.readouterr()
    stat = path.stat()
    assert _setup(tmp_path, platform, key) == 0  # run twice = run once
    assert path.read_text(encoding="utf-8") == first and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert list(path.parent.glob(path.name + ".*.bak")) == backups
    assert "nothing changed" in capsys.readouterr().err


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("key", KEYS)
def test_dry_run_shows_a_diff_and_writes_nothing(tmp_path, key, platform, capsys):
    path = _path(tmp_path, platform, key)
    assert _setup(tmp_path, platform, key, "--dry-run") == 0
    out = capsys.readouterr().out
    assert not path.parent.exists()
    assert "--- /dev/null" in out and "+++ " + str(path) in out
    path.parent.mkdir(parents=True)
    seed = _seed(key)
    path.write_text(seed, encoding="utf-8")
    assert _setup(tmp_path, platform, key, "--dry-run", "--name", "hwp2") == 0
    diff = capsys.readouterr().out
    assert "hwp2" in diff and all(line[0] in " +-@" for line in diff.splitlines()[2:])
    assert path.read_text(encoding="utf-8") == seed
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


BROKEN = {
    "json": ('{\n  "mcpServers": {\n    "a": {"command": "x"},,\n  }\n}\n', 3),
    "jsonc": ('{\n  // fine\n  "servers": {\n    "a": {"command": "x" "args": []}\n  }\n}\n', 4),
    "toml": ('model = "o3"\n\n[mcp_servers.a]\ncommand = \n', 4),
}


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("key", KEYS)
def test_unparsable_file_is_left_untouched_with_a_positioned_error(tmp_path, key, platform, capsys):
    path = _path(tmp_path, platform, key)
    path.parent.mkdir(parents=True)
    text, line = BROKEN[find_client(key).format]
    path.write_text(text, encoding="utf-8")
    assert _setup(tmp_path, platform, key) == 1
    err = capsys.readouterr().err
    assert f"line {line}" in err and "col" in err and str(path) in err and "suggestion:" in err, err
    assert "Traceback" not in err
    assert path.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


@pytest.mark.parametrize("key", [c.key for c in CLIENTS if c.format == "json"])
def test_plain_json_clients_refuse_comments_they_could_not_read(tmp_path, key, capsys):
    path = _path(tmp_path, "linux", key)
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "a": 1, // note\n  "b": 2\n}\n', encoding="utf-8")
    assert _setup(tmp_path, "linux", key) == 1
    err = capsys.readouterr().err
    assert "line 2, column 11" in err and "comment" in err


def test_unknown_client_lists_the_known_ones(tmp_path, capsys):
    assert _setup(tmp_path, "linux", "notepad") == 2
    err = capsys.readouterr().err
    assert "notepad" in err and all(key in err for key in KEYS)
    assert _setup(tmp_path, "linux") == 2  # no client at all


def test_list_shows_every_client_and_its_file(tmp_path, capsys):
    _setup(tmp_path, "win32", "cursor")
    capsys.readouterr()
    assert _setup(tmp_path, "win32", "--list") == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == KEYS
    assert any("has hwp" in line and "cursor" in line for line in out)
    assert any(str(tmp_path / "AppData" / "Roaming" / "Claude") in line for line in out)


# --------------------------------------------------------------------------- editing details


def test_an_existing_entry_is_updated_and_keeps_its_own_keys(tmp_path):
    path = _path(tmp_path, "linux", "vscode")
    path.parent.mkdir(parents=True)
    path.write_text(
        '{\n  "servers": {\n    "hwp": {\n      "command": "old", // stale\n      "env": {"X": "1"},\n'
        '      "args": ["--root", "/gone"]\n    }\n  }\n}\n',
        encoding="utf-8",
    )
    assert _setup(tmp_path, "linux", "vscode") == 0
    entry = _read("vscode", path)["servers"]["hwp"]
    assert entry == {"command": str(tmp_path / "bin" / "rhwp-mcp"), "env": {"X": "1"}, "args": [], "type": "stdio"}
    assert "// stale" in path.read_text(encoding="utf-8")


def test_crlf_tabs_bom_and_compact_files_keep_their_style(tmp_path):
    path = _path(tmp_path, "win32", "cursor")
    path.parent.mkdir(parents=True)
    path.write_bytes('\ufeff{\r\n\t"mcpServers": {\r\n\t\t"a": {"command": "x"}\r\n\t}\r\n}\r\n'.encode())
    assert _setup(tmp_path, "win32", "cursor") == 0
    raw = path.read_bytes().decode("utf-8")
    assert raw.startswith("\ufeff") and "\n" not in raw.replace("\r\n", "")
    assert '\r\n\t\t"hwp": {\r\n\t\t\t"command": ' in raw
    assert json.loads(raw[1:])["mcpServers"]["a"] == {"command": "x"}

    compact = _path(tmp_path, "linux", "windsurf")
    compact.parent.mkdir(parents=True)
    compact.write_text('{"mcpServers": {}, "theme": "dark"}', encoding="utf-8")
    assert _setup(tmp_path, "linux", "windsurf") == 0
    text = compact.read_text(encoding="utf-8")
    assert "\n" not in text and json.loads(text)["theme"] == "dark"


def test_missing_or_null_servers_key_and_empty_file(tmp_path):
    path = _path(tmp_path, "darwin", "gemini")
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "theme": "Dracula",\n  "mcpServers": null\n}\n', encoding="utf-8")
    assert _setup(tmp_path, "darwin", "gemini") == 0
    assert _read("gemini", path)["theme"] == "Dracula"
    path.write_text("   \n", encoding="utf-8")
    assert _setup(tmp_path, "darwin", "gemini") == 0
    assert list(_read("gemini", path)["mcpServers"]) == ["hwp"]


def test_wrong_shapes_are_refused_not_clobbered(tmp_path, capsys):
    path = _path(tmp_path, "linux", "cursor")
    path.parent.mkdir(parents=True)
    for text in ('{"mcpServers": []}', "[1, 2]"):
        path.write_text(text, encoding="utf-8")
        assert _setup(tmp_path, "linux", "cursor") == 1
        assert path.read_text(encoding="utf-8") == text
        assert "not" in capsys.readouterr().err


def test_a_symlinked_config_is_written_through_and_stays_a_link(tmp_path):
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text('{"mcpServers": {}}\n', encoding="utf-8")
    link = _path(tmp_path, "linux", "cursor")
    link.parent.mkdir(parents=True)
    try:
        link.symlink_to(target)
    except OSError:  # Windows without the symlink privilege
        pytest.skip("cannot create symlinks here")
    assert _setup(tmp_path, "linux", "cursor") == 0
    assert link.is_symlink() and "hwp" in json.loads(target.read_text(encoding="utf-8"))["mcpServers"]


def test_bad_name_and_missing_root_are_usage_errors(tmp_path, capsys):
    assert _setup(tmp_path, "linux", "codex", "--name", "my server") == 2
    assert _setup(tmp_path, "linux", "codex", "--root", str(tmp_path / "nope")) == 2
    assert not _path(tmp_path, "linux", "codex").exists()


def test_config_flag_edits_another_file_with_the_clients_schema(tmp_path):
    workspace = tmp_path / "proj" / ".vscode" / "mcp.json"
    assert _setup(tmp_path, "linux", "vscode", "--config", str(workspace)) == 0
    assert _read("vscode", workspace)["servers"]["hwp"]["type"] == "stdio"


# --------------------------------------------------------------------------- which command


def _rt(tmp: Path, **kw) -> Runtime:
    base = {
        "platform": "linux",
        "executable": str(tmp / "venv" / "bin" / "python"),
        "argv0": "",
        "prefix": str(tmp / "venv"),
        "frozen": False,
        "environ": {"PATH": ""},
        "scripts_dirs": (str(tmp / "venv" / "bin"),),
        "installed": lambda name: name == "rhwp-mcp",
        "pack_distributions": lambda: ["rhwp-mcp-tools-core", "rhwp-mcp-tools-view"],
    }
    base.update(kw)
    return Runtime(**base)  # type: ignore[arg-type]


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_command_is_this_installations_script(tmp_path):
    script = _touch(tmp_path / "venv" / "bin" / "rhwp-mcp")
    _touch(tmp_path / "venv" / "CACHEDIR.TAG")  # `uv venv` tags its venvs; they are no cache of uvx
    assert find_server_command(_rt(tmp_path)) == ServerCommand(str(script), (), find_server_command(_rt(tmp_path)).how)
    # Started as the script (sys.argv[0]), that script wins, even from elsewhere (pip install --user).
    other = _touch(tmp_path / "user" / "bin" / "rhwp-mcp")
    assert find_server_command(_rt(tmp_path, argv0=str(other))).command == str(other)
    # Windows: Scripts\rhwp-mcp.exe next to python.exe.
    exe = _touch(tmp_path / "win" / "Scripts" / "rhwp-mcp.exe")
    win = _rt(tmp_path, platform="win32", executable=str(tmp_path / "win" / "Scripts" / "python.exe"), scripts_dirs=())
    assert find_server_command(win).command == str(exe)


def test_command_without_a_script_is_python_dash_m(tmp_path):
    found = find_server_command(_rt(tmp_path))
    assert (found.command, found.args) == (str(tmp_path / "venv" / "bin" / "python"), ("-m", "rhwp_mcp_host"))


def test_command_of_a_frozen_build_is_the_executable(tmp_path):
    found = find_server_command(_rt(tmp_path, frozen=True, executable=str(tmp_path / "dist" / "rhwp-mcp")))
    assert (found.command, found.args) == (str(tmp_path / "dist" / "rhwp-mcp"), ())


def test_command_from_uvx_cache_is_uvx(tmp_path):
    cache = tmp_path / "cache" / "uv"
    _touch(cache / "CACHEDIR.TAG")
    env = cache / "archive-v0" / "abc123"
    _touch(env / "bin" / "rhwp-mcp")  # present, but uv may delete it any time
    uv = _touch(tmp_path / "local" / "bin" / "uv")
    uvx = _touch(tmp_path / "local" / "bin" / "uvx")
    rt = _rt(tmp_path, prefix=str(env), executable=str(env / "bin" / "python"), environ={"UV": str(uv), "PATH": ""})
    found = find_server_command(rt)
    assert (found.command, found.args) == (str(uvx), ("rhwp-mcp",)) and "uvx" in found.how
    # Only the host's distribution installed: name it and every pack explicitly.
    found = find_server_command(_rt(tmp_path, prefix=str(env), environ={"UV": str(uv)}, installed=lambda _n: False))
    assert found.args == (
        "--from",
        "rhwp-mcp-host",
        "--with",
        "rhwp-mcp-tools-core",
        "--with",
        "rhwp-mcp-tools-view",
        "rhwp-mcp",
    )
    # No uvx beside uv: uv's own `tool run`. UV_CACHE_DIR marks the cache even without the tag.
    uvx.unlink()
    (cache / "CACHEDIR.TAG").unlink()
    rt = _rt(tmp_path, prefix=str(env), environ={"UV": str(uv), "UV_CACHE_DIR": str(cache)})
    assert find_server_command(rt).args == ("tool", "run", "rhwp-mcp")


# --------------------------------------------------------------------------- end to end


def command() -> list[str]:
    """The installed `rhwp-mcp` script of this environment (else the host's module)."""
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


@pytest.fixture
def subprocess_env() -> dict[str, str]:
    """The environment of a server subprocess: this one's, serving the core pack only (the quickest to start)."""
    env = {k: v for k, v in os.environ.items() if k not in ("RHWP_MCP_DISABLE", "RHWP_MCP_TRACE", "RHWP_MCP_MAX_CHARS")}
    return {**env, "RHWP_MCP_ENABLE": "core"}


@pytest.mark.e2e
def test_installed_command_writes_a_config_whose_server_starts(tmp_path, subprocess_env):
    """The real `rhwp-mcp setup` with HOME in a temporary folder; then the written command serves."""
    import subprocess

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    home = tmp_path / "home"
    home.mkdir()
    # Every variable a layout reads points into tmp: the real user's files are never touched.
    env = {**subprocess_env, "HOME": str(home), "USERPROFILE": str(home), "APPDATA": str(home / "AppData" / "Roaming")}
    env.pop("XDG_CONFIG_HOME", None)
    docs = tmp_path / "docs"
    docs.mkdir()
    done = subprocess.run(
        [*command(), "setup", "claude-desktop", "--root", str(docs)],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(Path(__file__).parent),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    current = Layout.current()
    config = Path(find_client("claude-desktop").config_path(Layout(current.platform, home, env)))
    entry = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]["hwp"]
    assert os.path.isabs(entry["command"]) and entry["args"][-2:] == ["--root", str(docs)]
    if command()[0].endswith("rhwp-mcp"):
        assert entry["command"] == command()[0]  # the very script that ran

    async def main() -> set[str]:
        # Like a client: the command as written, a PATH that holds nothing of ours.
        server_env = {**env, "PATH": "/usr/bin:/bin"}
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=server_env, cwd=str(home))
        with tempfile.TemporaryFile("w+") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
        return {t.name for t in listed.tools}

    names = anyio.run(main)
    assert {"parse_hwp_summary", "extract_text"} <= names
