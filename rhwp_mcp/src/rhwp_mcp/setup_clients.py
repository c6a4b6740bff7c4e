"""``rhwp-mcp setup CLIENT``: write this server into an MCP client's configuration file.

What is written: a stdio server entry (default name ``hwp``) whose command is the *absolute* path
of the command that started this very process, because clients start servers with a reduced
``PATH`` (Claude Desktop on macOS gets launchd's ``/usr/bin:/bin:...``, not the shell's).

Where, and in which shape (checked against each client's documentation, 2026):

================  ==========================================================  =============  ===========
client            file (macOS / Windows / Linux)                              format         servers key
================  ==========================================================  =============  ===========
claude-desktop    ``~/Library/Application Support/Claude/`` /                 JSON           mcpServers
                  ``%APPDATA%\\Claude\\`` / ``$XDG_CONFIG_HOME/Claude/``
                  + ``claude_desktop_config.json``
claude-code       ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``)   JSON           mcpServers
cursor            ``~/.cursor/mcp.json``                                      JSON           mcpServers
vscode            ``~/Library/Application Support/Code/User/`` /              JSONC          servers
                  ``%APPDATA%\\Code\\User\\`` / ``$XDG_CONFIG_HOME/Code/User/``
                  + ``mcp.json``
windsurf          ``~/.codeium/windsurf/mcp_config.json``                     JSON           mcpServers
gemini            ``~/.gemini/settings.json`` (``$GEMINI_CLI_HOME/.gemini``)  JSONC          mcpServers
codex             ``~/.codex/config.toml`` (``$CODEX_HOME/config.toml``)      TOML           mcp_servers
================  ==========================================================  =============  ===========

``~`` is the user's home (``%USERPROFILE%`` on Windows). Claude Desktop has no official Linux
build; the community builds are Electron apps whose settings live in Electron's ``userData``
directory, ``$XDG_CONFIG_HOME/Claude`` (``~/.config/Claude``), which is what we use. VS Code's user
``mcp.json`` sits beside its user ``settings.json``; it is read as JSONC (comments and trailing
commas allowed) and wants ``"type": "stdio"`` under the top-level ``servers``. Gemini CLI strips
comments from ``settings.json`` before parsing, so it is JSONC too. Claude Code's user-scope
servers are the top-level ``mcpServers`` of ``~/.claude.json`` (``claude mcp add -s user`` writes
the same, with ``"type": "stdio"``). Claude Desktop, Claude Code, Cursor and Windsurf read plain
JSON: a file of theirs holding a comment is reported, not edited. Codex keeps
``[mcp_servers.NAME]`` tables with ``command`` and ``args`` in TOML.

How the file is changed:

* JSON and JSONC are edited *in place*: a small parser here records where every value starts and
  ends, and only the text of our entry is inserted or replaced; every other byte (key order,
  indentation, comments, trailing commas, line endings, a BOM) stays as it was. An existing entry
  of the same name keeps its other keys (``env``, ``disabled``...): only ``type``/``command``/``args``
  are set. TOML goes through ``tomlkit``, which keeps comments and layout.
* Run twice = run once: when the entry already says what we would write, nothing is written and no
  backup is made. Otherwise the old file is copied to ``FILE.YYYYmmdd-HHMMSS.bak`` first. A
  timestamped name, not ``FILE.bak``: a second change (another ``--root``) must not overwrite the
  backup of the user's original file. The new content is written to a temporary file in the same
  directory and renamed over the old one, keeping its mode (``~/.claude.json`` is private); a
  symlinked config (dotfiles) is written through to its target.
* ``--dry-run`` prints a unified diff and writes nothing. A file that does not parse is left
  untouched and the error names its line and column.

The command written (:func:`find_server_command`):

* a frozen build (PyInstaller sets ``sys.frozen``): ``sys.executable``, the standalone binary;
* an environment inside a cache directory (one marked by ``CACHEDIR.TAG``, as uv's cache is, or
  under ``$UV_CACHE_DIR``): that is ``uvx``'s ephemeral environment, which uv may delete at any
  time, so the entry runs ``uvx rhwp-mcp`` instead (``uvx`` by absolute path: the sibling of
  ``$UV``, which uv sets for the processes it starts, or ``uvx`` found on ``PATH``). It names the
  ``rhwp-mcp`` distribution when that is installed, otherwise ``--from rhwp-mcp-host`` plus
  ``--with`` for every installed pack distribution. uvx resolves from the package index: for
  local wheels, install with ``pipx``/``uv tool install`` and run ``setup`` from there;
* otherwise the ``rhwp-mcp`` script of this installation: the script this process was started as
  (``sys.argv[0]``), else the one in this environment's scripts directory (a venv, pipx or
  ``uv tool install`` environment), else next to ``sys.executable``, else the user scheme's;
  failing all, ``sys.executable -m rhwp_mcp_host``. Paths are made absolute, never resolved
  through symlinks (a venv's python is a symlink that must stay one).

The code takes the platform and the environment as parameters (:class:`Layout`), so every
(client x OS) layout can be exercised on one machine against a fake home and ``APPDATA``. Paths
are built in the flavour of the given home: a ``PureWindowsPath`` home yields the real-looking
Windows paths, a local ``Path`` home (a temporary directory) yields files one can write.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any, Literal

from rhwp_mcp_host.plugin.errors import INVALID_INPUT, PERMISSION_DENIED
from rhwp_mcp_host.plugin.hookspecs import ENTRY_POINT_GROUP

SCRIPT_NAME = "rhwp-mcp"
HOST_DISTRIBUTION = "rhwp-mcp-host"
HOST_MODULE = "rhwp_mcp_host"
DEFAULT_NAME = "hwp"
Platform = Literal["darwin", "win32", "linux"]
Format = Literal["json", "jsonc", "toml"]

# Codex's rule for server names (the strictest of the seven); it keeps names portable across clients.
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


class SetupError(Exception):
    """A failure with the host's vocabulary: a code, what went wrong, and what to do about it."""

    def __init__(self, message: str, suggestion: str = "", *, code: str = INVALID_INPUT, usage: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.suggestion = suggestion
        self.usage = usage  # exit status 2, like argparse's own errors

    def lines(self) -> list[str]:
        return [self.message] + ([f"suggestion: {self.suggestion}"] if self.suggestion else [])


# --------------------------------------------------------------------------- where the files are


@dataclass(frozen=True)
class Layout:
    """The platform and the environment that decide where a client keeps its configuration."""

    platform: Platform
    home: PurePath
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> Layout:
        platform: Platform = "darwin" if sys.platform == "darwin" else "win32" if os.name == "nt" else "linux"
        return cls(platform, Path.home(), dict(os.environ))

    def path(self, value: str) -> PurePath:
        """A path from the environment, in the flavour of ``home`` (Windows paths for a Windows layout)."""
        return type(self.home)(value)

    def env_dir(self, name: str) -> PurePath | None:
        value = self.environ.get(name, "")
        # XDG says a relative value is invalid and must be ignored; the others follow suit.
        return self.path(value) if value and self.path(value).is_absolute() else None

    def appdata(self) -> PurePath:
        return self.env_dir("APPDATA") or self.home / "AppData" / "Roaming"

    def xdg_config(self) -> PurePath:
        return self.env_dir("XDG_CONFIG_HOME") or self.home / ".config"

    def app_config(self) -> PurePath:
        """Where desktop apps (Electron's ``userData``) keep settings on this platform."""
        if self.platform == "darwin":
            return self.home / "Library" / "Application Support"
        if self.platform == "win32":
            return self.appdata()
        return self.xdg_config()


@dataclass(frozen=True)
class Client:
    key: str
    title: str
    format: Format
    servers_key: str
    locate: Callable[[Layout], PurePath]
    entry_type: str | None = None  # a "type": "stdio" member, where the client's schema has one
    aliases: tuple[str, ...] = ()

    def config_path(self, layout: Layout) -> PurePath:
        return self.locate(layout)


CLIENTS: tuple[Client, ...] = (
    Client(
        "claude-desktop",
        "Claude Desktop",
        "json",
        "mcpServers",
        lambda lay: lay.app_config() / "Claude" / "claude_desktop_config.json",
        aliases=("claude",),
    ),
    Client(
        "claude-code",
        "Claude Code",
        "json",
        "mcpServers",
        lambda lay: (lay.env_dir("CLAUDE_CONFIG_DIR") or lay.home) / ".claude.json",
        entry_type="stdio",
    ),
    Client("cursor", "Cursor", "json", "mcpServers", lambda lay: lay.home / ".cursor" / "mcp.json"),
    Client(
        "vscode",
        "VS Code",
        "jsonc",
        "servers",
        lambda lay: lay.app_config() / "Code" / "User" / "mcp.json",
        entry_type="stdio",
        aliases=("vs-code", "code"),
    ),
    Client(
        "windsurf",
        "Windsurf",
        "json",
        "mcpServers",
        lambda lay: lay.home / ".codeium" / "windsurf" / "mcp_config.json",
    ),
    Client(
        "gemini",
        "Gemini CLI",
        "jsonc",
        "mcpServers",
        lambda lay: (lay.env_dir("GEMINI_CLI_HOME") or lay.home) / ".gemini" / "settings.json",
        aliases=("gemini-cli",),
    ),
    Client(
        "codex",
        "Codex",
        "toml",
        "mcp_servers",
        lambda lay: (lay.env_dir("CODEX_HOME") or lay.home / ".codex") / "config.toml",
    ),
)


def find_client(name: str) -> Client:
    wanted = name.strip().lower().replace("_", "-").replace(" ", "-")
    for client in CLIENTS:
        if wanted == client.key or wanted in client.aliases:
            return client
    raise SetupError(
        f"unknown MCP client {name!r}",
        "use one of: " + ", ".join(c.key for c in CLIENTS) + " (rhwp-mcp setup --list shows their files)",
        usage=True,
    )


# --------------------------------------------------------------------------- the command to write


@dataclass(frozen=True)
class ServerCommand:
    command: str
    args: tuple[str, ...]
    how: str  # one line for the user: why this command


@dataclass(frozen=True)
class Runtime:
    """What this process knows about how it was started (``Runtime.current()``; tests make their own)."""

    platform: Platform
    executable: str
    argv0: str
    prefix: str
    frozen: bool
    environ: Mapping[str, str]
    scripts_dirs: tuple[str, ...]
    installed: Callable[[str], bool]
    pack_distributions: Callable[[], list[str]]

    @classmethod
    def current(cls) -> Runtime:
        scripts = [sysconfig.get_path("scripts")]
        try:
            scripts.append(sysconfig.get_path("scripts", f"{os.name}_user"))
        except KeyError:  # a scheme this Python lacks
            pass
        return cls(
            platform=Layout.current().platform,
            executable=sys.executable,
            argv0=sys.argv[0] if sys.argv else "",
            prefix=sys.prefix,
            frozen=bool(getattr(sys, "frozen", False)),
            environ=dict(os.environ),
            scripts_dirs=tuple(s for s in scripts if s),
            installed=_installed,
            pack_distributions=_pack_distributions,
        )


def _installed(distribution: str) -> bool:
    from importlib import metadata

    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def _pack_distributions() -> list[str]:
    from importlib import metadata

    packs = metadata.entry_points(group=ENTRY_POINT_GROUP)
    return sorted({ep.dist.name for ep in packs if ep.dist is not None})


def _is_file(path: str) -> bool:
    return bool(path) and os.path.isfile(path)


def _in_cache(prefix: str, environ: Mapping[str, str]) -> bool:
    """Whether the environment lives in a cache directory (uvx's ephemeral environments do)."""
    here = Path(os.path.abspath(prefix))
    cache = environ.get("UV_CACHE_DIR")
    if cache and (here == Path(os.path.abspath(cache)) or Path(os.path.abspath(cache)) in here.parents):
        return True
    # CACHEDIR.TAG (bford.net/cachedir) marks a directory whose content may be deleted at any time.
    # Only the ancestors count: uv also tags the virtual environments it creates, which persist.
    return any((d / "CACHEDIR.TAG").is_file() for d in here.parents)


def _uvx(runtime: Runtime) -> tuple[str, tuple[str, ...], bool]:
    """The absolute uvx (or ``uv tool run``) command, and whether it was found."""
    exe = ".exe" if runtime.platform == "win32" else ""
    uv = runtime.environ.get("UV", "")
    if uv:
        sibling = os.path.join(os.path.dirname(uv), "uvx" + exe)
        if _is_file(sibling):
            return os.path.abspath(sibling), (), True
        if _is_file(uv):
            return os.path.abspath(uv), ("tool", "run"), True
    found = shutil.which("uvx", path=runtime.environ.get("PATH"))
    if found:
        return os.path.abspath(found), (), True
    return "uvx", (), False


def find_server_command(runtime: Runtime | None = None) -> ServerCommand:
    """The command that starts this very server, as a client with a bare ``PATH`` can run it."""
    rt = runtime or Runtime.current()
    exe = ".exe" if rt.platform == "win32" else ""
    if rt.frozen:
        return ServerCommand(os.path.abspath(rt.executable), (), "this standalone executable")
    if _in_cache(rt.prefix, rt.environ):
        uvx, prefix, found = _uvx(rt)
        if rt.installed(SCRIPT_NAME):
            spec: tuple[str, ...] = (SCRIPT_NAME,)
        else:
            packs = tuple(a for d in rt.pack_distributions() for a in ("--with", d))
            spec = ("--from", HOST_DISTRIBUTION, *packs, SCRIPT_NAME)
        how = "uvx (this environment is in uv's cache, which uv may clear)"
        if not found:
            how += "; uvx was not found, so the client must find it on its own PATH"
        return ServerCommand(uvx, (*prefix, *spec), how)
    candidates: list[str] = []
    argv0 = rt.argv0
    if argv0 and Path(argv0).name.lower().removesuffix(".exe") == SCRIPT_NAME:
        candidates += [argv0, argv0 + exe] if exe and not argv0.lower().endswith(".exe") else [argv0]
    for directory in (*rt.scripts_dirs[:1], os.path.dirname(rt.executable), *rt.scripts_dirs[1:]):
        if directory:
            candidates.append(os.path.join(directory, SCRIPT_NAME + exe))
    for candidate in candidates:
        if _is_file(candidate):
            return ServerCommand(os.path.abspath(candidate), (), f"the {SCRIPT_NAME} script of this installation")
    return ServerCommand(
        os.path.abspath(rt.executable), ("-m", HOST_MODULE), f"this Python (no {SCRIPT_NAME} script was found)"
    )


# --------------------------------------------------------------------------- JSON and JSONC, in place


class ParseFailure(Exception):
    def __init__(self, message: str, offset: int, text: str) -> None:
        self.line = text.count("\n", 0, offset) + 1
        self.column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"{message} at line {self.line}, column {self.column}")
        self.reason = message


