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


def _tools_by_pack() -> dict[str, set[str]]:
    """What `rhwp-mcp packs --json` reports: each loaded pack's tools."""
    rhwp_mcp = Path(sys.executable).with_name("rhwp-mcp")
    cmd = [str(rhwp_mcp)] if rhwp_mcp.exists() else [sys.executable, "-m", "rhwp_mcp_host"]
    out = subprocess.run([*cmd, "packs", "--json"], capture_output=True, text=True, check=True, timeout=120)
    packs = json.loads(out.stdout)
    packs = packs["packs"] if isinstance(packs, dict) else packs
    return {pack["name"]: set(pack["tools"]) for pack in packs if pack["status"] == "loaded"}


def _listed_tools() -> set[str]:
    return set().union(*_tools_by_pack().values())


def _installed(dist: str) -> bool:
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        distribution(dist)
    except PackageNotFoundError:
        return False
    return True


def test_uninstalling_packs_removes_their_tools() -> None:
    # Counts are derived from the packs installed (more packs may come); what is checked stays:
    # uninstalling a distribution takes exactly its pack's tools away, and reinstalling brings them back.
    packs = ("rhwp-mcp-tools-chunks", "rhwp-mcp-tools-view", "rhwp-mcp-tools-media")
    if not all(_installed(p) for p in packs):
        pytest.fail("the core, view, chunks and media packs must be installed for this test (./dev test installs them)")
    by_pack = _tools_by_pack()
    everything = _listed_tools()
    assert {"core", "view", "chunks", "media"} <= set(by_pack)
    assert by_pack["media"] == {"get_image"} and by_pack["chunks"] == {"chunks"}
    assert by_pack["view"] == {"to_markdown", "to_html"}
    assert by_pack["core"] == {"parse_hwp_summary", "extract_text", "get_ir", "iter_blocks"}
    try:
        _pip("uninstall", "-y", "rhwp-mcp-tools-media")
        assert _listed_tools() == everything - {"get_image"}
        _pip("uninstall", "-y", "rhwp-mcp-tools-chunks")
        assert _listed_tools() == everything - {"get_image", "chunks"}
        _pip("uninstall", "-y", "rhwp-mcp-tools-view")
        assert _listed_tools() == everything - {"get_image", "chunks", "to_markdown", "to_html"}
        assert by_pack["core"] <= _listed_tools()
    finally:
        _pip(
            "install",
            "--no-deps",
            "--no-build-isolation",
            str(ROOT / "rhwp_mcp_tools_view"),
            str(ROOT / "rhwp_mcp_tools_chunks"),
            str(ROOT / "rhwp_mcp_tools_media"),
        )
    assert _listed_tools() == everything


def test_the_example_pack_installs_with_pip_and_its_tools_appear() -> None:
    """A third-party pack: `pip install` is all it takes (no configuration)."""
    before = _listed_tools()
    assert "file_info" not in before
    try:
        _pip("install", "--no-deps", "--no-build-isolation", str(ROOT / "examples" / "file-info-pack"))
        # Exactly its three tools are added to whatever packs are installed.
        assert _listed_tools() == before | {"file_info", "read_text", "list_directory"}
        assert len(before) + 3 == len(_listed_tools())
    finally:
        _pip("uninstall", "-y", "rhwp-mcp-example-file-info")
    assert "file_info" not in _listed_tools()
