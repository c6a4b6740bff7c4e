"""``rhwp_mcp_host.asgi:app``: the HTTP server as an ASGI app, for ``uvicorn --workers N``,
gunicorn with uvicorn workers, or any ASGI host behind a load balancer.

Configured by the environment only (the ``RHWP_MCP_*`` variable of each flag of
``rhwp-mcp``; ``RHWP_MCP_ROOT`` holds the roots, separated by ``os.pathsep``)::

    RHWP_MCP_AUTH_TOKEN_FILE=/run/secrets/rhwp-token RHWP_MCP_STORE_DIR=/shared/rhwp-store \\
        uvicorn rhwp_mcp_host.asgi:app --host 0.0.0.0 --port 8000 --workers 4

Stateless by default (``RHWP_MCP_STATELESS=0`` to keep sessions): worker processes share no
memory, so a session opened on one would be unknown to the next. The app is built on first
access, so importing this module does nothing by itself. Without a token or an auth provider it
refuses to start unless ``RHWP_MCP_NO_AUTH=1``: the ASGI host, not this app, picks the address
it listens on, so the app cannot tell a loopback-only deployment from a public one.
"""

from __future__ import annotations

import sys
from typing import Any

from .service.app import create_app

_app: Any = None


def __getattr__(name: str) -> Any:
    global _app
    if name != "app":
        raise AttributeError(f"module 'rhwp_mcp_host.asgi' has no attribute {name!r}")
    if _app is None:
        try:
            _app = create_app()
        except ValueError as exc:
            print(f"rhwp-mcp: {exc}", file=sys.stderr, flush=True)
            raise SystemExit(2) from None
    return _app
