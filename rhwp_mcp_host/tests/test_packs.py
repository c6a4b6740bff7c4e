"""Discovery and isolated loading of real installed (fake) packs."""

from __future__ import annotations

import threading

import pytest
from rhwp_mcp_host.server.packs import load_packs
from rhwp_mcp_host.settings import pack_selection

from rhwp_mcp_host import hookimpl


def _load(env=None, enable=None, disable=None, **kwargs):
    """Load with the selection the settings make of ``env`` and the flags ``enable``/``disable``."""
    lines: list[str] = []
    packs = load_packs(pack_selection(env or {}, enable=enable, disable=disable), log=lines.append, **kwargs)
    return packs, {p.name: p for p in packs.packs if not p.builtin}, lines


def test_every_pack_is_discovered_in_name_order(installed):
    packs, by_name, _ = _load()
    names = [p.name for p in packs.packs if not p.builtin]
    ours = [n for n in names if n in ("audit", "broken-import", "good", "printer", "register-raises", "typo", "zz-dup")]
    assert ours == sorted(ours) and len(ours) == 7
    assert by_name["good"].distribution == "fake-good" and by_name["good"].version == "0.1"


def test_good_pack_loads_with_its_tools(installed):
    _, by_name, _ = _load()
    good = by_name["good"]
    assert good.status == "loaded"
    assert {"echo", "add", "read_head", "boom"} <= set(good.tools)


def test_import_failure_is_isolated_with_reason_and_fix(installed):
    _, by_name, lines = _load()
    broken = by_name["broken-import"]
    assert broken.status == "failed"
    assert "ImportError" in broken.error and "libfoo" in broken.error
    assert "pip install --force-reinstall fake-broken-import" in broken.fix
    assert "--disable broken-import" in broken.fix
    assert any("broken-import" in line and "failed" in line for line in lines)


def test_misspelt_hook_fails_the_pack(installed):
    packs, by_name, _ = _load()
    typo = by_name["typo"]
    assert typo.status == "failed"
    assert "rhwp_mcp_register_tool" in typo.error and "unknown hook" in typo.error
    assert not packs.pm.has_plugin("typo")


def test_register_hook_that_raises_contributes_nothing(installed):
    packs, by_name, _ = _load()
    record = by_name["register-raises"]
    assert record.status == "failed" and "KeyError" in record.error
    assert "fine" not in packs.tools and record.tools == []


def test_same_tool_name_first_pack_in_name_order_wins_and_both_are_named(installed):
    packs, by_name, lines = _load()
    assert packs.tools["echo"].pack == "good"
    assert "echo" not in by_name["zz-dup"].tools and "only_here" in by_name["zz-dup"].tools
    assert any("'good'" in c and "'zz-dup'" in c for c in by_name["good"].conflicts)
    assert any("'good'" in c and "'zz-dup'" in c for c in by_name["zz-dup"].conflicts)
    assert any("echo" in line and "good" in line and "zz-dup" in line for line in lines)


def test_disable_and_enable_select_packs(installed):
    packs, by_name, _ = _load(disable=["good"])
    assert by_name["good"].status == "disabled" and packs.tools["echo"].pack == "zz-dup"
    packs, by_name, _ = _load(enable="good,audit")
    assert by_name["good"].status == "loaded" and by_name["audit"].status == "loaded"
    assert by_name["zz-dup"].status == "disabled" and by_name["typo"].status == "disabled"


def test_env_selection_and_flags_combine(installed):
    _, by_name, _ = _load(env={"RHWP_MCP_ENABLE": "good, zz-dup", "RHWP_MCP_DISABLE": "zz-dup"})
    assert by_name["good"].status == "loaded" and by_name["zz-dup"].status == "disabled"


def test_unknown_selection_name_is_reported(installed):
    _, _, lines = _load(disable=["nosuchpack"])
    assert any("nosuchpack" in line for line in lines)


def test_no_packs_says_so(monkeypatch):
    lines: list[str] = []
    load_packs(log=lines.append, entry_points=False)
    assert any("0 tools" in line and "pip install" in line for line in lines)


class HelloPack:
    """A pack given as an object, with one tool."""

    @hookimpl
    def rhwp_mcp_register_tools(self, register):
        def hello() -> str:
            """Say hello."""
            return "hello"

        register(hello)


def test_plugin_objects_load_like_entry_points(installed):
    lines: list[str] = []
    packs = load_packs(log=lines.append, entry_points=False, plugins={"obj": HelloPack()})
    assert packs.tools["hello"].pack == "obj"


@pytest.mark.parametrize(
    ("tool_src", "reason"),
    [
        ("def t(x):\n    '''doc'''\n    return x", "no type annotation"),
        ("def t(x: int) -> int:\n    return x", "no description"),
        ("def t(*a: int) -> int:\n    '''doc'''\n    return 1", "*args"),
    ],
)
def test_bad_tool_definitions_fail_the_pack_with_a_reason(tool_src, reason):
    namespace: dict = {}
    exec(tool_src, namespace)
    from rhwp_mcp_host import hookimpl

    class Pack:
        @hookimpl
        def rhwp_mcp_register_tools(self, register):
            register(namespace["t"])

    lines: list[str] = []
    packs = load_packs(log=lines.append, entry_points=False, plugins={"bad": Pack()})
    record = packs.pack("bad")
    assert record.status == "failed" and reason in record.error


def test_a_tool_the_server_cannot_serve_fails_its_pack_in_the_loader():
    """The loader decides: it asks the server's build_tool for each tool and fails the pack whose
    tool cannot be built (here: a parameter type with no JSON Schema); the other packs load."""
    from rhwp_mcp_host import create_host

    class Unservable:
        @hookimpl
        def rhwp_mcp_register_tools(self, register):
            def locked(lock: threading.Lock) -> str:
                """Take a lock."""
                return "taken"

            def fine(text: str) -> str:
                """Say it back."""
                return text

            register(fine)
            register(locked)

    host = create_host(plugins={"bad": Unservable(), "ok": HelloPack()}, entry_points=False, env={})
    bad = host.packs.pack("bad")
    assert bad.status == "failed" and bad.tools == [], bad
    assert bad.error.startswith("the parameters of 'locked' cannot become a JSON Schema: "), bad.error
    assert "--disable bad" in bad.fix
    assert sorted(host.packs.served) == ["hello"] and host.tool_count == 1
    assert host.packs.pack("ok").status == "loaded"

    built: list[str] = []
    packs = load_packs(entry_points=False, plugins={"ok": HelloPack()}, build_tool=lambda spec: built.append(spec.name))
    assert built == ["hello"] and list(packs.served) == ["hello"]
