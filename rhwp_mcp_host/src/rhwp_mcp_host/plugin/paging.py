"""One paging shape for every large result, and the response cap.

Text tools return the text itself; when it is cut, the text ends with one line that gives the
total and the exact next call. ``max_chars`` counts the content: the cut line comes on top of it
(the server's cap check allows for it), so a page is never shorter than ``min(max_chars, what is
left)``. List tools return ``{KEY: [...], "total": N, "next_offset": M|None}``; one item too large
for a response comes in parts when the tool says how to split it (``part``/``parts``/``next``).
No response exceeds the cap (``--max-chars`` / ``RHWP_MCP_MAX_CHARS``, default 20 000 characters,
about 10-20k tokens) beyond its cut line: a smaller ``max_chars``/``limit`` asked by the caller is
honoured, a larger one is lowered to the cap. Nothing is ever cut silently.
"""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import pydantic_core

from .contract import caller_source
from .errors import INVALID_INPUT, TOO_LARGE, ToolFailure
from .passwords import PASSWORD_ARGUMENT, current_password

# Korean text runs about one token per syllable: 20,000 characters stay under the 25k-token
# default cap of Claude clients with room for the JSON around a list page.
DEFAULT_MAX_CHARS = 20_000
MIN_MAX_CHARS = 1_000
ENV_MAX_CHARS = "RHWP_MCP_MAX_CHARS"
# Pictures have their own cap, on their base64: a model counts an image by its pixels (about
# 1,300 tokens for 1000x1000), not by the characters it travels in, so the text cap would shrink
# every figure to a thumbnail. 1.4M characters of base64 is a 1 MB picture.
DEFAULT_MAX_IMAGE_CHARS = 1_400_000
ENV_MAX_IMAGE_CHARS = "RHWP_MCP_MAX_IMAGE_CHARS"

# The running server sets this around each call, so a pack's helper calls see that server's cap
# (contextvars follow the call into the worker thread that runs a sync tool).
_active_cap: ContextVar[int | None] = ContextVar("rhwp_mcp_max_chars", default=None)
_active_image_cap: ContextVar[int | None] = ContextVar("rhwp_mcp_max_image_chars", default=None)
# The characters a call's cut lines add beyond the cap: a list the server sets per call and
# page_text appends to (the list itself is shared with the worker thread's copy of the context).
_cut_lines: ContextVar[list[int] | None] = ContextVar("rhwp_mcp_cut_lines", default=None)


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


def current_max_image_chars() -> int:
    """The cap on the base64 characters of the pictures of one response: the running server's,
    else RHWP_MCP_MAX_IMAGE_CHARS, else the default (never below the text cap)."""
    active = _active_image_cap.get()
    if active is not None:
        return active
    env = os.environ.get(ENV_MAX_IMAGE_CHARS)
    if env:
        try:
            return max(parse_max_chars(env), current_max_chars())
        except ValueError:
            pass
    return max(DEFAULT_MAX_IMAGE_CHARS, current_max_chars())


def format_call(tool: str, /, *, omit_defaults: Mapping[str, Any] | None = None, **arguments: Any) -> str:
    """Render a call the way the cut line shows it: ``extract_text(path="/a.hwp", offset=40000)``.

    Arguments equal to their value in ``omit_defaults`` (see :func:`parameter_defaults`) are left
    out, so a next call repeats what the caller chose and nothing else. A path the host resolved
    from a data: URI, an upload or a URL is shown as its doc: handle.
    """
    defaults = omit_defaults or {}
    rendered = ", ".join(
        f"{k}={json.dumps(caller_source(v) if isinstance(v, str) else v, ensure_ascii=False)}"
        for k, v in arguments.items()
        if not (k in defaults and defaults[k] == v) and k != PASSWORD_ARGUMENT
    )
    # The password is never written out: the caller repeats the one it gave (passwords.py).
    return f"{tool}({rendered})" + (" with the same password" if current_password() is not None else "")


def parameter_defaults(func: Callable[..., Any]) -> dict[str, Any]:
    """A function's parameters with their default values (for ``format_call(omit_defaults=...)``)."""
    return {
        name: param.default
        for name, param in inspect.signature(func).parameters.items()
        if param.default is not inspect.Parameter.empty
    }


