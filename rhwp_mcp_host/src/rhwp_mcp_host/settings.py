"""The server's settings from the command line and the environment, read in one place.

Every flag of ``rhwp-mcp`` that a service needs has an ``RHWP_MCP_*`` variable, so the ASGI app
(``rhwp_mcp_host.asgi:app``, which has no command line) is configured exactly like the command.
A flag given on the command line wins over its variable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .plugin.contract import MiB, SourceSettings

ENV_ROOT = "RHWP_MCP_ROOT"
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


__all__ = [
    "ENV_AUTH_TOKEN_FILE",
    "ENV_ROOT",
    "HTTP_VARIABLES",
    "SOURCE_VARIABLES",
    "HttpSettings",
    "http_settings",
    "roots_from_env",
    "source_settings",
]
