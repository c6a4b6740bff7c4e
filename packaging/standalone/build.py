"""Build the standalone server (no Python needed where it runs) from the wheels in dist/.

    python packaging/standalone/build.py [--dist DIST] [--out OUT] [--work WORK] [--reuse]

Makes a fresh build venv with the interpreter running this script, installs `rhwp-mcp` from DIST
(the versions found there; third-party dependencies from the index) and PyInstaller into it, and
freezes the server with rhwp-mcp.spec into OUT/rhwp-mcp/ (default DIST/standalone/rhwp-mcp/:
`rhwp-mcp`, or `rhwp-mcp.exe` on Windows, beside `_internal/`). Then it runs the frozen
`rhwp-mcp packs --json` and fails unless every pack installed in the build venv loaded.

Plain Python with no dependencies, so `./dev standalone` and a Windows runner run the same code.
`--reuse` keeps an existing build when its inputs (the wheels, these build files, the interpreter
and OS) are unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
EXE_SUFFIX = ".exe" if os.name == "nt" else ""
BUILD_FILES = ("build.py", "entry.py", "rhwp-mcp.spec")
PYINSTALLER = "pyinstaller>=6.10,<7"


def log(message: str) -> None:
    print(f"standalone: {message}", file=sys.stderr, flush=True)


def venv_python(where: Path) -> Path:
    return where / ("Scripts" if os.name == "nt" else "bin") / f"python{EXE_SUFFIX}"


def executable(folder: Path) -> Path:
    """The server inside a built folder."""
    return folder / f"rhwp-mcp{EXE_SUFFIX}"


def our_wheels(dist: Path) -> dict[str, str]:
    """The project's distributions in DIST and their versions, from the wheel file names."""
    found: dict[str, str] = {}
    for wheel in sorted(dist.glob("rhwp_*.whl")):
        name, version = wheel.name.split("-")[:2]
        found[name.replace("_", "-")] = version
    if "rhwp-mcp" not in found:
        raise SystemExit(f"standalone: no rhwp_mcp wheel in {dist}; run ./dev dist first")
    return found


def inputs_key(dist: Path) -> str:
    """What a build depends on: our wheels' bytes, the build files, the interpreter and the OS."""
    digest = hashlib.sha256()
    for wheel in sorted(dist.glob("rhwp_*.whl")):
        # Each member's name, size and CRC, not the archive's bytes; without maturin's SBOM (a new
        # serial number and time on every build) and RECORD (which hashes it): a rebuild of the
        # same sources must not force a new freeze.
        digest.update(wheel.name.encode())
        with zipfile.ZipFile(wheel) as archive:
            for member in sorted(archive.infolist(), key=lambda m: m.filename):
                if "/sboms/" in member.filename or member.filename.endswith(".dist-info/RECORD"):
                    continue
                digest.update(f"{member.filename} {member.file_size} {member.CRC}\n".encode())
    for name in BUILD_FILES:
        digest.update((HERE / name).read_bytes())
    digest.update(f"{sys.version} {platform.platform()} {platform.machine()}".encode())
    return digest.hexdigest()


def run(command: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    log("$ " + " ".join(str(part) for part in command))
    return subprocess.run([str(part) for part in command], check=True, text=True, **kwargs)  # type: ignore[call-overload,no-any-return]


def installed_packs(python: Path) -> list[str]:
    """The packs the build venv has: what the frozen app must load."""
    code = (
        "import json\nfrom importlib import metadata\n"
        "print(json.dumps(sorted(ep.name for ep in metadata.entry_points(group='rhwp.mcp_tools'))))"
    )
    done = run([python, "-c", code], capture_output=True)
    names: list[str] = json.loads(done.stdout)
    return names


def check_frozen(folder: Path, expected: list[str]) -> None:
    """The frozen server discovers and loads every pack (metadata and modules were frozen in)."""
    done = run([executable(folder), "packs", "--json"], capture_output=True)
    payload = json.loads(done.stdout)
    packs = payload["packs"] if isinstance(payload, dict) else payload
    loaded = sorted(p["name"] for p in packs if p["status"] == "loaded" and not p.get("builtin"))
    if loaded != expected:
        raise SystemExit(f"standalone: the frozen server loaded packs {loaded}, expected {expected}:\n{done.stderr}")
    log(f"packs loaded by the frozen server: {', '.join(loaded)}")
    # `rhwp-mcp setup` is a command of the rhwp-mcp distribution (entry-point group
    # rhwp.mcp_commands): without its module and metadata frozen in, it says it is not installed.
    listed = run([executable(folder), "setup", "--list"], capture_output=True)
    log(f"setup is frozen in: {len(listed.stdout.splitlines())} clients listed")


def build(dist: Path, out: Path, work: Path, *, reuse: bool) -> Path:
    dist, out, work = dist.resolve(), out.resolve(), work.resolve()
    folder = out / "rhwp-mcp"
    stamp = work / "inputs.sha256"
    key = inputs_key(dist)
    if reuse and executable(folder).is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        log(f"up to date: {folder}")
        return folder

    versions = our_wheels(dist)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    log(f"build venv with {sys.executable} ({platform.python_version()})")
    venv.EnvBuilder(with_pip=True).create(work / "venv")
    python = venv_python(work / "venv")
    # Pinned to the versions in DIST, so the index never supplies one of our distributions.
    pins = [f"{name}=={version}" for name, version in versions.items()]
    run([python, "-m", "pip", "install", "-q", "--find-links", dist, *pins, PYINSTALLER])
    expected = installed_packs(python)

    if folder.exists():
        shutil.rmtree(folder)
    run(
        [
            python,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level=WARN",
            "--distpath",
            out,
            "--workpath",
            work / "pyinstaller",
            HERE / "rhwp-mcp.spec",
        ],
        cwd=work,
    )
    check_frozen(folder, expected)
    stamp.write_text(key + "\n")
    log(f"built {folder}")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=Path(os.environ.get("DIST_DIR", REPO / "dist")))
    parser.add_argument("--out", type=Path, help="where the rhwp-mcp/ folder goes (default DIST/standalone)")
    parser.add_argument(
        "--work", type=Path, default=REPO / ".cache" / "standalone", help="build venv and PyInstaller work"
    )
    parser.add_argument("--reuse", action="store_true", help="keep an existing build whose inputs did not change")
    args = parser.parse_args(argv)
    out = args.out or args.dist / "standalone"
    print(build(args.dist, out, args.work, reuse=args.reuse))
    return 0


if __name__ == "__main__":
    sys.exit(main())
