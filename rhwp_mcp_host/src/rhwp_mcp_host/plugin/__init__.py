"""The plugin contract: everything a tool pack imports (hook specs and markers, the call and
config types, the error vocabulary, paging, passwords, progress).

Cheap to import (pluggy and pydantic, no fastmcp) and independent of the rest of the host: nothing
here imports the server, the document sources or the HTTP service. Packs import these names from
``rhwp_mcp_host`` itself.
"""
