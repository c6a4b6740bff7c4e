"""Tool pack ``media``: the pictures of an HWP/HWPX document as MCP image content.

``get_image`` sends a picture the way every MCP client renders one: PNG, JPEG and GIF as the
document stores them (the bytes untouched, the media type read from the bytes, not from the
name), any other raster format Pillow reads as PNG. Vector pictures (WMF/EMF) and OLE objects
are refused with ``unsupported_format``: rendering a metafile needs a Windows GDI or a
rasteriser this pack does not carry.

The server's picture cap (``--max-image-chars``, 1.4M base64 characters, a 1 MB picture, by
default; a model counts a picture by its pixels, not by its base64) bounds what is sent: a picture
whose base64 would not fit is downscaled until it does, and a text block says so. Pillow and fastmcp
are imported on the first call, not at server start.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from rhwp_mcp_host import (
    FilePath,
    Register,
    ToolFailure,
    current_max_image_chars,
    current_password,
    format_call,
    hookimpl,
)

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

    from rhwp_core import Document

# What every image-capable MCP client displays: sent as stored.
_AS_STORED = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif"}
_VECTOR = {"image/wmf": "WMF", "image/emf": "EMF"}
_OLE = "application/x-ole-storage"
# Characters kept free for the text block that reports a downscale (it is about 250).
_NOTE_ROOM = 400
# Each pass shrinks by the square root of the size ratio, a little more to converge in 2-3 passes;
# a picture that still does not fit after this many is refused rather than looped on.
_MAX_PASSES = 12
# Names listed in an invalid_input suggestion.
_MAX_LISTED = 40

BinDataName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=4096,
        description='The picture\'s bin-data name as iter_blocks(kind="picture") lists it in `bin_data_name`, '
        "e.g. `BIN0001.jpg` (HWP) or `BinData/image1.png` (HWPX).",
    ),
]
MaxSide = Annotated[
    int | None,
    Field(
        ge=1,
        le=65535,
        description="Downscale so that neither side exceeds this many pixels (aspect ratio kept, never "
        "enlarged). Default: the stored size, or smaller when needed to fit the response cap.",
    ),
]


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


def _picture_names(doc: Document) -> list[str]:
    import rhwp_core

    names = rhwp_core.bin_data_names(doc, pictures_only=True)
    return names or rhwp_core.bin_data_names(doc)


def _unknown_name(path: str, bin_data: str, doc: Document) -> ToolFailure:
    names = _picture_names(doc)
    shown = bin_data if len(bin_data) <= 120 else bin_data[:120] + "…"
    listing = format_call("iter_blocks", path=path, kind="picture")
    if not names:
        return ToolFailure(
            "invalid_input",
            f"the document holds no picture named {shown!r}",
            f"this document has no pictures ({listing} lists none)",
        )
    quoted = ", ".join(f'"{n}"' for n in names[:_MAX_LISTED])
    more = f" and {len(names) - _MAX_LISTED} more" if len(names) > _MAX_LISTED else ""
    return ToolFailure(
        "invalid_input",
        f"the document holds no picture named {shown!r}",
        f"pass one of its pictures' names: {quoted}{more} (the bin_data_name of each block {listing} returns)",
    )


def _unsupported(path: str, bin_data: str, what: str) -> ToolFailure:
    listing = format_call("iter_blocks", path=path, kind="picture")
    return ToolFailure(
        "unsupported_format",
        f"{bin_data!r} is {what}, which get_image cannot show as an image",
        f"read what the document says about it instead: {listing} gives each picture's description and "
        "caption; to see it, convert the document to PDF (Hancom Office, LibreOffice) and view that page",
    )


def _open(data: bytes, path: str, bin_data: str) -> PILImage:
    """Open (and fully decode) the picture, mapping Pillow's failures to error codes."""
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Image.DecompressionBombError as exc:
        raise ToolFailure(
            "too_large",
            f"{bin_data!r} declares more pixels than get_image decodes ({exc})",
            "the picture is implausibly large (a decompression bomb?); read its description and caption "
            f"with {format_call('iter_blocks', path=path, kind='picture')} instead",
        ) from None
    except UnidentifiedImageError:
        head = data[:8].hex(" ")
        raise _unsupported(path, bin_data, f"not a picture format this server reads (it starts with {head})") from None
    except MemoryError:
        raise ToolFailure(
            "too_large",
            f"decoding {bin_data!r} ran out of memory",
            "ask with a smaller max_side, or read its description with iter_blocks",
        ) from None
    except Exception as exc:
        raise ToolFailure(
            "corrupt_document",
            f"the picture {bin_data!r} is damaged and cannot be decoded ({type(exc).__name__}: {exc})"[:400],
            "open the document in Hancom Office and check the picture; save the document again",
        ) from None
    return image


def _prepared(image: PILImage, out_format: str) -> PILImage:
    """The picture (its first frame, where Pillow opened it) in a mode that resamples well and that
    the output format can hold."""
    has_alpha = image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in image.info
    if out_format == "jpeg":
        return image if image.mode in ("L", "RGB", "CMYK") else image.convert("RGB")
    if image.mode in ("L", "LA", "RGB", "RGBA"):
        return image
    if image.mode == "1":
        return image.convert("L")
    return image.convert("RGBA" if has_alpha else "RGB")


