"""Which stored results come back embedded in a call's answer (plugin/output.py): at most
EMBED_MAX_BYTES each, and only while the answer's binary content stays within the server's cap."""

from __future__ import annotations

import base64

from fastmcp.tools.base import ToolResult
from mcp.types import ImageContent, TextContent
from rhwp_mcp_host.plugin.output import EMBED_MAX_BYTES, StoredOutput
from rhwp_mcp_host.server.host import _embed_stored, _image_size


def _stored(name: str, size: int) -> StoredOutput:
    return StoredOutput(f"doc:{name * 64}", bytes(size), "application/hwp+zip")


def test_small_results_are_embedded_within_the_bound_and_the_cap() -> None:
    picture = ImageContent(type="image", data="A" * 1000, mimeType="image/png")
    result = ToolResult(content=[TextContent(type="text", text="{}"), picture], structured_content={"output": "x"})
    small, too_big, past_cap = _stored("a", 3000), _stored("b", EMBED_MAX_BYTES + 1), _stored("c", 3000)
    # Room for the picture and one 3000-byte blob (4000 base64 characters), not two.
    _embed_stored(result, [small, too_big, past_cap], max_image_chars=1000 + 4000 + 3999)
    embedded = [block for block in result.content if block.type == "resource"]
    assert [str(block.resource.uri) for block in embedded] == [small.handle]
    assert base64.b64decode(embedded[0].resource.blob) == small.data
    assert embedded[0].resource.model_dump(by_alias=True)["mimeType"] == "application/hwp+zip"
    assert result.structured_content == {"output": "x"}, "the structured answer is unchanged"
    assert _image_size(result) == 1000 + 4000, "an embedded blob counts as binary content"


def test_a_result_at_the_bound_is_embedded() -> None:
    result = ToolResult(content=[TextContent(type="text", text="{}")], structured_content={})
    _embed_stored(result, [_stored("d", EMBED_MAX_BYTES)], max_image_chars=1_400_000)
    assert [block.type for block in result.content] == ["text", "resource"]