@dataclass
class Node:
    kind: Literal["object", "array", "scalar"]
    start: int
    end: int
    value: Any
    members: list[Member] = field(default_factory=list)


@dataclass
class Member:
    key: str
    key_start: int
    node: Node
    comma: int | None = None  # offset of the comma after the value, if any


_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WS = " \t\r\n"


class _Parser:
    """JSON (``comments=False``) or JSONC (comments, trailing commas) with the span of every value."""

    def __init__(self, text: str, *, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.pos = 0

    def fail(self, message: str, offset: int | None = None) -> ParseFailure:
        return ParseFailure(message, self.pos if offset is None else offset, self.text)

    def skip(self) -> None:
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in _WS:
                self.pos += 1
            elif text.startswith("//", self.pos) or text.startswith("/*", self.pos):
                if not self.comments:
                    raise self.fail("a comment, which this client's JSON does not allow")
                if text[self.pos + 1] == "/":
                    end = text.find("\n", self.pos)
                    self.pos = len(text) if end < 0 else end
                else:
                    end = text.find("*/", self.pos + 2)
                    if end < 0:
                        raise self.fail("an unterminated /* comment")
                    self.pos = end + 2
            else:
                return

    def document(self) -> Node | None:
        self.skip()
        if self.pos == len(self.text):
            return None
        node = self.value()
        self.skip()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the top-level value")
        return node

    def value(self) -> Node:
        text, start = self.text, self.pos
        if start >= len(text):
            raise self.fail("unexpected end of file, expected a value")
        ch = text[start]
        if ch == "{":
            return self.object()
        if ch == "[":
            return self.array()
        if ch == '"':
            return Node("scalar", start, self.string_end(), self.string())
        for word, val in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, start):
                self.pos = start + len(word)
                return Node("scalar", start, self.pos, val)
        match = _NUMBER.match(text, start)
        if match and match.end() > start:
            self.pos = match.end()
            return Node("scalar", start, self.pos, json.loads(match.group()))
        raise self.fail(f"unexpected character {ch!r}, expected a value")

    def string_end(self) -> int:
        """The offset just past the string starting at ``pos`` (without moving)."""
        text, i = self.text, self.pos + 1
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                return i + 1
            if ch == "\n":
                break
            i += 1
        raise self.fail("an unterminated string")

    def string(self) -> str:
        start, end = self.pos, self.string_end()
        try:
            value = json.loads(self.text[start:end])
        except json.JSONDecodeError as exc:
            raise self.fail(f"an invalid string ({exc.msg})", start + exc.pos) from None
        self.pos = end
        assert isinstance(value, str)
        return value

    def items(self, close: str, item: Callable[[], None]) -> None:
        """``item`` for each element up to ``close``; commas, and trailing commas where allowed."""
        self.pos += 1
        self.skip()
        if self.text.startswith(close, self.pos):
            self.pos += 1
            return
        while True:
            item()
            self.skip()
            if self.text.startswith(",", self.pos):
                comma = self.pos
                self.pos += 1
                self.skip()
                if self.text.startswith(close, self.pos):
                    if not self.comments:
                        raise self.fail("a trailing comma, which this client's JSON does not allow", comma)
                    self.pos += 1
                    return
                continue
            if self.text.startswith(close, self.pos):
                self.pos += 1
                return
            raise self.fail(f"expected ',' or '{close}'")

    def object(self) -> Node:
        node = Node("object", self.pos, -1, {})

        def member() -> None:
            if not self.text.startswith('"', self.pos):
                raise self.fail("expected a quoted member name")
            key_start = self.pos
            key = self.string()
            self.skip()
            if not self.text.startswith(":", self.pos):
                raise self.fail("expected ':' after a member name")
            self.pos += 1
            self.skip()
            value = self.value()
            entry = Member(key, key_start, value)
            self.skip()
            if self.text.startswith(",", self.pos):
                entry.comma = self.pos
            node.members.append(entry)
            node.value[key] = value.value  # a repeated key: the last one wins, as in JavaScript

        self.items("}", member)
        node.end = self.pos
        return node

    def array(self) -> Node:
        node = Node("array", self.pos, -1, [])
        self.items("]", lambda: node.value.append(self.value().value))
        node.end = self.pos
        return node


