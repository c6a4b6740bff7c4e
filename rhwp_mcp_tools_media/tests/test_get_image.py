"""The media pack through an in-process MCP client (rhwp_mcp_host.testing), as a client sees it:
image content blocks whose base64 decodes to the picture, downscaling on request and to fit the
cap, and the error codes for vector pictures, OLE objects, linked pictures and unknown names."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_support import FIXTURES
from PIL import Image
from rhwp_mcp_host.testing import PackSession, pack_session

import rhwp_core
import rhwp_mcp_tools_media

PICTURE = FIXTURES / "hwp" / "hwplib-getting_clickhere_text.hwp"  # BIN0001.png, 138×110
CHART_HWP = FIXTURES / "pairs" / "rhwp-chart-clustered-column.hwp"
CHART_HWPX = FIXTURES / "pairs" / "rhwp-chart-clustered-column.hwpx"
LINKED = FIXTURES / "hwp" / "hwplib-etc.hwp"

MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
}
PILLOW_FORMAT = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF"}


@pytest.fixture(scope="module")
def session() -> Iterator[PackSession]:
    with pack_session(rhwp_mcp_tools_media) as s:
        yield s


def _image(result: Any) -> tuple[bytes, str, Image.Image, list[str]]:
    """The one image block of a successful result: its bytes, mime type, the decoded picture, and
    the texts beside it. The bytes' magic must agree with the declared mime type."""
    assert not result.is_error, result.content
    images = [b for b in result.content if b.type == "image"]
    texts = [b.text for b in result.content if b.type == "text"]
    assert len(images) == 1, result.content
    block = images[0]
    data = base64.b64decode(block.data, validate=True)
    assert data.startswith(MAGIC[block.mime_type]), (block.mime_type, data[:8])
    picture = Image.open(io.BytesIO(data))
    picture.load()
    assert picture.format == PILLOW_FORMAT[block.mime_type]
    assert result.structured_content is None  # the base64 is sent once, as the image
    return data, block.mime_type, picture, texts


def _error(result: Any) -> dict[str, str]:
    assert result.is_error
    import json

    payload: dict[str, str] = json.loads(result.content[0].text)
    return payload


def test_listed_with_its_description(session: PackSession) -> None:
    (tool,) = [t for t in session.list_tools() if t.name == "get_image"]
    assert "bin_data_name" in (tool.description or "")
    assert "max_side" in (tool.description or "")
    # password: the host adds it to every tool that takes a document.
    assert set(tool.input_schema["properties"]) == {"path", "bin_data", "max_side", "password"}
    assert tool.output_schema is None


def test_png_as_stored(session: PackSession) -> None:
    data, mime, picture, texts = _image(
        session.call_raw("get_image", {"path": str(PICTURE), "bin_data": "BIN0001.png"})
    )
    assert data == rhwp_core.read_bin_data(PICTURE, "BIN0001.png")
    assert (mime, picture.size, texts) == ("image/png", (138, 110), [])


def test_file_uri_and_case_insensitive_name(session: PackSession) -> None:
    data, *_ = _image(session.call_raw("get_image", {"path": PICTURE.as_uri(), "bin_data": "bin0001.png"}))
    assert data == rhwp_core.read_bin_data(PICTURE, "BIN0001.png")


def test_max_side_downscales_keeping_the_aspect(session: PackSession) -> None:
    _, mime, picture, texts = _image(
        session.call_raw("get_image", {"path": str(PICTURE), "bin_data": "BIN0001.png", "max_side": 50})
    )
    assert mime == "image/png"
    assert picture.size == (50, 40)  # 138×110 scaled by 50/138
    assert texts and "138×110" in texts[0] and "50×40" in texts[0]


def test_max_side_never_enlarges(session: PackSession) -> None:
    data, _, picture, texts = _image(
        session.call_raw("get_image", {"path": str(PICTURE), "bin_data": "BIN0001.png", "max_side": 4000})
    )
    assert data == rhwp_core.read_bin_data(PICTURE, "BIN0001.png")
    assert picture.size == (138, 110) and texts == []


@pytest.mark.parametrize("max_side", [0, -3, "big"])
def test_bad_max_side_is_invalid_input(session: PackSession, max_side: Any) -> None:
    payload = _error(
        session.call_raw("get_image", {"path": str(PICTURE), "bin_data": "BIN0001.png", "max_side": max_side})
    )
    assert payload["error"] == "invalid_input" and "max_side" in payload["message"]


def test_downscaled_to_fit_a_small_cap() -> None:
    with pack_session(rhwp_mcp_tools_media, max_chars=1000, max_image_chars=1000) as small:
        result = small.call_raw("get_image", {"path": str(PICTURE), "bin_data": "BIN0001.png"})
    _, mime, picture, texts = _image(result)
    encoded = next(b.data for b in result.content if b.type == "image")
    assert len(encoded) + sum(len(t) for t in texts) <= 1000
    assert mime == "image/png" and max(picture.size) < 138
    # Aspect kept within rounding.
    assert abs(picture.size[0] / picture.size[1] - 138 / 110) < 0.15
    assert texts and "Downscaled from 138×110" in texts[0] and "1000" in texts[0]


