"""The IR the native reader builds directly (``Document.to_ir``) is the IR validation builds.

``to_ir`` makes the Pydantic objects in Rust, without JSON and without validation; the slow
path (``HwpDocument.model_validate_json(to_json())``) is the reference. Both must give the
same objects: same types, same field values, the same ``__dict__`` order (``repr`` and
``model_dump`` follow it), the same ``__pydantic_fields_set__`` (a set; the native build shares one
per class, see ``ir_objects.rs``) and
``None`` extra/private state -- on the fixtures, and on the whole corpus when it is present.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from corpus_support import FIXTURES, SHARED
from pydantic import BaseModel
from rhwp_core.document import _native_ir_classes
from rhwp_core.ir import HwpDocument, Paragraph

import rhwp_core


def _documents() -> list[Path]:
    paths = sorted(p for p in FIXTURES.glob("hwp*/*") if p.suffix in (".hwp", ".hwpx"))
    if SHARED is not None:
        paths += sorted(p for p in (SHARED / "corpus").glob("hwp*/*") if p.suffix in (".hwp", ".hwpx"))
    return paths


def _assert_same_objects(fast: Any, slow: Any, where: str) -> None:
    # An explicit stack: nesting depth comes from the document.
    stack = [(fast, slow, where)]
    while stack:
        a, b, path = stack.pop()
        assert type(a) is type(b), path
        if isinstance(a, BaseModel):
            assert list(a.__dict__) == list(b.__dict__), path
            assert type(a.__pydantic_fields_set__) is set, path
            assert a.__pydantic_fields_set__ == b.__pydantic_fields_set__, path
            assert a.__pydantic_extra__ is None and b.__pydantic_extra__ is None, path
            assert a.__pydantic_private__ is None and b.__pydantic_private__ is None, path
            stack.extend((a.__dict__[k], b.__dict__[k], f"{path}.{k}") for k in a.__dict__)
        elif isinstance(a, list):
            assert len(a) == len(b), path
            stack.extend((x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=True)))
        else:
            assert a == b, path


@pytest.mark.parametrize("path", _documents(), ids=lambda p: "/".join(p.parts[-3:]))
def test_native_ir_is_the_validated_ir(path: Path) -> None:
    doc = rhwp_core.parse(path)
    fast = doc._native.to_ir(_native_ir_classes())
    assert fast is not None, "ir.py no longer mirrors model.rs: the native build fell back"
    slow = HwpDocument.model_validate_json(doc.to_json())
    _assert_same_objects(fast, slow, path.name)
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert fast.model_dump_json() == slow.model_dump_json() == doc.to_json()
    assert doc.to_ir() == slow


def test_native_ir_is_frozen_and_copies_like_a_validated_one() -> None:
    doc = rhwp_core.parse(FIXTURES / "hwp" / "hwplib-etc.hwp").to_ir()
    paragraph = next(b for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    with pytest.raises(Exception, match="frozen"):
        paragraph.text = "x"  # type: ignore[misc]
    copy = paragraph.model_copy(update={"style": "changed"})
    assert copy.style == "changed" and paragraph.style != "changed"
    assert copy.model_fields_set == paragraph.model_fields_set
    assert copy.__pydantic_fields_set__ is not paragraph.__pydantic_fields_set__


def test_mismatched_classes_fall_back_to_none() -> None:
    from rhwp_core.ir import MODEL_CLASSES

    from rhwp_core import _native

    doc = rhwp_core.parse(FIXTURES / "hwp" / "hwplib-etc.hwp")
    # A class missing a field the struct writes, and a struct without a class: no IR, no error.
    for classes in (
        {name: (model, tuple(model.model_fields)[:-1]) for name, model in MODEL_CLASSES.items()},
        {name: (model, tuple(model.model_fields)) for name, model in MODEL_CLASSES.items() if name != "Provenance"},
    ):
        assert doc._native.to_ir(_native.IrClasses(classes)) is None


def test_native_ir_is_not_tracked_by_the_cyclic_gc() -> None:
    # Half a million tracked objects would be traversed by the collections after every build.
    import gc

    doc = rhwp_core.parse(FIXTURES / "hwp" / "hwplib-etc.hwp").to_ir()
    paragraph = next(b for s in doc.sections for b in s.blocks if isinstance(b, Paragraph))
    for obj in (doc, doc.__dict__, doc.sections, paragraph, paragraph.__dict__, paragraph.__pydantic_fields_set__):
        assert not gc.is_tracked(obj)


def _nested_tables_hwpx(depth: int) -> bytes:
    import io
    import zipfile

    level = '<hp:tbl rowCnt="1" colCnt="1"><hp:tr><hp:tc><hp:subList><hp:p><hp:run>'
    close = "</hp:run></hp:p></hp:subList></hp:tc></hp:tr></hp:tbl>"
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?><hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"'
        ' xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph"><hp:p><hp:run>'
        + level * depth
        + "<hp:t>deep</hp:t>"
        + close * depth
        + "</hp:run></hp:p></hs:sec>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("mimetype", "application/hwp+zip")
        package.writestr("Contents/section0.xml", xml)
    return out.getvalue()


def test_native_ir_of_the_deepest_document_the_reader_accepts() -> None:
    # 64 tables in cells: past the JSON nesting pydantic-core parses (the reference path falls
    # back to json.loads), and built natively in a thread with a small stack too.
    import threading

    doc = rhwp_core.parse(_nested_tables_hwpx(64))
    fast = doc._native.to_ir(_native_ir_classes())
    assert fast is not None
    assert fast == HwpDocument.model_validate_json(doc.to_json())
    results: list[bool] = []
    previous = threading.stack_size(512 * 1024)
    try:
        worker = threading.Thread(
            target=lambda: results.append("deep" in rhwp_core.parse(_nested_tables_hwpx(64)).to_markdown())
        )
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
    assert results == [True]


def test_the_native_builder_passes_its_own_probe() -> None:
    """The once-per-process probe agrees with Pydantic here, so the native builder is in use."""
    from rhwp_core.document import _native_builder_agrees

    _native_builder_agrees.cache_clear()
    assert _native_builder_agrees()
