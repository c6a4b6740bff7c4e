"""rhwp_core.read_bin_data: every embedded item of the fixtures and of the corpus comes out as the
bytes of a known format (raster pictures open in Pillow), linked pictures and unknown names get
their codes, and hostile documents are refused as parse() refuses them."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import pytest
from corpus_support import BAD_CODES, FIXTURES

import rhwp_core

RASTER = {"image/png", "image/jpeg", "image/gif", "image/bmp", "image/tiff", "image/webp"}
# Independent of the reader's own sniffing: what each format's specification puts first.
MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/bmp": (b"BM",),
    "image/tiff": (b"II*\x00", b"MM\x00*"),
    "image/webp": (b"RIFF",),
    "image/wmf": (b"\xd7\xcd\xc6\x9a", b"\x01\x00\x09\x00", b"\x02\x00\x09\x00"),
    "image/emf": (b"\x01\x00\x00\x00",),
}
PILLOW_FORMAT = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/bmp": "BMP"}
CFB = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

PICTURE_FIXTURE = FIXTURES / "hwp" / "hwplib-getting_clickhere_text.hwp"
CHART_HWP = FIXTURES / "pairs" / "rhwp-chart-clustered-column.hwp"
CHART_HWPX = FIXTURES / "pairs" / "rhwp-chart-clustered-column.hwpx"
LINKED_FIXTURE = FIXTURES / "hwp" / "hwplib-etc.hwp"


def _documents(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".hwp", ".hwpx"))


def _is_outside_path(name: str) -> bool:
    return name.startswith(("/", "\\\\")) or (len(name) > 2 and name[1] == ":" and name[2] in "\\/")


def _check_item(path: Path, item: Any) -> tuple[str | None, bytes | None]:
    """Read one IR bin-data item; returns (media type, bytes) or (None, None) for a linked one."""
    if item.storage == "link" or (item.size is None and _is_outside_path(item.name)):
        with pytest.raises(rhwp_core.UnsupportedFormatError) as info:
            rhwp_core.read_bin_data(path, item.name)
        assert info.value.code == "unsupported_format"
        assert "linked" in info.value.message
        return None, None
    if item.size is None:
        # Listed in the package's manifest but not held by it.
        with pytest.raises(rhwp_core.UnknownBinDataError):
            rhwp_core.read_bin_data(path, item.name)
        return None, None
    got = rhwp_core.read_bin_item(path, item.name)
    assert got.data, f"{path.name}: {item.name} is empty"
    assert got.media_type is not None, f"{path.name}: {item.name} starts with {got.data[:16]!r}"
    if got.media_type == "application/x-ole-storage":
        assert CFB in got.data[:12]
    else:
        assert got.data.startswith(MAGIC[got.media_type]), (path.name, item.name, got.media_type)
    return got.media_type, got.data


def _pillow_opens(data: bytes, media_type: str) -> tuple[int, int]:
    image_module = pytest.importorskip(
        "PIL.Image", reason="Pillow (a dependency of rhwp-mcp-tools-media) checks pixels"
    )
    with image_module.open(io.BytesIO(data)) as image:
        image.load()
        if media_type in PILLOW_FORMAT:
            assert image.format == PILLOW_FORMAT[media_type]
        return image.size


def _check_document(path: Path) -> dict[str, int]:
    """Every item of one document read; every picture's name resolves. Counts by media type."""
    doc = rhwp_core.parse(path)
    counts: dict[str, int] = {}
    for item in doc.to_ir().bin_data:
        media_type, data = _check_item(path, item)
        key = media_type or "linked"
        counts[key] = counts.get(key, 0) + 1
        if media_type in RASTER and data is not None:
            width, height = _pillow_opens(data, media_type)
            assert width > 0 and height > 0
    listed = set(rhwp_core.bin_data_names(doc))
    for name in rhwp_core.bin_data_names(doc, pictures_only=True):
        assert name in listed, f"{path.name}: picture {name!r} is not in the bin-data table"
    return counts


# ---- fixtures: a fresh clone tests itself ---------------------------------------------------------


def test_fixture_picture_is_a_png() -> None:
    data = rhwp_core.read_bin_data(PICTURE_FIXTURE, "BIN0001.png")
    assert data.startswith(MAGIC["image/png"][0])
    assert _pillow_opens(data, "image/png") == (138, 110)


def test_every_fixture_item(fixtures_dir: Path) -> None:
    total: dict[str, int] = {}
    for folder in ("hwp", "hwpx", "pairs"):
        for path in _documents(fixtures_dir / folder):
            for key, n in _check_document(path).items():
                total[key] = total.get(key, 0) + n
    assert total.get("image/png", 0) >= 1
    assert total.get("application/x-ole-storage", 0) >= 2
    assert total.get("linked", 0) >= 1


def test_sources_agree() -> None:
    """A path, a PathLike, a file:// URI and the bytes give the same item."""
    by_path = rhwp_core.read_bin_data(str(PICTURE_FIXTURE), "BIN0001.png")
    assert rhwp_core.read_bin_data(PICTURE_FIXTURE, "BIN0001.png") == by_path
    assert rhwp_core.read_bin_data(PICTURE_FIXTURE.as_uri(), "BIN0001.png") == by_path
    assert rhwp_core.read_bin_data(PICTURE_FIXTURE.read_bytes(), "BIN0001.png") == by_path
    assert rhwp_core.read_bin_data(bytearray(PICTURE_FIXTURE.read_bytes()), "BIN0001.png") == by_path


