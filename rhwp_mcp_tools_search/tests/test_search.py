"""The search pack: the matcher's rules on strings, then the tool on every corpus document through
an in-process MCP client (rhwp_mcp_host.testing) checked against the other tools' own outputs, and
one call over the real stdio server."""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import regex
from corpus_support import SHARED
from rhwp_core.navigation import block_plain_text
from rhwp_mcp_host.testing import PackSession, pack_session

import rhwp_core
import rhwp_mcp_tools_core
import rhwp_mcp_tools_search as pack
from rhwp_mcp_host import ToolFailure

KWATER = "hwpx/rhwp-kwater-rfp-2004.hwpx"


def _find(text: str, query: str, *, is_regex: bool = False, case_sensitive: bool = False) -> list[str]:
    """What the matcher finds in ``text``: the original text of each hit."""
    folded = pack.fold(text)
    pattern = pack.compile_query(query, is_regex=is_regex, case_sensitive=case_sensitive)
    haystack = text if is_regex else folded.folded
    starts, ends = pack.find(pattern, haystack, 0, len(haystack), overlapped=not is_regex)
    spans = zip(starts, ends, strict=True)
    return [text[s:e] for s, e in (spans if is_regex else (folded.to_text(s, e) for s, e in spans))]


# -- the matcher ----------------------------------------------------------------------------------


def test_nfc_both_ways() -> None:
    composed, conjoining = "한글", "\u1112\u1161\u11ab\u1100\u1173\u11af"  # 한글 as old-style jamo
    assert _find(f"가 {conjoining} 나", "한글") == [conjoining]
    assert _find(f"가 {composed} 나", conjoining) == [composed]
    assert _find("\uf967 compatibility", "\u4e0d") == ["\uf967"]  # CJK compatibility ideograph → NFC


def test_full_width_forms() -> None:
    assert _find("번호 ＡＢＣ１２３ 끝", "abc123") == ["ＡＢＣ１２３"]
    assert _find("번호 ABC123 끝", "ＡＢＣ１２３") == ["ABC123"]
    assert _find("가\u3000나 A\u3000B", "A B") == ["A\u3000B"]


def test_whitespace_runs_match_any_whitespace() -> None:
    assert _find("alpha \t beta", "alpha beta") == ["alpha \t beta"]
    assert _find("alpha\nbeta", "alpha   beta") == ["alpha\nbeta"]
    assert _find("alphabeta", "alpha beta") == []  # between Latin letters the space is a word break
    assert _find("  사업명  ", "  사업명 ") == ["사업명"]  # the query's ends are trimmed


def test_spaced_out_hangul_both_ways() -> None:
    assert _find("1. 사  업  명 : 댐 관리", "사업명") == ["사  업  명"]
    assert _find("사업명: 댐", "사 업 명") == ["사업명"]
    assert _find("제안요청서 및 제안 요청서", "제안 요청서") == ["제안요청서", "제안 요청서"]
    assert _find("사업\n명", "사업명") == []  # a line break is a new paragraph, not a spaced word
    assert _find("사업\n명", "사업 명") == ["사업\n명"]  # unless the query has whitespace there


def test_case_insensitive_unless_asked() -> None:
    assert _find("Seoul SEOUL seoul", "seoul") == ["Seoul", "SEOUL", "seoul"]
    assert _find("Seoul SEOUL seoul", "SEOUL", case_sensitive=True) == ["SEOUL"]
    assert _find("Ｓｅｏｕｌ", "SEOUL") == ["Ｓｅｏｕｌ"]


def test_literal_hits_overlap_like_a_substring_scan() -> None:
    assert _find("aaaa", "aa") == ["aa", "aa", "aa"]
    assert _find("a.b a*b", "a.b") == ["a.b"]  # literal: no metacharacters


def test_regex_mode_and_its_errors() -> None:
    assert _find("제1조 제 2 조 제3항", r"제\s*\d+\s*조", is_regex=True) == ["제1조", "제 2 조"]
    assert _find("xyz", "y*", is_regex=True) == ["y"]  # empty matches are no hits
    with pytest.raises(ToolFailure) as bad:
        pack.compile_query("ab(cd", is_regex=True, case_sensitive=False)
    assert bad.value.code == "invalid_input" and "position 5" in bad.value.message
    with pytest.raises(ToolFailure) as empty:
        pack.compile_query(" \t", is_regex=False, case_sensitive=False)
    assert empty.value.code == "invalid_input"


