"""rhwp_core.compare, the library call: typed results from paths, bytes and Documents; a document
against itself and against its twin in another format; the picture rule each input allows; the
errors of the reader's vocabulary; the native work runs without the GIL."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from rhwp_core.comparison import Change, Comparison

import rhwp_core

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
IRB = FIXTURES / "hwpx" / "pyhwpx-irb_form_filled.hwpx"
PAIR = FIXTURES / "pairs" / "rhwp-chart-clustered-column"


def test_a_document_against_itself_from_every_kind_of_input() -> None:
    data = IRB.read_bytes()
    doc = rhwp_core.parse(IRB)
    for a, b in ((IRB, str(IRB)), (data, IRB), (doc, data), (doc, doc), (f"file://{IRB}", IRB)):
        result = rhwp_core.compare(a, b)
        assert isinstance(result, Comparison)
        assert result.changes == [] and result.summary.unchanged == 4, (type(a), type(b))


def test_pictures_by_content_only_when_both_sides_have_bytes() -> None:
    doc = rhwp_core.parse(IRB)
    assert rhwp_core.compare(IRB, IRB).summary.pictures_compared_by == "content"
    assert rhwp_core.compare(doc, IRB).summary.pictures_compared_by == "name_and_size"


def test_an_hwp_and_its_hwpx_twin_compare_unchanged_in_every_scope() -> None:
    for scope in ("body", "all"):
        result = rhwp_core.compare(PAIR.with_suffix(".hwp"), PAIR.with_suffix(".hwpx"), scope=scope)
        assert result.changes == [], result.changes


def test_a_change_is_typed_and_addressed(tmp_path: Path) -> None:
    import zipfile

    revised = tmp_path / "revised.hwpx"
    with zipfile.ZipFile(IRB) as zin, zipfile.ZipFile(revised, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "Contents/section0.xml":
                data = data.decode("utf-8").replace("사실과", "진실과").encode("utf-8")
            zout.writestr(item, data)
    (change,) = rhwp_core.compare(IRB, revised).changes
    assert isinstance(change, Change) and change.kind == "modified"
    assert change.diff is not None
    assert [(s.op, s.text) for s in change.diff.spans if s.op != "equal"] == [("delete", "사"), ("insert", "진")]
    assert change.old is not None and change.new is not None
    text = change.new.text
    offset = change.new.address.text_offset
    assert offset is not None and text[offset] == "진"
    blocks = list(rhwp_core.parse(revised).iter_blocks())
    assert getattr(blocks[change.new.address.block], "text", None) == text


def test_errors_are_the_readers() -> None:
    with pytest.raises(rhwp_core.DocumentNotFoundError):
        rhwp_core.compare(IRB, IRB.with_name("missing.hwpx"))
    with pytest.raises(rhwp_core.UnsupportedFormatError):
        rhwp_core.compare(b"not a document at all", IRB)
    with pytest.raises(rhwp_core.InvalidRequestError, match="scope"):
        rhwp_core.compare(IRB, IRB, scope="everything")  # type: ignore[arg-type]


def test_the_native_comparison_releases_the_gil() -> None:
    # Two versions of a long document: while one thread compares, another keeps running Python.
    import io
    import zipfile

    paragraphs = [f"<hp:p><hp:run><hp:t>문단 {i} 의 내용은 이렇다</hp:t></hp:run></hp:p>" for i in range(20000)]

    def package(body: list[str]) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(IRB) as zin, zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = zin.read(item.filename)
                if item.filename == "Contents/section0.xml":
                    xml = data.decode("utf-8")
                    data = xml.replace("</hs:sec>", "".join(body) + "</hs:sec>").encode("utf-8")
                zout.writestr(item, data)
        return buffer.getvalue()

    a = rhwp_core.parse(package(paragraphs))
    b = rhwp_core.parse(package(paragraphs[::-1]))
    ticks = 0
    done = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        started = time.perf_counter()
        raw = rhwp_core._native.compare(a._native, b._native)
        elapsed = time.perf_counter() - started
    finally:
        done.set()
        ticker.join()
    # The ticker ran while the native comparison worked (with the GIL held it could not tick at
    # all): at least a third of the ticks a free thread makes (one per ~1.1 ms of sleep).
    assert ticks >= elapsed / 0.0011 / 3, (ticks, elapsed)
    result = rhwp_core.comparison._comparison(raw)
    # Reversed: one order kept, every other paragraph a move; nothing inserted or deleted.
    assert result.summary.moved >= 19_000 and result.summary.inserted == result.summary.deleted == 0