def next_call_of(tool: Callable[..., Any], /, **arguments: Any) -> Callable[..., str]:
    """The ``next_call`` of :func:`page_text` and :func:`page_list` for a tool function: its next
    call with ``arguments`` (the caller's, as given) and the next ``offset`` (and ``part``, when
    the tool takes one), rendered by :func:`format_call` without the arguments left at their
    defaults. ``next_call=next_call_of(to_markdown, path=path, pages=pages, max_chars=max_chars)``
    gives ``to_markdown(path="/a.hwp", offset=20000)``."""
    defaults = parameter_defaults(tool)
    takes_part = "part" in defaults

    def render(offset: int, part: int | None = None) -> str:
        extra = {"part": part} if takes_part or part is not None else {}
        return format_call(tool.__name__, **arguments, **extra, offset=offset, omit_defaults=defaults)

    return render


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
    """The part of ``text`` from ``offset``: ``max_chars`` characters (lowered to the cap), or all
    that is left if that is less.

    When the text goes on past the page, the result ends with the line
    ``[cut at END of TOTAL characters; next: NEXT_CALL]``, on top of the page's characters.
    ``next_call`` is a format string with ``{offset}`` (e.g.
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
    end = offset + limit
    trailer = f"\n[cut at {end} of {total} characters; next: {_next_call_text(next_call, end)}]"
    allowance = _cut_lines.get()
    if allowance is not None:
        allowance.append(len(trailer))
    return text[offset:end] + trailer


def _json_size(value: Any) -> int:
    return len(pydantic_core.to_json(value, fallback=str).decode("utf-8", "replace"))


def split_string_field(
    item: dict[str, Any],
    field: str,
    room: int,
    adjust: Callable[[dict[str, Any], int, int], dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """``item`` as copies whose ``field`` (a string) holds consecutive slices of it, each copy at
    most ``room`` JSON characters: the usual ``split`` for :func:`page_list` when an item is one
    long text. ``adjust(part, start, end)`` may fix up each copy (e.g. offsets that move with the
    slice). Ends even when escapes inflate the JSON: a slice shrinks down to one character."""
    text: str = item[field]
    empty = {**item, field: ""}
    base = _json_size(adjust(empty, 0, 0) if adjust is not None else empty)
    width = max(1, room - base)
    parts: list[dict[str, Any]] = []
    start = 0
    while start < len(text) or not parts:
        end = min(len(text), start + width)
        while True:
            part = {**item, field: text[start:end]}
            if adjust is not None:
                part = adjust(part, start, end)
            if _json_size(part) <= room or end - start <= 1:
                break
            # Escapes (quotes, newlines, control characters) take more than one character each.
            end = start + max(1, (end - start) * 3 // 4)
        parts.append(part)
        start = end
        if not text:
            break
    return parts


def page_list(
    items: Sequence[Any],
    offset: int = 0,
    limit: int | None = None,
    *,
    key: str = "items",
    max_chars: int | None = None,
    part: int | None = None,
    split: Callable[[Any, int], list[Any]] | None = None,
    next_call: Callable[[int, int | None], str] | None = None,
) -> dict[str, Any]:
    """One page of ``items``: ``{key: page, "total": len(items), "next_offset": int | None}``.

    The page holds at most ``limit`` items and is shortened further so its JSON stays under
    the cap; ``next_offset`` is where the next page starts (None on the last page).

    An item too large to fit alone comes in parts when ``split(item, room)`` can cut it into
    pieces of at most ``room`` JSON characters: the page then holds part ``part`` (1-based,
    default 1) of the item at ``offset`` and says ``"part"``, ``"parts"`` and, while parts
    remain, ``"next"`` (``next_call(offset, part)`` rendered, e.g. with :func:`format_call`).
    Without ``split`` such an item raises ``too_large``; a bad offset, limit or part raises
    ``invalid_input``.
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
                if split is not None:
                    return _one_part(items, offset, key, budget, part, split, next_call)
                raise ToolFailure(
                    TOO_LARGE,
                    f"item {index} alone is {size} characters, more than the response cap of {budget}",
                    "raise the cap with --max-chars / RHWP_MCP_MAX_CHARS, or ask for a narrower result",
                )
            break
        used += size
        page.append(item)
    if part not in (None, 1):
        raise ToolFailure(
            INVALID_INPUT,
            f"part={part}: item {offset} fits in one response, so it has no parts",
            f"call again without part, at offset={offset}",
        )
    end = offset + len(page)
    return {key: page, "total": total, "next_offset": end if end < total else None}


def _one_part(
    items: Sequence[Any],
    offset: int,
    key: str,
    budget: int,
    part: int | None,
    split: Callable[[Any, int], list[Any]],
    next_call: Callable[[int, int | None], str] | None,
) -> dict[str, Any]:
    total = len(items)
    # The envelope of a part: total, offsets, part numbers and the next call, which names the path.
    probe = next_call(offset, 999_999) if next_call is not None else ""
    room = budget - len(key) - 160 - len(probe)
    parts = split(items[offset], room)
    if not parts or any(_json_size(p) > room for p in parts):
        raise ToolFailure(
            TOO_LARGE,
            f"item {offset} is larger than the response cap of {budget} characters and cannot be cut smaller",
            "raise the cap with --max-chars / RHWP_MCP_MAX_CHARS",
        )
    number = 1 if part is None else part
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(parts):
        raise ToolFailure(
            INVALID_INPUT,
            f"part={part!r}: item {offset} comes in {len(parts)} parts",
            f"ask for a part between 1 and {len(parts)}",
        )
    last = number == len(parts)
    page: dict[str, Any] = {
        key: [parts[number - 1]],
        "total": total,
        "next_offset": (offset + 1 if offset + 1 < total else None) if last else offset,
        "part": number,
        "parts": len(parts),
    }
    if not last and next_call is not None:
        page["next"] = next_call(offset, number + 1)
    elif last and offset + 1 < total and next_call is not None:
        page["next"] = next_call(offset + 1, None)
    return page