def parse_json(text: str, *, comments: bool) -> Node | None:
    """The document's tree with spans (``None`` for an empty document); ``ParseFailure`` says where."""
    return _Parser(text, comments=comments).document()


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _indent_of(text: str, offset: int) -> str:
    start = _line_start(text, offset)
    line = text[start:offset]
    return line if not line.strip() else line[: len(line) - len(line.lstrip())]


def _indent_unit(text: str) -> str:
    """The file's indentation step: the leading whitespace of its first indented line (default 2)."""
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


@dataclass(frozen=True)
class _Style:
    unit: str
    eol: str
    multiline: bool


def _render(value: Any, style: _Style, indent: str) -> str:
    if not style.multiline:
        return json.dumps(value, ensure_ascii=False)
    unit = style.unit
    # json.dumps indents with spaces only; draw the tree with one space per level, then swap in the unit.
    lines = json.dumps(value, ensure_ascii=False, indent=1).split("\n")
    out = []
    for line in lines:
        body = line.lstrip(" ")
        out.append(unit * (len(line) - len(body)) + body)
    return (style.eol + indent).join(out)


def _member_text(key: str, value: Any, style: _Style, indent: str) -> str:
    return f"{json.dumps(key, ensure_ascii=False)}: {_render(value, style, indent)}"


