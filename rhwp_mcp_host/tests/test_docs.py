"""The pack author's page must keep up with the contract."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rhwp_mcp_host.plugin import hookspecs

import rhwp_mcp_host

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "writing-a-pack.md"


def test_every_hookspec_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    specs = [name for name in dir(hookspecs) if name.startswith("rhwp_mcp_")]
    assert specs, "no hook specs found"
    missing = [name for name in specs if f"### `{name}(" not in text]
    assert not missing, f"hooks missing from {PAGE.name}: {missing}"


def test_every_register_keyword_is_documented():
    import inspect

    from rhwp_mcp_host.plugin.contract import Register

    text = PAGE.read_text(encoding="utf-8")
    keywords = [p for p in inspect.signature(Register.__call__).parameters if p not in ("self", "func")]
    assert all(f"`{k}`" in text for k in keywords), keywords


def test_public_helpers_are_documented():
    text = PAGE.read_text(encoding="utf-8")
    for name in (
        "FilePath",
        "ToolFailure",
        "page_text",
        "page_list",
        "format_call",
        "next_call_of",
        "build_server",
        "Deny",
    ):
        assert name in text, name
        assert hasattr(rhwp_mcp_host, name), name
    assert "pack_session" in text


def test_the_example_pack_passes_its_own_tests():
    example = REPO / "examples" / "file-info-pack"
    env_path = str(example / "src")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(example / "tests")],
        cwd=example,
        env={**os.environ, "PYTHONPATH": env_path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
