"""The server's settings from the command line and the environment, read in one place.

Every flag of ``rhwp-mcp`` that a service needs has an ``RHWP_MCP_*`` variable, so the ASGI app
(``rhwp_mcp_host.asgi:app``, which has no command line) is configured exactly like the command.
A flag given on the command line wins over its variable, which wins over the default.

This is the one module of the server that reads the process's environment: the command, the
ASGI app and :func:`~rhwp_mcp_host.create_host` all turn flags and variables into a
:class:`HostSettings` here, and the pack loader and the server only take values from it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .plugin.contract import MiB, SourceSettings, WriteSettings, default_max_calls
from .plugin.paging import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_IMAGE_CHARS,
    ENV_MAX_CHARS,
    ENV_MAX_IMAGE_CHARS,
    parse_max_chars,
)

ENV_ROOT = "RHWP_MCP_ROOT"
ENV_ENABLE = "RHWP_MCP_ENABLE"
ENV_DISABLE = "RHWP_MCP_DISABLE"
ENV_TRACE = "RHWP_MCP_TRACE"
ENV_READ_ONLY = "RHWP_MCP_READ_ONLY"
ENV_OUTPUT_DIR = "RHWP_MCP_OUTPUT_DIR"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


def parse_bool(name: str, text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"{name} must be 1/0, true/false, yes/no or on/off, got {text!r}")


def parse_megabytes(name: str, text: str) -> int:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number of megabytes, got {text!r}") from None
    if not value > 0 or value > 1024 * 1024:
        raise ValueError(f"{name} must be a positive number of megabytes, got {text!r}")
    return int(value * MiB)


def parse_seconds(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {text!r}") from None
    if not value > 0:
        raise ValueError(f"{name} must be a positive number of seconds, got {text!r}")
    return value


ENV_MAX_CALLS = "RHWP_MCP_MAX_CALLS"
MAX_CALLS_LIMIT = 1024


def parse_max_calls(name: str, text: str | int) -> int:
    """How many tool calls may run at once: a whole number from 1 to 1024."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a whole number of calls, got {text!r}") from None
    if not 1 <= value <= MAX_CALLS_LIMIT:
        raise ValueError(f"{name} must be between 1 and {MAX_CALLS_LIMIT}, got {value}")
    return value


