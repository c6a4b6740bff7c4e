"""Write what a client sees of every installed pack, to compare before and after a refactoring.

    .venv/bin/python tests/tools_snapshot.py OUT_DIR [DOCUMENT_DIR ...]

Starts the real ``rhwp-mcp`` command over stdio (every installed pack, no RHWP_MCP_* setting from
the shell) with the official MCP client and writes into OUT_DIR:

- ``tools.json``: ``tools/list``, the tools sorted by name, each exactly as the server sent it
  (schemas' key order kept: a change of field order shows);
- ``calls.jsonl``: one line per call of a fixed set of calls (every text, view, chunk, search, form
  and viewer tool) on every document under the DOCUMENT_DIRs (default: the shared corpus, or
  tests/fixtures without it): the tool, its arguments, the document, and the whole result
  (content and structured content, or the error); encrypted documents are opened with their
  password.

Two runs on the same install give identical files; ``cmp`` them. Not a test (it takes minutes on
the corpus): a tool for a change that must keep the tools' schemas and outputs as they are.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

# Run as a script, this folder is on sys.path (and under pytest, tests/ is on its pythonpath).
from corpus_support import FIXTURES, SHARED
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

SUFFIXES = {".hwp", ".hwpx", ".hml", ".hwpml"}
# A small cap makes paging, parts and truncated outlines happen on mid-sized documents too.
CAP = "20000"
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("parse_hwp_summary", {}),
    ("extract_text", {}),
    ("get_ir", {}),
    ("iter_blocks", {"limit": 20}),
    ("iter_blocks", {"scope": "furniture"}),
    ("to_markdown", {"include_furniture": True}),
    ("to_html", {}),
    ("chunks", {"mode": "paragraph"}),
    ("chunks", {"mode": "ir-blocks", "include_furniture": True}),
    ("search", {"query": "사업"}),
    # Matches nothing: the answer carries the closest outline headings (suggestions).
    ("search", {"query": "추진 계획서 qzx"}),
    ("get_fields", {}),
    ("view_document", {}),
    ("viewer_page", {"page": 1}),
    ("viewer_outline", {}),
]


def _command() -> list[str]:
    script = Path(sys.executable).with_name("rhwp-mcp")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]


def _password(doc: Path) -> str | None:
    """The password of an encrypted test document: the corpus lists them, the fixtures name them."""
    listed = doc.parent / "PASSWORDS.tsv"
    if listed.is_file():
        for line in listed.read_text().splitlines()[1:]:
            name, _, password = line.partition("\t")
            if name == doc.name:
                return password
    match = re.search(r"password-(\w+?)(?:-twin)?\.", doc.name)
    return match.group(1) if match and doc.parent.name == "encrypted" else None


def _documents(dirs: list[Path]) -> list[Path]:
    return sorted(p for d in dirs for p in d.rglob("*") if p.suffix.lower() in SUFFIXES and "bad" not in p.parts)


async def _snapshot(out: Path, docs: list[Path]) -> None:
    cmd = _command()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "--max-chars", CAP], env=env)
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = (await session.list_tools()).tools
            tools = sorted((t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed), key=_name)
            (out / "tools.json").write_text(json.dumps(tools, ensure_ascii=False, indent=1) + "\n")
            names = {t["name"] for t in tools}
            with (out / "calls.jsonl").open("w") as lines:
                for doc in docs:
                    password = _password(doc)
                    secret = {"password": password} if password else {}
                    for tool, args in CALLS:
                        if tool not in names:
                            continue
                        result = await session.call_tool(tool, {"path": str(doc), **secret, **args})
                        record = {
                            "tool": tool,
                            "arguments": args,
                            "document": str(doc),
                            "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
                        }
                        lines.write(json.dumps(record, ensure_ascii=False) + "\n")


def _name(tool: dict[str, Any]) -> str:
    return str(tool["name"])


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    dirs = [Path(a) for a in argv[1:]] or [SHARED / "corpus" if SHARED is not None else FIXTURES]
    docs = _documents(dirs)
    anyio.run(_snapshot, out, docs)
    print(f"{out}: {len(docs)} documents, {len(CALLS)} calls each", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
