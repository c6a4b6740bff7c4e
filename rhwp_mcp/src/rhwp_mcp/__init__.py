"""rhwp-mcp: the whole server in one name (the host and every tool pack, its dependencies) and the
one thing the server itself does not need: ``rhwp-mcp setup CLIENT``, which writes the server into
an MCP client's configuration (:mod:`rhwp_mcp.setup_clients`).

The command is the host's (``rhwp_mcp_host.cli:main``); ``setup`` reaches it through the
entry-point group ``rhwp.mcp_commands``, so the host never imports this package by name.
"""