def parse_names(name: str, text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def parse_dir(name: str, text: str) -> Path:
    return Path(os.path.expanduser(text))


def roots_from_env(env: Mapping[str, str]) -> list[str]:
    """RHWP_MCP_ROOT: directories separated by os.pathsep (':' on POSIX)."""
    return [part for part in env.get(ENV_ROOT, "").split(os.pathsep) if part.strip()]


def environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """A snapshot of ``env``, or of this process's environment when None: where the server reads it."""
    return dict(os.environ if env is None else env)


def split_names(values: Iterable[str] | str | None) -> list[str]:
    """``["a,b", "c"]`` or ``"a, b"`` -> ``["a", "b", "c"]`` (flags may repeat or hold comma lists)."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def parse_trace(env: Mapping[str, str]) -> bool:
    """RHWP_MCP_TRACE: on for 1/true/yes/on; any other value is off (a debugging switch never stops the server)."""
    return env.get(ENV_TRACE, "").strip().lower() in ("1", "true", "yes", "on")


@dataclass(frozen=True)
class PackSelection:
    """Which packs load: the names of the variables first, then those of the flags."""

    enable: tuple[str, ...] = ()
    """With any name here, only these packs load."""
    disable: tuple[str, ...] = ()
    """These packs do not load (disable wins over enable)."""
    trace: bool = False
    """RHWP_MCP_TRACE: the loader and the calls say what they do on stderr."""


def pack_selection(
    env: Mapping[str, str], *, enable: Iterable[str] | str | None = None, disable: Iterable[str] | str | None = None
) -> PackSelection:
    """``enable``/``disable`` (flags, repeatable or comma lists) add to RHWP_MCP_ENABLE/RHWP_MCP_DISABLE."""
    return PackSelection(
        enable=tuple(split_names(env.get(ENV_ENABLE)) + split_names(enable)),
        disable=tuple(split_names(env.get(ENV_DISABLE)) + split_names(disable)),
        trace=parse_trace(env),
    )


@dataclass(frozen=True)
class HostSettings:
    """Everything the server is built from: what ``create_host`` was given over the ``RHWP_MCP_*`` variables."""

    roots: tuple[str | os.PathLike[str], ...] = ()
    """--root: the directories path arguments must resolve into (resolved by the server); none = any."""
    packs: PackSelection = field(default_factory=PackSelection)
    max_chars: int = DEFAULT_MAX_CHARS
    """The cap on the characters of any one response."""
    max_image_chars: int = DEFAULT_MAX_IMAGE_CHARS
    """The cap on the base64 characters of a response's pictures (never below ``max_chars``)."""
    max_calls: int = field(default_factory=default_max_calls)
    """Tool calls run at once; more wait for a slot."""
    sources: SourceSettings = field(default_factory=SourceSettings)
    writing: WriteSettings = field(default_factory=WriteSettings)
    """--read-only, --output-dir: whether writing tools write, and where."""
    env: Mapping[str, str] = field(default_factory=dict)
    """The environment the server started with (a snapshot), handed to packs in ``HostConfig.env``."""


def host_settings(
    env: Mapping[str, str] | None = None,
    *,
    roots: Iterable[str | os.PathLike[str]] | None = None,
    enable: Iterable[str] | str | None = None,
    disable: Iterable[str] | str | None = None,
    max_chars: int | str | None = None,
    max_image_chars: int | None = None,
    max_calls: int | str | None = None,
    sources: SourceSettings | None = None,
    read_only: bool | None = None,
    output_dir: str | os.PathLike[str] | None = None,
) -> HostSettings:
    """The server's settings: each value given (a flag) over its variable in ``env`` (default: this
    process's environment) over its default. ``roots=None`` takes RHWP_MCP_ROOT; ``sources=None``
    takes the document-source variables. Raises ValueError for a bad value, naming the flag or
    variable it came from."""
    env = environment(env)
    if max_chars is None and env.get(ENV_MAX_CHARS):
        max_chars = parse_max_chars(env[ENV_MAX_CHARS])
    cap = DEFAULT_MAX_CHARS if max_chars is None else parse_max_chars(max_chars)
    if max_image_chars is None and env.get(ENV_MAX_IMAGE_CHARS):
        max_image_chars = parse_max_chars(env[ENV_MAX_IMAGE_CHARS])
    image_cap = max(cap, DEFAULT_MAX_IMAGE_CHARS if max_image_chars is None else max_image_chars)
    if max_calls is None and env.get(ENV_MAX_CALLS, "").strip():
        max_calls = parse_max_calls(ENV_MAX_CALLS, env[ENV_MAX_CALLS])
    calls = default_max_calls() if max_calls is None else parse_max_calls("--max-calls", max_calls)
    return HostSettings(
        roots=tuple(roots_from_env(env) if roots is None else roots),
        packs=pack_selection(env, enable=enable, disable=disable),
        max_chars=cap,
        max_image_chars=image_cap,
        max_calls=calls,
        sources=source_settings(env) if sources is None else sources,
        writing=write_settings(env, read_only=read_only, output_dir=output_dir),
        env=env,
    )


def write_settings(
    env: Mapping[str, str], *, read_only: bool | None = None, output_dir: str | os.PathLike[str] | None = None
) -> WriteSettings:
    """--read-only over RHWP_MCP_READ_ONLY, --output-dir over RHWP_MCP_OUTPUT_DIR (which must be a
    directory: results are written there)."""
    if not read_only and env.get(ENV_READ_ONLY, "").strip():
        read_only = parse_bool(ENV_READ_ONLY, env[ENV_READ_ONLY])
    if output_dir is None and env.get(ENV_OUTPUT_DIR, "").strip():
        output_dir = env[ENV_OUTPUT_DIR].strip()
    folder = None
    if output_dir is not None:
        folder = Path(os.path.realpath(os.path.expanduser(os.fspath(output_dir))))
        if not folder.is_dir():
            raise ValueError(f"--output-dir {output_dir}: not a directory")
    return WriteSettings(read_only=bool(read_only), output_dir=folder)


# field of SourceSettings -> (variable, parser); the flag is --field-with-dashes (megabytes as -mb).
SOURCE_VARIABLES: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "fetch": ("RHWP_MCP_FETCH", parse_bool),
    "fetch_allow_http": ("RHWP_MCP_FETCH_ALLOW_HTTP", parse_bool),
    "fetch_allow_private": ("RHWP_MCP_FETCH_ALLOW_PRIVATE", parse_bool),
    "fetch_max_bytes": ("RHWP_MCP_FETCH_MAX_MB", parse_megabytes),
    "fetch_timeout": ("RHWP_MCP_FETCH_TIMEOUT", parse_seconds),
    "upload_max_bytes": ("RHWP_MCP_UPLOAD_MAX_MB", parse_megabytes),
    "store_dir": ("RHWP_MCP_STORE_DIR", parse_dir),
    "store_max_bytes": ("RHWP_MCP_STORE_MAX_MB", parse_megabytes),
    "store_ttl": ("RHWP_MCP_STORE_TTL", parse_seconds),
}


@dataclass(frozen=True)
class HttpSettings:
    """How the HTTP transport is exposed: address, sessions, the Host and Origin checks, authentication."""

    host: str = "127.0.0.1"
    port: int = 8000
    stateless: bool = False
    """No sessions: any replica answers any request (JSON responses, no server-sent streams)."""
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    auth_token: str | None = field(default=None, repr=False)
    auth_provider: str | None = None
    """``module:attribute`` naming a FastMCP ``AuthProvider`` (e.g. a configured ``JWTVerifier``)
    or a function of no arguments returning one."""
    no_auth: bool = False
    """--no-auth: serve a non-loopback address without authentication, on purpose."""

    @property
    def has_auth(self) -> bool:
        return bool(self.auth_token or self.auth_provider)

    @property
    def loopback(self) -> bool:
        return self.host.strip().lower() in LOOPBACK_HOSTS


