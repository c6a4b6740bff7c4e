"""The host's import graph, read from the source of every module (every import statement, those
inside functions and ``TYPE_CHECKING`` blocks too): no circle between its modules nor between its
rooms (plugin/, server/, documents/, service/ and the top-level modules), the plugin contract
imports nothing of the rest of the host, and the host imports neither the reader nor a pack nor
the meta distribution. The contract also stays cheap: importing it does not import fastmcp."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

PACKAGE = "rhwp_mcp_host"
SOURCE = Path(__file__).resolve().parents[1] / "src" / PACKAGE
ROOMS = ("plugin", "server", "documents", "service")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> Iterator[str]:
    """Every module this file imports: host modules by their full name, others by their top level."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _nearest(alias.name, modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                # `from . import paging` imports the module rhwp_mcp_host.paging, not a name of the package.
                submodule = f"{target}.{alias.name}"
                yield submodule if submodule in modules else _nearest(target, modules)


def _nearest(name: str, modules: set[str]) -> str:
    """The host module ``name`` names (or its package); another distribution's top-level name."""
    if name.split(".")[0] != PACKAGE:
        return name.split(".")[0]
    while name not in modules:
        name = name.rpartition(".")[0]
    return name


def import_graph(source: Path = SOURCE) -> dict[str, set[str]]:
    files = sorted(source.rglob("*.py"))
    modules = {_module_name(path) for path in files}
    return {_module_name(path): set(_imports(path, modules)) - {_module_name(path)} for path in files}


def room(module: str) -> str:
    """plugin, server, documents, service, or the top-level module itself (settings, cli, ...)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else PACKAGE


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (as the list of its nodes, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def _host_edges(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    return {module: {t for t in targets if t.split(".")[0] == PACKAGE} for module, targets in graph.items()}


def _room_edges(graph: Mapping[str, set[str]]) -> dict[str, set[str]]:
    rooms: dict[str, set[str]] = {}
    for module, targets in _host_edges(graph).items():
        # The package's __init__ is the facade of the top-level names: it may name every room.
        if module == PACKAGE:
            continue
        rooms.setdefault(room(module), set()).update(room(t) for t in targets if room(t) != room(module))
    return rooms


def test_the_graph_is_read_from_every_module() -> None:
    graph = import_graph()
    assert {f"{PACKAGE}.{name}" for name in ROOMS} <= set(graph)
    assert {f"{PACKAGE}.server.host", f"{PACKAGE}.plugin.contract", f"{PACKAGE}.settings"} <= set(graph)
    # Relative imports resolve: the server imports the contract, the settings and the document store.
    assert {f"{PACKAGE}.plugin.contract", f"{PACKAGE}.settings", f"{PACKAGE}.documents.store"} <= graph[
        f"{PACKAGE}.server.host"
    ]
    assert f"{PACKAGE}.plugin.paging" in graph[f"{PACKAGE}.server.host"]  # `from ..plugin import paging`


def test_no_module_of_the_host_imports_another_in_a_circle() -> None:
    cycle = find_cycle(_host_edges(import_graph()))
    assert cycle is None, " -> ".join(cycle or [])


def test_no_room_of_the_host_imports_another_in_a_circle() -> None:
    rooms = _room_edges(import_graph())
    assert set(ROOMS) <= set(rooms), rooms
    cycle = find_cycle(rooms)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_plugin_contract_imports_nothing_of_the_rest_of_the_host() -> None:
    graph = _host_edges(import_graph())
    outside = {
        f"{module} -> {target}"
        for module, targets in graph.items()
        if room(module) == "plugin"
        for target in targets
        if room(target) != "plugin"
    }
    assert not outside, sorted(outside)


def test_the_host_imports_no_reader_no_pack_and_not_the_meta_distribution() -> None:
    found = {
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        for target in targets
        if target in ("rhwp_core", "rhwp_mcp") or target.startswith("rhwp_mcp_tools")
    }
    assert not found, sorted(found)


def test_the_checks_see_a_circle_and_a_contract_that_reaches_up() -> None:
    # The checks above on a graph with the faults planted: they would fail, not pass whatever the code.
    graph = _host_edges(import_graph())
    graph[f"{PACKAGE}.plugin.errors"] = {*graph[f"{PACKAGE}.plugin.errors"], f"{PACKAGE}.server.packs"}
    assert find_cycle(graph) is not None
    assert "server" in _room_edges(graph)["plugin"]


def test_the_contract_does_not_import_fastmcp() -> None:
    code = (
        "import sys\n"
        "import rhwp_mcp_host, rhwp_mcp_host.plugin.hookspecs, rhwp_mcp_host.plugin.paging\n"
        "import rhwp_mcp_host.plugin.progress, rhwp_mcp_host.plugin.passwords, rhwp_mcp_host.server.packs\n"
        "from rhwp_mcp_host import FilePath, ToolFailure, hookimpl, page_text, report_progress\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastmcp', 'mcp', 'starlette', 'uvicorn')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
