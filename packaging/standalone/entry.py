"""The standalone server's program: the host's `rhwp-mcp` command, frozen (nothing added)."""

from __future__ import annotations

import sys

from rhwp_mcp_host.cli import main

if __name__ == "__main__":
    sys.exit(main())
