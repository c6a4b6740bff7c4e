"""Packs are distributions: uninstall one and its tools are gone on the next start; the server
still starts. Real `pip uninstall` / `pip install` in the test environment (restored afterwards)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_support import ROOT

pytestmark = pytest.mark.e2e


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", *args], check=True, timeout=600)


def _listed_tools() -> set[str]:
    rhwp_mcp = Path(sys.executable).with_name("rhwp-mcp")
    cmd = [str(rhwp_mcp)] if rhwp_mcp.exists() else [sys.executable, "-m", "rhwp_mcp_host"]
    out = subprocess.run([*cmd, "packs", "--json"], capture_output=True, text=True, check=True, timeout=120)
    packs = json.loads(out.stdout)
    packs = packs["packs"] if isinstance(packs, dict) else packs
    return {tool for pack in packs if pack["status"] == "loaded" for tool in pack["tools"]}


def _installed(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        distribution(dist)
    except PackageNotFoundError:
        return False
    return True


def test_uninstalling_packs_removes_their_tools() -> None:
    packs = ("rhwp-mcp-tools-chunks", "rhwp-mcp-tools-view", "rhwp-mcp-tools-media")
    if not all(_installed(p) for p in packs):
        pytest.fail("all four packs must be installed for this test (./dev test installs them)")
    assert len(_listed_tools()) == 8
    try:
        _pip("uninstall", "-y", "rhwp-mcp-tools-media")
        assert len(_listed_tools()) == 7 and "get_image" not in _listed_tools()
        _pip("uninstall", "-y", "rhwp-mcp-tools-chunks")
        assert _listed_tools() == {
            "parse_hwp_summary",
            "extract_text",
            "get_ir",
            "iter_blocks",
            "to_markdown",
            "to_html",
        }
        _pip("uninstall", "-y", "rhwp-mcp-tools-view")
        assert _listed_tools() == {"parse_hwp_summary", "extract_text", "get_ir", "iter_blocks"}
    finally:
        _pip(
            "install",
            "--no-deps",
            "--no-build-isolation",
            str(ROOT / "rhwp_mcp_tools_view"),
            str(ROOT / "rhwp_mcp_tools_chunks"),
            str(ROOT / "rhwp_mcp_tools_media"),
        )
    assert len(_listed_tools()) == 8


def test_the_example_pack_installs_with_pip_and_its_tools_appear() -> None:
    """A third-party pack: `pip install` is all it takes (no configuration)."""
    assert "file_info" not in _listed_tools()
    try:
        _pip("install", "--no-deps", "--no-build-isolation", str(ROOT / "examples" / "file-info-pack"))
        tools = _listed_tools()
        assert {"file_info", "read_text", "list_directory"} <= tools
        assert len(tools) == 11
    finally:
        _pip("uninstall", "-y", "rhwp-mcp-example-file-info")
    assert "file_info" not in _listed_tools()
