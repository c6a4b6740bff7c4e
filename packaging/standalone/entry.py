"""The standalone server's program: the host's `rhwp-mcp` command, frozen.

One addition for Claude Desktop bundles: an MCP bundle expands a list setting (the folders the user
picked) into one argument per folder, with no way to put `--root` before each. So a trailing
`--roots DIR [DIR ...]` is read as `--root DIR` for every DIR (it must come last; the bundle's
manifest puts it there). Everything else goes to the host unchanged.
"""

from __future__ import annotations

import sys

from rhwp_mcp_host.cli import main

ROOTS_FLAG = "--roots"


def expand_roots(argv: list[str]) -> list[str]:
    if ROOTS_FLAG not in argv:
        return argv
    at = argv.index(ROOTS_FLAG)
    expanded = argv[:at]
    for directory in argv[at + 1 :]:
        expanded += ["--root", directory]
    return expanded


if __name__ == "__main__":
    sys.exit(main(expand_roots(sys.argv[1:])))