HTTP_VARIABLES: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "stateless": ("RHWP_MCP_STATELESS", parse_bool),
    "allowed_hosts": ("RHWP_MCP_ALLOWED_HOSTS", parse_names),
    "allowed_origins": ("RHWP_MCP_ALLOWED_ORIGINS", parse_names),
    "auth_token": ("RHWP_MCP_AUTH_TOKEN", lambda _n, text: text.strip() or None),
    "auth_provider": ("RHWP_MCP_AUTH_PROVIDER", lambda _n, text: text.strip() or None),
    "no_auth": ("RHWP_MCP_NO_AUTH", parse_bool),
}
ENV_AUTH_TOKEN_FILE = "RHWP_MCP_AUTH_TOKEN_FILE"


def _merge(
    table: Mapping[str, tuple[str, Callable[[str, str], Any]]], env: Mapping[str, str], overrides: Mapping[str, Any]
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, (variable, parse) in table.items():
        given = overrides.get(name)
        if given is not None and given != ():
            values[name] = given
        elif env.get(variable, "").strip():
            values[name] = parse(variable, env[variable])
    return values


def source_settings(env: Mapping[str, str], **overrides: Any) -> SourceSettings:
    """SourceSettings from flags (``overrides``, None = not given) over ``RHWP_MCP_*`` variables."""
    return SourceSettings(**_merge(SOURCE_VARIABLES, env, overrides))


def read_token_file(path: str | os.PathLike[str]) -> str:
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ValueError(f"--auth-token-file {path}: cannot read it ({exc.strerror or exc})") from None
    if not token:
        raise ValueError(f"--auth-token-file {path}: the file is empty")
    return token


def http_settings(env: Mapping[str, str], *, auth_token_file: str | None = None, **overrides: Any) -> HttpSettings:
    """HttpSettings from flags over variables; a token file (flag or RHWP_MCP_AUTH_TOKEN_FILE) is read here."""
    values = _merge(HTTP_VARIABLES, env, overrides)
    for name in ("host", "port"):
        if overrides.get(name) is not None:
            values[name] = overrides[name]
    token_file = auth_token_file or env.get(ENV_AUTH_TOKEN_FILE, "").strip() or None
    if token_file:
        values["auth_token"] = read_token_file(token_file)
    token = values.get("auth_token")
    if token is not None and len(token) < 16:
        raise ValueError("the auth token must be at least 16 characters (e.g. `openssl rand -hex 32`)")
    return HttpSettings(**values)


@dataclass(frozen=True)
class CommandSettings:
    """What one run of ``rhwp-mcp`` needs, from its flags over the environment, read once."""

    packs: PackSelection
    host: HostSettings | None = None
    """To build the server (``serve``, ``call``); None for ``packs``, which only lists them."""
    http: HttpSettings | None = None
    """To serve over HTTP (``serve --transport streamable-http``)."""


def command_settings(args: Any, env: Mapping[str, str] | None = None) -> CommandSettings:
    """The settings of the command parsed into ``args`` (an argparse namespace; a flag not given is
    None) over the variables of ``env`` (default: this process's environment). Only what the
    command uses is read, so a bad variable stops only the commands that use it."""
    env = environment(env)
    command = getattr(args, "command", None) or "serve"
    packs = pack_selection(env, enable=args.enable, disable=args.disable)
    if command == "packs":
        return CommandSettings(packs=packs)
    http = None
    if command == "serve" and args.transport != "stdio":
        flags = {name: getattr(args, name, None) for name in HTTP_VARIABLES if name != "auth_token"}
        http = http_settings(
            env, auth_token_file=getattr(args, "auth_token_file", None), host=args.host, port=args.port, **flags
        )
    host = host_settings(
        env,
        roots=args.root or None,
        enable=args.enable,
        disable=args.disable,
        max_chars=args.max_chars,
        max_image_chars=args.max_image_chars,
        max_calls=args.max_calls,
        sources=source_settings(env, **{name: getattr(args, name, None) for name in SOURCE_VARIABLES}),
        read_only=getattr(args, "read_only", None),
        output_dir=getattr(args, "output_dir", None),
    )
    return CommandSettings(packs=packs, host=host, http=http)


__all__ = [
    "ENV_AUTH_TOKEN_FILE",
    "ENV_DISABLE",
    "ENV_ENABLE",
    "ENV_OUTPUT_DIR",
    "ENV_READ_ONLY",
    "ENV_ROOT",
    "ENV_TRACE",
    "HTTP_VARIABLES",
    "SOURCE_VARIABLES",
    "CommandSettings",
    "HostSettings",
    "HttpSettings",
    "PackSelection",
    "command_settings",
    "environment",
    "host_settings",
    "http_settings",
    "pack_selection",
    "roots_from_env",
    "source_settings",
    "write_settings",
]
