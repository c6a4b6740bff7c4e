"""The MCP server: one FastMCP instance serving the loaded packs' tools.

Every tool call passes through :class:`HostMiddleware`, the one place that runs the call hooks,
sets the response cap, enforces it, and turns any failure (a deny, a bad argument, an exception
from the tool) into the one error result every tool speaks: ``{"error": CODE, "message": ..., "suggestion": ...}``.
"""

from __future__ import annotations

import base64
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import pydantic
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.resources.function_resource import FunctionResource
from fastmcp.server.middleware import Middleware
from fastmcp.tools.base import ToolResult

# Imported from where fastmcp itself imports it: mcp.types on 3.x, mcp_types on 4.x.
from fastmcp.tools.function_tool import FunctionTool, ToolAnnotations  # type: ignore[attr-defined]
from mcp.types import BlobResourceContents, EmbeddedResource

from .._version import __version__
from ..documents.store import HANDLE_PREFIX, DocumentStore, default_store_dir
from ..plugin import output, paging, passwords, progress
from ..plugin.contract import (
    PATH_DESCRIPTION,
    CallOutcome,
    Deny,
    HostConfig,
    SourceSettings,
    ToolCall,
    _shown_as,
    source_scheme,
)
from ..plugin.errors import (
    INTERNAL_ERROR,
    INVALID_INPUT,
    TOO_LARGE,
    ToolFailure,
    error_from_exception,
    error_payload,
    error_text,
    invalid_input_from_validation,
)
from ..plugin.output import Outputs
from ..plugin.passwords import PASSWORD_ARGUMENT, add_password_parameter, take_password
from ..settings import HostSettings, host_settings
from .packs import PackSet, load_packs, stderr_line
from .policy import builtin_plugins, resolve_roots
from .registry import ResourceSpec, ToolSpec

log = logging.getLogger("rhwp_mcp_host")


class _DropFastMCPToolErrorLogs(logging.Filter):
    """fastmcp logs each failed call (with a rich traceback); the middleware logs it once, itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        return not (message.startswith("Error calling tool") or message.startswith("Invalid arguments for tool"))


def _install_log_filter() -> None:
    target = logging.getLogger("fastmcp.server.server")
    if not any(isinstance(f, _DropFastMCPToolErrorLogs) for f in target.filters):
        target.addFilter(_DropFastMCPToolErrorLogs())


def _error_result(payload: dict[str, str]) -> ToolResult:
    return ToolResult(content=error_text(payload), is_error=True)


def _text_size(result: Any) -> int:
    return sum(len(getattr(block, "text", "") or "") for block in getattr(result, "content", []) or [])


def _image_size(result: Any) -> int:
    """The base64 characters of a result's pictures (and any other binary content)."""
    return sum(_binary_chars(block) for block in getattr(result, "content", []) or [])


def _binary_chars(block: Any) -> int:
    resource = getattr(block, "resource", None)
    if resource is not None:
        return len(getattr(resource, "blob", "") or "")
    return len(getattr(block, "data", "") or "")


def _embed_stored(result: Any, stored: list[output.StoredOutput], max_image_chars: int) -> None:
    """Add each small result the call put into the store to the answer's content as an embedded
    resource (its ``doc:`` handle as uri), while the answer's binary content stays within the cap
    (plugin/output.py says which)."""
    content = getattr(result, "content", None)
    if not isinstance(content, list):
        return
    room = max_image_chars - _image_size(result)
    for item in stored:
        if len(item.data) > output.EMBED_MAX_BYTES:
            continue
        blob = base64.b64encode(item.data).decode("ascii")
        if len(blob) > room:
            continue
        # Validated from the wire's names, which mcp 1.x and 2.x share (their Python names differ;
        # the uri is text in 2.x and a URL type that takes text in 1.x).
        contents = BlobResourceContents.model_validate({"uri": item.handle, "mimeType": item.media_type, "blob": blob})
        content.append(EmbeddedResource(type="resource", resource=contents))
        room -= len(blob)


_Progress = tuple[float, float | None, str | None]
_MAX_PENDING_PROGRESS = 32
"""Notifications waiting for the event loop; beyond that a report is dropped, never waited for."""


