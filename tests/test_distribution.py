"""The distributions as PyPI would get them, and installed as users install them (issue 23, parts 1-3).

`./dev dist` builds every distribution once per session (tests/dist_support.py). Checked: the
file set and tags (rhwp-core an abi3 wheel with a manylinux tag PyPI accepts), `twine check`,
`abi3audit`, `auditwheel show`, `check-wheel-contents`, what the wheels carry (typing markers, the
stub, licence, NOTICE). Then real installs: for Python 3.10 and 3.13, a fresh venv with no Rust
toolchain on PATH installs `rhwp-mcp` from dist/ (third-party dependencies from the index), and a
real MCP client over stdio lists every pack's tools and reads a document; the selected-packs
install serves exactly its two tools; `uv tool run` (uvx) from dist/ serves every tool.

Nothing here hard-codes the packs: they are the repository's distributions that register an
`rhwp.mcp_tools` entry point, and their tools are what the development install reports.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import FIXTURES, ROOT
from dist_support import (
    built_dist,
    distribution_folders,
    fresh_venv,
    interpreter,
    pack_distributions,
    packs_json,
    pip_install,
    project,
    user_env,
    version,
)
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SAMPLE = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"
VENV_BIN = Path(sys.executable).parent
# What every manylinux policy lets a wheel link against (PEP 599/600): the system's C runtime.
MANYLINUX_LIBS = {
    "libc.so.6",
    "libm.so.6",
    "libdl.so.2",
    "librt.so.1",
    "libpthread.so.0",
    "libgcc_s.so.1",
    "libutil.so.1",
    "ld-linux-x86-64.so.2",
}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _files(dist: Path, name: str, version: str) -> tuple[list[Path], list[Path]]:
    stem = f"{_normal(name)}-{version}"
    return sorted(dist.glob(f"{stem}-*.whl")), sorted(dist.glob(f"{stem}.tar.gz"))


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(VENV_BIN))
    assert found, f"{name} is not installed in the test environment (the dev group brings it)"
    return found


def _run(*cmd: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def dist() -> Path:
    return built_dist()


@pytest.fixture(scope="module")
def expected_tools() -> dict[str, set[str]]:
    """Each repository pack's tools, as the development install (every pack installed) lists them."""
    ours = set(pack_distributions())
    listed = packs_json([_tool("rhwp-mcp")], env=user_env(Path.home(), VENV_BIN))
    tools = {str(p["distribution"]): set(p["tools"]) for p in listed if p["distribution"] in ours}  # type: ignore[call-overload]
    assert set(tools) == ours, f"the development install lacks packs: {sorted(ours - set(tools))}"
    return tools


# -- what dist/ holds -----------------------------------------------------------------------------


def test_every_distribution_has_a_wheel_and_an_sdist(dist: Path) -> None:
    folders = distribution_folders()
    assert {"rhwp-core", "rhwp-mcp-host", "rhwp-mcp"} <= set(folders)
    for name, folder in folders.items():
        wheels, sdists = _files(dist, name, version(folder))
        assert len(wheels) == 1 and len(sdists) == 1, f"{name}: wheels {wheels}, sdists {sdists}"
        tags = wheels[0].name.removesuffix(".whl").split("-")[-3:]
        if name == "rhwp-core":
            python_tag, abi_tag, platforms = tags
            assert (python_tag, abi_tag) == ("cp310", "abi3"), wheels[0].name
            # manylinux_2_17 or lower: PyPI accepts it, and it installs on every glibc since CentOS 7.
            glibc = [tuple(map(int, m)) for m in re.findall(r"manylinux_(\d+)_(\d+)", platforms)]
            assert glibc and min(glibc) <= (2, 17), wheels[0].name
        else:
            assert tags == ["py3", "none", "any"], wheels[0].name