def _insert_member(text: str, obj: Node, key: str, value: Any, style: _Style) -> str:
    if obj.members:
        last = obj.members[-1]
        indent = _indent_of(text, last.key_start)
        after = (last.comma + 1) if last.comma is not None else last.node.end
        new = _member_text(key, value, style, indent)
        if not style.multiline:
            return (
                text[:after] + (f" {new}," if last.comma is not None else f", {new}") + text[after:]
            )  # keep a trailing comma where the user had one
        line_end = text.find("\n", after)
        line_end = len(text) if line_end < 0 else line_end
        rest = text[after:line_end].strip()
        # A comment closing the last member's line stays on that line, after the comma.
        at = line_end if rest.startswith("//") or (rest.startswith("/*") and rest.endswith("*/")) else after
        if at == line_end and text[line_end - 1 : line_end] == "\r":
            at -= 1
        piece = style.eol + indent + new + ("," if last.comma is not None else "")
        comma = "" if last.comma is not None else ","
        return text[: last.node.end] + comma + text[last.node.end : at] + piece + text[at:]
    inner = text[obj.start + 1 : obj.end - 1]
    outer = _indent_of(text, obj.start)
    if not style.multiline:
        return text[: obj.start + 1] + _member_text(key, value, style, "") + text[obj.end - 1 :]
    indent = outer + style.unit
    new = style.eol + indent + _member_text(key, value, style, indent)
    if not inner.strip():
        return text[: obj.start + 1] + new + style.eol + outer + text[obj.end - 1 :]
    return text[: obj.start + 1] + new + text[obj.start + 1 :]  # comments only: ours goes first