def _progress_token(fastmcp_context: Any) -> Any:
    """The request's ``_meta.progressToken``, or None: fastmcp 4 lifts the raw ``_meta`` mapping,
    fastmcp 3 (mcp 1.x) gives a model with ``progressToken``."""
    if fastmcp_context is None:
        return None
    try:
        meta = getattr(fastmcp_context.request_context, "meta", None)
    except Exception:
        return None
    if isinstance(meta, Mapping):
        return meta.get("progressToken", meta.get("progress_token"))
    return getattr(meta, "progressToken", None)


def _thread_sender(sending: MemoryObjectSendStream[_Progress]) -> Callable[[float, float | None, str | None], None]:
    """What ``report_progress`` calls: queue a notification from the worker thread (a hop to the
    event loop, never a wait for the client), or directly from the event loop's own thread."""
    loop = anyio.lowlevel.current_token()
    loop_thread = threading.get_ident()

    def send(done: float, total: float | None, message: str | None) -> None:
        if threading.get_ident() == loop_thread:
            sending.send_nowait((done, total, message))
        else:
            anyio.from_thread.run_sync(sending.send_nowait, (done, total, message), token=loop)

    return send


async def _deliver_progress(fastmcp_context: Any, receiving: MemoryObjectReceiveStream[_Progress]) -> None:
    async with receiving:
        async for done, total, message in receiving:
            try:
                await fastmcp_context.report_progress(done, total, message)
            except Exception as exc:
                log.debug("a progress notification was not sent: %s", exc)


