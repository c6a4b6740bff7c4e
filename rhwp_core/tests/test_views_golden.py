"""Golden files: the text, IR, Markdown and HTML of every document in tests/fixtures/{hwp,hwpx}.

Each fixture's outputs are compared with rhwp_core/tests/golden/<file name>.txt / .ir.json / .md / .html
(the IR of fixtures over 100 kB of JSON is left out to keep the repository small).
Regenerate them after an intended change with

    RHWP_UPDATE_GOLDEN=1 pytest rhwp_core/tests/test_views_golden.py

and review the diff. Every fixture must read.
Independently of the golden copies, each view must keep every word of ``extract_text``
(bigram recall >= 0.99), keep every table, and (HTML) parse strictly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from rhwp_core.ir import iter_blocks
from rhwp_core_test_support import parse_html_strictly, recall

import rhwp_core

REPO = Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for kind in ("hwp", "hwpx") for p in (REPO / "tests" / "fixtures" / kind).glob(f"*.{kind}"))
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("RHWP_UPDATE_GOLDEN") == "1"
MD = MarkdownIt("commonmark").enable("table")


def read(path: Path) -> rhwp_core.Document:
    return rhwp_core.parse(path, strict=True)


def check_golden(name: str, actual: str) -> None:
    golden = GOLDEN / name
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8", newline="\n")
        return
    if not golden.exists():
        pytest.fail(f"no golden file {golden.name}: run with RHWP_UPDATE_GOLDEN=1 and review it")
    assert actual == golden.read_text(encoding="utf-8"), f"{golden.name} differs (RHWP_UPDATE_GOLDEN=1 to accept)"


def test_there_are_fixtures() -> None:
    assert FIXTURES, "tests/fixtures/{hwp,hwpx} is empty"


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_text(path: Path) -> None:
    doc = read(path)
    check_golden(f"{path.name}.txt", doc.extract_text() + "\n")


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_ir(path: Path) -> None:
    doc = read(path)
    ir = doc.to_ir()
    dumped = json.dumps(ir.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"
    if len(dumped) > 100_000:
        pytest.skip(f"{path.name}: IR of {len(dumped)} characters is not kept as a golden file")
    # The IR is exactly the native model's JSON, validated.
    assert ir.model_dump(mode="json") == json.loads(doc.to_json())
    check_golden(f"{path.name}.ir.json", dumped)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_markdown(path: Path) -> None:
    doc = read(path)
    markdown = doc.to_markdown()
    text = doc.extract_text(include_furniture=False)
    assert recall(text, markdown) >= 0.99
    tables = sum(1 for t in MD.parse(markdown) if t.type == "table_open")
    tables += sum(t.content.count("<table") for t in MD.parse(markdown) if t.type == "html_block")
    ir = doc.to_ir()
    # Foot/endnotes are always rendered (page headers/footers only on request): count their tables too.
    assert tables == len(list(iter_blocks(ir, kind="table"))) + _note_table_count(ir)
    check_golden(f"{path.name}.md", markdown)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_html(path: Path) -> None:
    doc = read(path)
    out = doc.to_html()
    tree = parse_html_strictly(out)
    body_text = "".join(tree.find("body").itertext())
    assert recall(doc.extract_text(include_furniture=False), body_text) >= 0.99
    with_furniture = "".join(parse_html_strictly(doc.to_html(include_furniture=True)).find("body").itertext())
    assert recall(doc.extract_text(include_furniture=True), with_furniture) >= 0.99
    check_golden(f"{path.name}.html", out)


def _note_table_count(ir: rhwp_core.ir.HwpDocument) -> int:
    count = 0
    stack = [block for f in ir.furniture if f.kind in ("footnote", "endnote") for block in f.blocks]
    while stack:
        block = stack.pop()
        count += block.kind == "table"
        stack.extend(rhwp_core.ir.child_blocks(block))
    return count