def _set(text: str, path: Sequence[str], value: Any, *, comments: bool, style: _Style) -> str:
    """Set ``path`` in the document to ``value`` by editing only the text that must change."""
    root = parse_json(text, comments=comments)
    assert root is not None
    node, where = root, list[str]()
    for i, key in enumerate(path):
        if node.kind != "object":
            raise SetupError(
                f"'{'.'.join(where) or 'the top level'}' is not an object",
                "fix or remove that value in the file, then run setup again",
            )
        member = next((m for m in reversed(node.members) if m.key == key), None)
        if member is None:
            nested: Any = value
            for k in reversed(path[i + 1 :]):
                nested = {k: nested}
            return _insert_member(text, node, key, nested, style)
        where.append(key)
        last = i == len(path) - 1
        if last or (member.node.kind == "scalar" and member.node.value is None):
            if not last:  # "mcpServers": null -> an object
                for k in reversed(path[i + 1 :]):
                    value = {k: value}
            if member.node.value == value:
                return text
            indent = _indent_of(text, member.key_start)
            return text[: member.node.start] + _render(value, style, indent) + text[member.node.end :]
        node = member.node
    return text


def edit_json(text: str, servers_key: str, name: str, entry: dict[str, Any], *, comments: bool) -> str:
    """``text`` with ``entry`` as server ``name`` under ``servers_key``; every other byte kept."""
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    eol = "\r\n" if "\r\n" in body else "\n"
    root = parse_json(body, comments=comments)
    if root is None:
        fresh = json.dumps({servers_key: {name: entry}}, ensure_ascii=False, indent=2)
        return bom + fresh.replace("\n", eol) + eol
    if root.kind != "object":
        raise SetupError("the file's top level is not a JSON object", "a client configuration is an object: { ... }")
    style = _Style(_indent_unit(body), eol, "\n" in body[root.start : root.end])
    servers = root.value.get(servers_key)
    current = servers.get(name) if isinstance(servers, dict) else None
    if isinstance(current, dict):
        for key, val in entry.items():  # keep the user's other keys of the entry (env, disabled...)
            body = _set(body, [servers_key, name, key], val, comments=comments, style=style)
    else:
        body = _set(body, [servers_key, name], entry, comments=comments, style=style)
    return bom + body