class HostMiddleware(Middleware):
    def __init__(
        self,
        packs: PackSet,
        config: HostConfig,
        schemas: dict[str, dict[str, Any]],
        store: DocumentStore,
        *,
        divert_stdout: bool = False,
        password_tools: frozenset[str] = frozenset(),
        outputs: Outputs | None = None,
    ) -> None:
        self.packs = packs
        self.outputs = outputs if outputs is not None else Outputs(config.writing, config.roots)
        self.password_tools = password_tools
        """The tools given the host's ``password`` parameter (those that take a document)."""
        self.config = config
        self.store = store
        self.schemas = schemas
        self.divert_stdout = divert_stdout
        self._slots: anyio.CapacityLimiter | None = None

    def call_slots(self) -> anyio.CapacityLimiter:
        """At most ``config.max_calls`` tools run at once; a call past them waits for a slot (and
        can be cancelled while it waits). A shared server's memory and CPU then stay bounded by the
        calls it runs, not by the calls it is sent. (Made on first use: inside the event loop.)"""
        if self._slots is None:
            self._slots = anyio.CapacityLimiter(self.config.max_calls)
        return self._slots

    async def on_call_tool(self, context: Any, call_next: Any) -> Any:
        if self.divert_stdout and sys.stdout is not sys.stderr:
            # Serving stdio: the transport holds its own handle on the real stdout (taken when it
            # started), so a tool's print() must land on stderr, not between protocol messages.
            # (mcp >= 2 also diverts file descriptor 1; mcp 1.x does not.)
            sys.stdout = sys.stderr
        name = context.message.name
        spec = self.packs.tools.get(name)
        if spec is None or name not in self.schemas:
            available = ", ".join(sorted(self.schemas)) or "none (no tool packs are loaded)"
            return _error_result(
                error_payload(INVALID_INPUT, f"there is no tool named {name!r}", f"available tools: {available}")
            )
        arguments = dict(context.message.arguments or {})
        password: str | None = None
        if name in self.password_tools:
            # Out of the arguments before hooks, the trace or validation see them (passwords.py).
            try:
                given = PASSWORD_ARGUMENT in arguments
                password = take_password(arguments)
            except ToolFailure as exc:
                return _error_result(exc.to_dict())
            if given:  # the arguments the tool sees lose it too (a call without one has nothing to drop)
                context = context.copy(message=context.message.model_copy(update={"arguments": dict(arguments)}))
        call = ToolCall(
            tool=name, pack=spec.pack, arguments=arguments, path_arguments=spec.path_arguments, read_only=spec.read_only
        )
        password_token = passwords._active.set(password)
        call_outputs = output._CallOutputs(self.outputs, call.sources)
        output_token = output._active.set(call_outputs)
        token = paging._active_cap.set(self.config.max_chars)
        image_token = paging._active_image_cap.set(self.config.max_image_chars)
        cut_lines: list[int] = []
        cut_token = paging._cut_lines.set(cut_lines)
        shown_token: Any = None
        payload: dict[str, str] | None = None
        denied_by: str | None = None
        try:
            try:
                denials = self.packs.call_each("rhwp_mcp_before_call", call=call)
            except Exception as exc:
                culprit = getattr(exc, "rhwp_mcp_plugin", "?")
                log.error("the before-call hook of %r raised", culprit, exc_info=exc)
                payload = error_payload(
                    INTERNAL_ERROR,
                    f"the before-call hook of the pack {culprit!r} failed ({type(exc).__name__}), "
                    f"so {name} did not run",
                    f"report it to the pack's author, or disable it with --disable {culprit}",
                )
                denials = []
            if denials:
                denied_by, deny = denials[0]
                if isinstance(deny, Deny):
                    payload = error_payload(deny.code, deny.message, deny.suggestion)
                else:
                    payload = error_payload(
                        INTERNAL_ERROR,
                        f"the before-call hook of {denied_by!r} returned {type(deny).__name__}, not Deny or None",
                        f"report it to the pack's author, or disable it with --disable {denied_by}",
                    )
            result: Any = None
            cancelled = False
            unwound: BaseException | None = None
            state = progress._CallState()
            waited = 0.0

            async def work() -> Any:
                """Open the call's sources (a download can be long: it reports progress and stops
                when cancelled, like the tool), then run the tool; None if a source failed."""
                nonlocal context, payload, shown_token, waited
                pending = self.pending_sources(call) if spec.path_arguments else []
                if pending:
                    shown: dict[str, str] = {}
                    payload = await anyio.to_thread.run_sync(self.open_sources, call, pending, shown)
                    if payload is not None:
                        return None
                    context = context.copy(
                        message=context.message.model_copy(update={"arguments": dict(call.arguments)})
                    )
                    shown_token = _shown_as.set(shown)
                    state.next_stage()  # the tool's progress counts on from the download's
                slots = self.call_slots()
                # A free slot is taken without yielding to the event loop (`async with` would: a
                # round of the loop per call, a millisecond or two on a busy machine); only a call
                # that found every slot taken waits, and says how long.
                try:
                    slots.acquire_nowait()
                except anyio.WouldBlock:
                    asked = time.perf_counter()
                    await slots.acquire()
                    waited = time.perf_counter() - asked
                try:
                    return await call_next(context)
                finally:
                    slots.release()

            if payload is None:
                try:
                    result = await self.call_watched(context, work, state)
                except anyio.get_cancelled_exc_class() as exc:
                    cancelled, unwound = True, exc
                except (Exception, SystemExit) as exc:
                    # SystemExit too: a library that calls sys.exit() inside a tool (an argparse-style
                    # error path) would otherwise end the whole server with the reply never sent.
                    if state.cancelled.is_set():
                        cancelled = True  # most likely CallCancelled, from the tool's checkpoint()
                    else:
                        payload = self.error_for(exc, name, spec.pack)
                else:
                    cancelled = state.cancelled.is_set()
                if cancelled:
                    payload = None
                    # The protocol answers a cancelled request with nothing: no error object either.
                    log.info("%s: cancelled by the client after %.2f s", name, time.perf_counter() - call.started)
                elif payload is None:
                    size = _text_size(result)
                    pictures = _image_size(result)
                    # A text tool's cut line comes on top of its page (max_chars counts content).
                    if size > self.config.max_chars + sum(cut_lines):
                        payload = error_payload(
                            TOO_LARGE,
                            f"the result of {name} has {size} characters, more than the server's cap of "
                            f"{self.config.max_chars}",
                            "ask for a part: use the tool's offset/limit/max_chars parameters if it has them, or "
                            "restart the server with a larger --max-chars / RHWP_MCP_MAX_CHARS",
                        )
                    elif pictures > self.config.max_image_chars:
                        payload = error_payload(
                            TOO_LARGE,
                            f"the pictures {name} returned take {pictures} base64 characters, more than the "
                            f"server's cap of {self.config.max_image_chars}",
                            "ask for a smaller picture (a max_side parameter, if the tool has one), or restart the "
                            "server with a larger --max-image-chars / RHWP_MCP_MAX_IMAGE_CHARS",
                        )
                    elif call_outputs.stored:
                        _embed_stored(result, call_outputs.stored, self.config.max_image_chars)
            outcome = CallOutcome(
                ok=payload is None and not cancelled,
                elapsed=time.perf_counter() - call.started,
                error=payload,
                denied_by=denied_by,
                cancelled=cancelled,
                waited=waited,
            )
            try:
                self.packs.call_each("rhwp_mcp_after_call", call=call, outcome=outcome)
            except Exception as exc:
                culprit = getattr(exc, "rhwp_mcp_plugin", "?")
                log.error("the after-call hook of %r raised (the call is unaffected)", culprit, exc_info=exc)
            if unwound is not None:
                raise unwound
            if cancelled:
                # Back on the SDK's own path: the request's cancelled scope ends it, unanswered.
                await anyio.lowlevel.checkpoint_if_cancelled()
                payload = error_payload(
                    INTERNAL_ERROR, f"{name} was cancelled", "call it again if you still need its result"
                )
            return _error_result(payload) if payload is not None else result
        finally:
            passwords._active.reset(password_token)
            output._active.reset(output_token)
            paging._active_cap.reset(token)
            paging._active_image_cap.reset(image_token)
            paging._cut_lines.reset(cut_token)
            if shown_token is not None:
                _shown_as.reset(shown_token)

    async def call_watched(self, context: Any, work: Callable[[], Awaitable[Any]], state: progress._CallState) -> Any:
        """``work()`` (the call's sources, then the tool) with what :mod:`.progress` needs: the
        call's state in a context variable (the worker thread sees a copy), a watcher that marks the
        call cancelled when the request's task is cancelled (the SDK does that on
        ``notifications/cancelled``, and when the client goes away; the worker thread cannot be
        interrupted, so the tool unwinds at its next ``checkpoint()``), and, when the client asked for
        progress, a task that sends the notifications the tool hands over (before the result)."""
        fastmcp_context = context.fastmcp_context
        token = _progress_token(fastmcp_context)
        finished = anyio.Event()
        outcome: list[Any] = []
        failure: list[BaseException] = []

        async def watch() -> None:
            try:
                await finished.wait()
            except anyio.get_cancelled_exc_class():
                state.cancelled.set()
                raise

        async with anyio.create_task_group() as tg:
            tg.start_soon(watch)
            sending: MemoryObjectSendStream[_Progress] | None = None
            if token is not None:
                sending, receiving = anyio.create_memory_object_stream[_Progress](_MAX_PENDING_PROGRESS)
                tg.start_soon(_deliver_progress, fastmcp_context, receiving)
                state.send = _thread_sender(sending)
            active = progress._active.set(state)
            try:
                outcome.append(await work())
            except (Exception, SystemExit) as exc:
                # Raised after the task group (which would wrap it in an exception group).
                failure.append(exc)
            finally:
                progress._active.reset(active)
                finished.set()
                if sending is not None:
                    sending.close()  # the sender drains what is queued, then ends
        if failure:
            raise failure[0]
        return outcome[0]

    @staticmethod
    def pending_sources(call: ToolCall) -> list[tuple[str, int | None, str, str]]:
        """The path arguments that name a document source, not a local file:
        (argument, index in a list argument or None, value, scheme)."""
        found: list[tuple[str, int | None, str, str]] = []
        for name in call.path_arguments:
            value = call.arguments.get(name)
            items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            for index, item in items:
                if isinstance(item, str):
                    scheme = source_scheme(item)
                    if scheme is not None:
                        found.append((name, index, item, scheme))
        return found

    def open_sources(
        self, call: ToolCall, pending: list[tuple[str, int | None, str, str]], shown: dict[str, str]
    ) -> dict[str, str] | None:
        """Resolve each source through the ``rhwp_mcp_open_source`` hook (in a worker thread: it may
        download) and put the local paths in ``call.arguments``; the error object if one fails.
        ``shown`` receives, for each local path, the name responses show for it."""
        for name, index, value, scheme in pending:
            try:
                answers = self.packs.call_each("rhwp_mcp_open_source", source=value, scheme=scheme, call=call)
            except progress.CallCancelled:
                raise  # a download stopped at the client's request: no error, the call ends unanswered
            except Exception as exc:
                culprit = getattr(exc, "rhwp_mcp_plugin", "?")
                payload = error_from_exception(exc, tool=call.tool, pack=culprit)
                if payload["error"] == INTERNAL_ERROR:
                    log.error("opening a %s: source failed in %r", scheme, culprit, exc_info=exc)
                return payload
            if not answers or not isinstance(answers[0][1], str):
                kinds = "a local path, a file:// URI, a data: URI, a doc: handle" + (
                    ", an https:// URL" if self.config.sources.fetch else ""
                )
                return error_payload(
                    INVALID_INPUT, f"argument {name!r}: this server cannot read {scheme}: sources", f"pass {kinds}"
                )
            local = answers[0][1]
            # A stored document is named by its handle (a data: URI is not repeated, a URL not
            # downloaded again on the next page); a plugin's own scheme by what the caller wrote.
            in_store = os.path.dirname(local) == str(self.store.dir)
            shown[local] = HANDLE_PREFIX + os.path.basename(local) if in_store else value
            if index is None:
                call.sources[name] = local
                call.arguments[name] = local
            else:
                call.sources[f"{name}[{index}]"] = local
                items = list(call.arguments[name])
                items[index] = local
                call.arguments[name] = items
        return None

    def error_for(self, exc: BaseException, tool: str, pack: str) -> dict[str, str]:
        """The one mapping from whatever a call raised to the error object."""
        if isinstance(exc, FastMCPValidationError) and isinstance(exc.__cause__, pydantic.ValidationError):
            return invalid_input_from_validation(
                exc.__cause__.errors(include_url=False), tool=tool, input_schema=self.schemas.get(tool)
            )
        if isinstance(exc, pydantic.ValidationError):
            return invalid_input_from_validation(
                exc.errors(include_url=False), tool=tool, input_schema=self.schemas.get(tool)
            )
        if isinstance(exc, NotFoundError):
            return error_payload(INVALID_INPUT, str(exc), "available tools: " + ", ".join(sorted(self.schemas)))
        original: BaseException = exc
        # fastmcp wraps a tool body's exception in ToolError (and a pydantic error from the body in
        # an internal marker first): the exception the pack raised is the innermost cause.
        while original.__cause__ is not None and type(original).__module__.startswith("fastmcp"):
            original = original.__cause__
        payload = error_from_exception(original, tool=tool, pack=pack)
        if payload["error"] == INTERNAL_ERROR:
            log.error("tool %r (pack %r) failed", tool, pack, exc_info=original)
        return payload


