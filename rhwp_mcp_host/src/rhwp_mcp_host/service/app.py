"""The ASGI app of the HTTP service, built from the environment alone (``rhwp_mcp_host.asgi:app``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..settings import HTTP_VARIABLES, environment, host_settings, http_settings


def create_app(env: Mapping[str, str] | None = None) -> Any:
    """Build the ASGI app from ``env`` (default: this process's environment). Raises ValueError."""
    from ..server.host import create_host
    from .webapp import build_app

    env = environment(env)
    stateless_variable = HTTP_VARIABLES["stateless"][0]
    settings = http_settings(env, stateless=None if env.get(stateless_variable, "").strip() else True)
    if not settings.has_auth and not settings.no_auth:
        raise ValueError(
            "rhwp_mcp_host.asgi: set RHWP_MCP_AUTH_TOKEN_FILE (or RHWP_MCP_AUTH_TOKEN, or RHWP_MCP_AUTH_PROVIDER); "
            "set RHWP_MCP_NO_AUTH=1 only if something in front of the app authenticates every request"
        )
    host = create_host(settings=host_settings(env))  # the roots from RHWP_MCP_ROOT
    return build_app(host, settings)
