from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def _unshadow_the_package() -> None:
    """pytest's importlib mode names these test modules ``rhwp_mcp_host.tests.*`` (rootdir-relative)
    and imports the folder ``rhwp_mcp_host/`` as their parent package, which hides the installed
    ``rhwp_mcp_host`` (src layout). Put the real package back before any test imports it."""
    shadow = sys.modules.get("rhwp_mcp_host")
    if shadow is not None and not hasattr(shadow, "hookimpl"):
        del sys.modules["rhwp_mcp_host"]
        import rhwp_mcp_host

        assert hasattr(rhwp_mcp_host, "hookimpl"), rhwp_mcp_host


_unshadow_the_package()
sys.path.insert(0, str(Path(__file__).parent))
import fakepacks  # noqa: E402


@pytest.fixture(scope="session")
def pack_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fakepacks.install(tmp_path_factory.mktemp("site"))


@pytest.fixture
def installed(pack_site: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake packs visible to this process (importlib.metadata reads sys.path when asked)."""
    monkeypatch.syspath_prepend(str(pack_site))
    monkeypatch.delenv("RHWP_MCP_ENABLE", raising=False)
    monkeypatch.delenv("RHWP_MCP_DISABLE", raising=False)
    monkeypatch.delenv("RHWP_MCP_TRACE", raising=False)
    monkeypatch.delenv("RHWP_MCP_MAX_CHARS", raising=False)
    return pack_site


@pytest.fixture
def subprocess_env(pack_site: Path) -> dict[str, str]:
    """Environment for a server subprocess that sees the fake packs (and only those, via ENABLE)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(pack_site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["RHWP_MCP_ENABLE"] = "good,audit,zz-dup"
    env.pop("RHWP_MCP_DISABLE", None)
    env.pop("RHWP_MCP_TRACE", None)
    env.pop("RHWP_MCP_MAX_CHARS", None)
    return env