@dataclass
class Host:
    """A built server with what went into it."""

    server: FastMCP
    packs: PackSet
    config: HostConfig
    store: DocumentStore
    """Where uploads, data: URIs and downloads are kept (shared with the HTTP upload endpoint)."""
    outputs: Outputs = field(default_factory=Outputs)
    """Where writing tools' results go (the HTTP app marks it remote: results go to the store)."""

    @property
    def tool_count(self) -> int:
        return sum(len(p.tools) for p in self.packs.packs if p.status == "loaded")


def _served_tool(spec: ToolSpec) -> FunctionTool:
    """The FastMCP tool of a pack's tool, for the loader, which fails the pack when this raises."""
    try:
        return _tool_from_spec(spec)
    except Exception as exc:
        raise ValueError(f"the parameters of {spec.name!r} cannot become a JSON Schema: {exc}") from exc


def _tool_from_spec(spec: ToolSpec) -> FunctionTool:
    annotations = ToolAnnotations.model_validate(
        {
            "title": spec.title,
            "readOnlyHint": spec.read_only,
            "idempotentHint": spec.idempotent,
            "destructiveHint": spec.destructive,
            "openWorldHint": spec.open_world,
        }
    )
    options: dict[str, Any] = {}
    if spec.returns_text:
        # A text result goes out once, as text; fastmcp would also wrap it as {"result": ...}.
        options["output_schema"] = None
    return FunctionTool.from_function(
        spec.func,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        annotations=annotations,
        tags=set(spec.tags),
        meta={**spec.meta, "rhwp_mcp": {"pack": spec.pack}},
        **options,
    )


