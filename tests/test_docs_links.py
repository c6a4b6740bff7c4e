"""Every relative link in the README and the pages it sends readers to reaches a file and, when it
names one, a heading of that file (anchors made as GitHub makes them)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "benches" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^(```|~~~)")
_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)\)")
_CODE_SPAN = re.compile(r"`+[^`]*`+")


def _prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, inline code removed (a link there is an example)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(_CODE_SPAN.sub("", line))
    return lines


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, only letters, marks, digits, `_`, `-` and spaces
    kept, spaces made hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading).strip().lower()
    kept = (c for c in text if c in " -" or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc")
    return "".join(kept).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not heading:
            continue
        slug = _slug(heading.group(1))
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        found.add(slug if seen == 0 else f"{slug}-{seen}")
    return found


def _links(page: Path) -> list[str]:
    return [m.group(1) for line in _prose_lines(page.read_text(encoding="utf-8")) for m in _LINK.finditer(line)]


def test_the_slugs_are_githubs() -> None:
    assert _slug("`rhwp-mcp setup`: add the server to a client") == "rhwp-mcp-setup-add-the-server-to-a-client"
    assert _slug("HWP — parse + full text") == "hwp--parse--full-text"
    assert _slug("HWP 3.x, measured on 2026-11-25, 19:49") == "hwp-3x-measured-on-2026-11-25-1949"


def test_every_page_has_links() -> None:
    # A parser that finds nothing would pass the test below on any page.
    assert all(_links(page) for page in PAGES if page.name != "batch.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    broken = []
    for target in _links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no {file.relative_to(ROOT) if file.is_relative_to(ROOT) else file}")
        elif anchor and (file.suffix != ".md" or anchor not in _anchors(file)):
            broken.append(f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}")
    assert not broken, broken
