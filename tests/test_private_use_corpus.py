"""Characters as displayed, over the corpus: Hancom's private-use code points are shown as what 한글
draws, in the text, the views, search and the markers; what is left stays under the bar.

Before the mapping our `extract_text` held 75,372 private-use code points in 17 corpus documents;
the bar is 1 % of that (`benches/private_use.py` lists what remains and why).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from corpus_support import ROOT, require_shared

import rhwp_core
from rhwp_mcp_tools_search import search

BAR = 75_372 // 100


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("private_use_bench", ROOT / "benches" / "private_use.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass resolves its annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def _corpus(rel: str) -> Path:
    path = require_shared() / "corpus" / rel
    if not path.is_file():
        pytest.skip(f"{rel} is not in this corpus")
    return path


def test_private_use_left_in_the_corpus_text_is_under_the_bar() -> None:
    bench = _bench()
    m = bench.measure(require_shared() / "corpus")
    assert m.total <= BAR, m.rows()
    # summary() counts what is left the same way the text shows it.
    assert m.summary_private_use_left == m.total
    # Every remaining code point is listed with a reason of its own.
    assert all(row["why"] != bench.why(-1) for row in m.rows()), m.rows()


def test_a_title_between_hancom_brackets_reads_and_is_found() -> None:
    path = _corpus("hwp/rhwp-ftc-market-structure-2017.hwp")
    doc = rhwp_core.parse(path)
    title = "『광업 및 제조업조사』"
    assert title in doc.extract_text()
    assert title in doc.to_markdown()
    assert title in doc.to_html()
    hits = search(str(path), "『광업 및 제조업조사』")
    assert hits["total"] >= 1, hits
    assert doc.summary()["private_use_left"] == 0


def test_old_hangul_in_the_hanyang_area_reads_as_jamo() -> None:
    doc = rhwp_core.parse(_corpus("hwp/pyhwp-sample-5017.hwp"))
    text = doc.extract_text()
    assert "ᄒᆞᆫ글" in text
    assert "\uf53a" not in text
    # The stored code point stays beside the shown text, for a writer.
    stored = [
        b.stored_text
        for b in doc.iter_blocks(kind="paragraph", scope="all")
        if isinstance(b, rhwp_core.ir.Paragraph) and b.stored_text
    ]
    assert any("\uf53a글" in s for s in stored), stored


def test_hancom_symbols_used_as_bullets_show_in_the_markers_and_text() -> None:
    doc = rhwp_core.parse(_corpus("hwp/rhwp-nested-cell-pagination.hwp"))
    text = doc.extract_text()
    # U+F02B1 ... drawn as a boxed digit in Hancom's PDFs; U+F02FB as ►.
    assert "1\u20de 공정거래위원회" in text
    assert "►내부신고의 접수" in text
    assert not any(0xF0000 <= ord(c) for c in text)