# --------------------------------------------------------------------------- TOML


def edit_toml(text: str, servers_key: str, name: str, entry: dict[str, Any]) -> str:
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        doc = tomlkit.parse(text)
    except ParseError as exc:
        raise SetupError(f"not valid TOML: {exc}", "fix the file (or move it away) and run setup again") from None
    servers = doc.get(servers_key)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc[servers_key] = servers
    if not isinstance(servers, dict):
        raise SetupError(f"'{servers_key}' is not a table", "fix or remove that value, then run setup again")
    current = servers.get(name)
    if current is None:
        table = tomlkit.table()
        for key, val in entry.items():
            table[key] = val
        if list(doc)[-1] != servers_key:
            table.add(tomlkit.nl())  # a blank line before the table that follows, as tomlkit drops it
        servers[name] = table
    elif isinstance(current, dict):
        for key, val in entry.items():
            if current.get(key) != val:  # an unchanged value is not rewritten (nor reformatted)
                current[key] = val
    else:
        raise SetupError(f"'{servers_key}.{name}' is not a table", "fix or remove that value, then run setup again")
    return tomlkit.dumps(doc)


# --------------------------------------------------------------------------- planning and writing


@dataclass(frozen=True)
class Change:
    client: Client
    path: Path
    old: str | None  # None: the file does not exist
    new: str

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        import difflib

        old = [] if self.old is None else self.old.splitlines(keepends=True)
        new = self.new.splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(old, new, "/dev/null" if self.old is None else name, name)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def server_entry(client: Client, command: ServerCommand) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if client.entry_type:
        entry["type"] = client.entry_type
    entry["command"] = command.command
    entry["args"] = list(command.args)
    return entry


