"""One paging shape for every large result (DESIGN §3), and the response cap.

Text tools return the text itself; when it is cut, the text ends with one line that gives the
total and the exact next call. List tools return ``{KEY: [...], "total": N, "next_offset": M|None}``.
No response exceeds the cap (``--max-chars`` / ``RHWP_MCP_MAX_CHARS``, default 20 000 characters,
about 10-20k tokens): a smaller ``max_chars``/``limit`` asked by the caller is honoured, a larger
one is lowered to the cap. Nothing is ever cut silently.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import Any

import pydantic_core

from .contract import caller_source
from .errors import INVALID_INPUT, TOO_LARGE, ToolFailure

# Korean text runs about one token per syllable: 20,000 characters stay under the 25k-token
# default cap of Claude clients with room for the JSON around a list page.
DEFAULT_MAX_CHARS = 20_000
MIN_MAX_CHARS = 1_000
ENV_MAX_CHARS = "RHWP_MCP_MAX_CHARS"
# A cut is moved back to the last line break when one lies this close to the window's end,
# so a page ends on a whole paragraph instead of mid-word.
_SNAP_FRACTION = 0.1

# The running server sets this around each call, so a pack's helper calls see that server's cap
# (contextvars follow the call into the worker thread that runs a sync tool).
_active_cap: ContextVar[int | None] = ContextVar("rhwp_mcp_max_chars", default=None)


def parse_max_chars(value: str | int) -> int:
    """Validate a cap from the command line or the environment."""
    try:
        cap = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"max chars must be an integer, got {value!r}") from None
    if cap < MIN_MAX_CHARS:
        raise ValueError(f"max chars must be at least {MIN_MAX_CHARS}, got {cap}")
    return cap


def current_max_chars() -> int:
    """The cap in force: the running server's, else RHWP_MCP_MAX_CHARS, else the default."""
    active = _active_cap.get()
    if active is not None:
        return active
    env = os.environ.get(ENV_MAX_CHARS)
    if env:
        try:
            return parse_max_chars(env)
        except ValueError:
            pass
    return DEFAULT_MAX_CHARS


def format_call(tool: str, /, **arguments: Any) -> str:
    """Render a call the way the cut line shows it: ``extract_text(path="/a.hwp", offset=40000)``.

    A path the host resolved from a data: URI, an upload or a URL is shown as its doc: handle.
    """
    rendered = ", ".join(
        f"{k}={json.dumps(caller_source(v) if isinstance(v, str) else v, ensure_ascii=False)}"
        for k, v in arguments.items()
    )
    return f"{tool}({rendered})"


def _check_offset(offset: Any, total: int, what: str) -> int:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ToolFailure(INVALID_INPUT, f"offset must be a non-negative integer, got {offset!r}", "start at offset=0")
    if offset > total:
        raise ToolFailure(
            INVALID_INPUT,
            f"offset {offset} is past the end: there are {total} {what}",
            f"use an offset between 0 and {total}",
        )
    return offset


def _next_call_text(next_call: str | Callable[[int], str] | None, offset: int) -> str:
    if next_call is None:
        return f"call again with offset={offset}"
    if callable(next_call):
        return next_call(offset)
    return next_call.format(offset=offset)


def page_text(
    text: str,
    offset: int = 0,
    max_chars: int | None = None,
    next_call: str | Callable[[int], str] | None = None,
) -> str:
    """The part of ``text`` from ``offset`` that fits in ``max_chars`` (lowered to the cap).

    When the text goes on past the page, the result ends with the line
    ``[cut at END of TOTAL characters; next: NEXT_CALL]``, and the whole result (page + line)
    stays within the limit. ``next_call`` is a format string with ``{offset}`` (e.g.
    ``'extract_text(path="/a.hwp", offset={offset})'``) or a function of the next offset
    (see :func:`format_call`). Offsets count Unicode characters. A bad offset or max_chars
    raises ``invalid_input``.
    """
    total = len(text)
    _check_offset(offset, total, "characters")
    cap = current_max_chars()
    if max_chars is None:
        limit = cap
    elif isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
        raise ToolFailure(INVALID_INPUT, f"max_chars must be a positive integer, got {max_chars!r}", f"e.g. {cap}")
    else:
        limit = min(max_chars, cap)
    if total - offset <= limit:
        return text[offset:]
    # The cut line's length depends on where the cut falls; settle it in two passes.
    end = offset + limit
    for _ in range(3):
        trailer = f"\n[cut at {end} of {total} characters; next: {_next_call_text(next_call, end)}]"
        room = max(1, limit - len(trailer))
        window_end = offset + room
        snapped = text.rfind("\n", window_end - max(1, int(room * _SNAP_FRACTION)), window_end)
        new_end = snapped + 1 if snapped > offset else window_end
        if new_end == end:
            break
        end = new_end
    trailer = f"\n[cut at {end} of {total} characters; next: {_next_call_text(next_call, end)}]"
    return text[offset:end] + trailer


def _json_size(value: Any) -> int:
    return len(pydantic_core.to_json(value, fallback=str).decode("utf-8", "replace"))


def page_list(
    items: Sequence[Any],
    offset: int = 0,
    limit: int | None = None,
    *,
    key: str = "items",
    max_chars: int | None = None,
) -> dict[str, Any]:
    """One page of ``items``: ``{key: page, "total": len(items), "next_offset": int | None}``.

    The page holds at most ``limit`` items and is shortened further so its JSON stays under
    the cap; ``next_offset`` is where the next page starts (None on the last page). An item
    too large to fit alone raises ``too_large``; a bad offset or limit raises ``invalid_input``.
    """
    total = len(items)
    _check_offset(offset, total, "items")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ToolFailure(INVALID_INPUT, f"limit must be a positive integer, got {limit!r}", "e.g. limit=50")
    cap = current_max_chars()
    budget = cap if max_chars is None else min(max_chars, cap)
    stop = total if limit is None else min(total, offset + limit)
    # Room for the envelope: the key, total and next_offset with their punctuation.
    used = len(key) + 64
    page: list[Any] = []
    for index in range(offset, stop):
        item = items[index]
        size = _json_size(item) + 1
        if used + size > budget:
            if not page:
                raise ToolFailure(
                    TOO_LARGE,
                    f"item {index} alone is {size} characters, more than the response cap of {budget}",
                    "raise the cap with --max-chars / RHWP_MCP_MAX_CHARS, or ask for a narrower result",
                )
            break
        used += size
        page.append(item)
    end = offset + len(page)
    return {key: page, "total": total, "next_offset": end if end < total else None}
