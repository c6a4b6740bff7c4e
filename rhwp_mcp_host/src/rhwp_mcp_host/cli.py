"""``rhwp-mcp``: serve (the default), list packs, or call one tool from the shell.

In stdio mode nothing but the protocol goes to stdout: every message of the host is one line
on stderr, and a pack's stray prints while it is imported are sent to stderr too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ._version import __version__
from .plugin.paging import ENV_MAX_CHARS, ENV_MAX_IMAGE_CHARS, parse_max_chars
from .server.packs import installed_entry_points, load_packs, stderr_line
from .settings import (
    ENV_AUTH_TOKEN_FILE,
    ENV_DISABLE,
    ENV_ENABLE,
    ENV_MAX_CALLS,
    ENV_OUTPUT_DIR,
    ENV_READ_ONLY,
    HTTP_VARIABLES,
    SOURCE_VARIABLES,
    CommandSettings,
    PackSelection,
    command_settings,
    parse_dir,
    parse_max_calls,
    parse_megabytes,
    parse_seconds,
)

COMMANDS = ("serve", "packs", "call", "setup")
# Commands other distributions add to `rhwp-mcp`: an entry point in this group names an object with
# add_parser(subparsers) -> its argparse parser, and run(args) -> the exit status. The host finds
# them as it finds packs, never importing a distribution by name.
COMMAND_GROUP = "rhwp.mcp_commands"
# The distribution that brings each of those commands, to tell a user without it what to install.
COMMAND_DISTRIBUTIONS = {"setup": "rhwp-mcp"}


def _add_common(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    # Sub-commands repeat the options with SUPPRESS defaults, so an option works before or after the command.
    default: Any = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--root",
        action="append",
        metavar="DIR",
        default=default,
        help="only read files under DIR (repeatable; symlinks and '..' resolved). Default: whatever the user can read",
    )
    # The same as --root for each DIR: a client that expands a list setting into one argument per
    # folder (a Claude Desktop bundle's user_config) cannot put --root before each of them.
    parser.add_argument(
        "--roots",
        action="extend",
        nargs="+",
        dest="root",
        metavar="DIR",
        default=default,
        help="several roots at once (--root for each DIR); put it last",
    )
    parser.add_argument(
        "--enable",
        action="append",
        metavar="NAME",
        default=default,
        help=f"load only these packs (repeatable or comma list; adds to ${ENV_ENABLE})",
    )
    parser.add_argument(
        "--disable",
        action="append",
        metavar="NAME",
        default=default,
        help=f"do not load these packs (repeatable or comma list; adds to ${ENV_DISABLE})",
    )
    parser.add_argument(
        "--max-chars",
        type=parse_max_chars,
        metavar="N",
        default=default,
        help=f"cap on the characters of any one response (default ${ENV_MAX_CHARS} or 20000)",
    )
    parser.add_argument(
        "--max-calls",
        type=_typed(parse_max_calls, "--max-calls"),
        metavar="N",
        default=default,
        help=f"tool calls run at once; more wait their turn (default ${ENV_MAX_CALLS} or 2 per CPU, at least 4)",
    )
    parser.add_argument(
        "--read-only",
        action="store_true",
        default=default,
        help=f"refuse every tool that writes a document (fill_form...) with permission_denied (${ENV_READ_ONLY})",
    )
    parser.add_argument(
        "--output-dir",
        metavar="DIR",
        default=default,
        help=f"write the documents writing tools make into DIR (default: beside their input; ${ENV_OUTPUT_DIR})",
    )
    parser.add_argument(
        "--max-image-chars",
        type=parse_max_chars,
        metavar="N",
        default=default,
        help=f"cap on the base64 characters of a response's pictures (default ${ENV_MAX_IMAGE_CHARS} or 1400000)",
    )


def _typed(parse: Any, flag: str) -> Any:
    """An argparse type from a settings parser (which takes the setting's name for its messages)."""

    def convert(text: str) -> Any:
        try:
            return parse(flag, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def _add_sources(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Where documents may come from besides local files (every command that calls tools)."""
    default: Any = argparse.SUPPRESS if suppress else None
    env = {name: variable for name, (variable, _) in SOURCE_VARIABLES.items()}
    group = parser.add_argument_group("document sources (data: URIs and doc: handles are always accepted)")
    for flag, name, text in (
        ("--fetch", "fetch", "accept https:// URLs as documents and download them"),
        ("--fetch-allow-http", "fetch_allow_http", "with --fetch, plain http:// URLs too"),
        (
            "--fetch-allow-private",
            "fetch_allow_private",
            "with --fetch, URLs on loopback, private and link-local addresses too (an intranet's documents)",
        ),
    ):
        group.add_argument(
            flag, action="store_const", const=True, dest=name, default=default, help=f"{text} (${env[name]})"
        )
    for flag, name, parse, metavar, text in (
        ("--fetch-max-mb", "fetch_max_bytes", parse_megabytes, "MB", "largest download (default 50)"),
        (
            "--fetch-timeout",
            "fetch_timeout",
            parse_seconds,
            "S",
            "time for a whole download, redirects included (default 30)",
        ),
        ("--upload-max-mb", "upload_max_bytes", parse_megabytes, "MB", "largest upload or data: URI (default 50)"),
        (
            "--store-dir",
            "store_dir",
            parse_dir,
            "DIR",
            "where uploads and downloads are kept (default: a per-user temp dir)",
        ),
        (
            "--store-max-mb",
            "store_max_bytes",
            parse_megabytes,
            "MB",
            "cap on the store (default 512); least recently used go first",
        ),
        (
            "--store-ttl",
            "store_ttl",
            parse_seconds,
            "S",
            "seconds a stored document lives after its last use (default 3600)",
        ),
    ):
        group.add_argument(
            flag, type=_typed(parse, flag), dest=name, metavar=metavar, default=default, help=f"{text} (${env[name]})"
        )


def _add_serve(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    parser.add_argument(
        "--transport",
        choices=("stdio", "streamable-http", "http"),
        default=argparse.SUPPRESS if suppress else "stdio",
        help="stdio (default) or streamable-http (served at /mcp)",
    )
    parser.add_argument(
        "--host", default=argparse.SUPPRESS if suppress else "127.0.0.1", help="HTTP bind address (default 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=argparse.SUPPRESS if suppress else 8000, help="HTTP port (default 8000)"
    )
    default: Any = argparse.SUPPRESS if suppress else None
    env = {name: variable for name, (variable, _) in HTTP_VARIABLES.items()}
    http = parser.add_argument_group("HTTP service (with --transport streamable-http)")
    http.add_argument(
        "--stateless",
        action="store_const",
        const=True,
        default=default,
        help=f"no sessions: any replica behind a load balancer answers any request (${env['stateless']})",
    )
    http.add_argument(
        "--allowed-host",
        action="append",
        dest="allowed_hosts",
        metavar="NAME",
        default=default,
        help=f"a Host header to accept besides localhost (repeatable; a reverse proxy's public name) "
        f"(${env['allowed_hosts']}, comma list)",
    )
    http.add_argument(
        "--allowed-origin",
        action="append",
        dest="allowed_origins",
        metavar="ORIGIN",
        default=default,
        help=f"a browser Origin to accept, e.g. https://app.example (repeatable) (${env['allowed_origins']})",
    )
    http.add_argument(
        "--auth-token-file",
        metavar="FILE",
        default=default,
        help=f"require 'Authorization: Bearer <the file's content>' on /mcp and /documents "
        f"(${ENV_AUTH_TOKEN_FILE}, or the token itself in ${env['auth_token']})",
    )
    http.add_argument(
        "--auth-provider",
        metavar="MODULE:ATTR",
        default=default,
        help=f"a fastmcp AuthProvider (e.g. a JWTVerifier) or a function returning one (${env['auth_provider']})",
    )
    http.add_argument(
        "--no-auth",
        action="store_const",
        const=True,
        default=default,
        help=f"serve a non-loopback --host without authentication, on purpose (${env['no_auth']})",
    )


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rhwp-mcp",
        description="MCP server for the installed rhwp-mcp tool packs (entry-point group rhwp.mcp_tools).",
    )
    parser.add_argument("--version", action="version", version=f"rhwp-mcp-host {__version__}")
    _add_common(parser, suppress=False)
    _add_sources(parser, suppress=False)
    _add_serve(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="{serve,packs,call,setup}")
    serve = sub.add_parser("serve", help="serve MCP (the default command)")
    _add_common(serve, suppress=True)
    _add_sources(serve, suppress=True)
    _add_serve(serve, suppress=True)
    packs = sub.add_parser("packs", help="list discovered packs, their tools and status")
    _add_common(packs, suppress=True)
    packs.add_argument("--json", action="store_true", help="machine-readable output")
    call = sub.add_parser(
        "call",
        help="call one tool and print its result: rhwp-mcp call TOOL [DOCUMENT ...] key=value ... "
        "(bare arguments fill the tool's document parameters in order)",
    )
    _add_common(call, suppress=True)
    _add_sources(call, suppress=True)
    call.add_argument("tool")
    call.add_argument(
        "arguments",
        nargs="*",
        metavar="key=value",
        help="values are parsed as JSON when they parse; a bare argument is a document, given to the "
        "tool's document (path) parameters in order",
    )
    call.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the result to FILE instead of printing it: its picture's bytes when it sends one "
        "(a page image, a picture), else its text; an existing FILE is replaced",
    )
    _add_commands(sub)
    return parser


def _command_entry_points() -> list[Any]:
    return installed_entry_points(COMMAND_GROUP)


def _add_commands(sub: Any) -> None:
    """The installed commands of COMMAND_GROUP; a command not installed answers that it is not."""
    added: set[str] = set()
    for ep in _command_entry_points():
        if ep.name in added or ep.name in ("serve", "packs", "call"):
            continue
        try:
            command = ep.load()
            parser = command.add_parser(sub)
        except Exception as exc:
            stderr_line(f"the command {ep.name!r} ({ep.value}) cannot be loaded and is left out: {exc!r}")
            continue
        parser.set_defaults(run_command=command.run)
        added.add(ep.name)
    for name, distribution in COMMAND_DISTRIBUTIONS.items():
        if name not in added:
            missing = sub.add_parser(name, help=f"(comes with {distribution}: pip install {distribution})")
            missing.set_defaults(missing_command=(name, distribution))


def parse_call_arguments(pairs: Sequence[str]) -> dict[str, Any]:
    """``["path=a.hwp", "limit=5", "flag=true"]`` -> ``{"path": "a.hwp", "limit": 5, "flag": True}``."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {pair!r}")
        try:
            arguments[key] = json.loads(raw)
        except ValueError:
            arguments[key] = raw
    return arguments


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def split_call_arguments(pairs: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
    """The ``key=value`` arguments (as :func:`parse_call_arguments`) and the bare ones, in order:
    ``["a.hwp", "b.hwpx", "format=table"]`` -> ``({"format": "table"}, ["a.hwp", "b.hwpx"])``. An
    argument whose part before ``=`` is no parameter name (``./x=1.hwp``) is bare too."""
    named: list[str] = []
    bare: list[str] = []
    for pair in pairs:
        key, sep, _ = pair.partition("=")
        (named if sep and _KEY.fullmatch(key) else bare).append(pair)
    return parse_call_arguments(named), bare


def fill_path_parameters(arguments: dict[str, Any], documents: Sequence[str], parameters: Sequence[str]) -> None:
    """Give the bare ``documents`` to the tool's path ``parameters`` not named already, in order
    (``compare_documents a.hwp b.hwpx``: old, then new); ValueError when there are more."""
    free = [name for name in parameters if name not in arguments]
    if len(documents) > len(free):
        takes = ", ".join(parameters) if parameters else "no document"
        raise ValueError(f"{len(documents)} bare arguments, but the tool takes {takes}: name the others as key=value")
    arguments.update(zip(free, documents, strict=False))  # fewer documents than parameters is fine


def _create_host(settings: CommandSettings, *, stdio: bool = False) -> Any:
    from .server.host import create_host

    assert settings.host is not None, "serve and call read the server's settings"

    # A pack that prints while it is imported must not corrupt the stdio protocol channel.
    with contextlib.redirect_stdout(sys.stderr):
        return create_host(settings=settings.host, stdio=stdio)


def _serve(settings: CommandSettings) -> int:
    if settings.http is None:
        host = _create_host(settings, stdio=True)
        stderr_line(f"serving {host.tool_count} tools over stdio")
        try:
            host.server.run(transport="stdio", show_banner=False)
        except KeyboardInterrupt:
            pass
        except BaseException as exc:
            if not _client_left(exc):
                raise
            # The client closed our stdout while a call was being settled (the SDK answers a request
            # it is shutting down with "connection closed", and writing that fails): the client is
            # gone, which is how a stdio session ends; nothing to report, and nothing more to flush.
            _silence_stdout()
        return 0
    http = settings.http
    if not http.loopback and not http.has_auth and not http.no_auth:
        stderr_line(
            f"refusing to serve {http.host} without authentication: anyone who reaches this address could "
            "read every document the server can. Give a token (--auth-token-file FILE or $RHWP_MCP_AUTH_TOKEN), "
            "an --auth-provider, or --no-auth if something in front of the server authenticates"
        )
        return 2
    host = _create_host(settings)
    from .service.webapp import build_app

    app = build_app(host, http)
    where = f"[{http.host}]" if ":" in http.host else http.host
    mode = ", stateless" if http.stateless else ""
    auth = "bearer auth" if http.has_auth else "no auth"
    stderr_line(f"serving {host.tool_count} tools at http://{where}:{http.port}/mcp ({auth}{mode})")
    if not http.loopback and not http.allowed_hosts:
        stderr_line("the Host header is not checked on a non-loopback address; --allowed-host NAME checks it")
    import uvicorn

    try:
        uvicorn.run(
            app,
            host=http.host,
            port=http.port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=2,
        )
    except KeyboardInterrupt:
        pass
    return 0


def _packs(args: argparse.Namespace, selection: PackSelection) -> int:
    with contextlib.redirect_stdout(sys.stderr):
        packs = load_packs(selection, log=lambda _m: None)
    records = [p for p in packs.packs if not p.builtin]
    if args.json:
        print(json.dumps({"packs": [p.to_dict() for p in records]}, ensure_ascii=False, indent=2))
        return 0
    if not records:
        print("no tool packs installed; pip install rhwp-mcp-tools-core (or rhwp-mcp-host[all])")
        return 0
    for p in records:
        origin = f"{p.distribution} {p.version}" if p.distribution else (p.value or "")
        print(f"{p.name}  [{p.status}]  {origin}")
        if p.tools:
            print("  tools: " + ", ".join(p.tools))
        if p.error:
            print(f"  error: {p.error}")
        if p.fix:
            print(f"  fix: {p.fix}")
        for line in p.conflicts:
            print(f"  conflict: {line}")
    return 0


def _described(block: Any) -> str:
    kind = getattr(block, "type", "content")
    mime = getattr(block, "mime_type", None) or getattr(block, "mimeType", "?")
    return f"[{kind}: {mime}, {len(getattr(block, 'data', '') or '')} base64 characters]"


async def _call_async(server: Any, tool: str, arguments: dict[str, Any]) -> tuple[bool, str, bytes | None]:
    """The call's error flag, its text for the shell, and the bytes of the first picture it sent."""
    import base64

    from fastmcp import Client

    async with Client(server) as client:
        result = await client.call_tool(tool, arguments, raise_on_error=False)
    picture = next(
        (block.data for block in result.content if getattr(block, "type", "") == "image" and block.data), None
    )
    # A picture is shown by what it is: the shell is no place for its base64.
    texts = [
        getattr(block, "text", None) if getattr(block, "type", "") == "text" else _described(block)
        for block in result.content
    ]
    text = "\n".join(t for t in texts if t is not None)
    if not result.is_error and result.structured_content is not None and len(texts) == 1:
        # Pretty-print a JSON object for the human reading the shell.
        text = json.dumps(result.structured_content, ensure_ascii=False, indent=2)
    return bool(result.is_error), text, None if picture is None else base64.b64decode(picture)


def _call(args: argparse.Namespace, settings: CommandSettings) -> int:
    try:
        arguments, documents = split_call_arguments(args.arguments)
    except ValueError as exc:
        stderr_line(str(exc))
        return 2
    host = _create_host(settings)
    spec = host.packs.tools.get(args.tool)
    try:
        fill_path_parameters(arguments, documents, spec.path_arguments if spec is not None else ())
    except ValueError as exc:
        stderr_line(str(exc))
        return 2
    is_error, text, picture = asyncio.run(_call_async(host.server, args.tool, arguments))
    if args.output and not is_error:
        out = Path(args.output)
        try:
            out.write_bytes(picture) if picture is not None else out.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            stderr_line(f"cannot write {out}: {exc.strerror or exc}; name a file in a writable directory")
            return 1
        stderr_line(f"wrote {out} ({out.stat().st_size} bytes)")
        return 0
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        # `rhwp-mcp call ... | head`: the reader left; say nothing more, like other shell tools.
        _silence_stdout()
    return 1 if is_error else 0


def _client_left(exc: BaseException) -> bool:
    """Whether ``exc`` is only the client having closed the pipe (alone or in exception groups)."""
    inner = getattr(exc, "exceptions", None)
    if inner is not None:
        return bool(inner) and all(_client_left(e) for e in inner)
    return isinstance(exc, (BrokenPipeError, ConnectionResetError))


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's final flush cannot fail on a closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _log_to_stderr() -> None:
    """The host's log (tracebacks of failed calls, hook failures) as plain lines on stderr."""
    logger = logging.getLogger("rhwp_mcp_host")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("rhwp-mcp: %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # fastmcp's own log lines are plain (no rich boxes) and, like ours, on stderr.
    os.environ.setdefault("FASTMCP_ENABLE_RICH_LOGGING", "false")
    os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
    os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")
    os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")
    _log_to_stderr()
    parser = make_parser()
    # Known arguments only, so that a command which is not installed is reported as such whatever
    # arguments follow it; otherwise as strict as parse_args.
    args, unknown = parser.parse_known_args(argv)
    missing = getattr(args, "missing_command", None)
    if missing is not None:
        name, distribution = missing
        stderr_line(
            f"`rhwp-mcp {name}` comes with the {distribution} distribution, which is not installed: "
            f"pip install {distribution} (or run: uvx {distribution} {name} ...)"
        )
        return 2
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    command = args.command or "serve"
    run_command: Callable[[argparse.Namespace], int] | None = getattr(args, "run_command", None)
    try:
        if run_command is not None:
            return run_command(args)
        settings = command_settings(args)
        if command == "packs":
            return _packs(args, settings.packs)
        if command == "call":
            return _call(args, settings)
        return _serve(settings)
    except ValueError as exc:  # bad settings: a --root that is no directory, a bad cap
        stderr_line(str(exc))
        return 2