def test_twine_check_passes(dist: Path) -> None:
    done = _run(_tool("twine"), "check", "--strict", *map(str, sorted(dist.iterdir())))
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_native_wheel_is_true_abi3_and_manylinux(dist: Path) -> None:
    (wheel,), _ = _files(dist, "rhwp-core", version(distribution_folders()["rhwp-core"]))
    audit = _run(_tool("abi3audit"), "--strict", "--report", str(wheel))
    assert audit.returncode == 0, audit.stdout + audit.stderr
    report = json.loads(audit.stdout)
    assert report["specs"], report
    shown = _run(_tool("auditwheel"), "show", str(wheel))
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    # auditwheel names the most compatible policy the wheel meets; it must be 2.17 or older, and the
    # extension must need no library outside that policy's whitelist.
    assert re.search(r'consistent with the following platform tag: "manylinux_2_(1[0-7]|[5-9])_x86_64"', text), text
    assert "external shared libraries are required" not in text, text
    linked = set(re.findall(r"(lib[\w+-]+\.so(?:\.\d+)*) with versions", text))
    assert linked <= MANYLINUX_LIBS, f"outside the manylinux policy: {sorted(linked - MANYLINUX_LIBS)}"


def test_check_wheel_contents_passes(dist: Path) -> None:
    # Every wheel, the meta distribution's too: it holds its package rhwp_mcp (`rhwp-mcp setup`).
    done = _run(_tool("check-wheel-contents"), *sorted(map(str, dist.glob("*.whl"))))
    assert done.returncode == 0, done.stdout + done.stderr


def test_wheels_carry_typing_licence_and_notice(dist: Path) -> None:
    for name, folder in distribution_folders().items():
        (wheel,), _ = _files(dist, name, version(folder))
        names = zipfile.ZipFile(wheel).namelist()
        licences = {Path(n).name for n in names if ".dist-info/licenses/" in n}
        assert "LICENSE" in licences, f"{wheel.name}: {sorted(licences)}"
        if name == "rhwp-core":
            assert "NOTICE" in licences, f"{wheel.name}: {sorted(licences)}"
            notice = next(n for n in names if n.endswith("licenses/NOTICE"))
            assert "한글과컴퓨터" in zipfile.ZipFile(wheel).read(notice).decode("utf-8")
            assert {"rhwp_core/py.typed", "rhwp_core/_native.pyi"} <= set(names), names
        else:
            package = _normal(name)
            assert f"{package}/py.typed" in names, f"{wheel.name} lacks {package}/py.typed"


def test_the_meta_distribution_runs_the_hosts_command_and_every_folder_has_the_licence() -> None:
    # That it pulls the host and every pack, and the host's extras: tests/test_pack_list.py.
    meta = project(distribution_folders()["rhwp-mcp"])
    scripts = meta["scripts"]
    assert scripts == project(distribution_folders()["rhwp-mcp-host"])["scripts"], scripts
    required = {re.split(r"[<>=!~ ;\[]", str(r), maxsplit=1)[0] for r in meta["dependencies"]}  # type: ignore[attr-defined]
    # tomlkit: `rhwp-mcp setup codex` (the meta distribution's own module) edits TOML.
    assert "tomlkit" in required, required
    # `rhwp-mcp setup` reaches the host's command through this entry point; the host has no tomlkit.
    assert meta["entry-points"] == {"rhwp.mcp_commands": {"setup": "rhwp_mcp.setup_clients"}}, meta
    host_required = project(distribution_folders()["rhwp-mcp-host"])["dependencies"]
    assert not [r for r in host_required if str(r).startswith("tomlkit")], host_required  # type: ignore[attr-defined]
    # One licence text for every distribution.
    licence = (ROOT / "LICENSE").read_bytes()
    for folder in distribution_folders().values():
        assert (folder / "LICENSE").read_bytes() == licence, folder


# -- installed as users install it ----------------------------------------------------------------


async def _serve_and_read(params: StdioServerParameters) -> tuple[set[str], str, dict[str, Any]]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        text = await session.call_tool("extract_text", {"path": str(SAMPLE), "max_chars": 2000})
        summary = await session.call_tool("parse_hwp_summary", {"path": str(SAMPLE)})

        def first_text(result: Any) -> str:
            return "\n".join(b.text for b in result.content if getattr(b, "text", None) is not None)

        return tools, first_text(text), json.loads(first_text(summary))