def _resource_from_spec(spec: ResourceSpec) -> FunctionResource:
    return FunctionResource.from_function(
        spec.read,
        uri=spec.uri,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        mime_type=spec.mime_type,
        meta={**spec.meta, "rhwp_mcp": {"pack": spec.pack}},
    )


def create_host(
    *,
    roots: Iterable[str | os.PathLike[str]] = (),
    enable: Iterable[str] | str | None = None,
    disable: Iterable[str] | str | None = None,
    max_chars: int | None = None,
    plugins: Mapping[str, Any] | None = None,
    entry_points: bool = True,
    env: Mapping[str, str] | None = None,
    name: str = "rhwp-mcp",
    stdio: bool = False,
    sources: SourceSettings | None = None,
    max_image_chars: int | None = None,
    max_calls: int | None = None,
    settings: HostSettings | None = None,
) -> Host:
    """Load the packs and build the server (not yet running). Raises ValueError for bad settings.

    ``stdio=True`` when the server will speak over this process's stdout: tools' prints then go to stderr.
    The settings are each argument given over its ``RHWP_MCP_*`` variable in ``env`` (default: this
    process's environment), see :func:`rhwp_mcp_host.settings.host_settings`; ``sources`` says where
    documents may come from besides local files. ``settings`` given (the command's, read once from
    its flags and the environment) replaces all of them.
    """
    if settings is None:
        settings = host_settings(
            env,
            roots=tuple(roots),
            enable=enable,
            disable=disable,
            max_chars=max_chars,
            max_image_chars=max_image_chars,
            max_calls=max_calls,
            sources=sources,
        )
    sources = settings.sources
    trace = settings.packs.trace
    config = HostConfig(
        roots=resolve_roots(settings.roots),
        max_chars=settings.max_chars,
        max_image_chars=settings.max_image_chars,
        max_calls=settings.max_calls,
        env=settings.env,
        trace=trace,
        sources=sources,
        writing=settings.writing,
    )
    store = DocumentStore(
        sources.store_dir or default_store_dir(), max_bytes=sources.store_max_bytes, ttl=sources.store_ttl
    )
    outputs = Outputs(config.writing, config.roots, store=lambda data: store.put(data).handle)

    packs = load_packs(
        settings.packs,
        plugins=plugins,
        builtins=builtin_plugins(trace=trace, log=stderr_line, store=store),
        entry_points=entry_points,
        build_tool=_served_tool,
    )
    packs.configure(config)

    _install_log_filter()
    server = FastMCP(name=name, version=__version__)
    schemas: dict[str, dict[str, Any]] = {}
    password_tools: set[str] = set()
    for record in packs.packs:
        if record.status != "loaded":
            continue
        for tool in (packs.served[tool_name] for tool_name in record.tools):
            path_arguments = packs.tools[tool.name].path_arguments
            _describe_sources(tool, path_arguments, sources)
            if path_arguments and add_password_parameter(tool.parameters):
                password_tools.add(tool.name)
            server.add_tool(tool)
            schemas[tool.name] = tool.parameters
        for uri in record.resources:
            server.add_resource(_resource_from_spec(packs.resources[uri]))
    server.add_middleware(
        HostMiddleware(
            packs,
            config,
            schemas,
            store,
            divert_stdout=stdio,
            password_tools=frozenset(password_tools),
            outputs=outputs,
        )
    )
    return Host(server=server, packs=packs, config=config, store=store, outputs=outputs)