def test_unknown_name_lists_the_pictures(session: PackSession) -> None:
    payload = _error(session.call_raw("get_image", {"path": str(PICTURE), "bin_data": "BIN0009.png"}))
    assert payload["error"] == "invalid_input"
    assert '"BIN0001.png"' in payload["suggestion"] and "iter_blocks" in payload["suggestion"]


def test_unknown_name_without_pictures_lists_the_items(session: PackSession) -> None:
    payload = _error(session.call_raw("get_image", {"path": str(CHART_HWPX), "bin_data": "image1.png"}))
    assert payload["error"] == "invalid_input"
    assert "BinData/ole1.ole" in payload["suggestion"]


@pytest.mark.parametrize(("path", "name"), [(CHART_HWP, "BIN0001.OLE"), (CHART_HWPX, "BinData/ole1.ole")])
def test_ole_object_is_unsupported(session: PackSession, path: Path, name: str) -> None:
    payload = _error(session.call_raw("get_image", {"path": str(path), "bin_data": name}))
    assert payload["error"] == "unsupported_format"
    assert "OLE" in payload["message"] and "iter_blocks" in payload["suggestion"]


def test_linked_picture_is_unsupported(session: PackSession) -> None:
    name = rhwp_core.bin_data_names(rhwp_core.parse(LINKED))[0]
    payload = _error(session.call_raw("get_image", {"path": str(LINKED), "bin_data": name}))
    assert payload["error"] == "unsupported_format" and "linked" in payload["message"]


def test_missing_and_bad_documents(session: PackSession, tmp_path: Path) -> None:
    assert _error(session.call_raw("get_image", {"path": str(tmp_path / "no.hwp"), "bin_data": "x"}))["error"] == (
        "file_not_found"
    )
    bad = FIXTURES / "bad" / "synthetic-a-png-renamed.hwp"
    assert _error(session.call_raw("get_image", {"path": str(bad), "bin_data": "x"}))["error"] == "unsupported_format"
    cut = tmp_path / "cut.hwp"
    cut.write_bytes(PICTURE.read_bytes()[:3000])
    assert _error(session.call_raw("get_image", {"path": str(cut), "bin_data": "BIN0001.png"}))["error"] in {
        "corrupt_document",
        "unsupported_format",
    }


# ---- the shared corpus: every format the documents hold -------------------------------------------


def _corpus_item(corpus_dir: Path, document: str, name: str) -> tuple[Path, bytes]:
    path = corpus_dir / document
    return path, rhwp_core.read_bin_data(path, name)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("document", "name", "mime"),
    [
        ("hwpx/hwpxlib-SimplePicture.hwpx", "BinData/image1.jpg", "image/jpeg"),
        ("hwpx/rhwp-kwater-rfp-2004.hwpx", "BinData/image1.gif", "image/gif"),
        ("hwpx/hwpxlib-mot.hwpx", "BinData/image2.png", "image/png"),
        ("hwp/rhwp-hongbo-distribution-2025.hwp", "BIN0002.jpg", "image/jpeg"),
    ],
)
def test_stored_formats_come_unchanged(corpus_dir: Path, document: str, name: str, mime: str) -> None:
    path, stored = _corpus_item(corpus_dir, document, name)
    with pack_session(rhwp_mcp_tools_media, max_chars=1_000_000) as big:
        data, got_mime, _, texts = _image(big.call_raw("get_image", {"path": str(path), "bin_data": name}))
    assert (data, got_mime, texts) == (stored, mime, [])


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("document", "name"),
    [("hwp/rhwp-treatise-sample.hwp", "BIN0001.bmp"), ("hwpx/rhwp-kwater-rfp-2004.hwpx", "BinData/image4.bmp")],
)
def test_bmp_becomes_png_with_the_same_pixels(corpus_dir: Path, document: str, name: str) -> None:
    path, stored = _corpus_item(corpus_dir, document, name)
    with pack_session(rhwp_mcp_tools_media, max_chars=5_000_000) as big:
        _, mime, picture, texts = _image(big.call_raw("get_image", {"path": str(path), "bin_data": name}))
    original = Image.open(io.BytesIO(stored))
    assert (mime, picture.size, texts) == ("image/png", original.size, [])
    assert picture.convert("RGB").tobytes() == original.convert("RGB").tobytes()


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("document", "name", "note"),
    [
        ("hwpx/hwpxlib-mot.hwpx", "BinData/image1.jpg", "Downscaled from 2154×477"),
        ("hwp/rhwp-hongbo-distribution-2025.hwp", "BIN0006.jpg", "Downscaled from 1000×666"),
        # Stored at a high quality: re-encoding alone fits it, at its own size.
        ("hwpx/hwpxlib-SimplePicture.hwpx", "BinData/image1.jpg", "Re-encoded (the stored JPEG is 23560 bytes)"),
    ],
)
def test_jpeg_over_the_cap_stays_jpeg(corpus_dir: Path, document: str, name: str, note: str) -> None:
    path, stored = _corpus_item(corpus_dir, document, name)
    assert len(base64.b64encode(stored)) > 20_000  # over this server's picture cap
    with pack_session(rhwp_mcp_tools_media, max_image_chars=20_000) as small:
        result = small.call_raw("get_image", {"path": str(path), "bin_data": name})
    _, mime, picture, texts = _image(result)
    original = Image.open(io.BytesIO(stored)).size
    assert mime == "image/jpeg" and max(picture.size) <= max(original)
    assert abs(picture.size[0] / picture.size[1] - original[0] / original[1]) < 0.05 * original[0] / original[1]
    assert texts and texts[0].startswith(note) and "20000" in texts[0]
    assert sum(len(getattr(b, "data", "") or getattr(b, "text", "")) for b in result.content) <= 20_000


