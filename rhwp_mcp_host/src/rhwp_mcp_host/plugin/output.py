"""Where a writing tool's result goes: the one call a pack makes, :func:`save_output`.

A tool that writes (registered with ``read_only=False``) never picks a place itself. It hands the
bytes and the path of its input to ``save_output``, which applies the server's rules and answers
with where the result is:

- ``--read-only`` (``RHWP_MCP_READ_ONLY=1``): nothing is written (the host refuses the call before
  it runs; ``save_output`` refuses too, for a tool registered as read-only by mistake);
- over HTTP the server writes no file on its machine: the result goes into the document store and
  the answer is its ``doc:`` handle, which ``GET /documents/<handle>`` returns (same auth as
  ``/mcp``) and which every tool takes as a path;
- a local server writes a new file: ``output`` when the caller names one (an existing file only
  then, never the input itself), else ``NAME.filled.EXT`` beside the input, or in ``--output-dir``
  when the operator gave one (``NAME.filled-2.EXT`` and on when the name is taken). With ``--root``
  the file must lie under a root or ``--output-dir``; an input that came from elsewhere (a
  ``data:`` URI, a ``doc:`` handle, a URL) has no folder of its own, so its result goes to
  ``--output-dir`` or the store.

A result that went into the store also comes back in the call's answer when it is small: the host
adds it to the content as an MCP embedded resource (``uri`` the ``doc:`` handle, ``mimeType`` what
the pack says, ``blob`` the bytes in base64) when it holds at most :data:`EMBED_MAX_BYTES` and
the answer's binary content stays within the server's ``--max-image-chars``. The structured answer
(and so the tool's output schema) is unchanged; a larger result is the handle alone.

The input is never written over. What the host knows of HWP: nothing (names are the caller's).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from .contract import WriteSettings, normalize_path
from .errors import INVALID_INPUT, PERMISSION_DENIED, ToolFailure


@dataclass
class Outputs:
    """The server's side of writing: its settings, its roots, its document store, and whether it
    serves HTTP (set when the HTTP app is built: the same host may serve either)."""

    settings: WriteSettings = field(default_factory=WriteSettings)
    roots: tuple[Path, ...] = ()
    store: Callable[[bytes], str] | None = None
    """Puts bytes into the document store and gives their ``doc:`` handle."""
    remote: bool = False


EMBED_MAX_BYTES = 256 * 1024
"""The largest result put into the store that also comes back embedded in the answer (about
350,000 base64 characters): a filled form is typically tens of kilobytes; a larger file is better
downloaded once than carried in a client's context."""


@dataclass(frozen=True)
class StoredOutput:
    """A result the call put into the document store."""

    handle: str
    data: bytes
    media_type: str


@dataclass(frozen=True)
class _CallOutputs:
    outputs: Outputs
    sources: Mapping[str, str]
    """The call's path arguments that named sources other than local files (data:, doc:, URLs),
    each mapped to the local file the host made of it (filled in before the tool runs)."""
    stored: list[StoredOutput] = field(default_factory=list)
    """What :func:`save_output` put into the store during the call (the host embeds the small ones)."""


_active: ContextVar[_CallOutputs | None] = ContextVar("rhwp_mcp_outputs", default=None)


def is_within(path: str, places: tuple[Path, ...]) -> bool:
    """Whether ``path`` (symlinks and '..' resolved) lies in one of ``places`` (realpaths)."""
    real = os.path.realpath(path)
    for place in places:
        base = str(place)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def _allowed_places(outputs: Outputs) -> tuple[Path, ...]:
    places = list(outputs.roots)
    if outputs.settings.output_dir is not None:
        places.append(Path(os.path.realpath(outputs.settings.output_dir)))
    return tuple(places)


def _refused(message: str, suggestion: str) -> ToolFailure:
    return ToolFailure(PERMISSION_DENIED, message, suggestion)


def _write_new(folder: str, stem: str, suffix: str, ext: str, data: bytes) -> str:
    """Write ``data`` to the first free ``stem+suffix[-n]+ext`` in ``folder`` (never over a file)."""
    for n in range(1, 1000):
        name = f"{stem}{suffix}{'' if n == 1 else f'-{n}'}{ext}"
        path = os.path.join(folder, name)
        try:
            with open(path, "xb") as f:
                f.write(data)
        except FileExistsError:
            continue
        return path
    raise ToolFailure(
        PERMISSION_DENIED,
        f"{folder} already holds {stem}{suffix}{ext} and 998 numbered copies",
        "name the file to write with the output parameter",
    )


def _write_named(path: str, data: bytes) -> str:
    """Write ``data`` to ``path`` whole or not at all (a temporary file beside it, then renamed)."""
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".rhwp-mcp-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def save_output(
    data: bytes,
    *,
    input_path: str,
    output: str | None = None,
    suffix: str = ".filled",
    media_type: str = "application/octet-stream",
) -> str:
    """Keep a writing tool's result where the server's rules say (see the module notes) and say
    where: a local path, or a ``doc:`` handle. ``media_type`` is the result's MIME type, given to a
    client that receives it embedded. Raises ``ToolFailure`` (``permission_denied``) when the rules
    forbid it, with what to do instead."""
    call = _active.get()
    outputs = call.outputs if call is not None else Outputs()
    elsewhere = set(call.sources.values()) if call is not None else set()
    if outputs.settings.read_only:
        raise _refused(
            "this server is read-only: it writes no documents",
            "ask the operator to start it without --read-only (RHWP_MCP_READ_ONLY)",
        )
    from_elsewhere = input_path in elsewhere
    to_store = outputs.remote or (from_elsewhere and output is None and outputs.settings.output_dir is None)
    if to_store:
        if output is not None:
            raise _refused(
                "a server reached over HTTP writes no file on its machine, so output cannot be chosen",
                "leave output out: the result comes back as a doc: handle to download with GET /documents/<handle>",
            )
        if outputs.store is None:
            raise _refused("this server has no document store to keep the result in", "name a file with output")
        handle = outputs.store(data)
        if call is not None:
            call.stored.append(StoredOutput(handle, data, media_type))
        return handle
    places = _allowed_places(outputs)
    if output is not None:
        try:
            target = os.path.abspath(normalize_path(output))
        except ValueError as exc:
            raise ToolFailure(INVALID_INPUT, f"output {output!r} is not a path: {exc}", "give a file path") from None
        if os.path.exists(target) and os.path.samefile(target, input_path):
            raise _refused("output names the input document, which is never written over", "name a new file")
        folder = os.path.dirname(target)
        if not os.path.isdir(folder):
            raise ToolFailure(
                INVALID_INPUT, f"the folder of output {output!r} does not exist", "name a file in an existing folder"
            )
        if places and not is_within(folder, places):
            listing = ", ".join(str(p) for p in places)
            raise _refused(f"{output} is outside the directories this server may write", f"write under {listing}")
        return _write_named(target, data)
    folder = (
        str(outputs.settings.output_dir) if outputs.settings.output_dir is not None else os.path.dirname(input_path)
    )
    if outputs.roots and not is_within(folder, places):
        raise _refused(
            f"the result would be written to {folder}, outside the directories this server may write",
            "name a file under an allowed root with output, or ask the operator for --output-dir",
        )
    stem, ext = os.path.splitext(os.path.basename(input_path))
    return _write_new(folder, stem, suffix, ext, data)


__all__ = ["EMBED_MAX_BYTES", "Outputs", "StoredOutput", "is_within", "save_output"]
