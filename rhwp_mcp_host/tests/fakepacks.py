"""Tiny packs installed for real: each gets a module and a ``*.dist-info`` directory with
METADATA and entry_points.txt in one site directory, so importlib.metadata finds them exactly
as it finds a pip-installed pack (no mocks)."""

from __future__ import annotations

import textwrap
from pathlib import Path

GOOD = '''
from typing import Annotated, Literal
from pydantic import Field
from rhwp_mcp_host import FilePath, ToolFailure, format_call, hookimpl, page_list, page_text

class DomainError(Exception):
    """Carries .code and .suggestion like rhwp_core's errors; the host knows nothing else about it."""
    def __init__(self, message):
        super().__init__(message)
        self.code = "corrupt_document"
        self.suggestion = "try another file"

def echo(text: str) -> str:
    """Return the text unchanged."""
    return text

def add(a: int, b: Annotated[int, Field(ge=0, description="non-negative")] = 1) -> dict:
    """Add two integers."""
    return {"sum": a + b}

def read_head(path: FilePath, chars: int = 20) -> str:
    """The first characters of a text file."""
    with open(path, encoding="utf-8") as f:
        return f.read(chars)

def pick(kind: Literal["paragraph", "table", "picture"]) -> str:
    """Echo a kind."""
    return kind

def boom() -> str:
    """Always fails with a bug."""
    raise RuntimeError("the widget exploded")

def coded() -> str:
    """Fails with a domain error that carries its code."""
    raise DomainError("section 2 is truncated")

def failure() -> str:
    """Fails with ToolFailure."""
    raise ToolFailure("unsupported_format", "this is HWP 3.0", "convert it to HWP 5 first")

def big(n: int) -> str:
    """Returns n characters, unpaged (to test the cap)."""
    return "x" * n

def long_text(offset: int = 0, max_chars: int | None = None) -> str:
    """A 100000-character text, paged."""
    text = "".join(f"line {i:05d}\\n" for i in range(10000))
    return page_text(text, offset, max_chars, next_call=lambda o: format_call("long_text", offset=o))

def numbers(offset: int = 0, limit: int = 50) -> dict:
    """0..999, paged."""
    return page_list(list(range(1000)), offset, limit, key="numbers")

def cap() -> int:
    """The response cap in force during the call."""
    from rhwp_mcp_host import current_max_chars
    return current_max_chars()

@hookimpl
def rhwp_mcp_register_tools(register):
    register(echo, title="Echo text")
    register(add)
    register(read_head)
    register(pick)
    register(boom, read_only=False, idempotent=False)
    register(coded)
    register(failure)
    register(big)
    register(long_text)
    register(numbers)
    register(cap)

CONFIG = []

@hookimpl
def rhwp_mcp_configure(config):
    CONFIG.append(config)
'''

AUDIT = """
from rhwp_mcp_host import Deny, hookimpl

SEEN = []

@hookimpl
def rhwp_mcp_before_call(call):
    if call.tool == "echo" and call.arguments.get("text") == "forbidden":
        return Deny("permission_denied", "the audit pack refuses this text", "say something else")
    return None

@hookimpl
def rhwp_mcp_after_call(call, outcome):
    SEEN.append((call.tool, outcome.ok))
    raise ValueError("after-call hooks may fail without failing the call")
"""

IMPORT_FAILS = """
raise ImportError("this pack needs libfoo, which is not installed")
"""

TYPO = """
from rhwp_mcp_host import hookimpl

@hookimpl
def rhwp_mcp_register_tool(register):  # misspelt: the hook is rhwp_mcp_register_tools
    pass
"""

REGISTER_RAISES = '''
from rhwp_mcp_host import hookimpl

def fine() -> str:
    """Never offered: the hook fails after registering it."""
    return "fine"

@hookimpl
def rhwp_mcp_register_tools(register):
    register(fine)
    raise KeyError("config missing")
'''

DUPLICATE = '''
from rhwp_mcp_host import hookimpl

def echo(text: str) -> str:
    """A second echo: loses to the pack named earlier."""
    return "duplicate: " + text

def only_here() -> str:
    """A tool no other pack has."""
    return "here"

@hookimpl
def rhwp_mcp_register_tools(register):
    register(echo)
    register(only_here)
'''

PRINTER = '''
print("a pack that prints to stdout at import time")
from rhwp_mcp_host import hookimpl

def hello() -> str:
    """Says hello, and prints."""
    print("printed during a call")
    return "hello"

@hookimpl
def rhwp_mcp_register_tools(register):
    register(hello)
'''

# entry-point name -> (distribution, module, source). Names sort: audit < broken-import < dup-echo < good ...
PACKS: dict[str, tuple[str, str, str]] = {
    "audit": ("fake-audit", "rhwp_fake_audit", AUDIT),
    "broken-import": ("fake-broken-import", "rhwp_fake_broken_import", IMPORT_FAILS),
    "good": ("fake-good", "rhwp_fake_good", GOOD),
    "printer": ("fake-printer", "rhwp_fake_printer", PRINTER),
    "register-raises": ("fake-register-raises", "rhwp_fake_register_raises", REGISTER_RAISES),
    "typo": ("fake-typo", "rhwp_fake_typo", TYPO),
    "zz-dup": ("fake-zz-dup", "rhwp_fake_zz_dup", DUPLICATE),
}
ALL = ",".join(PACKS)


def install(site: Path) -> Path:
    site.mkdir(parents=True, exist_ok=True)
    for ep_name, (dist, module, source) in PACKS.items():
        (site / f"{module}.py").write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
        info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[rhwp.mcp_tools]\n{ep_name} = {module}\n", encoding="utf-8")
        (info / "top_level.txt").write_text(module + "\n", encoding="utf-8")
    return site
