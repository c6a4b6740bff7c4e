"""The core pack's long calls report progress and can be cancelled (issue 27 part 4), over real stdio.

A real `python -m rhwp_mcp_host` subprocess driven by the official MCP SDK client, on the corpus's
longest document (the constitution commentary: 1.1 million characters).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from corpus_support import require_shared
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = pytest.mark.e2e

LONG = "hwp/hwpswift-constitution-commentary-2007.hwp"
Progress = tuple[float, float | None, str | None]


def _document() -> Path:
    return require_shared() / "corpus" / LONG


def _is_error(result: Any) -> bool:
    value = getattr(result, "is_error", None)
    return bool(getattr(result, "isError", False) if value is None else value)


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None) is not None)


@asynccontextmanager
async def _session(errlog: Any, *args: str, trace: bool = False) -> AsyncIterator[ClientSession]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    env["RHWP_MCP_ENABLE"] = "core"
    if trace:
        env["RHWP_MCP_TRACE"] = "1"
    params = StdioServerParameters(command=sys.executable, args=["-m", "rhwp_mcp_host", *args], env=env)
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def _settle(seen: list[Progress], count: int) -> None:
    """Notifications reach the callback in their own tasks: give the last ones a moment."""
    with anyio.move_on_after(2):
        while len(seen) < count:
            await anyio.sleep(0.01)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("parse_hwp_summary", {}),
        ("get_ir", {"first_section": 0, "last_section": 0}),
        ("iter_blocks", {"limit": 5}),
        ("extract_text", {"max_chars": 2000}),
    ],
)
def test_phases_reach_a_client_that_asked_and_the_result_is_the_same(tool: str, arguments: dict[str, Any]) -> None:
    path = str(_document())
    seen: list[Progress] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def main(errlog: Any) -> None:
        async with _session(errlog) as session:
            asked = await session.call_tool(tool, {"path": path, **arguments}, progress_callback=on_progress)
            await _settle(seen, 3)
            count = len(seen)
            plain = await session.call_tool(tool, {"path": path, **arguments})
            await anyio.sleep(0.2)
            assert len(seen) == count, "progress was sent to a call that did not ask for it"
            assert _is_error(asked) == _is_error(plain)
            assert _text(asked) == _text(plain)

    with tempfile.TemporaryFile("w+") as errlog:
        anyio.run(main, errlog)
    assert len(seen) >= 2, seen
    done = [d for d, _, _ in seen]
    assert done == sorted(set(done)), seen  # strictly increasing
    assert seen[0][2] == "reading the document"
    assert all(total is not None and d <= total for d, total, _ in seen), seen


def _traced(log: str, tool: str) -> list[tuple[float, str]]:
    """(milliseconds, outcome) of each traced call of ``tool``: the server's own clock."""
    found = re.findall(rf"trace: done {tool} in ([0-9.]+) ms: (.*)", log)
    return [(float(ms), outcome.strip()) for ms, outcome in found]


def test_a_cancelled_call_ends_and_the_server_keeps_serving() -> None:
    """Cancel get_ir of the whole document at its first progress notification: the next call is answered
    at once (well within the time the whole IR takes), with the right result, and the cancelled calls
    end unanswered at their next checkpoint. (The IR takes half a second of the server's time here,
    so a cancel may also lose the race and find the call done: its answer is then dropped by the
    client. rhwp_mcp_host/tests/test_progress.py times the unwinding itself on a slow tool.)"""
    path = str(_document())
    cancels = 5
    timings: dict[str, float] = {}

    async def main(errlog: Any) -> None:
        async with _session(errlog, "--max-chars", "20000000", trace=True) as session:
            # Parsed once: every later call finds the document read, so only the IR's own work remains.
            expected = _text(await session.call_tool("parse_hwp_summary", {"path": path}))
            started = time.monotonic()
            whole = await session.call_tool("get_ir", {"path": path})  # uncancelled, for comparison
            timings["uncancelled"] = time.monotonic() - started
            assert not _is_error(whole), _text(whole)[:300]

            for _ in range(cancels):
                first = anyio.Event()

                async def on_progress(
                    done: float, total: float | None, message: str | None, first: Any = first
                ) -> None:
                    first.set()

                async with anyio.create_task_group() as tg:

                    async def call() -> None:
                        await session.call_tool("get_ir", {"path": path}, progress_callback=on_progress)

                    tg.start_soon(call)
                    with anyio.fail_after(60):
                        await first.wait()
                    tg.cancel_scope.cancel()  # the SDK sends notifications/cancelled
                started = time.monotonic()
                again = await session.call_tool("parse_hwp_summary", {"path": path})
                timings["next"] = max(timings.get("next", 0.0), time.monotonic() - started)
                assert _text(again) == expected

    with tempfile.TemporaryFile("w+") as errlog:
        anyio.run(main, errlog)
        errlog.seek(0)
        log = errlog.read()
    assert "Traceback" not in log and "internal_error" not in log, log[-2000:]
    assert timings["next"] < timings["uncancelled"] / 4, timings
    calls = _traced(log, "get_ir")
    assert len(calls) == 1 + cancels and calls[0][1] == "ok", calls
    # Ended unanswered (the after-call hooks see ok=False with no error object), before the IR was done.
    ended = [ms for ms, outcome in calls[1:] if outcome != "ok"]
    assert ended and min(ended) < calls[0][0] / 2, calls
