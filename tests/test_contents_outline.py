"""The outline against the documents' own tables of contents (issue 35, headings), measured by
``benches/contents_outline.py`` -- a reading of the text independent of the reader's matching.

- Every corpus document with a contents page has at least 90 % of its entries as outline
  headings after the contents (or is listed below with why not), and no contents line is a
  heading.
- Every corpus document's outline (text, level) is the one recorded in
  ``tests/fixtures/outlines.tsv`` (a digest per document): a change shows which documents'
  outlines moved, to be checked and accepted with ``RHWP_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest
from corpus_support import FIXTURES, ROOT, require_shared

import rhwp_core

UPDATE = os.environ.get("RHWP_UPDATE_GOLDEN") == "1"
DIGESTS = FIXTURES / "outlines.tsv"

# Documents whose contents the outline finds less than 90 % of, and why.
EXPECTED_SHORT = {
    # The contents sits in a cover table whose entries (`1-1. 국민의 국어능력 ...`) name the
    # tasks of an annex table, never a line of their own in the body.
    "hwp/rhwp-nikl-2022-workplan.hwp": "entries are rows of a task table, not lines of the body",
    # Six entries are worded otherwise in the body (`1. 제안업체 현황` over `1. 제안업체 일반`,
    # `5. 기술지원` over the misspelt `5. 지술지원`, `(BCP)` added): no exact reading finds them.
    "hwpx/rhwp-kwater-rfp-2004.hwpx": "six entries are worded otherwise in the body",
}


def _bench() -> ModuleType:
    path = ROOT / "benches" / "contents_outline.py"
    spec = importlib.util.spec_from_file_location("contents_outline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["contents_outline"] = module
    spec.loader.exec_module(module)
    return module


def _documents(corpus: Path) -> list[Path]:
    docs: list[Path] = _bench().corpus_documents(corpus)
    return docs


def test_contents_entries_are_outline_headings() -> None:
    corpus = require_shared() / "corpus"
    bench = _bench()
    measured = []
    short = {}
    for name, m in bench.measured(corpus):
        measured.append(name)
        assert not m.self_headings, (name, m.self_headings[:5])
        if m.found < 0.9 * m.entries:
            short[name] = f"{m.found}/{m.entries}"
    assert len(measured) >= 5, measured
    assert set(short) == set(EXPECTED_SHORT), short
    # The long contents are found whole, at their own levels.
    oracle = bench.measure("oracle", rhwp_core.parse(corpus / "hwpx" / "rhwp-oracle-tech-bulletins.hwpx"))
    assert oracle is not None and oracle.entries >= 250 and oracle.at_level >= 0.9 * oracle.entries


def _digest(outline: list[tuple[str, int]]) -> str:
    text = "\n".join(f"{level}\t{' '.join(line.split())}" for line, level in outline)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@pytest.mark.skipif(sys.platform == "win32", reason="the corpus paths are POSIX")
def test_outlines_stay_as_recorded() -> None:
    corpus = require_shared() / "corpus"
    actual: dict[str, str] = {}
    for path in _documents(corpus):
        try:
            doc = rhwp_core.parse(path)
        except rhwp_core.HwpError:
            continue
        outline = [(h.text, h.level) for h in doc.outline()]
        actual[f"{path.parent.name}/{path.name}"] = f"{len(outline)}\t{_digest(outline)}"
    if UPDATE or not DIGESTS.exists():
        DIGESTS.write_text("".join(f"{name}\t{v}\n" for name, v in sorted(actual.items())), encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"no {DIGESTS.name}: written now, review it and run again")
    recorded = dict(line.split("\t", 1) for line in DIGESTS.read_text(encoding="utf-8").splitlines() if line)
    changed = sorted(n for n in set(actual) | set(recorded) if actual.get(n) != recorded.get(n))
    assert not changed, (
        f"outlines changed: {changed} (benches/contents_outline.py --against shows how; RHWP_UPDATE_GOLDEN=1 to accept)"
    )