def test_names_match_as_the_formats_do() -> None:
    data = rhwp_core.read_bin_data(PICTURE_FIXTURE, "BIN0001.png")
    # Compound-file names compare case-insensitively.
    assert rhwp_core.read_bin_data(PICTURE_FIXTURE, "bin0001.PNG") == data
    # HWPX: the IR's `BinData/ole1.ole`, or the name without its folder.
    ole = rhwp_core.read_bin_data(CHART_HWPX, "BinData/ole1.ole")
    assert rhwp_core.read_bin_data(CHART_HWPX, "ole1.ole") == ole


def test_ole_objects_are_the_stored_compound_file() -> None:
    """Both formats store the chart as the same OLE object: a length, then a compound file."""
    for path, name in ((CHART_HWP, "BIN0001.OLE"), (CHART_HWPX, "BinData/ole1.ole")):
        item = rhwp_core.read_bin_item(path, name)
        assert item.media_type == "application/x-ole-storage"
        assert CFB in item.data[:12]


@pytest.mark.parametrize(
    "name", ["BIN0002.png", "", "../../etc/passwd", "BinData", "FileHeader", "DocInfo", "x" * 5000, "\x00"]
)
def test_unknown_name_is_invalid_input(name: str) -> None:
    with pytest.raises(rhwp_core.UnknownBinDataError) as info:
        rhwp_core.read_bin_data(PICTURE_FIXTURE, name)
    err = info.value
    assert err.code == "invalid_input"
    assert isinstance(err, rhwp_core.HwpError) and isinstance(err, LookupError)
    assert err.available == ["BIN0001.png"]
    assert '"BIN0001.png"' in err.suggestion
    assert len(err.message) < 300


def test_unknown_name_in_hwpx_lists_its_items() -> None:
    with pytest.raises(rhwp_core.UnknownBinDataError) as info:
        rhwp_core.read_bin_data(CHART_HWPX, "Contents/section0.xml")
    assert info.value.available == ["BinData/ole1.ole"]


def test_linked_picture_is_unsupported() -> None:
    name = rhwp_core.bin_data_names(rhwp_core.parse(LINKED_FIXTURE))[0]
    with pytest.raises(rhwp_core.UnsupportedFormatError) as info:
        rhwp_core.read_bin_data(LINKED_FIXTURE, name)
    assert "linked" in info.value.message and info.value.suggestion


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        rhwp_core.read_bin_data(tmp_path / "nope.hwp", "BIN0001.png")
    assert getattr(missing.value, "code", None) == "file_not_found"
    with pytest.raises(IsADirectoryError) as directory:
        rhwp_core.read_bin_data(tmp_path, "BIN0001.png")
    assert getattr(directory.value, "code", None) == "invalid_input"


@pytest.mark.parametrize("name", sorted(BAD_CODES))
def test_bad_documents_get_their_codes(fixtures_dir: Path, name: str) -> None:
    with pytest.raises(rhwp_core.HwpError) as info:
        rhwp_core.read_bin_data(fixtures_dir / "bad" / name, "BIN0001.png")
    assert info.value.code in BAD_CODES[name] | {"invalid_input"}, info.value


def test_truncated_documents_give_typed_errors() -> None:
    whole = PICTURE_FIXTURE.read_bytes()
    for cut in range(0, len(whole), max(1, len(whole) // 64)):
        try:
            rhwp_core.read_bin_data(whole[:cut], "BIN0001.png")
        except rhwp_core.HwpError as e:
            assert e.code in {"corrupt_document", "unsupported_format", "too_large", "invalid_input"}


def test_threads_read_in_parallel() -> None:
    """The GIL is released while reading: results from threads equal the serial result."""
    expected = rhwp_core.read_bin_data(PICTURE_FIXTURE, "BIN0001.png")
    results: list[bytes] = []

    def work() -> None:
        for _ in range(20):
            results.append(rhwp_core.read_bin_data(PICTURE_FIXTURE, "BIN0001.png"))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 80 and all(r == expected for r in results)


# ---- the shared corpus ------------------------------------------------------------------------------


@pytest.mark.corpus
def test_every_corpus_item(corpus_dir: Path) -> None:
    """Every bin-data item of every corpus document: read, a known format, raster ones decode."""
    total: dict[str, int] = {}
    for folder in ("hwp", "hwpx"):
        for path in _documents(corpus_dir / folder):
            try:
                rhwp_core.parse(path)
            except rhwp_core.HwpError:
                continue  # unreadable documents are the reader tests' business
            for key, n in _check_document(path).items():
                total[key] = total.get(key, 0) + n
    raster = sum(n for key, n in total.items() if key in RASTER)
    # The corpus holds pictures of every common kind; a reader that lost them would show here.
    assert raster >= 100, total
    for kind in ("image/png", "image/jpeg", "image/gif", "image/bmp", "image/wmf", "application/x-ole-storage"):
        assert total.get(kind, 0) >= 1, (kind, total)