def test_catastrophic_backtracking_stops_at_the_bound() -> None:
    text = "a" * 40_000 + "!"
    pattern = pack.compile_query(r"(a+)+$", is_regex=True, case_sensitive=True)
    started = time.monotonic()
    with pytest.raises(ToolFailure) as stopped:
        pack.find(pattern, text, 0, len(text), overlapped=False)
    assert stopped.value.code == "too_large" and "pattern" in stopped.value.suggestion
    assert time.monotonic() - started < 10 * pack.TIMEOUT_SECONDS


def test_markdown_pattern_allows_escapes_and_emphasis() -> None:
    pattern = regex.compile(pack._markdown_pattern("우리는 수학 a_b"))
    assert pattern.search("우리는 *수학* a\\_b")
    assert pattern.search("우리는<br>수학 a_b")


# -- the tool on the corpus -------------------------------------------------------------------------


def _corpus() -> list[str]:
    if SHARED is None:
        return []
    root = SHARED / "corpus"
    return [
        f"{folder}/{p.name}"
        for folder in ("hwp", "hwpx", "legacy-hwp3")
        for p in sorted((root / folder).iterdir())
        if p.is_file()
    ]


@pytest.fixture(scope="module")
def session() -> Iterator[PackSession]:
    with pack_session(rhwp_mcp_tools_core, pack) as s:
        yield s


def _path(name: str, corpus_dir: Path) -> str:
    return str(corpus_dir / name)


def _samples(text: str, seed: str, count: int = 6) -> list[str]:
    """Substrings of the text a reader might search for: no line break, no space at either end."""
    rnd = random.Random(seed)
    out: list[str] = []
    for _ in range(count * 4):
        if len(text) < 8 or len(out) == count:
            break
        start = rnd.randrange(len(text) - 3)
        sample = text[start : start + rnd.randint(3, 14)]
        if "\n" not in sample and sample == sample.strip() and len(sample) >= 2:
            out.append(sample)
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("name", _corpus())
def test_hits_land_in_every_view(name: str, corpus_dir: Path, session: PackSession) -> None:
    path = _path(name, corpus_dir)
    try:
        doc = rhwp_core.load(path)
        text = doc.extract_text()
    except rhwp_core.HwpError as e:  # the encrypted and broken documents of the corpus
        assert session.call("search", path=path, query="가")["error"] == e.code
        return
    markdown = doc.to_markdown()
    blocks = list(doc.iter_blocks(scope="all"))
    body_blocks = len(list(doc.iter_blocks(scope="body")))
    places = {(p.scope, p.block): p for p in doc.places(include_furniture=True)}
    index = pack.index_of(doc)
    for query in _samples(text, name):
        # Every occurrence a plain substring scan finds (overlapping ones too) is a hit.
        plain, at = [], text.find(query)
        while at >= 0:
            plain.append(at)
            at = text.find(query, at + 1)
        found = pack.spans(index, query, case_sensitive=True, scope="all")
        assert set(plain) <= {s for s, _, _ in found}, (name, query)
        page = session.call("search", path=path, query=query, case_sensitive=True, scope="all", limit=50)
        assert page["total"] == len(found) and page["hits"], (name, query, page)
        for hit in page["hits"]:
            match = hit["match"]
            # extract_text(offset=text_offset) starts at the hit.
            assert text.startswith(match, hit["text_offset"]), (name, query, hit)
            # iter_blocks(scope="all", offset=block)'s first block holds it (its start, when a space
            # of the query matched the line break between two blocks).
            shown = block_plain_text(blocks[hit["block"]])
            if hit["block"] >= body_blocks:  # a memo shows its label before its first block's text
                shown += "\n" + places["furniture", hit["block"] - body_blocks].text
            assert match.split("\n")[0] in shown, (name, query, hit)
            if hit["scope"] == "furniture":
                assert hit["block"] >= body_blocks and hit["markdown_offset"] is None
                continue
            # to_markdown()[markdown_offset:] starts at the hit (escapes allowed) or at its block.
            offset = hit["markdown_offset"]
            exact = regex.compile(pack._markdown_pattern(match)).match(markdown, offset)
            assert exact or offset == places["body", hit["block"]].markdown_offset, (name, query, hit)