@pytest.mark.corpus
def test_wmf_is_unsupported(corpus_dir: Path, session: PackSession) -> None:
    for document, name in (
        ("hwpx/rhwp-kwater-rfp-2004.hwpx", "BinData/image3.WMF"),
        ("hwp/rhwp-ftc-market-structure-2017.hwp", "BIN0001.wmf"),
    ):
        payload = _error(session.call_raw("get_image", {"path": str(corpus_dir / document), "bin_data": name}))
        assert payload["error"] == "unsupported_format", payload
        assert "WMF" in payload["message"] and "iter_blocks" in payload["suggestion"]


@pytest.mark.corpus
def test_every_corpus_picture(corpus_dir: Path, session: PackSession) -> None:
    """Every picture block of every corpus document, under the default caps: an image that fits the
    picture cap, or unsupported_format for vector, OLE and linked pictures; nothing else."""
    shown: dict[str, int] = {}
    refused: dict[str, int] = {}
    for folder in ("hwp", "hwpx"):
        for path in sorted((corpus_dir / folder).iterdir()):
            try:
                doc = rhwp_core.parse(path)
            except rhwp_core.HwpError:
                continue
            for name in rhwp_core.bin_data_names(doc, pictures_only=True):
                result = session.call_raw("get_image", {"path": str(path), "bin_data": name})
                if result.is_error:
                    payload = _error(result)
                    assert payload["error"] == "unsupported_format", (path.name, name, payload)
                    refused[name] = refused.get(name, 0) + 1
                    continue
                _, mime, _, _ = _image(result)
                size = sum(len(getattr(b, "data", "") or "") for b in result.content)
                assert size <= 1_400_000, (path.name, name, size)
                shown[mime] = shown.get(mime, 0) + 1
    assert sum(shown.values()) >= 100, shown
    assert {"image/png", "image/jpeg", "image/gif"} <= set(shown), shown


# ---- formats the corpus lacks: a real package with extra entries added -------------------------------


@pytest.fixture(scope="module")
def extended_hwpx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The chart fixture's package plus a TIFF, an EMF, a truncated PNG and a text file in BinData/."""
    import zipfile

    tiff = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 40, 40)).save(tiff, format="TIFF")
    png = io.BytesIO()
    Image.effect_noise((64, 64), 60).save(png, format="PNG")
    emf = bytearray(88)
    emf[0] = 1
    emf[40:44] = b" EMF"
    extra = {
        "BinData/scan.tif": tiff.getvalue(),
        "BinData/drawing.emf": bytes(emf),
        "BinData/broken.png": png.getvalue()[: len(png.getvalue()) // 2],
        "BinData/notes.txt": "그림이 아닌 글".encode(),
    }
    out = tmp_path_factory.mktemp("media") / "extended.hwpx"
    with zipfile.ZipFile(CHART_HWPX) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            target.writestr(info, source.read(info.filename))
        for name, content in extra.items():
            target.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
    return out


def test_tiff_becomes_png(session: PackSession, extended_hwpx: Path) -> None:
    _, mime, picture, texts = _image(
        session.call_raw("get_image", {"path": str(extended_hwpx), "bin_data": "BinData/scan.tif"})
    )
    assert (mime, picture.size, texts) == ("image/png", (300, 200), [])
    assert picture.convert("RGB").getpixel((10, 10)) == (200, 40, 40)


@pytest.mark.parametrize(
    ("name", "code", "max_side"),
    [
        ("BinData/drawing.emf", "unsupported_format", None),
        ("BinData/notes.txt", "unsupported_format", None),
        # Sent as stored when it fits; decoding it (to downscale) finds the damage.
        ("BinData/broken.png", "corrupt_document", 16),
    ],
)
def test_undecodable_items(
    session: PackSession, extended_hwpx: Path, name: str, code: str, max_side: int | None
) -> None:
    arguments: dict[str, Any] = {"path": str(extended_hwpx), "bin_data": name}
    if max_side is not None:
        arguments["max_side"] = max_side
    payload = _error(session.call_raw("get_image", arguments))
    assert payload["error"] == code, payload
    assert payload["suggestion"]