def _encode(image: PILImage, out_format: str) -> bytes:
    buffer = io.BytesIO()
    if out_format == "jpeg":
        image.save(buffer, format="JPEG", quality=85, optimize=True)
    else:
        image.save(buffer, format="PNG", optimize=image.width * image.height <= 1 << 20)
    return buffer.getvalue()


def _scaled(image: PILImage, side: int) -> PILImage:
    """``image`` with its longer side at most ``side`` (aspect kept, at least 1 pixel)."""
    from PIL import Image

    width, height = image.size
    longer = max(width, height)
    if longer <= side:
        return image
    size = (max(1, round(width * side / longer)), max(1, round(height * side / longer)))
    return image.resize(size, Image.Resampling.LANCZOS)


def _fit(
    image: PILImage, out_format: str, max_side: int | None, budget: int, bin_data: str
) -> tuple[bytes, PILImage, bool]:
    """Encode ``image`` (scaled to ``max_side``), shrinking it until its base64 fits ``budget``.
    Returns the bytes, the image they encode, and whether the budget forced a shrink."""
    side = max(image.size) if max_side is None else min(max(image.size), max_side)
    scaled = _scaled(image, side)
    encoded = _encode(scaled, out_format)
    forced = False
    for _ in range(_MAX_PASSES):
        size = _b64_len(len(encoded))
        if size <= budget:
            return encoded, scaled, forced
        forced = True
        side = max(1, min(side - 1, int(side * math.sqrt(budget / size) * 0.9)))
        scaled = _scaled(image, side)
        encoded = _encode(scaled, out_format)
    if _b64_len(len(encoded)) <= budget:
        return encoded, scaled, forced
    raise ToolFailure(
        "too_large",
        f"{bin_data!r} does not fit the response cap of {budget} characters even at {scaled.width}×{scaled.height}",
        "restart the server with a larger --max-image-chars / RHWP_MCP_MAX_IMAGE_CHARS",
    )


def get_image(path: FilePath, bin_data: BinDataName, max_side: MaxSide = None) -> Any:
    """One picture of an HWP/HWPX document, as an image you can look at (MCP image content).

    `bin_data` is the picture's `bin_data_name` as iter_blocks(path, kind="picture") lists it
    (e.g. `BIN0001.jpg`, `BinData/image1.png`). PNG, JPEG and GIF pictures come as stored; BMP,
    TIFF and other raster formats come converted to PNG. `max_side` downscales so that neither
    side exceeds that many pixels (aspect ratio kept, never enlarged): ask for e.g. 512 to glance
    at a picture cheaply. A picture too large for one response is downscaled to fit, and a text
    block then gives its original size. Vector pictures (WMF/EMF) and embedded OLE objects
    (charts, spreadsheets) cannot be shown: the error says what to read instead.
    """
    import rhwp_core

    password = current_password()  # the caller's, if any (the host takes it out of the arguments)
    doc = rhwp_core.load(path, password=password)
    try:
        item = rhwp_core.read_bin_item(path, bin_data, password=password)
    except rhwp_core.UnknownBinDataError:
        raise _unknown_name(path, bin_data, doc) from None
    data, media_type = item.data, item.media_type
    if media_type in _VECTOR:
        raise _unsupported(path, bin_data, f"a vector picture ({_VECTOR[media_type]}, a Windows metafile)")
    if media_type == _OLE:
        raise _unsupported(path, bin_data, "an embedded OLE object (a chart, a spreadsheet, another document)")

    from fastmcp.utilities.types import Image as ImageContent

    cap = current_max_image_chars()
    stored_format = _AS_STORED.get(media_type or "")
    if stored_format is not None and max_side is None and _b64_len(len(data)) <= cap:
        return [ImageContent(data=data, format=stored_format)]
    image = _open(data, path, bin_data)
    # Re-encoding drops the EXIF orientation a viewer would apply to the stored bytes: apply it here.
    from PIL import ImageOps

    ImageOps.exif_transpose(image, in_place=True)
    width, height = image.size
    if stored_format is not None and (max_side is None or max(width, height) <= max_side):
        if _b64_len(len(data)) <= cap:
            return [ImageContent(data=data, format=stored_format)]
    out_format = "jpeg" if stored_format == "jpeg" else "png"
    frames = getattr(image, "n_frames", 1)
    prepared = _prepared(image, out_format)
    encoded, shown, forced = _fit(prepared, out_format, max_side, cap - _NOTE_ROOM, bin_data)
    blocks: list[Any] = [ImageContent(data=encoded, format=out_format)]
    notes: list[str] = []
    fit = f"to fit the server's picture cap of {cap} base64 characters"
    if shown.size != (width, height):
        why = f"{fit} (raise the server's --max-image-chars for more detail)"
        why = why if forced else f"(max_side={max_side})"
        notes.append(f"Downscaled from {width}×{height} to {shown.width}×{shown.height} pixels {why}.")
    elif stored_format is not None:
        # Same size, but not the stored bytes: re-encoding alone made it fit.
        notes.append(f"Re-encoded (the stored {stored_format.upper()} is {len(data)} bytes) {fit}.")
    if frames > 1:
        notes.append(f"The stored picture has {frames} frames; this is the first.")
    if notes:
        blocks.append(" ".join(notes))
    return blocks


@hookimpl
def rhwp_mcp_register_tools(register: Register) -> None:
    register(get_image, title="Show a picture of an HWP/HWPX document")
