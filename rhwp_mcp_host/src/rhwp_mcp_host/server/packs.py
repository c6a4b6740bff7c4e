"""Pack discovery and loading: each entry point of group ``rhwp.mcp_tools`` in isolation.

pluggy's own ``load_setuptools_entrypoints`` stops at the first broken pack; here every entry
point is imported, registered, checked (``check_pending`` catches misspelt hook names) and asked
for its tools on its own, and whatever fails is recorded with the reason and a fix. The server
then starts with the rest. Built-ins (the path policy, tracing) go through the same door.

This module alone decides a pack's fate (loaded, disabled or failed): the server hands it what it
needs to serve a tool (``build_tool``) and the settings, and serves what it is given.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pluggy

from ..plugin import hookspecs
from ..plugin.contract import HostConfig
from ..plugin.hookspecs import ENTRY_POINT_GROUP
from ..settings import ENV_DISABLE, ENV_ENABLE, PackSelection
from .registry import ResourceSpec, ToolSpec, build_resource_spec, build_spec

Status = Literal["loaded", "failed", "disabled"]


@dataclass
class PackRecord:
    """One discovered pack and what became of it (what ``rhwp-mcp packs`` shows)."""

    name: str
    status: Status
    distribution: str | None = None
    version: str | None = None
    value: str | None = None
    """The entry point's object reference, e.g. ``rhwp_mcp_tools_core:plugin``."""
    builtin: bool = False
    tools: list[str] = field(default_factory=list)
    error: str | None = None
    fix: str | None = None
    conflicts: list[str] = field(default_factory=list)
    """Human lines about tool names (or resource URIs) this pack shares with another pack."""
    resources: list[str] = field(default_factory=list)
    """URIs of the resources the pack serves (``rhwp_mcp_register_resources``)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "distribution": self.distribution,
            "version": self.version,
            "entry_point": self.value,
            "builtin": self.builtin,
            "tools": list(self.tools),
            "error": self.error,
            "fix": self.fix,
            "conflicts": list(self.conflicts),
            "resources": list(self.resources),
        }


def stderr_line(message: str) -> None:
    """The host's only output channel besides the protocol: one line on stderr."""
    print(f"rhwp-mcp: {message}", file=sys.stderr, flush=True)


def installed_entry_points(group: str = ENTRY_POINT_GROUP) -> list[Any]:
    """The installed entry points of ``group`` (default: the packs'), in name order."""
    try:
        import importlib_metadata as metadata
    except ImportError:  # the dependency is declared; the stdlib fallback is for embedders
        from importlib import metadata  # type: ignore[no-redef]
    return sorted(metadata.entry_points(group=group), key=lambda ep: (ep.name, ep.value))


def _dist_of(ep: Any) -> tuple[str | None, str | None]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None, None
    try:
        return dist.metadata["Name"], dist.version
    except Exception:
        return getattr(dist, "name", None), getattr(dist, "version", None)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass
class PackSet:
    """The loaded plugin manager, every pack's record, and the tools in serving order."""

    pm: pluggy.PluginManager
    packs: list[PackRecord]
    tools: dict[str, ToolSpec]
    trace: bool = False
    resources: dict[str, ResourceSpec] = field(default_factory=dict)
    log: Callable[[str], None] = stderr_line
    served: dict[str, Any] = field(default_factory=dict)
    """What ``build_tool`` made of each tool of a loaded pack: what the server serves."""

    def pack(self, name: str) -> PackRecord | None:
        return next((p for p in self.packs if p.name == name), None)

    def call_each(self, hook: str, /, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call every implementation of ``hook`` in pluggy's order, each in isolation.

        Returns ``(plugin name, result)`` for implementations that returned non-None. An
        exception propagates with the plugin's name attached (``exc.rhwp_mcp_plugin``) so the
        caller decides whether it is fatal (before-call) or only logged (after-call).
        """
        results: list[tuple[str, Any]] = []
        caller = getattr(self.pm.hook, hook)
        firstresult = bool(caller.spec and caller.spec.opts.get("firstresult"))
        # pluggy calls the last registered first, tryfirst/trylast honoured: the reverse of get_hookimpls().
        for impl in reversed(caller.get_hookimpls()):
            plugin_name = self.pm.get_name(impl.plugin) or "?"
            args = [kwargs[a] for a in impl.argnames]
            started = time.perf_counter()
            try:
                result = impl.function(*args)
            except BaseException as exc:
                if self.trace:
                    self.log(f"trace: {hook}[{plugin_name}] raised {_describe(exc)}")
                exc.rhwp_mcp_plugin = plugin_name  # type: ignore[attr-defined]
                raise
            if self.trace:
                ms = (time.perf_counter() - started) * 1000
                self.log(f"trace: {hook}[{plugin_name}] {ms:.3f} ms -> {result!r}")
            if result is not None:
                results.append((plugin_name, result))
                if firstresult:
                    break
        return results

    def configure(self, config: HostConfig) -> None:
        """Give every loaded plugin the settings; a pack whose configure hook raises is dropped."""
        caller = self.pm.hook.rhwp_mcp_configure
        for impl in reversed(caller.get_hookimpls()):
            name = self.pm.get_name(impl.plugin) or "?"
            started = time.perf_counter()
            try:
                impl.function(*[{"config": config}[a] for a in impl.argnames])
            except Exception as exc:
                record = self.pack(name)
                if record is None or record.builtin:
                    raise
                self._fail(record, impl.plugin, f"its rhwp_mcp_configure hook raised {_describe(exc)}", exc)
            if self.trace:
                self.log(f"trace: rhwp_mcp_configure[{name}] {(time.perf_counter() - started) * 1000:.3f} ms")

    def _fail(self, record: PackRecord, plugin: Any, reason: str, exc: BaseException | None) -> None:
        if plugin is not None and self.pm.is_registered(plugin):
            self.pm.unregister(plugin)
        for tool in record.tools:
            if self.tools.get(tool) is not None and self.tools[tool].pack == record.name:
                del self.tools[tool]
                self.served.pop(tool, None)
        record.tools = []
        record.status = "failed"
        record.error = reason
        if record.fix is None:
            record.fix = _fix_for(record)
        self.log(f"pack {record.name!r} failed and is skipped: {reason}; fix: {record.fix}")
        if exc is not None and self.trace:
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)


def _fix_for(record: PackRecord, *, reinstall: bool = False) -> str:
    disable = f"disable it with --disable {record.name} (or {ENV_DISABLE}={record.name})"
    if record.distribution is None:
        return disable
    if reinstall:
        return f"pip install --force-reinstall {record.distribution}, or {disable}"
    return f"upgrade or report it: pip install -U {record.distribution}, or {disable}"


def _returning(obj: Any) -> Callable[[], Any]:
    """A loader for a pack given as an object (it is already 'imported')."""
    return lambda: obj


def _selected(name: str, enable: Sequence[str], disable: Sequence[str]) -> bool:
    if name in disable:
        return False
    return not enable or name in enable


def load_packs(
    selection: PackSelection | None = None,
    *,
    plugins: Mapping[str, Any] | None = None,
    builtins: Sequence[tuple[str, Any]] = (),
    entry_points: bool = True,
    log: Callable[[str], None] = stderr_line,
    build_tool: Callable[[ToolSpec], Any] | None = None,
) -> PackSet:
    """Discover, select and load packs; never raises because of a pack.

    ``selection`` (see :func:`rhwp_mcp_host.settings.pack_selection`): with any enable name, only
    those packs load; disable wins over enable. ``plugins`` adds packs given as objects (for
    embedding and tests), loaded after the entry points, in name order. ``builtins`` are
    registered first and cannot be disabled. ``build_tool`` turns a pack's tool into what the
    server serves (kept in ``PackSet.served``); a pack one of whose tools it cannot build fails.
    """
    selection = selection or PackSelection()
    enabled, disabled, trace = list(selection.enable), list(selection.disable), selection.trace

    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    packs = PackSet(pm=pm, packs=[], tools={}, trace=trace, log=log)

    for name, plugin in builtins:
        record = PackRecord(name=name, status="loaded", builtin=True, distribution="rhwp-mcp-host")
        packs.packs.append(record)
        pm.register(plugin, name=name)
        pm.check_pending()
        _register_tools(packs, record, plugin, build_tool)

    candidates: list[tuple[PackRecord, Callable[[], Any]]] = []
    if entry_points:
        for ep in installed_entry_points():
            dist, version = _dist_of(ep)
            candidates.append(
                (PackRecord(name=ep.name, status="loaded", distribution=dist, version=version, value=ep.value), ep.load)
            )
    for name in sorted(plugins or {}):
        obj = (plugins or {})[name]
        value = getattr(obj, "__name__", type(obj).__name__)
        candidates.append((PackRecord(name=name, status="loaded", value=value), _returning(obj)))

    known = {record.name for record, _ in candidates}
    for name in dict.fromkeys(enabled + disabled):
        if name not in known:
            listing = ", ".join(sorted(known)) or "none"
            log(f"--enable/--disable names {name!r}, but no such pack is installed (installed: {listing})")

    for record, load in candidates:
        packs.packs.append(record)
        if not _selected(record.name, enabled, disabled):
            record.status = "disabled"
            record.fix = f"enable it: remove it from --disable/{ENV_DISABLE}" + (
                f", or add it to --enable/{ENV_ENABLE}" if enabled else ""
            )
            continue
        if pm.has_plugin(record.name):
            other = packs.pack(record.name)
            record.fix = f"uninstall one of the two distributions that both provide the pack {record.name!r}"
            packs._fail(
                record,
                None,
                f"another pack named {record.name!r} is already loaded (from {other.distribution if other else '?'})",
                None,
            )
            continue
        started = time.perf_counter()
        try:
            plugin = load()
        except BaseException as exc:  # a pack's import may raise anything, even SystemExit
            if isinstance(exc, KeyboardInterrupt):
                raise
            record.fix = _fix_for(record, reinstall=True)
            packs._fail(record, None, f"importing {record.value} raised {_describe(exc)}", exc)
            continue
        if trace:
            log(f"trace: import {record.name} ({record.value}) {(time.perf_counter() - started) * 1000:.1f} ms")
        try:
            pm.register(plugin, name=record.name)
        except Exception as exc:
            packs._fail(record, None, f"its hooks do not match the hook specs: {_describe(exc)}", exc)
            continue
        try:
            pm.check_pending()
        except Exception as exc:
            packs._fail(
                record,
                plugin,
                f"it implements an unknown hook ({_describe(exc)}); the hooks are "
                + ", ".join(n for n in dir(hookspecs) if n.startswith("rhwp_mcp_")),
                exc,
            )
            continue
        _register_tools(packs, record, plugin, build_tool)
    if not any(not p.builtin and p.status == "loaded" for p in packs.packs):
        log(
            "no tool packs loaded, so the server offers 0 tools"
            + ("" if candidates else "; install some: pip install rhwp-mcp-tools-core rhwp-mcp-tools-view ...")
        )
    return packs


def _register_tools(
    packs: PackSet, record: PackRecord, plugin: Any, build_tool: Callable[[ToolSpec], Any] | None
) -> None:
    """Ask one plugin for its tools and resources; commit them only if its hooks finish without
    error and every tool it will serve can be built."""
    staged: list[ToolSpec] = []
    staged_resources: list[ResourceSpec] = []

    def register_resource(uri: Any, read: Any, /, **options: Any) -> None:
        spec = build_resource_spec(uri, read, pack=record.name, **options)
        if any(s.uri == spec.uri for s in staged_resources):
            raise ValueError(f"the pack registers the resource {spec.uri!r} twice")
        staged_resources.append(spec)

    def register(func: Any = None, /, **options: Any) -> Any:
        if func is None:  # used as a decorator factory: @register(name=...)
            return lambda f: register(f, **options)
        spec = build_spec(func, pack=record.name, **options)
        if any(s.name == spec.name for s in staged):
            raise ValueError(f"the pack registers the tool {spec.name!r} twice")
        staged.append(spec)
        return func

    started = time.perf_counter()
    for hook, registrar in (
        ("rhwp_mcp_register_tools", register),
        ("rhwp_mcp_register_resources", register_resource),
    ):
        impls = [i for i in getattr(packs.pm.hook, hook).get_hookimpls() if i.plugin is plugin]
        try:
            for impl in impls:
                impl.function(*[{"register": registrar}[a] for a in impl.argnames])
        except Exception as exc:
            if record.builtin:
                raise
            packs._fail(record, plugin, f"its {hook} hook raised {_describe(exc)}", exc)
            return
    if packs.trace:
        ms = (time.perf_counter() - started) * 1000
        packs.log(f"trace: rhwp_mcp_register_tools[{record.name}] {ms:.3f} ms, {len(staged)} tools")
    built: dict[str, Any] = {}
    if build_tool is not None:
        for spec in staged:
            if spec.name in packs.tools:
                continue  # another pack serves it (the conflict is reported below)
            try:
                built[spec.name] = build_tool(spec)
            except Exception as exc:
                if record.builtin:
                    raise
                packs._fail(record, plugin, str(exc), exc.__cause__ or exc)
                return
    for spec in staged:
        owner = packs.tools.get(spec.name)
        if owner is not None:
            # Entry points load in name order, so the winner is the same on every start.
            line = f"tool {spec.name!r} is offered by packs {owner.pack!r} and {record.name!r}; {owner.pack!r} wins"
            record.conflicts.append(line)
            winner = packs.pack(owner.pack)
            if winner is not None:
                winner.conflicts.append(line)
            packs.log(line + f" (disable one with --disable {record.name} or --disable {owner.pack})")
            continue
        packs.tools[spec.name] = spec
        if spec.name in built:
            packs.served[spec.name] = built[spec.name]
        record.tools.append(spec.name)
    for resource in staged_resources:
        holder = packs.resources.get(resource.uri)
        if holder is not None:
            line = (
                f"resource {resource.uri!r} is offered by packs {holder.pack!r} and {record.name!r};"
                f" {holder.pack!r} wins"
            )
            record.conflicts.append(line)
            winner = packs.pack(holder.pack)
            if winner is not None:
                winner.conflicts.append(line)
            packs.log(line + f" (disable one with --disable {record.name} or --disable {holder.pack})")
            continue
        packs.resources[resource.uri] = resource
        record.resources.append(resource.uri)
