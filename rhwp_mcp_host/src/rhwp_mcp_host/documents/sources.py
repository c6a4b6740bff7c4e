"""``builtin:document-sources``: data: URIs, doc: handles and URLs become local files.

A built-in plugin on the ``rhwp_mcp_open_source`` hook, like any pack could be: every tool whose
path parameter is a ``FilePath`` accepts these sources without a line of its own. What it
resolves lands in the :class:`~rhwp_mcp_host.store.DocumentStore`, so a document given once (an
upload, a data: URI, a download) is named afterwards by its ``doc:<sha256>`` handle.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
import time
from collections.abc import Iterable, Iterator
from urllib.parse import unquote_to_bytes

from ..plugin.contract import HostConfig, SourceSettings, ToolCall
from ..plugin.errors import INVALID_INPUT, PERMISSION_DENIED, TOO_LARGE, ToolFailure
from ..plugin.hookspecs import hookimpl
from ..plugin.progress import checkpoint, report_progress
from .store import DocumentStore

_BASE64_JUNK = re.compile(rb"[\s]+")


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


_PROGRESS_EVERY = 0.25
"""Seconds between two progress reports of a download (a chunk is at most 64 KiB)."""


def _watched(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A download's chunks, telling the client how many bytes have come (when it asked for progress)
    and stopping between two chunks once it cancelled the call (the socket closes as we unwind)."""
    received = 0
    last = time.monotonic()
    for chunk in chunks:
        checkpoint()
        received += len(chunk)
        now = time.monotonic()
        if now - last >= _PROGRESS_EVERY:
            report_progress(received, None, f"downloading the document: {_mb(received)}")
            last = now
        yield chunk


def decode_data_uri(uri: str, max_bytes: int) -> bytes:
    """The bytes of a ``data:[<media type>][;base64],<data>`` URI (RFC 2397); the media type is
    ignored (the reader sniffs the bytes). invalid_input when malformed, too_large over the cap."""
    head, comma, payload = uri.partition(",")
    if not comma:
        raise ToolFailure(
            INVALID_INPUT,
            "the data: URI has no ',' between its header and its data",
            "send data:application/octet-stream;base64,<the file's bytes in base64>",
        )
    is_base64 = head.lower().rstrip().endswith(";base64")
    # Refuse by the encoded length before decoding: a 4-character base64 group is 3 bytes.
    estimate = len(payload) * 3 // 4 if is_base64 else len(payload) // 3
    if estimate > max_bytes:
        raise _too_big(estimate, max_bytes)
    try:
        if is_base64:
            raw = _BASE64_JUNK.sub(b"", payload.encode("ascii"))
            if b"-" in raw or b"_" in raw:  # the URL-safe alphabet, which some encoders use
                raw = raw.translate(bytes.maketrans(b"-_", b"+/"))
            raw += b"=" * (-len(raw) % 4)
            data = base64.b64decode(raw, validate=True)
        else:
            data = unquote_to_bytes(payload)
    except (UnicodeEncodeError, binascii.Error, ValueError) as exc:
        raise ToolFailure(
            INVALID_INPUT,
            f"the data: URI's base64 does not decode ({exc})",
            "encode the file's bytes with standard base64 (RFC 4648) after 'data:application/octet-stream;base64,'",
        ) from None
    if len(data) > max_bytes:
        raise _too_big(len(data), max_bytes)
    return data


def _too_big(size: int, cap: int) -> ToolFailure:
    return ToolFailure(
        TOO_LARGE,
        f"the data: URI holds about {size} bytes, more than the server's cap of {_mb(cap)}",
        "send a smaller document, or ask the operator to raise --upload-max-mb",
    )


class DocumentSources:
    """Answers ``data:``, ``doc:`` and (with --fetch) ``https:``/``http:`` path arguments."""

    def __init__(self, store: DocumentStore) -> None:
        self.settings = SourceSettings()
        self.store = store

    @hookimpl
    def rhwp_mcp_configure(self, config: HostConfig) -> None:
        self.settings = config.sources

    @hookimpl(trylast=True)
    def rhwp_mcp_open_source(self, source: str, scheme: str, call: ToolCall) -> str | None:
        if scheme == "doc":
            return self.store.open(source)
        if scheme == "data":
            data = decode_data_uri(source.strip(), self.settings.upload_max_bytes)
            return self.store.put_chunks([data], max_bytes=self.settings.upload_max_bytes, what="the data: URI").path
        if scheme in ("https", "http"):
            return self._download(source.strip())
        return None

    def _download(self, url: str) -> str:
        settings = self.settings
        if not settings.fetch:
            raise ToolFailure(
                PERMISSION_DENIED,
                "this server does not download URLs (it was started without --fetch)",
                "download the document yourself and pass it as a data: URI or upload it (POST /documents), or ask "
                "the operator to start the server with --fetch",
            )
        from .fetch import FetchPolicy, fetch_chunks

        policy = FetchPolicy(
            allow_http=settings.fetch_allow_http,
            allow_private=settings.fetch_allow_private,
            max_bytes=settings.fetch_max_bytes,
            timeout=settings.fetch_timeout,
        )
        shown = url if len(url) <= 200 else url[:200] + "…"
        with contextlib.closing(fetch_chunks(url, policy)) as body:
            stored = self.store.put_chunks(
                _watched(body), max_bytes=settings.fetch_max_bytes, what=f"the document at {shown}"
            )
        return stored.path


__all__ = ["DocumentSources", "decode_data_uri"]
