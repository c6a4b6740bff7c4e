"""The Python API contract: ``parse`` (paths, ``file://`` URIs, bytes; the format sniffed from the
bytes), ``Document``, errors carrying ``code`` and ``suggestion``, the cache, threads."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
from corpus_support import BAD_CODES
from rhwp_core.ir import HwpDocument, Paragraph, child_blocks

import rhwp_core
from rhwp_core import HwpError

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
GOOD = sorted((FIXTURES / "hwp").glob("*.hwp")) + sorted((FIXTURES / "hwpx").glob("*.hwpx"))
SAMPLE = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"


def test_version_and_schema() -> None:
    assert rhwp_core.__version__
    assert rhwp_core.SCHEMA_VERSION


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_fixture_parses_with_text_and_summary(path: Path) -> None:
    doc = rhwp_core.parse(path)
    summary = doc.summary()
    assert summary["format"] == path.suffix[1:]
    assert summary["rhwp_core_version"] == rhwp_core.__version__
    for key in ("sections", "paragraphs", "tables", "pictures", "pages", "title", "author", "created", "modified"):
        assert key in summary
    body = doc.extract_text(include_furniture=False)
    full = doc.extract_text()
    assert full.startswith(body)


@pytest.mark.parametrize("name", sorted(BAD_CODES))
def test_bad_fixture_refused_with_code_and_suggestion(name: str) -> None:
    with pytest.raises(HwpError) as info:
        rhwp_core.parse(FIXTURES / "bad" / name)
    assert info.value.code in BAD_CODES[name]
    assert info.value.suggestion
    assert str(info.value)


def test_a_drm_wrapped_document_is_refused_naming_the_product() -> None:
    with pytest.raises(HwpError) as info:
        rhwp_core.parse(FIXTURES / "bad" / "synthetic-b-fasoo-drm.hwp")
    assert info.value.code == "unsupported_format"
    assert "Fasoo DRM" in info.value.message
    assert "DRM client" in info.value.suggestion


def test_bytes_and_path_agree() -> None:
    a = rhwp_core.parse(SAMPLE).extract_text()
    b = rhwp_core.parse(SAMPLE.read_bytes()).extract_text()
    assert a == b and a


def test_format_is_sniffed_not_taken_from_the_name(tmp_path: Path) -> None:
    renamed = tmp_path / "actually-hwp.hwpx"
    shutil.copy(SAMPLE, renamed)
    assert rhwp_core.parse(renamed).format == "hwp"


def test_file_uri_accepted() -> None:
    assert rhwp_core.parse(SAMPLE.as_uri()).extract_text() == rhwp_core.parse(SAMPLE).extract_text()


def test_missing_file_is_file_not_found_with_code(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        rhwp_core.parse(tmp_path / "nope.hwp")
    assert getattr(info.value, "code", None) == "file_not_found"
    assert getattr(info.value, "suggestion", "")


def test_unreadable_file_is_permission_denied(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    f = tmp_path / "locked.hwp"
    shutil.copy(SAMPLE, f)
    f.chmod(0)
    with pytest.raises(PermissionError) as info:
        rhwp_core.parse(f)
    assert getattr(info.value, "code", None) == "permission_denied"


def test_input_file_not_modified(tmp_path: Path) -> None:
    f = tmp_path / "doc.hwp"
    shutil.copy(SAMPLE, f)
    before = (f.read_bytes(), f.stat().st_mtime_ns)
    rhwp_core.parse(f).to_ir()
    assert (f.read_bytes(), f.stat().st_mtime_ns) == before


def test_document_shared_between_threads() -> None:
    doc = rhwp_core.parse(SAMPLE)
    expected = doc.extract_text()
    results: list[str] = []

    def work() -> None:
        for _ in range(20):
            results.append(doc.extract_text())
        doc.to_ir()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 80


def test_cache_returns_same_document_until_file_changes(tmp_path: Path) -> None:
    f = tmp_path / "doc.hwp"
    shutil.copy(SAMPLE, f)
    rhwp_core.clear_cache()
    first = rhwp_core.load(f)
    assert rhwp_core.load(f) is first
    shutil.copy(FIXTURES / "hwp" / "hwplib-etc.hwp", f)
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 1_000_000))
    second = rhwp_core.load(f)
    assert second is not first
    assert second.extract_text() == rhwp_core.parse(FIXTURES / "hwp" / "hwplib-etc.hwp").extract_text()


def test_a_directory_is_refused_as_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError) as info:
        rhwp_core.parse(tmp_path)
    assert getattr(info.value, "code", None) == "invalid_input"
    assert "directory" in str(info.value)


def test_only_the_most_recent_irs_are_kept() -> None:
    docs = [rhwp_core.parse(p) for p in GOOD[:3]]
    first = docs[0].to_ir()
    for doc in docs[1:]:
        doc.to_ir()
    # RHWP_IR_KEEP=2 by default: the oldest IR was let go, and is rebuilt equal when asked.
    assert docs[0]._ir is None
    assert docs[2]._ir is not None
    assert docs[0].to_ir() == first


def test_text_beyond_the_basic_plane_comes_back_intact() -> None:
    """Korean text holding Plane 15 symbols (Hancom's symbol area) is shown as what 한글 draws for
    them, and the stored code points reach Python intact beside it (`stored_text`), through the IR
    objects built natively as through the JSON; the block texts (UTF-8) agree with the text."""
    doc = rhwp_core.parse(FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp")
    text = doc.extract_text()
    blocks = doc.block_texts(include_furniture=True)
    assert not [c for c in text if ord(c) > 0xFFFF]
    # 79 ► (U+F02FB) and 9 boxed digits (U+F02B1.., digit + U+20DE), 7 of them overlapped (tcps).
    assert text.count("►") == 79
    assert text.count("\u20de") == 9
    assert all(block.text in text for block in blocks)
    assert "규제 심사" in text

    def stored(ir: HwpDocument) -> list[str]:
        found: list[str] = []
        stack = [b for s in ir.sections for b in s.blocks] + [b for f in ir.furniture for b in f.blocks]
        while stack:
            block = stack.pop()
            if isinstance(block, Paragraph) and block.stored_text is not None:
                assert block.stored_text != block.text
                found += [c for c in block.stored_text if ord(c) > 0xFFFF]
            stack.extend(child_blocks(block))
        return found

    astral = stored(doc.to_ir())
    assert len(astral) == 88  # 81 in the text, 7 in overlapped characters (글자 겹침, tcps)
    assert all(0xF0000 <= ord(c) <= 0xFFFFD for c in astral)
    assert sorted(stored(HwpDocument.model_validate_json(doc.to_json()))) == sorted(astral)
    assert doc.summary()["private_use_left"] == 0


def test_a_tracked_deletion_is_left_out_with_a_warning_that_says_where_it_still_is() -> None:
    # ChangeTrack.hwpx (hwpxlib, Apache-2.0) deletes ' 추적' with change tracking on: the text shows
    # the document as changed, and the summary says what was left out.
    doc = rhwp_core.parse(FIXTURES / "forms" / "hwpxlib-ChangeTrack.hwpx")
    assert "추적" not in doc.extract_text()
    warnings = [w for w in doc.summary()["warnings"] if "tracked deletion" in w]
    assert warnings == [
        "1 tracked deletion(s) (3 characters) left out of the text and views, which show the document "
        'as changed; get_ir keeps the deleted text (runs whose change.kind is "deleted")'
    ]
    deleted = [
        run.text
        for block in doc.to_ir().sections[0].blocks
        if block.kind == "paragraph"
        for run in block.runs
        if run.change is not None and run.change.kind == "deleted"
    ]
    assert deleted == [" 추적"]


def test_a_document_without_tracked_deletions_has_no_such_warning() -> None:
    assert not any("tracked deletion" in w for w in rhwp_core.parse(SAMPLE).summary()["warnings"])
