"""Ruby text (덧말): small text set above or below its base text.

Kept in the paragraph text right after its base, in parentheses (`본말(덧말)`; the rule is
`rhwp_reader::text::push_ruby`), so the text, every view, the chunks and search all hold every
word of both. HWPX stores it as `dutmal` (`mainText`, `subText`), HWP 5.0 as the `tdut` control
(synthetic tests in the reader crate); HWP 3.x has no ruby text.
"""

from __future__ import annotations

from pathlib import Path

from rhwp_core_test_support import parse_html_strictly

import rhwp_core

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hwpx" / "hwpxlib-SimpleDutmal.hwpx"


def test_hwpx_ruby_text_is_kept_beside_its_base() -> None:
    doc = rhwp_core.parse(FIXTURE)
    assert doc.extract_text() == "테스트_본말(테스트_닷말)"
    markdown = doc.to_markdown()
    html = doc.to_html()
    parse_html_strictly(html)
    # Markdown escapes the underscores.
    for view in (markdown.replace("\\_", "_"), html):
        assert "테스트_본말(테스트_닷말)" in view
    (para,) = [b for b in doc.iter_blocks() if b.kind == "paragraph"]
    assert para.text == "테스트_본말(테스트_닷말)"
