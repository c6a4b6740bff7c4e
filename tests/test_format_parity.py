"""One document saved as both .hwp and .hwpx reads the same (issue: HWPX reader).

The corpus holds one such pair, made by the rhwp authors in Hancom Office 2022
(`rhwp-chart-clustered-column`, MIT): a page holding one chart. Text, section layout, page
count and the sequence of blocks must agree, down to the object's name: the HWPX package names
it a chart (its `switch` offers an OOXML chart first, the OLE object as fallback); the HWP file
stores only the OLE object, which the reader recognises as a chart by the `OOXMLChartContents`
stream inside it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus_support import require_shared

import rhwp_core

PAIRS = ["rhwp-chart-clustered-column"]


def _shape(blocks: list[dict[str, Any]]) -> list[Any]:
    out: list[Any] = []
    for b in blocks:
        if b["kind"] == "table":
            out.append(("table", b["rows"], b["cols"], [_shape(c["blocks"]) for c in b["cells"]]))
        elif b["kind"] == "paragraph":
            out.append(("paragraph", b["text"], b["heading_level"]))
        elif b["kind"] == "unknown":
            out.append(("unknown", b["object"], b["provenance"]["page"]))
        else:
            out.append((b["kind"], b["provenance"]["page"]))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("name", PAIRS)
def test_hwp_and_hwpx_of_one_document_agree(name: str) -> None:
    corpus = require_shared() / "corpus"
    hwp = rhwp_core.parse(corpus / "hwp" / f"{name}.hwp")
    hwpx = rhwp_core.parse(corpus / "hwpx" / f"{name}.hwpx")
    assert hwp.extract_text() == hwpx.extract_text()
    a, b = json.loads(hwp.to_json()), json.loads(hwpx.to_json())
    assert [s["page"] for s in a["sections"]] == [s["page"] for s in b["sections"]]
    assert [s["columns"] for s in a["sections"]] == [s["columns"] for s in b["sections"]]
    assert a["pages"] == b["pages"]
    assert [_shape(s["blocks"]) for s in a["sections"]] == [_shape(s["blocks"]) for s in b["sections"]]
    assert len(a["bin_data"]) == len(b["bin_data"])
    sa, sb = hwp.summary(), hwpx.summary()
    for key in ("sections", "paragraphs", "tables", "pictures", "equations", "shapes", "other_objects", "pages"):
        assert sa[key] == sb[key], key
