"""Filled forms read back by readers that are not ours, and checked against the OWPML schema.

- hwpxlib and hwplib (neolord0's Java readers, Apache-2.0) read the filled HWPX and HWP 5.0
  copies through ``tests/readback/FillCheck.java``: every value is in hwpxlib's text, every HWP
  click-here value is what hwplib's field finder gives for that name, every filled HWP cell is
  what hwplib reads in it (paragraph count and last-paragraph bits consistent). Set-up:
  ``mvn dependency:get -Dartifact=kr.dogfoot:hwpxlib:1.0.8 -Dtransitive=false`` and
  ``... kr.dogfoot:hwplib:1.1.10 ...`` (they land in ``~/.m2``; or name the jars in
  ``RHWP_HWPLIB_CLASSPATH``), and Java 17.
- python-hwpx's OWPML schema validator (``hwpx-validate``, PyPI ``python-hwpx``; install it in a
  venv of its own and put it on PATH or in ``RHWP_HWPX_VALIDATE``) reports nothing on a filled
  copy that it did not report on the blank.

Without the tools the tests are skipped, saying which is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from corpus_support import FIXTURES, ROOT
from rhwp_core.filling import fill

import rhwp_core

FORMS = FIXTURES / "forms"
CHECK = ROOT / "tests" / "readback" / "FillCheck.java"


def _classpath() -> str | None:
    given = os.environ.get("RHWP_HWPLIB_CLASSPATH")
    if given:
        return given
    m2 = Path.home() / ".m2" / "repository" / "kr" / "dogfoot"
    jars = [*sorted(m2.glob("hwpxlib/*/hwpxlib-*.jar")), *sorted(m2.glob("hwplib/*/hwplib-*.jar"))]
    has_both = any("hwpxlib" in j.name for j in jars) and any(j.name.startswith("hwplib") for j in jars)
    return os.pathsep.join(str(j) for j in jars) if has_both else None


def _java(*args: str) -> str:
    classpath = _classpath()
    if shutil.which("java") is None or classpath is None:
        pytest.skip("java and the hwpxlib/hwplib jars are needed (see the module notes)")
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
    found = os.environ.get("RHWP_HWPX_VALIDATE") or shutil.which("hwpx-validate")
    if not found:
        pytest.skip("python-hwpx's hwpx-validate is needed (see the module notes)")
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