def _read(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except PermissionError:
        raise SetupError(
            f"cannot read {path}: permission denied", "run as the user who owns it", code=PERMISSION_DENIED
        ) from None
    except IsADirectoryError:
        raise SetupError(f"{path} is a directory, not a configuration file", "move it away") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        failure = ParseFailure("bytes that are not UTF-8", exc.start, data[: exc.start].decode("utf-8", "replace"))
        raise SetupError(f"{path} is not UTF-8 text ({failure})", "save it as UTF-8 and run setup again") from None


def plan(client: Client, path: Path, name: str, command: ServerCommand) -> Change:
    """The change ``setup`` would make, computed without writing anything."""
    if not _NAME.match(name):
        raise SetupError(
            f"server name {name!r} has characters MCP clients do not all accept",
            "use letters, digits, '-' and '_' only",
            usage=True,
        )
    old = _read(path)
    entry = server_entry(client, command)
    try:
        if client.format == "toml":
            new = edit_toml(old or "", client.servers_key, name, entry)
        else:
            new = edit_json(old or "", client.servers_key, name, entry, comments=client.format == "jsonc")
    except ParseFailure as exc:
        kind = "JSON with comments" if client.format == "jsonc" else "JSON"
        raise SetupError(
            f"{path} is not valid {kind}: {exc}; the file was left untouched",
            f"fix line {exc.line} (or move the file away) and run setup again",
        ) from None
    except SetupError as exc:
        if exc.message.startswith(str(path)):
            raise
        raise SetupError(f"{path}: {exc.message}; the file was left untouched", exc.suggestion) from None
    _check(client, new, name, entry)
    return Change(client, path, old, new)


def _check(client: Client, text: str, name: str, entry: dict[str, Any]) -> None:
    """The edited text must parse as the client parses it and hold exactly our entry (a bug guard)."""
    if client.format == "toml":
        import tomlkit

        data: Any = tomlkit.parse(text).unwrap()
    else:
        body = text.removeprefix("\ufeff")
        root = json.loads(body) if client.format == "json" else parse_json(body, comments=True)
        data = root.value if isinstance(root, Node) else root
    got = data.get(client.servers_key, {}).get(name, {})
    if any(got.get(k) != v for k, v in entry.items()):
        raise SetupError(
            f"internal error: the edited {client.title} configuration does not read back as written",
            "please report this with the file (secrets removed); nothing was written",
            code="internal_error",
        )


def _backup_path(path: Path) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{stamp}-{n}.bak")
        n += 1
    return candidate


def apply(change: Change) -> Path | None:
    """Write the change (atomically, after a backup of the old file); returns the backup's path."""
    if not change.changed:
        return None
    target = Path(os.path.realpath(change.path))  # through a symlink, so the link stays a link
    backup = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if change.old is not None:
            backup = _backup_path(target)
            shutil.copy2(target, backup)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(change.new.encode("utf-8"))
                out.flush()
                os.fsync(out.fileno())
            if change.old is not None:
                shutil.copymode(target, tmp)
            os.replace(tmp, target)
        except BaseException:
            with _suppress_oserror():
                os.unlink(tmp)
            raise
    except PermissionError as exc:
        raise SetupError(
            f"cannot write {exc.filename or target}: permission denied",
            "run as the user who owns the file, or fix its permissions",
            code=PERMISSION_DENIED,
        ) from None
    except OSError as exc:
        raise SetupError(f"cannot write {target}: {exc.strerror or exc}", "check the disk and the folder") from None
    return backup


class _suppress_oserror:
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, exc: object, tb: object) -> bool:
        return isinstance(exc, OSError)