def _check_full_server(command: str, args: list[str], env: dict[str, str], expected: dict[str, set[str]]) -> None:
    every_tool = set().union(*expected.values())
    tools, text, summary = anyio.run(_serve_and_read, StdioServerParameters(command=command, args=args, env=env))
    assert tools == every_tool, f"missing {sorted(every_tool - tools)}, extra {sorted(tools - every_tool)}"
    reference = _reference_text()
    assert text.strip() and text[:200] == reference[:200], text[:300]
    assert summary["format"] == "hwp" and summary["paragraphs"] > 0, summary


def _reference_text() -> str:
    import rhwp_core

    return rhwp_core.parse(SAMPLE).extract_text()


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("version", ["3.10", "3.13"])
def test_pip_install_rhwp_mcp_serves_every_pack(
    version: str, tmp_path: Path, expected_tools: dict[str, set[str]]
) -> None:
    python = interpreter(version)
    if python is None:
        pytest.fail(f"Python {version} is not on this machine (pyenv versions/{version}.*): the install test needs it")
    bin_dir = fresh_venv(python, tmp_path / "venv")
    pip_install(bin_dir, tmp_path, "--only-binary", "rhwp-core", "rhwp-mcp")
    env = user_env(tmp_path, bin_dir)
    listed = packs_json([str(bin_dir / "rhwp-mcp")], env)
    loaded = {str(p["distribution"]) for p in listed if p["status"] == "loaded"}
    assert loaded == set(expected_tools), listed
    assert len(listed) == len(expected_tools), listed
    _check_full_server(str(bin_dir / "rhwp-mcp"), [], env, expected_tools)


@pytest.mark.timeout(1500)
def test_selected_packs_install_serves_exactly_them(tmp_path: Path, expected_tools: dict[str, set[str]]) -> None:
    python = interpreter("3.13") or Path(sys.executable)
    bin_dir = fresh_venv(python, tmp_path / "venv")
    pip_install(bin_dir, tmp_path, "rhwp-mcp-host", "rhwp-mcp-tools-view")
    env = user_env(tmp_path, bin_dir)
    listed = packs_json([str(bin_dir / "rhwp-mcp")], env)
    assert [p["distribution"] for p in listed] == ["rhwp-mcp-tools-view"], listed
    # `rhwp-mcp setup` is the meta distribution's: without it, the command says what to install.
    setup = subprocess.run(
        [str(bin_dir / "rhwp-mcp"), "setup", "claude-desktop"], env=env, capture_output=True, text=True, timeout=120
    )
    assert setup.returncode == 2 and "pip install rhwp-mcp " in setup.stderr, setup.stderr
    want = expected_tools["rhwp-mcp-tools-view"]
    assert len(want) == 2

    async def tools() -> set[str]:
        params = StdioServerParameters(command=str(bin_dir / "rhwp-mcp"), args=[], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return {t.name for t in (await session.list_tools()).tools}

    assert anyio.run(tools) == want


@pytest.mark.timeout(1500)
def test_uvx_runs_the_server_from_dist(tmp_path: Path, expected_tools: dict[str, set[str]]) -> None:
    uv = _tool("uv")
    python = interpreter("3.13") or Path(sys.executable)
    env = user_env(
        tmp_path,
        UV_CACHE_DIR=str(ROOT / ".cache" / "uv"),
        UV_TOOL_DIR=str(tmp_path / "uv-tools"),
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_CONFIG="1",
    )
    # `uvx rhwp-mcp` is `uv tool run rhwp-mcp`; --find-links stands in for PyPI until we publish.
    args = ["tool", "run", "--python", str(python), "--find-links", str(built_dist()), "rhwp-mcp"]
    _check_full_server(uv, args, env, expected_tools)
