"""The standalone server (PyInstaller, one folder) and the Claude Desktop bundle around it, run as a
user without Python runs them.

One build each per session: the standalone folder from `./dev dist`'s wheels with
packaging/standalone/build.py (kept across sessions while the wheels and build files are unchanged),
and one .mcpb from it with packaging/mcpb/build.py. Every run gets an environment with nothing but
HOME, LANG and a PATH on which no Python can be found.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import ROOT
from dist_support import built_dist, locked, pack_distributions
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from rhwp_mcp_host.plugin.errors import ERROR_CODES, INTERNAL_ERROR

pytestmark = [pytest.mark.slow, pytest.mark.e2e]

FIXTURES = ROOT / "tests" / "fixtures" / "hwp"
SAMPLE = FIXTURES / "rhwp-nested-cell-pagination.hwp"
PICTURE = FIXTURES / "hwplib-getting_clickhere_text.hwp"  # BIN0001.png, 138×110
CACHE = ROOT / ".cache" / "test-standalone"
MCPB = ROOT / ".cache" / "mcpb" / "node_modules" / ".bin" / "mcpb"
EXE = "rhwp-mcp.exe" if os.name == "nt" else "rhwp-mcp"
# An answer about the input, not a failure of the frozen program.
TYPED_ERRORS = set(ERROR_CODES) - {INTERNAL_ERROR}


@functools.cache
def built_standalone() -> Path:
    """The standalone folder, built from dist/'s wheels (reused while its inputs are unchanged)."""
    dist = built_dist()
    with locked(CACHE / "build.lock"):
        done = subprocess.run(
            [
                sys.executable,
                str(ROOT / "packaging" / "standalone" / "build.py"),
                "--dist",
                str(dist),
                "--out",
                str(CACHE),
                "--work",
                str(CACHE / "work"),
                "--reuse",
            ],
            capture_output=True,
            text=True,
            timeout=3600,
        )
    assert done.returncode == 0, f"standalone build failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return CACHE / "rhwp-mcp"


@pytest.fixture(scope="session")
def standalone() -> Path:
    return built_standalone()


@pytest.fixture(scope="session")
def no_python(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """`env -i HOME=… LANG=… PATH=…` with a PATH holding no Python (/usr/bin has one here)."""
    home = tmp_path_factory.mktemp("home")
    empty = tmp_path_factory.mktemp("empty-bin")
    env = {"HOME": str(home), "LANG": "C.UTF-8", "PATH": str(empty)}
    for name in ("python", "python3", "python3.11", "python3.13", "py"):
        assert shutil.which(name, path=env["PATH"]) is None, name
    return env


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)


def _is_error(result: Any) -> bool:
    # mcp 2.x: is_error (its old isError warns when read); 1.x: isError only.
    return bool(result.is_error if hasattr(result, "is_error") else result.isError)


