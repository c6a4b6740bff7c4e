"""The distributions as users get them, for the tests that install them (test_distribution.py and
the standalone, bundle and container tests).

`built_dist()` runs `./dev dist` once per test session into `.cache/test-dist` (cargo's incremental
build makes later sessions quick; a file lock keeps two sessions from building into it at once).
`fresh_venv()` makes an empty virtual environment of a chosen Python, and `user_env()` the
environment a user's machine gives a command: no Rust toolchain on PATH, no developer variables.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import tomllib
from corpus_support import ROOT

DIST = ROOT / ".cache" / "test-dist"
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created) across processes: one build into a shared folder at a time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@functools.cache
def built_dist() -> Path:
    """dist/ as `./dev dist` makes it, built once per session (the dev venv runs the build tools)."""
    env = dict(os.environ, DIST_DIR=str(DIST), RHWP_VENV=sys.prefix)
    with locked(DIST.with_suffix(".lock")):
        done = subprocess.run(
            ["bash", str(ROOT / "dev"), "dist"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
        )
    if done.returncode != 0:
        raise RuntimeError(f"./dev dist failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return DIST


def distribution_folders() -> dict[str, Path]:
    """Every distribution the repository ships: its normalised name -> its folder."""
    found: dict[str, Path] = {}
    for pyproject in sorted(ROOT.glob("*/pyproject.toml")):
        name = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["name"]
        if name.startswith("rhwp-"):
            found[name] = pyproject.parent
    return found


def project(folder: Path) -> dict[str, object]:
    table: dict[str, object] = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return table


def version(folder: Path) -> str:
    """A distribution's version: static in pyproject.toml, or (hatch's dynamic version) the
    ``__version__`` line of the file ``[tool.hatch.version] path`` names."""
    table = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    static = table["project"].get("version")
    if static:
        return str(static)
    source = (folder / table["tool"]["hatch"]["version"]["path"]).read_text(encoding="utf-8")
    found = re.search(r"^__version__\s*(?::\s*str\s*)?=\s*[\"']([^\"']+)", source, re.M)
    assert found, f"no __version__ in {folder}"
    return found.group(1)


def pack_distributions() -> list[str]:
    """The tool packs: the distributions that register an `rhwp.mcp_tools` entry point."""
    packs = []
    for name, folder in distribution_folders().items():
        entry_points = project(folder).get("entry-points", {})
        if isinstance(entry_points, dict) and "rhwp.mcp_tools" in entry_points:
            packs.append(name)
    return packs


def interpreter(version: str) -> Path | None:
    """A CPython of this minor version: pyenv's (what this machine kind has), else one on PATH."""
    for candidate in sorted(PYENV_ROOT.glob(f"versions/{version}.*/bin/python{version}"), reverse=True):
        if candidate.is_file():
            return candidate
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(directory) / f"python{version}"
        if candidate.is_file() and "shims" not in candidate.parts:
            return candidate
    return None


def _no_toolchain_path(*first: Path) -> str:
    """PATH with the venv first and no directory that holds cargo or rustc (a user has neither)."""
    keep = [str(p) for p in first]
    for directory in ("/usr/local/bin", "/usr/bin", "/bin"):
        if not any((Path(directory) / tool).exists() for tool in ("cargo", "rustc")):
            keep.append(directory)
    return os.pathsep.join(keep)


def user_env(home: Path, *path_first: Path, **extra: str) -> dict[str, str]:
    """What a user's shell gives a command: a home, a locale, PATH without a Rust toolchain."""
    env = {"HOME": str(home), "LANG": "C.UTF-8", "PATH": _no_toolchain_path(*path_first)}
    # The pip/uv caches of this machine make installs fast; they hold downloads, not our build.
    for key in ("PIP_CACHE_DIR", "XDG_CACHE_HOME", "SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env.update(extra)
    return env


def fresh_venv(python: Path, where: Path) -> Path:
    """An empty virtual environment (its bin/ directory returned)."""
    subprocess.run([str(python), "-m", "venv", str(where)], check=True, timeout=300)
    return where / "bin"


def pip_install(bin_dir: Path, home: Path, *requirements: str) -> None:
    """`pip install --find-links dist …` as a user would, with nothing but the index and dist/."""
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--find-links", str(built_dist()), *requirements],
        env=user_env(home, bin_dir),
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if done.returncode != 0:
        shown = " ".join(requirements)
        raise AssertionError(f"pip install {shown} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")


def packs_json(command: list[str], env: dict[str, str]) -> list[dict[str, object]]:
    """`rhwp-mcp packs --json`: the discovered packs."""
    done = subprocess.run([*command, "packs", "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    payload = json.loads(done.stdout)
    packs: list[dict[str, object]] = payload["packs"] if isinstance(payload, dict) else payload
    return packs
