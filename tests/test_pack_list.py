"""The list of tool packs is the rhwp_mcp_tools_* folders, wherever a file lists packs.

A pack is a folder ``rhwp_mcp_tools_NAME``: its distribution registers one entry point ``NAME`` in
the group ``rhwp.mcp_tools``. Files that can derive the list do (``./dev`` and the CI install glob
the folders, uv's workspace members take ``rhwp_mcp_tools_*``); the others cannot (TOML
dependencies, JSON, prose), and this file holds each of them equal to the folders, so a new pack
folder fails here until every list names it, and a list that names a pack no longer there fails too.
Where in a README a list stands is the README's business: any list there that names several packs
must name them all.

Every pack also holds to the same contract: its register hooks take the host's Register and
RegisterResource, and the server lists every pack's tools without the packs' heavy imports.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import tomllib
from corpus_support import ROOT
from dist_support import distribution_folders, project

GROUP = "rhwp.mcp_tools"
PREFIX = "rhwp_mcp_tools_"


def _pack_folders() -> dict[str, Path]:
    """Each pack's name -> its folder (the folder name after the prefix)."""
    return {p.parent.name.removeprefix(PREFIX): p.parent for p in sorted(ROOT.glob(f"{PREFIX}*/pyproject.toml"))}


PACKS = _pack_folders()
DISTRIBUTIONS = {name: str(project(folder)["name"]) for name, folder in PACKS.items()}
"""Each pack's name -> its distribution's name (rhwp-mcp-tools-NAME)."""


def _pyproject(path: Path) -> dict[str, object]:
    table: dict[str, object] = tomllib.loads(path.read_text(encoding="utf-8"))
    return table


def _expand(patterns: list[str]) -> set[str]:
    """The folder names the patterns (paths relative to the root, globs allowed) name."""
    found: set[str] = set()
    for pattern in patterns:
        pattern = pattern.strip().rstrip("/")
        matches = sorted(ROOT.glob(pattern)) if any(c in pattern for c in "*?[") else [ROOT / pattern]
        found.update(m.relative_to(ROOT).parts[0] for m in matches if m.exists())
    return found


def _requirement_names(requirements: list[str]) -> list[str]:
    return [re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0] for r in requirements]


def test_there_are_packs_and_each_folder_is_one_pack() -> None:
    assert len(PACKS) >= 7, sorted(PACKS)
    for name, folder in PACKS.items():
        entry_points = project(folder).get("entry-points", {})
        assert isinstance(entry_points, dict)
        assert list(entry_points.get(GROUP, {})) == [name], (folder.name, entry_points)
        assert DISTRIBUTIONS[name] == f"rhwp-mcp-tools-{name}", folder.name
    # No other folder of the repository registers a pack.
    others = {
        dist: folder
        for dist, folder in distribution_folders().items()
        if not folder.name.startswith(PREFIX) and GROUP in (project(folder).get("entry-points") or {})  # type: ignore[operator]
    }
    assert not others, others


def test_the_workspace_members_are_every_distribution_folder() -> None:
    members: list[str] = _pyproject(ROOT / "pyproject.toml")["tool"]["uv"]["workspace"]["members"]  # type: ignore[index]
    assert _expand(members) == {folder.name for folder in distribution_folders().values()}


def test_pytest_and_mypy_take_in_every_pack() -> None:
    tool: dict[str, dict[str, dict[str, list[str]]]] = _pyproject(ROOT / "pyproject.toml")["tool"]  # type: ignore[assignment]
    testpaths = tool["pytest"]["ini_options"]["testpaths"]
    checked: list[str] = tool["mypy"]["files"]  # type: ignore[assignment]
    for folder in PACKS.values():
        if (folder / "tests").is_dir():
            assert f"{folder.name}/tests" in testpaths, folder.name
        assert f"{folder.name}/src" in checked, folder.name


