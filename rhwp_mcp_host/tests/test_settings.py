"""The settings are read once, in rhwp_mcp_host.settings: a flag wins over its variable, which wins
over the default; the server and the pack loader take the values and never read the environment."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from rhwp_mcp_host.plugin.contract import SourceSettings, default_max_calls
from rhwp_mcp_host.plugin.paging import DEFAULT_MAX_CHARS, DEFAULT_MAX_IMAGE_CHARS
from rhwp_mcp_host.server.host import create_host
from rhwp_mcp_host.settings import HostSettings, PackSelection, command_settings, host_settings

from rhwp_mcp_host import Register, hookimpl

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "rhwp_mcp_host"


def test_a_value_given_wins_over_its_variable_which_wins_over_the_default() -> None:
    env = {
        "RHWP_MCP_MAX_CHARS": "5000",
        "RHWP_MCP_MAX_IMAGE_CHARS": "9000",
        "RHWP_MCP_MAX_CALLS": "3",
        "RHWP_MCP_ENABLE": "a, b",
        "RHWP_MCP_DISABLE": "c",
        "RHWP_MCP_TRACE": "yes",
        "RHWP_MCP_FETCH": "1",
    }
    given = host_settings(env, max_chars=3000, max_image_chars=4000, max_calls=7, enable="d", disable=["e,f"])
    assert (given.max_chars, given.max_image_chars, given.max_calls) == (3000, 4000, 7)
    assert given.packs == PackSelection(enable=("a", "b", "d"), disable=("c", "e", "f"), trace=True)
    assert given.sources.fetch and given.env == env
    from_env = host_settings(env)
    assert (from_env.max_chars, from_env.max_image_chars, from_env.max_calls) == (5000, 9000, 3)
    default = host_settings({})
    assert (default.max_chars, default.max_image_chars, default.max_calls) == (
        DEFAULT_MAX_CHARS,
        DEFAULT_MAX_IMAGE_CHARS,
        default_max_calls(),
    )
    assert default.packs == PackSelection() and default.sources == SourceSettings() and default.roots == ()


def test_roots_come_from_the_variable_only_when_none_are_given(tmp_path: Path) -> None:
    env = {"RHWP_MCP_ROOT": os.pathsep.join([str(tmp_path), str(tmp_path / "b")])}
    assert host_settings(env).roots == (str(tmp_path), str(tmp_path / "b"))
    assert host_settings(env, roots=()).roots == ()  # create_host(roots=()) never read the variable
    assert host_settings(env, roots=["x"]).roots == ("x",)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RHWP_MCP_MAX_CHARS": "many"}, "max chars must be an integer, got 'many'"),
        ({"RHWP_MCP_MAX_CALLS": "0"}, "RHWP_MCP_MAX_CALLS must be between 1 and 1024, got 0"),
        ({"RHWP_MCP_FETCH_TIMEOUT": "-1"}, "RHWP_MCP_FETCH_TIMEOUT must be a positive number of seconds, got '-1'"),
    ],
)
def test_a_bad_variable_is_named_in_the_error(env: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        host_settings(env)
    assert str(raised.value) == message


def test_the_trace_switch_never_stops_the_server() -> None:
    assert not host_settings({"RHWP_MCP_TRACE": "maybe"}).packs.trace
    assert host_settings({"RHWP_MCP_TRACE": " On "}).packs.trace


def _args(command: str | None, **flags: object) -> SimpleNamespace:
    """What the command line parses into, no flag given but ``flags``."""
    names = ("root", "enable", "disable", "max_chars", "max_image_chars", "max_calls")
    given: dict[str, object] = {"transport": "stdio", "host": "127.0.0.1", "port": 8000, **dict.fromkeys(names)}
    return SimpleNamespace(command=command, **{**given, **flags})


def test_each_command_reads_only_what_it_uses() -> None:
    env = {"RHWP_MCP_MAX_CHARS": "many", "RHWP_MCP_ENABLE": "good", "RHWP_MCP_AUTH_TOKEN": "short"}
    # `packs` lists packs: a bad cap is no reason to refuse it, as before the settings were one module.
    listing = command_settings(_args("packs"), env)
    assert listing.packs.enable == ("good",) and listing.host is None and listing.http is None
    with pytest.raises(ValueError, match="max chars"):
        command_settings(_args("call"), env)
    # Over stdio the HTTP settings (a token too short) are not read; over HTTP they are.
    assert command_settings(_args(None, max_chars=2000), env).http is None
    with pytest.raises(ValueError, match="at least 16 characters"):
        command_settings(_args("serve", transport="streamable-http", max_chars=2000), env)


def test_create_host_takes_the_settings_and_reads_no_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    # Variables that would fail the server or drop every tool, were they read.
    monkeypatch.setenv("RHWP_MCP_MAX_CHARS", "many")
    monkeypatch.setenv("RHWP_MCP_DISABLE", "echo-pack")
    monkeypatch.setenv("RHWP_MCP_TRACE", "1")

    class EchoPack:
        @hookimpl
        def rhwp_mcp_register_tools(self, register: Register) -> None:
            def echo(text: str) -> str:
                """Say it back."""
                return text

            register(echo)

    host = create_host(settings=HostSettings(max_chars=4000), plugins={"echo-pack": EchoPack()}, entry_points=False)
    assert host.config.max_chars == 4000 and not host.config.trace and host.config.env == {}
    assert host.packs.pack("echo-pack").status == "loaded" and host.tool_count == 1


def _reads_environment(path: Path) -> list[str]:
    """Where a module reads the process's environment: os.environ (but to set a default), os.getenv."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name not in ("environ", "getenv", "environb"):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr == "setdefault":
            continue  # the command sets fastmcp's defaults before fastmcp is imported
        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return found


def test_only_the_settings_module_reads_the_environment() -> None:
    server_side = [*PACKAGE.glob("server/*.py"), *PACKAGE.glob("service/*.py"), *PACKAGE.glob("documents/*.py")]
    server_side += [PACKAGE / "cli.py", PACKAGE / "asgi.py"]
    assert len(server_side) > 10
    readers = [where for path in server_side for where in _reads_environment(path)]
    assert readers == [], "read the environment in rhwp_mcp_host.settings, not here: " + ", ".join(readers)
    assert _reads_environment(PACKAGE / "settings.py"), "the check sees nothing: it would pass whatever the code"
