"""Filled forms read back by readers that are not ours, and checked against the OWPML schema.

- hwpxlib and hwplib (neolord0's Java readers, Apache-2.0) read the filled HWPX and HWP 5.0
  copies through ``tests/readback/FillCheck.java``: every value is in hwpxlib's text, every HWP
  click-here value is what hwplib's field finder gives for that name, every filled HWP cell is
  what hwplib reads in it (paragraph count and last-paragraph bits consistent). Set-up:
  ``mvn dependency:get -Dartifact=kr.dogfoot:hwpxlib:1.0.8 -Dtransitive=false`` and
  ``... kr.dogfoot:hwplib:1.1.10 ...`` (they land in ``~/.m2``; ``./dev test`` fetches both into
  ``.cache/readback/``; or name the jars in ``RHWP_HWPLIB_CLASSPATH``), and Java 17.
- kordoc (npm ``kordoc``, MIT; JavaScript) reads the filled HWPX and HWP 5.0 copies through
  ``tests/readback/kordoc_text.mjs``: every value is in kordoc's text, and kordoc's text of the
  blank and of the filled copy differ only where a field was filled. ``./dev test`` installs the
  pinned version into ``.cache/kordoc`` (or name the folder in ``RHWP_KORDOC_DIR``); it runs on the
  machine's Node (>= 18).
- python-hwpx's OWPML schema validator (``hwpx-validate``, PyPI ``python-hwpx``, Apache-2.0, in the
  dev dependency group; found beside the running Python, on PATH or in ``RHWP_HWPX_VALIDATE``)
  reports nothing on a filled copy that it did not report on the blank.

Without the tools the tests are skipped, saying which is missing; in CI (``CI`` set) a missing kordoc,
validator or (where Java is) hwpxlib/hwplib jar is a failure.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from corpus_support import FIXTURES, ROOT
from rhwp_core.filling import fill

import rhwp_core

FORMS = FIXTURES / "forms"
CHECK = ROOT / "tests" / "readback" / "FillCheck.java"
KORDOC_DIR = Path(os.environ.get("RHWP_KORDOC_DIR", ROOT / ".cache" / "kordoc"))
KORDOC_INDEX = KORDOC_DIR / "node_modules" / "kordoc" / "dist" / "index.js"
KORDOC_TEXT = ROOT / "tests" / "readback" / "kordoc_text.mjs"


def _missing(message: str) -> NoReturn:
    """A missing independent reader fails in CI (it must run there) and skips elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _classpath() -> str | None:
    given = os.environ.get("RHWP_HWPLIB_CLASSPATH")
    if given:
        return given
    # Where ./dev test fetches them, else Maven's local repository.
    fetched = ROOT / ".cache" / "readback"
    m2 = Path.home() / ".m2" / "repository" / "kr" / "dogfoot"
    jars = [*sorted(fetched.glob("hwpxlib-*.jar")), *sorted(fetched.glob("hwplib-*.jar"))] or [
        *sorted(m2.glob("hwpxlib/*/hwpxlib-*.jar")),
        *sorted(m2.glob("hwplib/*/hwplib-*.jar")),
    ]
    has_both = any("hwpxlib" in j.name for j in jars) and any(j.name.startswith("hwplib") for j in jars)
    return os.pathsep.join(str(j) for j in jars) if has_both else None


