"""Pack the standalone server into a Claude Desktop bundle (.mcpb) for this OS and architecture.

    python packaging/mcpb/build.py [--standalone FOLDER] [--out DIR] [--work DIR] [--mcpb COMMAND]

FOLDER is a built standalone server (default dist/standalone/rhwp-mcp, from build.py beside
../standalone). The bundle holds manifest.json (manifest.in.json completed: the version of the
frozen `rhwp-mcp` distribution, the tools the frozen server lists, this platform), icon.png, the
Korean strings and the server folder as server/. The manifest is checked with `mcpb validate` and
the folder packed with `mcpb pack` (@anthropic-ai/mcpb, pinned) into
DIR/rhwp-mcp-<version>-<os>-<arch>.mcpb (default DIR: dist).

Plain Python with no dependencies, so `./dev bundle` and a Windows runner run the same code.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
MCPB_PACKAGE = "@anthropic-ai/mcpb@2.1.2"
EXE_SUFFIX = ".exe" if os.name == "nt" else ""
# mcpb's names for the platforms (compatibility.platforms), and ours for the file name.
PLATFORMS = {"linux": ("linux", "linux"), "darwin": ("darwin", "macos"), "win32": ("win32", "windows")}
ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "arm64", "aarch64": "arm64"}


def log(message: str) -> None:
    print(f"bundle: {message}", file=sys.stderr, flush=True)


def platform_names() -> tuple[str, str, str]:
    """(mcpb platform, OS name for the file, architecture)."""
    mcpb_platform, os_name = PLATFORMS[sys.platform]
    machine = platform.machine().lower()
    return mcpb_platform, os_name, ARCHES.get(machine, machine)


def frozen_version(folder: Path) -> str:
    """The version of the `rhwp-mcp` distribution frozen into the folder (its dist-info)."""
    for metadata in sorted(folder.glob("**/rhwp_mcp-*.dist-info/METADATA")):
        for line in metadata.read_text(encoding="utf-8").splitlines():
            if line.startswith("Version:"):
                return line.split(":", 1)[1].strip()
    raise SystemExit(f"bundle: no rhwp_mcp-*.dist-info in {folder}: is it a standalone build?")


def list_tools(command: Path) -> list[dict[str, Any]]:
    """tools/list from the server over stdio, with plain JSON-RPC lines (no client library needed).

    One request at a time, each answer read before the next is sent: a server may stop at the end
    of its input before answering requests still in flight."""
    server = subprocess.Popen(
        [str(command)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    assert server.stdin is not None and server.stdout is not None

    def send(message: dict[str, Any]) -> None:
        server.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
        server.stdin.flush()  # type: ignore[union-attr]

    def answer(request_id: int) -> dict[str, Any]:
        for line in server.stdout:  # type: ignore[union-attr]
            reply: dict[str, Any] = json.loads(line)
            if reply.get("id") == request_id:
                return reply
        raise SystemExit(f"bundle: {command} stopped before answering:\n{server.stderr.read()[-2000:]}")  # type: ignore[union-attr]

    try:
        client = {"name": "rhwp-mcp bundle build", "version": "0"}
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client},
            }
        )
        answer(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools: list[dict[str, Any]] = answer(2)["result"]["tools"]
        return tools
    finally:
        server.stdin.close()
        server.wait(timeout=30)


def first_sentence(text: str) -> str:
    """A tool's description for the bundle's listing: its first line, as clients show it."""
    return (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""


def manifest_for(folder: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((HERE / "manifest.in.json").read_text(encoding="utf-8"))
    manifest["version"] = frozen_version(folder)
    tools = list_tools(folder / f"rhwp-mcp{EXE_SUFFIX}")
    manifest["tools"] = [{"name": t["name"], "description": first_sentence(t.get("description", ""))} for t in tools]
    manifest["compatibility"]["platforms"] = [platform_names()[0]]
    return manifest


def mcpb_command(explicit: str | None) -> list[str]:
    """The pinned mcpb CLI: --mcpb, else the copy `./dev` installs into .cache/mcpb, else npx."""
    if explicit:
        return explicit.split()
    local = REPO / ".cache" / "mcpb" / "node_modules" / ".bin" / ("mcpb.cmd" if os.name == "nt" else "mcpb")
    if local.is_file():
        return [str(local)]
    npx = shutil.which("npx")
    if npx is None:
        raise SystemExit("bundle: neither .cache/mcpb nor npx found; install Node.js (npm) or pass --mcpb")
    return [npx, "--yes", MCPB_PACKAGE]


def mcpb(command: list[str], *args: str | Path) -> str:
    argv = [*command, *(str(a) for a in args)]
    log("$ " + " ".join(argv))
    done = subprocess.run(argv, capture_output=True, text=True, encoding="utf-8", check=False)
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        raise SystemExit(f"bundle: mcpb {args[0]} failed ({done.returncode}):\n{output}")
    return output


def build(standalone: Path, out: Path, work: Path, command: list[str]) -> Path:
    standalone, out, work = standalone.resolve(), out.resolve(), work.resolve()
    if not (standalone / f"rhwp-mcp{EXE_SUFFIX}").is_file():
        raise SystemExit(f"bundle: no server in {standalone}; run ./dev standalone first")
    manifest = manifest_for(standalone)
    _, os_name, arch = platform_names()
    stage = work / f"{os_name}-{arch}"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    # Real files, not links: mcpb packs what it reads, and a link would be packed as a copy anyway.
    shutil.copytree(standalone, stage / "server", symlinks=False)
    shutil.copy2(HERE / "icon.png", stage / "icon.png")
    shutil.copytree(HERE / "resources", stage / "resources")
    (stage / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")

    print(mcpb(command, "validate", stage / "manifest.json"))
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"rhwp-mcp-{manifest['version']}-{os_name}-{arch}.mcpb"
    target.unlink(missing_ok=True)
    packed = mcpb(command, "pack", stage, target)
    # The summary lines, not the file-by-file listing of the server folder.
    print("\n".join(line for line in packed.splitlines() if ":" in line and not line.startswith(" ")))
    log(f"built {target} ({target.stat().st_size / 1e6:.1f} MB, {len(manifest['tools'])} tools)")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    dist = Path(os.environ.get("DIST_DIR", REPO / "dist"))
    parser.add_argument("--standalone", type=Path, default=dist / "standalone" / "rhwp-mcp")
    parser.add_argument("--out", type=Path, default=dist)
    parser.add_argument("--work", type=Path, default=REPO / ".cache" / "mcpb-stage", help="where the bundle is staged")
    parser.add_argument("--mcpb", help=f"the mcpb command (default: .cache/mcpb's, else npx {MCPB_PACKAGE})")
    args = parser.parse_args(argv)
    print(build(args.standalone, args.out, args.work, mcpb_command(args.mcpb)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