def _dev_arrays() -> dict[str, list[str]]:
    """PACKS, PACKAGES and PURE_DISTS as ./dev computes them (their lines run in bash at the root)."""
    lines = [
        line
        for line in (ROOT / "dev").read_text(encoding="utf-8").splitlines()
        if re.match(r"(PACKS|PACKAGES|PURE_DISTS)=\(", line)
    ]
    script = "\n".join([*lines, *(f'echo "{n}=${{{n}[*]}}"' for n in ("PACKS", "PACKAGES", "PURE_DISTS"))])
    done = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    arrays = dict(line.split("=", 1) for line in done.stdout.splitlines())
    return {name: value.split() for name, value in arrays.items()}


def test_dev_installs_and_builds_every_pack() -> None:
    arrays = _dev_arrays()
    packs = {f"./{folder.name}" for folder in PACKS.values()}
    assert set(arrays["PACKS"]) == packs
    # ./dev test and demo install the reader, the host and every pack (and maybe more).
    assert set(arrays["PACKAGES"]) >= {"./rhwp_core", "./rhwp_mcp_host", *packs}, arrays["PACKAGES"]
    # ./dev dist builds every pure-Python distribution (rhwp-core is built by maturin).
    pure = {f"./{folder.name}" for folder in distribution_folders().values() if folder.name != "rhwp_core"}
    assert set(arrays["PURE_DISTS"]) == pure, arrays["PURE_DISTS"]


def _commands(text: str) -> list[str]:
    """The lines of a shell text, with backslash continuations joined."""
    return re.sub(r"\\\n\s*", " ", text).splitlines()


def _installed_folders(text: str) -> list[set[str]]:
    """For each `pip install` / `pip wheel` of repository folders (``./FOLDER``) in ``text``, the folders it names."""
    found = []
    for command in _commands(text):
        for match in re.finditer(r"pip (?:install|wheel)\b([^;&|`]*)", command):
            folders = [t for t in match.group(1).split() if t.startswith("./")]
            if any(t.startswith(f"./{PREFIX}") or t.startswith("./rhwp_mcp*") for t in folders):
                found.append(_expand(folders))
    return found