def test_addresses_agree_with_the_core_tools(corpus_dir: Path, session: PackSession) -> None:
    path = _path(KWATER, corpus_dir)
    outline = session.call("parse_hwp_summary", path=path)["outline"]
    result = session.call("search", path=path, query="사업명", limit=50)
    assert result["total"] >= 3 and any(h["match"] == "사  업  명" for h in result["hits"])
    for hit in result["hits"]:
        text = session.call("extract_text", path=path, offset=hit["text_offset"], max_chars=50)
        assert text.startswith(hit["match"])
        first = session.call("iter_blocks", path=path, offset=hit["block"], limit=1)["blocks"][0]
        assert hit["match"] in json.dumps(first, ensure_ascii=False) or first["kind"] == "table"
        # The heading path is the outline's chain above the hit's block.
        chain: list[dict[str, Any]] = []
        for heading in outline:
            if heading["block"] > hit["block"]:
                break
            while chain and chain[-1]["level"] >= heading["level"]:
                chain.pop()
            chain.append(heading)
        assert hit["heading_path"] == [h["text"] for h in chain]
        assert hit["snippet"].count("**") == 2


def test_pages_scope_and_paging(corpus_dir: Path, session: PackSession) -> None:
    path = _path(KWATER, corpus_dir)
    everything = session.call("search", path=path, query="제안", limit=200)
    on_page = session.call("search", path=path, query="제안", pages="5-6", limit=200)
    assert on_page["total"] == sum(1 for h in everything["hits"] if h["page"] in (5, 6)) > 0
    assert session.call("search", path=path, query="제안", pages="0-x")["error"] == "invalid_input"
    first = session.call("search", path=path, query="제안", limit=5)
    second = session.call("search", path=path, query="제안", limit=5, offset=first["next_offset"])
    assert first["hits"] + second["hits"] == everything["hits"][:10]
    assert session.call("search", path=path, query="제안", limit=5) == first  # deterministic
    with pack_session(pack, max_chars=3000) as small:
        page = small.call("search", path=path, query="제안", limit=200)
        assert 0 < len(page["hits"]) < 200 and page["next_offset"] == len(page["hits"])


def test_no_hit_says_so_and_suggests_headings(corpus_dir: Path, session: PackSession) -> None:
    result = session.call("search", path=_path(KWATER, corpus_dir), query="일반사항 규정 없음qq")
    assert result["total"] == 0 and result["hits"] == [] and "no hit" in result["message"]
    assert result["suggestions"] and "일반사항" in result["suggestions"][0]["text"].replace(" ", "")


def test_bad_regex_through_the_tool(corpus_dir: Path, session: PackSession) -> None:
    error = session.call("search", path=_path(KWATER, corpus_dir), query="(제안", regex=True)
    assert error["error"] == "invalid_input" and "position" in error["message"]
    assert session.call("search", path=_path(KWATER, corpus_dir), query="")["error"] == "invalid_input"


def test_output_schema_is_declared(session: PackSession) -> None:
    tool = next(t for t in session.list_tools() if t.name == "search")
    # mcp 2.x spells it output_schema, 1.x outputSchema.
    schema = getattr(tool, "output_schema", None) or getattr(tool, "outputSchema", None)
    assert schema is not None and "hits" in json.dumps(schema)


@pytest.mark.e2e
def test_search_over_the_stdio_server(corpus_dir: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    script = Path(sys.executable).with_name("rhwp-mcp")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "rhwp_mcp_host"]
    params = StdioServerParameters(command=command[0], args=[*command[1:], "--enable", "search"])

    async def main() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            result = await client.call_tool("search", {"path": _path(KWATER, corpus_dir), "query": "사 업 명"})
            assert not result.is_error  # (isError is deprecated: reading it warns)
            payload: dict[str, Any] = json.loads(result.content[0].text)  # type: ignore[union-attr]
            return payload

    payload = anyio.run(main)
    assert payload["total"] >= 3 and payload["hits"][0]["heading_path"]
