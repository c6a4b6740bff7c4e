"""The compare pack through an in-process MCP client: a copy of a real form edited in its section
XML (a syllable, a cell, a row, a paragraph) compared with the original in each view; paging by
change with the exact next call; both documents through every source kind and the path policy;
one password for both; and one call from the shell (`rhwp-mcp call`)."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_support import require_shared
from rhwp_mcp_host.testing import PackSession, pack_session

import rhwp_core
import rhwp_mcp_tools_compare as pack

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
IRB = FIXTURES / "hwpx" / "pyhwpx-irb_form_filled.hwpx"


def edited(source: Path, target: Path, *replacements: tuple[str, str]) -> Path:
    """A copy of the HWPX ``source`` at ``target`` with its section XML edited (each replacement
    made exactly once)."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "Contents/section0.xml":
                xml = data.decode("utf-8")
                for old, new in replacements:
                    assert xml.count(old) == 1, old
                    xml = xml.replace(old, new)
                data = xml.encode("utf-8")
            zout.writestr(item, data)
    return target


ROW = "<hp:tr>\n      <hp:tc>\n        <hp:p><hp:run><hp:t>소속기관</hp:t>"


@pytest.fixture(scope="module")
def revised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The IRB form revised: a syllable of the title, a cell, a paragraph added, a row deleted."""
    xml = zipfile.ZipFile(IRB).read("Contents/section0.xml").decode("utf-8")
    start = xml.index(ROW)
    row = xml[start : xml.index("</hp:tr>", start) + len("</hp:tr>")]
    return edited(
        IRB,
        tmp_path_factory.mktemp("compare") / "irb-revised.hwpx",
        ("승인신청용", "승인신청서"),
        ("<hp:t>홍길동</hp:t>", "<hp:t>홍길순</hp:t>"),
        ('<hp:tbl rowCnt="4"', '<hp:p><hp:run><hp:t>제출일: 2024년 2월 1일</hp:t></hp:run></hp:p><hp:tbl rowCnt="4"'),
        (row, ""),
        ('rowCnt="5"', 'rowCnt="4"'),
    )


@pytest.fixture(scope="module")
def session() -> Iterator[PackSession]:
    with pack_session(pack) as s:
        yield s


def test_the_library_finds_each_edit_once(revised: Path) -> None:
    result = rhwp_core.compare(IRB, revised)
    kinds = [(c.kind, (c.new or c.old).address.kind) for c in result.changes]  # type: ignore[union-attr]
    assert kinds == [("modified", "paragraph"), ("modified", "table"), ("inserted", "paragraph")], kinds
    title, table, added = result.changes
    assert [(s.op, s.text) for s in title.diff.spans if s.op != "equal"] == [("delete", "용"), ("insert", "서")]  # type: ignore[union-attr]
    diff = table.diff.table  # type: ignore[union-attr]
    assert diff is not None
    assert [(c.old.row, c.old.col, c.new.text) for c in diff.cells] == [(1, 1, "홍길순")]  # type: ignore[union-attr]
    assert [(line.index, line.cells) for line in diff.rows_deleted] == [(2, ["소속기관", "서울대학교 의과대학"])]
    assert diff.cells[0].new.row_cells == ["연구책임자", "홍길순"]  # type: ignore[union-attr]
    assert added.new is not None and added.new.text == "제출일: 2024년 2월 1일"
    # The address is the one iter_blocks takes.
    block = list(rhwp_core.parse(revised).iter_blocks())[added.new.address.block]
    assert getattr(block, "text", None) == "제출일: 2024년 2월 1일"
    assert result.summary.unchanged == 2 and result.summary.modified == 2 and result.summary.inserted == 1


def test_summary_counts_then_a_line_per_change(session: PackSession, revised: Path) -> None:
    text = session.call("compare_documents", old=str(IRB), new=str(revised))
    assert "3 changes: modified 2, inserted 1; 2 blocks unchanged" in text
    assert "승인신청[-용-]{+서+})" in text
    assert "rows deleted 3" in text and "(2,2) 홍길[-동-]{+순+}" in text
    assert "inserted paragraph #2" in text and "next:" not in text


def test_table_is_a_gfm_sinkyu_table_with_marks(session: PackSession, revised: Path) -> None:
    text = session.call("compare_documents", old=str(IRB), new=str(revised), format="table")
    assert "| 현행 | 개정 |\n|---|---|" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "현행" not in line]
    assert len(rows) == 4, rows
    # Every row has exactly two cells (no unescaped pipe inside).
    assert all(len(re.findall(r"(?<!\\)\|", row)) == 3 for row in rows), rows
    assert "승인신청<del>용</del>" in rows[0] and "승인신청<ins>서</ins>" in rows[0]
    assert "표 2행: 연구책임자 · 홍길<del>동</del>" in rows[1] and "표 2행: 연구책임자 · 홍길<ins>순</ins>" in rows[1]
    assert "<del>소속기관 · 서울대학교 의과대학</del>" in rows[2] and rows[2].endswith("| (삭제) |")
    assert rows[3].startswith("| (신설) |") and "제출일: 2024년 2월 1일" in rows[3]


def test_json_has_the_contract_shape(session: PackSession, revised: Path) -> None:
    raw = session.call("compare_documents", old=str(IRB), new=str(revised), format="json")
    data = json.loads(raw)
    assert set(data) == {"summary", "changes", "total", "next_offset"}
    assert data["total"] == 3 and data["next_offset"] is None
    first = data["changes"][0]
    assert set(first) == {"kind", "old", "new", "diff"}
    assert first["old"]["address"]["block"] == 0 and first["new"]["address"]["text_offset"] == 15
    assert {"op": "insert", "text": "서"} in first["diff"]["spans"]
    assert data["summary"]["pictures_compared_by"] == "content"


def test_paged_by_change_with_the_exact_next_call(session: PackSession, revised: Path) -> None:
    first = session.call("compare_documents", old=str(IRB), new=str(revised), format="table", limit=1)
    last = first.splitlines()[-1]
    call = f'compare_documents(old="{IRB}", new="{revised}", format="table", limit=1, offset=1)'
    assert last == f"[cut at change 1 of 3; next: {call}]"
    second = session.call("compare_documents", old=str(IRB), new=str(revised), format="table", limit=1, offset=1)
    assert "홍길<ins>순</ins>" in second and "승인신청" not in second
    page = json.loads(session.call("compare_documents", old=str(IRB), new=str(revised), format="json", limit=2))
    assert (len(page["changes"]), page["next_offset"]) == (2, 2)
    past = session.call("compare_documents", old=str(IRB), new=str(revised), offset=9)
    assert past["error"] == "invalid_input"


def test_a_small_cap_cuts_between_changes_never_beyond_it(revised: Path) -> None:
    with pack_session(pack, max_chars=1000) as s:
        text = s.call("compare_documents", old=str(IRB), new=str(revised), format="table", limit=200)
    body, _, trailer = text.rpartition("\n")
    assert len(body) <= 1000 and trailer.startswith("[cut at change ")


def test_both_documents_take_every_source_and_the_root_policy(tmp_path: Path, revised: Path) -> None:
    uri = "data:application/octet-stream;base64," + base64.b64encode(IRB.read_bytes()).decode()
    with pack_session(pack, roots=[revised.parent]) as s:
        # old as a data: URI, new as a path under the root.
        text = s.call("compare_documents", old=uri, new=str(revised))
        assert "3 changes" in text
        # A path outside the root, on either side, is refused.
        for old, new in ((str(IRB), str(revised)), (str(revised), str(IRB))):
            refused = s.call("compare_documents", old=old, new=new)
            assert refused["error"] == "permission_denied", refused


def test_a_document_against_itself_and_its_twin_in_another_format(session: PackSession) -> None:
    pairs = FIXTURES / "pairs"
    for old, new in (
        (IRB, IRB),
        (pairs / "rhwp-chart-clustered-column.hwp", pairs / "rhwp-chart-clustered-column.hwpx"),
    ):
        text = session.call("compare_documents", old=str(old), new=str(new), format="table")
        assert "0 changes: none" in text and "No change" in text, text


def test_one_password_opens_both(session: PackSession) -> None:
    corpus = require_shared() / "corpus"
    file, password = (corpus / "encrypted" / "PASSWORDS.tsv").read_text(encoding="utf-8").splitlines()[1].split("\t")
    locked, twin = corpus / "encrypted" / file, corpus / "encrypted" / "twins" / file
    refused = session.call("compare_documents", old=str(locked), new=str(twin))
    assert refused["error"] == "password_required"
    text = session.call("compare_documents", old=str(locked), new=str(locked), password=password)
    assert "0 changes" in text and password not in text.replace(file, "")  # the file is named after it
    text = session.call("compare_documents", old=str(locked), new=str(twin), password=password)
    assert "0 changes" in text


def test_pages_compare_a_range_of_each(session: PackSession) -> None:
    # A paged document against itself: a page compares fewer blocks, none changed.
    footnotes = str(FIXTURES / "hwpx" / "rhwp-footnote-01.hwpx")
    whole = json.loads(session.call("compare_documents", old=footnotes, new=footnotes, format="json"))
    page = json.loads(session.call("compare_documents", old=footnotes, new=footnotes, format="json", pages="1"))
    assert page["total"] == 0 and 0 < page["summary"]["unchanged"] < whole["summary"]["unchanged"]
    # A document without page information says so.
    refused = session.call("compare_documents", old=str(IRB), new=str(IRB), pages="1")
    assert refused["error"] == "invalid_input", refused


@pytest.mark.parametrize("named", [True, False], ids=["old=A new=B", "A B"])
def test_from_the_shell(revised: Path, named: bool) -> None:
    # Named, or bare documents filling old, then new.
    documents = [f"old={IRB}", f"new={revised}"] if named else [str(IRB), str(revised)]
    done = subprocess.run(
        [sys.executable, "-m", "rhwp_mcp_host", "call", "compare_documents", *documents],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "3 changes: modified 2, inserted 1" in done.stdout


def test_the_tool_schema_types_both_documents_as_paths(session: PackSession) -> None:
    (tool,) = [t for t in session.list_tools() if t.name == "compare_documents"]
    props: dict[str, Any] = tool.input_schema["properties"]
    assert {"old", "new", "format", "scope", "pages", "offset", "limit", "password"} <= set(props)
    assert props["limit"]["maximum"] == 200
    assert tool.output_schema is None


def test_a_change_too_large_for_the_cap_is_shortened_saying_how(tmp_path: Path) -> None:
    # Every long cell of the second table rewritten: one table change, larger than the cap.
    xml = zipfile.ZipFile(IRB).read("Contents/section0.xml").decode("utf-8")
    texts = re.findall(r"<hp:t>([^<]{30,})</hp:t>", xml)
    new = edited(IRB, tmp_path / "rewritten.hwpx", *((t, t[::-1]) for t in texts))
    with pack_session(pack, max_chars=1500) as s:
        data = json.loads(s.call("compare_documents", old=str(IRB), new=str(new), format="json", limit=1))
        (change,) = data["changes"]
        assert "iter_blocks(path=" in change["cut"] and change["diff"]["table"]["cells_total"] >= 2
        assert len(json.dumps(data, ensure_ascii=False)) <= 1500
        text = s.call("compare_documents", old=str(IRB), new=str(new), format="table", limit=1)
        assert "its blocks whole: iter_blocks(path=" in text
