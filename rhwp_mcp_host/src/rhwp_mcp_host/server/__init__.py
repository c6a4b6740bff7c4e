"""The MCP server: the pack loader (the one place that decides whether a pack loads), the tool
registry, the built-in policy plugins, and the FastMCP host that serves the loaded tools.

Nothing is imported here, so ``rhwp_mcp_host.server.packs`` (listing packs) does not pay for
fastmcp; the server itself is :mod:`rhwp_mcp_host.server.host`.
"""
