"""The viewer in a real browser: Debian's Chromium (never a downloaded one) driven by Playwright,
under a small host page of our own (host.html) that relays tools/call to the server through an
MCP client (rhwp_mcp_host.testing's in-memory client of the real server, every hook and cap on)."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from rhwp_mcp_host.testing import pack_session

import rhwp_core
import rhwp_mcp_tools_viewer as pack

HERE = Path(__file__).resolve().parent
PAGED = HERE.parents[1] / "tests" / "fixtures" / "hwp" / "rhwp-nested-cell-pagination.hwp"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _shown(text: str) -> str:
    """A page's text as the paper shows it: without the lines where the reader says what part of
    a table the page holds (`[table rows 1-2 of 2, continues on page 3]`), which the text has."""
    return _squash("\n".join(line for line in text.splitlines() if not re.fullmatch(r"\[table .*\]", line.strip())))


@pytest.fixture(scope="module")
def browser() -> Any:
    if not shutil.which(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (the viewer's browser test needs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _block(block: Any) -> dict[str, Any]:
    """A content block as it travels over JSON-RPC to the app."""
    if block.type == "image":
        return {"type": "image", "data": block.data, "mimeType": block.mime_type}
    return {"type": "text", "text": block.text}


def _wire(result: Any) -> dict[str, Any]:
    return {
        "content": [_block(b) for b in result.content],
        "structuredContent": result.structured_content,
        "isError": result.is_error,
    }


def _open(browser: Any, session: Any, path: Path, theme: str = "light") -> tuple[Any, Any]:
    tool_result = _wire(session.call_raw("view_document", {"path": str(path)}))
    (resource,) = session.read_resource(pack.VIEWER_URI)
    page = browser.new_page(viewport={"width": 1000, "height": 800})

    def relay(name: str, arguments: str) -> str:
        return json.dumps(_wire(session.call_raw(name, json.loads(arguments))))

    page.expose_function("mcpCall", relay)
    page.set_content((HERE / "host.html").read_text(encoding="utf-8"))
    page.evaluate(
        "([args, result, theme, html]) => { window.toolArguments = args; window.toolResult = result;"
        " window.hostTheme = theme; window.startViewer(html); }",
        [{"path": str(path)}, tool_result, theme, resource.text],
    )
    frame = page.frame_locator("#app")
    return page, frame


def test_a_page_inside_a_long_table_leads_to_where_it_starts(browser: Any) -> None:
    doc = rhwp_core.load(str(PAGED))
    inside = next(
        p for p in range(1, (doc.page_count or 0) + 1) if pack._holds_no_block(doc.extract_text(pages=str(p)))
    )
    with pack_session(pack) as session:
        start = session.call("viewer_page", path=str(PAGED), page=inside)["continues"]
        page, frame = _open(browser, session, PAGED)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        frame.locator("#page-input").fill(str(inside))
        frame.locator("#go").click()
        frame.locator(f'body[data-ready="1"][data-page="{inside}"]').wait_for(timeout=15000)
        button = frame.locator("#continues")
        assert button.inner_text() == f"{start}쪽으로"
        button.click()
        frame.locator(f'body[data-ready="1"][data-page="{start}"]').wait_for(timeout=15000)
        assert _squash(frame.locator("#paper").inner_text()) == _shown(doc.extract_text(pages=str(start)))
        page.close()


def test_pages_keyboard_and_model_context(browser: Any) -> None:
    doc = rhwp_core.load(str(PAGED))
    with pack_session(pack) as session:
        page, frame = _open(browser, session, PAGED)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        assert _squash(frame.locator("#paper").inner_text()) == _shown(doc.extract_text(pages="1"))
        assert frame.locator("#page-count").inner_text() == str(doc.page_count)
        # Keyboard: → goes to page 2.
        frame.locator("#title").click()  # focus inside the frame, outside any input
        page.keyboard.press("ArrowRight")
        frame.locator('body[data-ready="1"][data-page="2"]').wait_for(timeout=15000)
        assert _squash(frame.locator("#paper").inner_text()) == _shown(doc.extract_text(pages="2"))
        # Go to page: 4.
        frame.locator("#page-input").fill("4")
        frame.locator("#go").click()
        frame.locator('body[data-ready="1"][data-page="4"]').wait_for(timeout=15000)
        assert _squash(frame.locator("#paper").inner_text()) == _shown(doc.extract_text(pages="4"))
        contexts = page.evaluate("window.contexts")
        assert [c["structuredContent"]["page"] for c in contexts] == [1, 2, 4]
        assert f"page 4 of {doc.page_count}" in contexts[-1]["content"][0]["text"]
        assert doc.extract_text(pages="4")[:200] in contexts[-1]["content"][0]["text"]
        assert page.evaluate("window.sizes.length") >= 1
        # Search within the page.
        frame.locator("#search").fill("규제")
        assert frame.locator("mark.hit").count() == doc.extract_text(pages="4").count("규제")
        shot = page.screenshot()
        from PIL import Image, ImageStat

        stat = ImageStat.Stat(Image.open(io.BytesIO(shot)).convert("L"))
        assert stat.var[0] > 100, "the screenshot is blank"


def _corpus_rfp() -> Path:
    # The corpus lives outside the repository; locally its absence skips, in CI it fails.
    from corpus_support import require_shared

    shared: Path = require_shared()
    return shared / "corpus" / "hwpx" / "rhwp-kwater-rfp-2004.hwpx"


def test_outline_jump_on_a_corpus_document(browser: Any) -> None:
    path = _corpus_rfp()
    doc = rhwp_core.load(str(path))
    outline = doc.outline()
    # An entry well inside the document (not page 1 or 2), so the jump is visible.
    entry = next(h for h in outline if h.page is not None and h.page > 3)
    with pack_session(pack) as session:
        page, frame = _open(browser, session, path)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=30000)
        buttons = frame.locator("#outline-list button")
        assert buttons.count() == len(outline)
        buttons.filter(has_text=entry.text).first.click()
        frame.locator(f'body[data-ready="1"][data-page="{entry.page}"]').wait_for(timeout=30000)
        assert _squash(frame.locator("#paper").inner_text()) == _shown(doc.extract_text(pages=str(entry.page)))
        assert frame.locator("#page-input").input_value() == str(entry.page)
        contexts = page.evaluate("window.contexts")
        assert [c["structuredContent"]["page"] for c in contexts] == [1, entry.page]
        told = contexts[-1]["content"][0]["text"]
        assert f"page {entry.page} of {doc.page_count}" in told
        assert _squash(doc.extract_text(pages=str(entry.page)))[:100] in _squash(told)


# Markup that would set window.__pwned if any of it ran: a script, an event attribute, a
# javascript: link in the text, and (below) a javascript: hyperlink field around it.
HOSTILE_JS = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">'
    '<a href="javascript:window.__pwned=1">x</a><svg onload="window.__pwned=1"></svg>'
)


def test_hostile_document_renders_as_text(browser: Any, tmp_path: Path) -> None:
    from test_viewer import hostile_document

    path = hostile_document(tmp_path, HOSTILE_JS, link="javascript:window.__pwned=1")
    with pack_session(pack) as session:
        page, frame = _open(browser, session, path)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        paper = frame.locator("#paper")
        # Give an onerror/onload a moment to fire, were any to have been created.
        page.wait_for_timeout(300)
        assert paper.evaluate("() => typeof window.__pwned") == "undefined"
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert paper.locator("script, iframe, object, embed, svg").count() == 0
        handlers = paper.evaluate(
            "el => [el, ...el.querySelectorAll('*')].flatMap(n => [...n.attributes].map(a => a.name))"
            ".filter(n => n.toLowerCase().startsWith('on'))"
        )
        assert handlers == []
        hrefs = paper.evaluate("el => [...el.querySelectorAll('[href]')].map(n => n.getAttribute('href'))")
        assert not [h for h in hrefs if not h.startswith("#")], hrefs
        assert _squash(HOSTILE_JS) in _squash(paper.inner_text())  # shown, as text


def test_unreadable_document_shows_the_coded_error(browser: Any) -> None:
    bad = HERE.parents[1] / "tests" / "fixtures" / "bad" / "synthetic-a-truncated.hwpx"
    with pack_session(pack) as session:
        expected = session.call("view_document", path=str(bad))
        assert expected["error"] == "corrupt_document"
        _page, frame = _open(browser, session, bad)
        frame.locator('body[data-ready="1"][data-error="corrupt_document"]').wait_for(timeout=15000)
        box = frame.locator("#error")
        assert box.is_visible()
        assert box.locator("code").inner_text() == "corrupt_document"
        shown = box.inner_text()
        assert expected["message"] in shown and expected["suggestion"] in shown
        assert frame.locator("#paper").inner_text() == ""


PICTURE = HERE.parents[1] / "tests" / "fixtures" / "hwp" / "hwplib-getting_clickhere_text.hwp"  # BIN0001.png on page 2


def test_pictures_show_as_data_uris(browser: Any) -> None:
    with pack_session(pack) as session:
        _page, frame = _open(browser, session, PICTURE)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        frame.locator("#next").click()
        frame.locator('body[data-ready="1"][data-page="2"]').wait_for(timeout=15000)
        img = frame.locator("#paper img")
        assert img.count() == 1
        assert img.get_attribute("src").startswith("data:image/png;base64,")
        # Decoded by the browser (the CSP allows data: pictures only): its real size, 138×110.
        img.evaluate("el => el.decode()")
        assert img.evaluate("el => [el.naturalWidth, el.naturalHeight]") == [138, 110]
    # Over the server's picture cap: a placeholder that says why, never a broken picture.
    with pack_session(pack, max_chars=2000, max_image_chars=2000) as small:
        _page, frame = _open(browser, small, PICTURE)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        frame.locator("#next").click()
        frame.locator('body[data-ready="1"][data-page="2"]').wait_for(timeout=15000)
        assert frame.locator("#paper img").count() == 0
        placeholder = frame.locator("#paper .rhwp-picture")
        assert placeholder.count() == 1
        assert "picture cap" in (placeholder.get_attribute("title") or "")


def test_as_printed_shows_the_rendered_page_above_its_text(browser: Any) -> None:
    """With the render pack beside the viewer, 인쇄 모양 shows render_page's PNG of the page on screen
    (and of the next page after →), the text staying below; without it, a note says what to install."""
    import rhwp_mcp_tools_render

    hwpx = HERE.parents[1] / "tests" / "fixtures" / "hwpx" / "pyhwpx-mpm_recruitment_notice.hwpx"
    with pack_session(pack, rhwp_mcp_tools_render) as session:
        page, frame = _open(browser, session, hwpx)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        frame.locator("#as-printed").click()
        image = frame.locator("#printed img")
        image.wait_for(timeout=15000)
        assert image.get_attribute("src", timeout=5000).startswith("data:image/png;base64,")  # type: ignore[union-attr]
        assert image.evaluate("img => img.decode().then(() => img.naturalWidth)") > 500
        assert frame.locator("#paper").inner_text().strip()  # the text stays, for copying and searching
        frame.locator("#as-printed").click()
        assert frame.locator("#printed").is_hidden()
        page.close()
    with pack_session(pack) as alone:
        page, frame = _open(browser, alone, hwpx)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=15000)
        frame.locator("#as-printed").click()
        note = frame.locator("#printed .note")
        note.wait_for(timeout=15000)
        assert "rhwp-mcp-tools-render" in note.inner_text()
        page.close()
