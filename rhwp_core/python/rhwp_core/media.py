"""Embedded pictures and objects (bin data): the bytes a document stores under a bin-data name.

The IR names each item: ``HwpDocument.bin_data[i].name`` and a picture's ``bin_data_name``
(HWP ``BIN0001.jpg``, HWPX ``BinData/image1.png``). ``read_bin_data(source, name)`` returns
that item's bytes as the authoring program embedded them, decompressed (HWP streams are
raw-deflate compressed per the item's own attribute; HWPX entries are zip entries). Reading
is native and releases the GIL; sizes are bounded like the document's own streams.

>>> import rhwp_core
>>> doc = rhwp_core.parse("report.hwp")
>>> names = rhwp_core.bin_data_names(doc, pictures_only=True)
>>> rhwp_core.read_bin_data("report.hwp", names[0])[:4]
b'\\xff\\xd8\\xff\\xe0'
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from . import _native
from .errors import InvalidRequestError, from_native, opening

if TYPE_CHECKING:
    from .document import Document

__all__ = ["BinDataItem", "UnknownBinDataError", "bin_data_names", "read_bin_data", "read_bin_item"]


class BinDataItem(NamedTuple):
    """One item's bytes and what their first bytes say they are."""

    data: bytes
    media_type: str | None
    """``image/png``, ``image/jpeg``, ``image/gif``, ``image/bmp``, ``image/tiff``, ``image/webp``,
    ``image/wmf``, ``image/emf``, ``application/x-ole-storage`` (an OLE object: a 4-byte length,
    then a compound file), or ``None`` when the bytes are none of these."""


class UnknownBinDataError(InvalidRequestError, LookupError):
    """The document holds no bin-data item of that name; ``available`` names those it holds."""

    code = "invalid_input"
    suggestion = "Pass a name the document's IR lists (HwpDocument.bin_data, Picture.bin_data_name)."

    def __init__(self, message: str, suggestion: str | None = None, available: Iterable[str] = ()) -> None:
        super().__init__(message, suggestion)
        self.available: list[str] = list(available)

    def __str__(self) -> str:
        # LookupError's KeyError-like subclasses quote their argument; this one reads as a sentence.
        return self.message


def read_bin_item(source: str | os.PathLike[str] | bytes, name: str, password: str | None = None) -> BinDataItem:
    """The item ``name`` of the document ``source`` (a path, a ``file://`` URI, or the bytes).

    Raises ``UnknownBinDataError`` (code ``invalid_input``) for a name the document does not
    hold, ``UnsupportedFormatError`` for a picture that is linked rather than embedded (and for
    files that are no HWP/HWPX document), and the other ``HwpError`` subclasses as ``parse`` does.
    """
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            data, media_type = _native.read_bin_data(bytes(source), name, password)
            return BinDataItem(data, media_type)
        path = os.fspath(source)
        if path.startswith("file://"):
            from urllib.parse import unquote, urlparse

            path = unquote(urlparse(path).path)
        with opening(path):
            data, media_type = _native.read_bin_data(path, name, password)
        return BinDataItem(data, media_type)
    except _native.ReaderError as e:
        code, message, suggestion, *rest = e.args
        if code == UnknownBinDataError.code:
            raise UnknownBinDataError(message, suggestion, rest[0] if rest else ()) from None
        raise from_native(code, message, suggestion) from None


def read_bin_data(source: str | os.PathLike[str] | bytes, name: str, password: str | None = None) -> bytes:
    """The bytes of the item ``name`` (see :func:`read_bin_item`)."""
    return read_bin_item(source, name, password).data


def bin_data_names(doc: Document, *, pictures_only: bool = False) -> list[str]:
    """The bin-data names the document's IR lists: every item of its bin-data table in order, or
    with ``pictures_only`` the ``bin_data_name`` of each picture (body and furniture, nested ones
    included) in reading order, each once. Linked pictures are listed too (reading them raises)."""
    if not pictures_only:
        return [item.name for item in doc.to_ir().bin_data]
    names: dict[str, None] = {}
    for block in doc.iter_blocks(kind="picture", scope="all"):
        name = getattr(block, "bin_data_name", None)
        if name:
            names.setdefault(name)
    return list(names)