def _java(*args: str) -> str:
    classpath = _classpath()
    if shutil.which("java") is None:
        pytest.skip("java (17 or later) is needed for the hwpxlib/hwplib read-back (see the module notes)")
    if classpath is None:
        _missing("the hwpxlib/hwplib jars are needed: ./dev test fetches them (see the module notes)")
    done = subprocess.run(
        ["java", "-Dstdout.encoding=UTF-8", "-cp", classpath, str(CHECK), *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


HANCOM_MADE = [
    ("pyhwpx-clickhere_gold_empty.hwpx", {"NAMETEXT_THREE": "홍길동 <&> 漢字 😀"}),
    ("pyhwpx-seoul_sihaengmun.hwpx", {"본문": "첫째 문단\n둘째 문단", "제목": "새 제목 <안>", "협조1": "김협조"}),
]
# A minimal package another tool wrote (no header, a bare container.xml): hwpxlib refuses the blank
# already, so only the schema check takes it.
CASES = [*HANCOM_MADE, ("pyhwpx-irb_form_blank.hwpx", {"연구과제명": "인공지능 연구", "연구목적": "첫째\n둘째"})]


@pytest.mark.parametrize(("name", "values"), HANCOM_MADE)
def test_hwpxlib_reads_every_value(name: str, values: dict[str, str], tmp_path: Path) -> None:
    result = fill(FORMS / name, values)
    assert result.changed and result.verified
    copy = tmp_path / name
    copy.write_bytes(result.data)
    text = _java("hwpx", str(copy))
    for value in values.values():
        for line in value.split("\n"):
            assert line in text, (name, line)


def test_hwplib_reads_every_click_here_value(tmp_path: Path) -> None:
    form = FORMS / "hwplib-getting_clickhere_text.hwp"
    # No character beyond the BMP here: hwplib's text drops them (our reader keeps them, test_filling.py).
    # 멀티라인누름틀 runs over three paragraphs: its value gets a paragraph per line.
    values = {
        "필드1": "홍길동 <&> 漢字",
        "필드2": "",
        "Table필드1": "표 안의 값",
        "멀티라인누름틀": "첫째 줄\n둘째\n셋째",
    }
    result = fill(form, values)
    assert result.changed and result.verified
    copy = tmp_path / "filled.hwp"
    copy.write_bytes(result.data)
    out = _java("hwp", str(copy), *values)
    got: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line.startswith("FIELD\t"):
            _, key, value = line.split("\t", 2)
            # hwplib's finder starts a field's text with the paragraph break before it.
            got.setdefault(key, []).append(value.removeprefix("\\n"))
    # hwplib's finder joins a field's paragraphs with nothing between them (the blank's too).
    assert got == {k: [v.replace("\n", "")] for k, v in values.items()}
    assert "\n첫째 줄\n둘째\n셋째 이다\n" in out, "a paragraph per line in hwplib's text"


def _hwplib_cells(out: str) -> dict[str, list[tuple[str, int, str, str]]]:
    """hwplib's cells by their row,col chain: (name, paragraph count, last-in-list bits, text)."""
    cells: dict[str, list[tuple[str, int, str, str]]] = {}
    for line in out.splitlines():
        if line.startswith("CELL\t"):
            _, chain, name, count, last, text = line.split("\t", 5)
            cells.setdefault(chain, []).append((name, int(count), last, text.replace("\\n", "\n")))
    return cells


def test_hwplib_reads_every_filled_cell(tmp_path: Path) -> None:
    """Named and labelled cells of a government form (a table inside a cell too), one value over
    three paragraphs, one emptied: hwplib reads each as written, the list headers agree."""
    form = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"
    # hwplib's paragraph text leaves out tabs and characters beyond the BMP: none here.
    values = {"reg_nm_cnts2": "첫째 <&> 漢字\n\n셋째", "현 행": "현행 내용", "ref_cnts": ""}
    result = fill(form, values)
    assert result.changed and result.verified
    copy = tmp_path / "filled.hwp"
    copy.write_bytes(result.data)
    blank = _hwplib_cells(_java("hwp", str(form)))
    cells = _hwplib_cells(_java("hwp", str(copy)))
    assert sorted(blank) == sorted(cells)
    for f in result.plan["filled"]:
        chain = "/".join(f"{c['row']},{c['col']}" for c in f["address"]["cells"])
        lines = f["after"].split("\n")
        wanted = (len(lines), "0" * (len(lines) - 1) + "1", f["after"])
        assert wanted in [c[1:] for c in cells[chain]], (f["key"], cells[chain])
    changed = [(k, a, b) for k in blank for a, b in zip(blank[k], cells[k], strict=True) if a != b]
    assert len(changed) == 3, changed


def _validator() -> str:
    beside = Path(sys.executable).with_name("hwpx-validate")
    found = os.environ.get("RHWP_HWPX_VALIDATE") or (str(beside) if beside.exists() else shutil.which("hwpx-validate"))
    if not found:
        _missing("python-hwpx's hwpx-validate is needed (the dev dependency group installs it)")
    return found


def _findings(validator: str, path: Path) -> list[str]:
    done = subprocess.run([validator, str(path)], capture_output=True, text=True, timeout=300, check=False)
    return [line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("validated ")]


@pytest.mark.parametrize(("name", "values"), CASES)
def test_the_schema_validator_finds_nothing_new(name: str, values: dict[str, str], tmp_path: Path) -> None:
    validator = _validator()
    copy = tmp_path / name
    copy.write_bytes(fill(FORMS / name, values).data)
    blank = _findings(validator, FORMS / name)
    assert [line for line in _findings(validator, copy) if line not in blank] == []
    assert rhwp_core.parse(copy).extract_text()


def _kordoc(path: Path) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None or not KORDOC_INDEX.exists():
        _missing(f"kordoc is not installed in {KORDOC_DIR} (./dev test installs it with npm) or node is missing")
    done = subprocess.run(
        [node, str(KORDOC_TEXT), str(KORDOC_INDEX), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    read: dict[str, Any] = json.loads(done.stdout)
    return read


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _kordoc_agrees(blank: Path, values: dict[str, str], tmp_path: Path) -> int:
    """Fill ``blank``, read both with kordoc: every value's lines are in the filled text, every line
    kordoc reads in the copy and not in the blank holds a value, and every line of the blank gone
    from the copy was a filled field's text before (its value or guide). Lines are compared as
    multisets: kordoc puts a paragraph's text before the tables anchored in it, so a value written
    after a table moves in kordoc's order. Returns the number of fields filled."""
    result = fill(blank, values)
    assert result.changed and result.verified
    copy = tmp_path / f"filled{blank.suffix}"
    copy.write_bytes(result.data)
    before, after = _kordoc(blank)["lines"], _kordoc(copy)["lines"]
    filled = result.plan["filled"]
    text = "\n".join(after)
    for f in filled:
        for line in f["after"].split("\n"):
            assert line in text, (blank.name, f["key"], line)
    values_in = [_squeeze(line) for f in filled for line in f["after"].split("\n") if line.strip()]
    # What a field held before: the plan's `before`, and our reader's value and guide of the blank
    # (a field over several paragraphs holds them all).
    names = {f["name"] for f in filled}
    entries = [e for e in rhwp_core.parse(blank).form_entries() if e["name"] in names]
    held = [f["before"] for f in filled] + [e["value"] or "" for e in entries] + [e["guide"] or "" for e in entries]
    held_lines = [_squeeze(line) for h in held for line in h.split("\n") if line.strip()]
    added = Counter(_squeeze(line) for line in after) - Counter(_squeeze(line) for line in before)
    removed = Counter(_squeeze(line) for line in before) - Counter(_squeeze(line) for line in after)
    for line in (a for a in added if a):
        assert any(v in line or line in v for v in values_in), (blank.name, "added", line)
    for line in (r for r in removed if r):
        assert any(h in line or line in h for h in held_lines), (blank.name, "removed", line)
    assert sum(n for line, n in added.items() if line) <= len(values_in), (blank.name, added)
    return len(filled)


KORDOC_CASES = [
    *CASES,
    (
        "hwplib-getting_clickhere_text.hwp",
        {"필드1": "홍길동 <&> 漢字", "Table필드1": "표 안의 값", "멀티라인누름틀": "첫째 줄\n둘째"},
    ),
    ("hwpxlib-SimpleEdit.hwpx", {"Edit1": "5 < 6 & 7"}),
]


@pytest.mark.parametrize(("name", "values"), KORDOC_CASES)
def test_kordoc_reads_every_value_and_nothing_else_changed(name: str, values: dict[str, str], tmp_path: Path) -> None:
    assert _kordoc_agrees(FORMS / name, values, tmp_path) == len(values)


def test_kordoc_reads_the_filled_cells_of_a_government_form(tmp_path: Path) -> None:
    """HWP 5.0 named and labelled cells (one inside a table in a cell), a value over paragraphs."""
    form = FIXTURES / "hwp" / "rhwp-nested-cell-pagination.hwp"
    values = {"reg_nm_cnts2": "첫째 <&> 漢字\n셋째", "현 행": "현행 내용"}
    assert _kordoc_agrees(form, values, tmp_path) == 2


def _named_places(paths: list[Path]) -> Iterator[tuple[Path, list[str]]]:
    """The documents among ``paths`` that read and have named click-here fields or cells, with
    those names."""
    for path in paths:
        try:
            doc = rhwp_core.parse(path)
        except rhwp_core.HwpError:
            continue
        names = sorted({e["name"] for e in doc.form_entries() if e["kind"] in ("click_here", "cell") and e["name"]})
        if names:
            yield path, names


def test_kordoc_reads_every_field_of_the_corpus_forms(corpus_dir: Path, tmp_path: Path) -> None:
    """Every click-here field and named cell of the corpus's HWPX and HWP 5.0 forms gets a value of
    its own; kordoc finds each and no other change."""
    rng = random.Random(34)
    forms = filled = 0
    for path, names in _named_places(
        [*sorted((corpus_dir / "hwpx").glob("*.hwpx")), *sorted((corpus_dir / "hwp").glob("*.hwp"))]
    ):
        values = {n: f"값{i}-{rng.randint(1000, 9999)} <&> 漢字" for i, n in enumerate(names)}
        try:
            filled += _kordoc_agrees(path, values, tmp_path)
        except rhwp_core.UnsupportedFormatError:
            continue  # distribution documents: refused, tested apart
        forms += 1
    print(f"kordoc read back {filled} fields of {forms} corpus forms")
    assert forms >= 3 and filled >= 10, (forms, filled)


def test_the_schema_validator_finds_nothing_new_in_the_corpus_forms(corpus_dir: Path, tmp_path: Path) -> None:
    """Every click-here field and named cell of the corpus's HWPX forms gets a value (escapes and a
    line break included); the validator reports nothing on the copy it did not report on the blank."""
    validator = _validator()
    forms = 0
    for path, names in _named_places(sorted((corpus_dir / "hwpx").glob("*.hwpx"))):
        values = {n: f"값{i} <&> 漢字\n둘째 줄" for i, n in enumerate(names)}
        try:
            result = fill(path, values)
        except rhwp_core.UnsupportedFormatError:
            continue
        copy = tmp_path / path.name
        copy.write_bytes(result.data)
        blank = _findings(validator, path)
        assert [line for line in _findings(validator, copy) if line not in blank] == [], path.name
        forms += 1
    print(f"the schema validator found nothing new in {forms} filled corpus forms")
    assert forms >= 3, forms
