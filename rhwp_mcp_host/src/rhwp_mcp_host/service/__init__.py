"""The HTTP service around the MCP server: ``/mcp`` (streamable HTTP), ``/documents`` (uploads),
health, authentication (``webapp``), and the ASGI app built from the environment (``app``)."""