def test_the_workflows_and_the_dockerfile_install_every_pack() -> None:
    packs = {folder.name for folder in PACKS.values()}
    ci = (ROOT / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    installs = _installed_folders(ci)
    assert installs, "ci.yml installs the packs from their folders"
    for folders in installs:
        assert folders >= {"rhwp_core", "rhwp_mcp_host", *packs}, folders
    docker = _installed_folders((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    assert docker and all(folders >= packs for folders in docker), docker
    # The release builds every pure-Python distribution from the folders a loop names.
    release = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    loops = re.findall(r"for \w+ in ([^;\n]+); do\s*\n\s*python -m build\b", release)
    assert loops, "release.yml builds the distributions in a loop over folders"
    pure = {folder.name for folder in distribution_folders().values() if folder.name != "rhwp_core"}
    for loop in loops:
        assert _expand(loop.split()) == pure, loop


def test_the_meta_distribution_pulls_the_host_and_every_pack() -> None:
    meta = project(ROOT / "rhwp_mcp")
    # Besides the host and the packs, only what its own `rhwp-mcp setup` needs (tomlkit for Codex's TOML).
    assert sorted(_requirement_names(meta["dependencies"])) == sorted(  # type: ignore[arg-type]
        ["rhwp-mcp-host", "tomlkit", *DISTRIBUTIONS.values()]
    )
    # The host's extras: one per pack, named as the pack, and `all` naming them all.
    extras: dict[str, list[str]] = project(ROOT / "rhwp_mcp_host")["optional-dependencies"]  # type: ignore[assignment]
    assert {name: _requirement_names(packs) for name, packs in extras.items() if name != "all"} == {
        name: [dist] for name, dist in DISTRIBUTIONS.items()
    }
    assert sorted(_requirement_names(extras["all"])) == sorted(DISTRIBUTIONS.values())


def _named_packs(items: list[str]) -> list[str]:
    """The pack names among the items of a written list: `core`, [core], rhwp-mcp-tools-core, -core."""
    names = []
    for item in items:
        item = item.strip().strip("`'\".").removeprefix("and ").removeprefix("or ").strip("`[] ")
        for prefix in ("rhwp-mcp-tools-", PREFIX, "-"):
            item = item.removeprefix(prefix)
        names.append(item)
    return [n for n in names if n in PACKS]


def _pack_lists(text: str) -> list[list[str]]:
    """Every parenthesised comma list in ``text`` that names at least three packs, as the packs it names."""
    lists = []
    for group in re.findall(r"\(([^()]*)\)", text):
        named = _named_packs(group.replace("\n", " ").split(","))
        if len(named) >= 3:
            lists.append(named)
    return lists


def test_server_json_names_every_pack() -> None:
    server = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    descriptions = [
        variable["description"]
        for package in server["packages"]
        for variable in package.get("environmentVariables", [])
        if variable["name"] in ("RHWP_MCP_DISABLE", "RHWP_MCP_ENABLE")
    ]
    lists = [named for text in descriptions for named in _pack_lists(text)]
    assert lists, "RHWP_MCP_DISABLE's description names the packs"
    for named in lists:
        assert sorted(named) == sorted(PACKS), named


def test_the_readmes_name_every_pack_wherever_they_list_packs() -> None:
    """The README, the meta distribution's (PyPI's page of rhwp-mcp) and the pack author's guide:
    each list of packs in parentheses, and each install of the folders, names every pack and no other."""
    packs = {folder.name for folder in PACKS.values()}
    for path in (ROOT / "README.md", ROOT / "rhwp_mcp" / "README.md", ROOT / "docs" / "writing-a-pack.md"):
        text = path.read_text(encoding="utf-8")
        for named in _pack_lists(text):
            assert sorted(named) == sorted(PACKS), (path.relative_to(ROOT), named)
        for folders in _installed_folders(text):
            assert folders >= {"rhwp_core", "rhwp_mcp_host", *packs}, (path.relative_to(ROOT), folders)
        # A folder the README names is one that exists (no pack that was renamed or removed).
        for folder in set(re.findall(rf"\b{PREFIX}([a-z_]+)\b", text)):
            assert folder in PACKS, (path.relative_to(ROOT), folder)


def _hook_annotations(source: Path) -> dict[str, str]:
    """Each register hook defined in ``source``: the annotation of its ``register`` argument."""
    found = {}
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("rhwp_mcp_register_"):
            annotation = node.args.args[0].annotation
            found[node.name] = ast.unparse(annotation) if annotation is not None else ""
    return found


def test_every_packs_register_hook_takes_the_hosts_protocol() -> None:
    """A pack's (and the example pack's) register hooks are typed with the host's Register and
    RegisterResource, so mypy checks every register(...) call against the contract."""
    expected = {"rhwp_mcp_register_tools": "Register", "rhwp_mcp_register_resources": "RegisterResource"}
    folders = [*PACKS.values(), *(p.parent for p in sorted((ROOT / "examples").glob("*/pyproject.toml")))]
    for folder in folders:
        hooks: dict[str, str] = {}
        for source in sorted((folder / "src").rglob("*.py")):
            hooks.update(_hook_annotations(source))
        assert "rhwp_mcp_register_tools" in hooks, folder.name
        for hook, annotation in hooks.items():
            assert annotation == expected[hook], (folder.name, hook, annotation)


# Modules a pack may only import on a tool's first call: the IR's models (a third of a second to
# build) and each pack's third-party weight (the text splitter, Pillow, regex, pyarrow).
HEAVY = ("rhwp_core.ir", "langchain_text_splitters", "PIL", "regex", "pyarrow")


def test_the_server_lists_every_packs_tools_without_the_heavy_imports(tmp_path: Path) -> None:
    """The packs declare their results with rhwp_core's shapes, so the server imports rhwp_core's
    Python API when it starts; but no pack's heavy module, up to the tools/list reply."""
    import os
    import sys

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    params = StdioServerParameters(command=sys.executable, args=["-X", "importtime", "-m", "rhwp_mcp_host"], env=env)
    errors = tmp_path / "stderr"

    async def list_tools() -> set[str]:
        with errors.open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return {tool.name for tool in (await session.list_tools()).tools}

    tools = anyio.run(list_tools)
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in errors.read_text(encoding="utf-8").splitlines()
        if line.startswith("import time:")
    }
    assert {"parse_hwp_summary", "get_fields", "search", "chunks"} <= tools, tools
    assert "rhwp_core" in imported, "the importtime log is read"
    assert not [name for name in HEAVY if name in imported]