# --------------------------------------------------------------------------- command line


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``setup`` on the CLI's sub-parsers (``sub`` is what ``add_subparsers`` returned)."""
    keys = ", ".join(c.key for c in CLIENTS)
    parser: argparse.ArgumentParser = sub.add_parser(
        "setup",
        help="write this server into an MCP client's configuration: rhwp-mcp setup CLIENT",
        description=f"Write this server into an MCP client's configuration file. Clients: {keys}.",
    )
    parser.add_argument("client", nargs="?", metavar="CLIENT", help=f"one of: {keys}")
    parser.add_argument(
        "--name", default=DEFAULT_NAME, help=f"the server's name in the client (default {DEFAULT_NAME})"
    )
    parser.add_argument(
        "--root",
        action="append",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="let the server read only files under DIR (repeatable; written as --root with an absolute path)",
    )
    parser.add_argument("--dry-run", action="store_true", help="show the change as a diff and write nothing")
    parser.add_argument("--list", action="store_true", help="list the clients and their configuration files")
    parser.add_argument("--config", metavar="FILE", help="edit FILE instead of the client's usual file")
    parser.add_argument(
        "--command",
        dest="server_command",
        metavar="PATH",
        help="the executable the client should start (default: the one running now)",
    )
    return parser


def _roots(values: Sequence[str]) -> list[str]:
    roots = []
    for value in values:
        path = os.path.abspath(os.path.expanduser(value))
        if not os.path.isdir(path):
            raise SetupError(f"--root {value}: no such directory", "give a folder that exists", usage=True)
        roots.append(path)
    return roots


def _list(layout: Layout, name: str) -> int:
    for client in CLIENTS:
        path = Path(client.config_path(layout))
        state = "absent"
        if path.exists():
            try:
                state = "has " + name if _has_entry(client, path, name) else "exists"
            except (SetupError, ParseFailure, ValueError):
                state = "unreadable"
        print(f"{client.key:<15} {client.title:<15} {state:<11} {path}")
    return 0


def _has_entry(client: Client, path: Path, name: str) -> bool:
    text = _read(path) or ""
    if client.format == "toml":
        import tomlkit

        data: Any = tomlkit.parse(text).unwrap()
    else:
        root = parse_json(text.removeprefix("\ufeff"), comments=client.format == "jsonc")
        data = root.value if root is not None else {}
    servers = data.get(client.servers_key) if isinstance(data, dict) else None
    return isinstance(servers, dict) and name in servers


def run(args: argparse.Namespace, *, layout: Layout | None = None, runtime: Runtime | None = None) -> int:
    """The ``setup`` command; messages on stderr, the diff (``--dry-run``) and listing on stdout."""
    layout = layout or Layout.current()
    try:
        if args.list:
            return _list(layout, args.name)
        if not args.client:
            raise SetupError(
                "which client? rhwp-mcp setup CLIENT",
                "use one of: " + ", ".join(c.key for c in CLIENTS),
                usage=True,
            )
        client = find_client(args.client)
        roots = _roots(getattr(args, "root", None) or [])
        if args.server_command:
            found = ServerCommand(os.path.abspath(os.path.expanduser(args.server_command)), (), "as given")
        else:
            found = find_server_command(runtime)
        command = ServerCommand(found.command, (*found.args, *(a for r in roots for a in ("--root", r))), found.how)
        path = (
            Path(os.path.abspath(os.path.expanduser(args.config))) if args.config else Path(client.config_path(layout))
        )
        change = plan(client, path, args.name, command)
        if args.dry_run:
            if change.changed:
                sys.stdout.write(change.diff())
                _say(f"dry run: {client.title} would get server '{args.name}' in {path}; nothing was written")
            else:
                _say(f"dry run: {path} already has server '{args.name}' as it would be written; nothing to do")
            return 0
        backup = apply(change)
        if not change.changed:
            _say(f"{client.title}: {path} already has server '{args.name}'; nothing changed")
            return 0
        verb = "created" if change.old is None else "updated"
        _say(f"{client.title}: {verb} {path} with server '{args.name}': {_shown(command)}")
        _say(f"command: {command.how}")
        if backup:
            _say(f"backup of the previous file: {backup}")
        _say(f"restart {client.title} to load it")
        return 0
    except SetupError as exc:
        for line in exc.lines():
            _say(line)
        return 2 if exc.usage else 1


def _shown(command: ServerCommand) -> str:
    return " ".join([command.command, *command.args])


def _say(message: str) -> None:
    print(f"rhwp-mcp setup: {message}", file=sys.stderr, flush=True)