def _packs_and_tools(command: Path, env: dict[str, str]) -> tuple[list[dict[str, Any]], set[str]]:
    done = subprocess.run([str(command), "packs", "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    payload = json.loads(done.stdout)
    packs: list[dict[str, Any]] = payload["packs"] if isinstance(payload, dict) else payload
    return packs, {tool for p in packs for tool in p["tools"]}


# -- the standalone server -------------------------------------------------------------------------


def test_every_pack_loads_without_python(standalone: Path, no_python: dict[str, str]) -> None:
    packs, tools = _packs_and_tools(standalone / EXE, no_python)
    loaded = {p["distribution"] for p in packs if p["status"] == "loaded" and not p.get("builtin")}
    assert loaded == set(pack_distributions()), packs
    assert all(p["status"] == "loaded" for p in packs), packs
    assert len(tools) >= len(loaded)


def test_setup_is_frozen_in_and_writes_the_binary_itself(standalone: Path, no_python: dict[str, str]) -> None:
    """`rhwp-mcp setup`, a command of the rhwp-mcp distribution found through its entry point
    (rhwp.mcp_commands), works frozen: a client's entry names the standalone binary."""
    done = subprocess.run(
        [str(standalone / EXE), "setup", "cursor", "--dry-run"],
        env=no_python,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "dry run: Cursor would get server 'hwp'" in done.stderr, done.stderr
    binary = standalone / EXE
    # As JSON writes it (a Windows path's backslashes doubled).
    assert any(json.dumps(str(path))[1:-1] in done.stdout for path in (binary, binary.resolve())), done.stdout


def test_a_real_client_over_stdio_reads_text_pictures_and_chunks(standalone: Path, no_python: dict[str, str]) -> None:
    _, expected = _packs_and_tools(standalone / EXE, no_python)

    async def session_calls() -> None:
        params = StdioServerParameters(command=str(standalone / EXE), args=[], env=no_python)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            assert {t.name for t in listed} == expected
            # Every tool of every pack runs frozen (a module or data file left out shows up as an
            # internal error): the sample as `path`, a word of it for any other required text.
            for tool in listed:
                schema = getattr(tool, "input_schema", None) or tool.inputSchema
                arguments = {name: "규제" for name in schema.get("required", [])} | {"path": str(SAMPLE)}
                result = await session.call_tool(tool.name, arguments)
                if _is_error(result):
                    assert json.loads(_text(result))["error"] in TYPED_ERRORS, (tool.name, _text(result)[:500])
            text = await session.call_tool("extract_text", {"path": str(SAMPLE), "max_chars": 2000})
            assert not _is_error(text) and "규제" in _text(text), _text(text)[:300]
            # Pillow frozen in: the picture is decoded, checked and re-encoded by the media pack.
            image = await session.call_tool("get_image", {"path": str(PICTURE), "bin_data": "BIN0001.png"})
            assert not _is_error(image), _text(image)
            (block,) = [b for b in image.content if b.type == "image"]
            assert base64.b64decode(block.data).startswith(b"\x89PNG"), block.mime_type
            # langchain-text-splitters frozen in (imported on the first call).
            chunks = await session.call_tool("chunks", {"path": str(SAMPLE), "mode": "paragraph", "size": 400})
            payload = json.loads(_text(chunks))
            assert payload["total"] > 1 and payload["chunks"][0]["metadata"]["source"] == str(SAMPLE)

    anyio.run(session_calls)


def test_call_from_the_shell(standalone: Path, no_python: dict[str, str]) -> None:
    done = subprocess.run(
        [str(standalone / EXE), "call", "parse_hwp_summary", f"path={SAMPLE}"],
        env=no_python,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    # The frozen reader counts what the installed one does (17: Hancom's own PDF of this file).
    import rhwp_core

    assert summary["format"] == "hwp" and summary["pages"] == rhwp_core.parse(SAMPLE).page_count == 17, summary
    # The frozen app carries the packs' data files: the render pack draws a page with its fonts.
    png = Path(no_python["HOME"]) / "page1.png"
    done = subprocess.run(
        [str(standalone / EXE), "call", "render_page", f"path={SAMPLE}", "page=1", "--output", str(png)],
        env=no_python,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size > 10_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_streamable_http(standalone: Path, no_python: dict[str, str]) -> None:
    try:
        from mcp.client.streamable_http import streamable_http_client as http_client
    except ImportError:  # mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client as http_client

    _, expected = _packs_and_tools(standalone / EXE, no_python)
    port = _free_port()
    server = subprocess.Popen(
        [str(standalone / EXE), "--transport", "streamable-http", "--host", "127.0.0.1", "--port", str(port)],
        env=no_python,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.1)

        async def session_calls() -> None:
            async with http_client(f"http://127.0.0.1:{port}/mcp") as streams:
                async with ClientSession(streams[0], streams[1]) as session:
                    await session.initialize()
                    assert {t.name for t in (await session.list_tools()).tools} == expected
                    summary = await session.call_tool("parse_hwp_summary", {"path": str(SAMPLE)})
                    assert json.loads(_text(summary))["format"] == "hwp"

        anyio.run(session_calls)
    finally:
        server.terminate()
        server.communicate(timeout=30)  # reaps it and closes its pipe


def _startup_seconds(command: list[str], env: dict[str, str]) -> float:
    """Wall time from spawning the server to the answer of tools/list (after initialize), over stdio."""
    started = time.perf_counter()
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert server.stdin is not None and server.stdout is not None

    def exchange(message: dict[str, Any], answer: bool = True) -> None:
        server.stdin.write((json.dumps(message) + "\n").encode())  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]
        if answer:
            assert json.loads(server.stdout.readline())["id"] == message["id"]  # type: ignore[union-attr]

    client = {"name": "startup", "version": "0"}
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    exchange({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    exchange({"jsonrpc": "2.0", "method": "notifications/initialized"}, answer=False)
    exchange({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    elapsed = time.perf_counter() - started
    server.stdin.close()
    server.wait(timeout=30)
    server.stdout.close()
    return elapsed


def test_starts_within_one_and_a_half_times_the_venv(standalone: Path, no_python: dict[str, str]) -> None:
    # The build venv the folder was frozen from: the same packages, installed as pip installs them.
    venv_command = CACHE / "work" / "venv" / ("Scripts" if os.name == "nt" else "bin") / EXE
    frozen, venv = [], []
    for _ in range(5):  # interleaved, so a busy moment of the machine hits both
        frozen.append(_startup_seconds([str(standalone / EXE)], no_python))
        venv.append(_startup_seconds([str(venv_command)], no_python))
    print(
        "\nstart-up to tools/list over stdio:"
        f" standalone min {min(frozen):.2f} s median {statistics.median(frozen):.2f} s;"
        f" venv min {min(venv):.2f} s median {statistics.median(venv):.2f} s"
    )
    assert min(frozen) <= 1.5 * min(venv), (frozen, venv)


# -- the Claude Desktop bundle ----------------------------------------------------------------------


def _mcpb() -> list[str]:
    if MCPB.is_file():
        return [str(MCPB)]
    if os.environ.get("CI"):
        pytest.fail("the mcpb CLI is missing from .cache/mcpb (./dev test installs it)")
    pytest.skip("the mcpb CLI is not installed (./dev test installs it into .cache/mcpb)")


@pytest.fixture(scope="session")
def bundle(standalone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    mcpb = _mcpb()
    out = tmp_path_factory.mktemp("bundle")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "packaging" / "mcpb" / "build.py"),
            "--standalone",
            str(standalone),
            "--out",
            str(out),
            "--work",
            str(out / "stage"),
            "--mcpb",
            " ".join(mcpb),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, f"bundle build failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    (path,) = out.glob("rhwp-mcp-*.mcpb")
    return path


def _unpack(bundle: Path, into: Path) -> None:
    """Unzip as Claude Desktop installs a bundle: file modes from the archive (the server's x bit)."""
    with zipfile.ZipFile(bundle) as archive:
        for member in archive.infolist():
            target = Path(archive.extract(member, into))
            mode = (member.external_attr >> 16) & 0o777
            if mode:
                target.chmod(mode)


def _substitute(value: Any, variables: dict[str, Any]) -> Any:
    """mcpb's substitution: `${name}` inside strings; an argument that is exactly
    `${user_config.KEY}` with a list value becomes one argument per item."""
    if isinstance(value, str):
        for name, replacement in variables.items():
            if isinstance(replacement, str):
                value = value.replace("${" + name + "}", replacement)
        return value
    if isinstance(value, list):
        items: list[Any] = []
        for item in value:
            name = item[2:-1] if isinstance(item, str) and item.startswith("${") and item.endswith("}") else None
            if name is not None and isinstance(variables.get(name), list):
                items += variables[name]
            else:
                items.append(_substitute(item, variables))
        return items
    if isinstance(value, dict):
        return {key: _substitute(item, variables) for key, item in value.items()}
    return value


def test_bundle_validates_and_its_command_serves_every_tool_inside_the_roots(
    bundle: Path, standalone: Path, no_python: dict[str, str], tmp_path: Path
) -> None:
    installed = tmp_path / "extension"
    _unpack(bundle, installed)
    done = subprocess.run([*_mcpb(), "validate", str(installed / "manifest.json")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((installed / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["server"]["type"] == "binary"
    assert "runtimes" not in manifest["compatibility"], "the bundle needs no Python or Node"
    assert (installed / manifest["icon"]).is_file()

    # Two folders picked in Claude Desktop's settings; a copy of the sample in each, one outside.
    roots = [tmp_path / "문서", tmp_path / "more"]
    for root in roots:
        root.mkdir()
        shutil.copy(SAMPLE, root / SAMPLE.name)
    (tmp_path / "outside").mkdir()
    outside = tmp_path / "outside" / SAMPLE.name
    shutil.copy(SAMPLE, outside)

    config = manifest["server"]["mcp_config"]
    if sys.platform in config.get("platform_overrides", {}):
        config = {**config, **config["platform_overrides"][sys.platform]}
    variables: dict[str, Any] = {"__dirname": str(installed), "user_config.roots": [str(r) for r in roots]}
    command = _substitute(config["command"], variables)
    args = _substitute(config["args"], variables)
    assert not any("${" in arg for arg in [command, *args]), (command, args)

    _, expected = _packs_and_tools(standalone / EXE, no_python)
    assert {t["name"] for t in manifest["tools"]} == expected, manifest["tools"]

    async def session_calls() -> None:
        params = StdioServerParameters(command=command, args=args, env=no_python)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            assert {t.name for t in (await session.list_tools()).tools} == expected
            for root in roots:
                inside = await session.call_tool("parse_hwp_summary", {"path": str(root / SAMPLE.name)})
                assert not _is_error(inside) and json.loads(_text(inside))["format"] == "hwp", _text(inside)
            refused = await session.call_tool("parse_hwp_summary", {"path": str(outside)})
            assert _is_error(refused) and json.loads(_text(refused))["error"] == "permission_denied", _text(refused)

    anyio.run(session_calls)