def _describe_sources(tool: FunctionTool, path_arguments: tuple[str, ...], sources: SourceSettings) -> None:
    """Tell the model which document sources this server takes: the path parameters' description
    names URLs only when the operator turned fetching on."""
    if not sources.fetch:
        return
    schemes = "https:// or http://" if sources.fetch_allow_http else "https://"
    text = PATH_DESCRIPTION.rstrip(".") + f", or an {schemes} URL (the server downloads it)."
    for name in path_arguments:
        prop = tool.parameters.get("properties", {}).get(name)
        if isinstance(prop, dict) and prop.get("description") == PATH_DESCRIPTION:
            prop["description"] = text


def build_server(
    *,
    roots: Iterable[str | os.PathLike[str]] = (),
    enable: Iterable[str] | str | None = None,
    disable: Iterable[str] | str | None = None,
    max_chars: int | None = None,
    plugins: Mapping[str, Any] | None = None,
    entry_points: bool = True,
    env: Mapping[str, str] | None = None,
    sources: SourceSettings | None = None,
) -> FastMCP:
    """The FastMCP server with every selected pack loaded, for embedding in-process."""
    return create_host(
        roots=roots,
        enable=enable,
        disable=disable,
        max_chars=max_chars,
        plugins=plugins,
        entry_points=entry_points,
        env=env,
        sources=sources,
    ).server


__all__ = ["Host", "HostMiddleware", "build_server", "create_host"]
