"""The viewer in a host that is not ours: the MCP Inspector 2.12.0 (`@modelcontextprotocol/inspector`),
its web UI's Apps tab, driven by Playwright with Debian's Chromium (never a downloaded browser).

The real server runs over streamable HTTP (the Inspector's deep link takes a server URL, not a
command); the Inspector's own launcher serves its UI and its MCP Apps sandbox on free loopback
ports. The test opens the deep link its documentation gives for reviewing an App (connect, the
Apps tab, `view_document` chosen and its `path` filled in), clicks "Open App" as a person would,
and then works the viewer inside the Inspector's two frames (its sandbox proxy on its own origin,
our page in a frame inside that): page 1, → to page 2, an outline entry; the text on screen each
time against `rhwp_core`'s own, pictures decoded under the CSP the Inspector builds, a screenshot.

`ui/update-model-context`: the Inspector 2.12.0 does not take it (its host capabilities have no
`updateModelContext`; it answers the request "Method not found") and shows it nowhere, so the test
reads it on the wire: a script Playwright puts into every page records what the Inspector's window
receives from its sandbox (the app's messages, relayed as they are) and what the sandbox receives
from the Inspector (its answers). Passive listeners only; nothing in the exchange changes.

``./dev test`` installs the Inspector and a Node 22 into ``.cache/inspector``; in CI a missing
Inspector or Chromium is a failure, locally a skip.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest
from rhwp_mcp_host.testing import free_port, serve_http
from test_browser import ARGS, CHROMIUM

import rhwp_core

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR_VERSION = "2.12.0"
TOOLS = Path(os.environ.get("RHWP_INSPECTOR_DIR", ROOT / ".cache" / "inspector"))
NODE = TOOLS / "node_modules" / ".bin" / "node"
PACKAGE = TOOLS / "node_modules" / "@modelcontextprotocol" / "inspector"
LAUNCHER = PACKAGE / "clients" / "launcher" / "build" / "index.js"
WAIT_MS = 30_000
# Variables the Inspector reads that would change what this test sets up (auth, origins, storage).
INSPECTOR_ENV = re.compile(r"^(MCP_|DANGEROUSLY_OMIT_AUTH$|ALLOWED_ORIGINS$|CLIENT_PORT$|SERVER_PORT$|HOST$)")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _missing(message: str) -> NoReturn:
    message += " (./dev test installs the MCP Inspector and Node 22 with npm, and Chromium with apt-get)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _installed_version() -> str | None:
    try:
        return str(json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError):
        return None


@dataclass
class Inspector:
    url: str
    sandbox_origin: str
    token: str
    log: Path

    def tail(self, chars: int = 3000) -> str:
        try:
            said = self.log.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError as e:
            said = f"(no log: {e})"
        return f"--- the Inspector's output (last {chars} characters) ---\n{said}"


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _ports(count: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspector]:
    if not (NODE.exists() and LAUNCHER.exists()):
        _missing(f"the MCP Inspector is not installed in {TOOLS}")
    if _installed_version() != INSPECTOR_VERSION:
        _missing(f"{PACKAGE} is version {_installed_version()}, not {INSPECTOR_VERSION}")
    if not shutil.which(CHROMIUM):
        _missing(f"{CHROMIUM} is missing")
    home = tmp_path_factory.mktemp("inspector")
    client, sandbox, app_origin = _ports(3)
    token = secrets.token_hex(24)
    env = {k: v for k, v in os.environ.items() if not INSPECTOR_ENV.match(k)}
    env.update(
        HOME=str(home),  # its catalog, storage and logs: a fresh, empty one each run
        MCP_STORAGE_DIR=str(home / "storage"),
        MCP_INSPECTOR_SECRET_STORE="memory",  # no keychain here; nothing written
        HOST="127.0.0.1",
        CLIENT_PORT=str(client),
        MCP_SANDBOX_PORT=str(sandbox),
        MCP_APP_ORIGIN_PORT=str(app_origin),
        MCP_AUTO_OPEN_ENABLED="false",
        MCP_INSPECTOR_API_TOKEN=token,
    )
    log = home / "inspector.log"
    with open(log, "wb") as out:
        # Its own session (process group), so the teardown ends it and whatever it started.
        process = subprocess.Popen(
            [str(NODE), str(LAUNCHER), "--web"],
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    found = Inspector(f"http://127.0.0.1:{client}", f"http://127.0.0.1:{sandbox}", token, log)
    try:
        deadline = time.monotonic() + 60
        while not (_listening(client) and _listening(sandbox)):
            if process.poll() is not None:
                pytest.fail(f"the Inspector exited with status {process.returncode}\n{found.tail()}")
            if time.monotonic() > deadline:
                pytest.fail(f"the Inspector did not listen on {client} and {sandbox} within 60 s\n{found.tail()}")
            time.sleep(0.1)
        yield found
    finally:
        _end_group(process)


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the Inspector's process group, then SIGKILL to whatever of it is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def _corpus_rfp() -> Path:
    # The corpus lives outside the repository; locally its absence skips, in CI it fails.
    from corpus_support import require_shared

    shared: Path = require_shared()
    return shared / "corpus" / "hwpx" / "rhwp-kwater-rfp-2004.hwpx"


# Put into every page and frame before its own scripts. In the Inspector's window: every message
# from the sandbox's origin (the app's, relayed unchanged). In the sandbox proxy: every message from
# the Inspector (its answers and notifications to the app).
RECORDER = """(() => {
  const SANDBOX = %s;
  const copy = (data) => { try { return JSON.parse(JSON.stringify(data)); } catch (_) { return null; } };
  if (window === window.top) {
    window.__fromApp = [];
    window.addEventListener("message", (e) => { if (e.origin === SANDBOX) window.__fromApp.push(copy(e.data)); });
  } else if (location.origin === SANDBOX) {
    window.__fromHost = [];
    window.addEventListener("message", (e) => {
      if (e.source === window.parent) window.__fromHost.push(copy(e.data));
    });
  }
})();"""


def _messages(frame: Any, name: str, method: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = frame.evaluate(
        "([name, method]) => (window[name] || []).filter((m) => m && m.method === method)", [name, method]
    )
    return found


@contextmanager
def _inspector_page(inspector: Inspector, root: Path) -> Iterator[tuple[Any, str]]:
    """A browser page for the Inspector's UI, and the URL of a real server reading under ``root``."""
    from playwright.sync_api import sync_playwright

    env = {k: v for k, v in os.environ.items() if not k.startswith("RHWP_MCP_")}
    with serve_http("--root", str(root), env=env) as server, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            # Nothing leaves this machine: the Inspector's UI asks for web fonts, which are refused.
            context.route(
                "**/*",
                lambda route: (
                    route.continue_()
                    if urllib.parse.urlsplit(route.request.url).hostname == "127.0.0.1"
                    else route.abort()
                ),
            )
            context.add_init_script(RECORDER % json.dumps(inspector.sandbox_origin))
            yield context.new_page(), server + "/mcp"
        except Exception as error:
            pytest.fail(f"{type(error).__name__}: {error}\n{inspector.tail()}", pytrace=True)
        finally:
            browser.close()


def test_the_viewer_in_the_inspectors_apps_tab(inspector: Inspector) -> None:
    path = _corpus_rfp()
    doc = rhwp_core.load(str(path))
    outline = doc.outline()
    # An entry well inside the document, so the jump is plain (and its button needs scrolling to).
    entry = next(h for h in outline if h.page is not None and h.page > 10)
    with _inspector_page(inspector, path.parents[1]) as (page, server_url):
        _drive(page, inspector, server_url, path, doc, entry)


def test_a_hostile_document_stays_text_in_the_inspector(inspector: Inspector, tmp_path: Path) -> None:
    """Markup in a document's text (a script, event attributes, a javascript: link) is shown as
    text in the Inspector's frames too, and nothing of it runs in the app, the sandbox or the UI."""
    from test_browser import HOSTILE_JS
    from test_viewer import hostile_document

    path = hostile_document(tmp_path, HOSTILE_JS, link="javascript:window.__pwned=1")
    with _inspector_page(inspector, tmp_path) as (page, server_url):
        _outer, frame, proxy = _open_app(page, inspector, server_url, path)
        frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=WAIT_MS)
        paper = frame.locator("#paper")
        page.wait_for_timeout(300)  # an onerror/onload would have fired by now
        assert _squash(HOSTILE_JS) in _squash(paper.inner_text())
        for where in (paper, proxy, page):
            assert where.evaluate("() => typeof window.__pwned") == "undefined"
        assert paper.locator("script, iframe, object, embed, svg").count() == 0
        handlers = paper.evaluate(
            "el => [el, ...el.querySelectorAll('*')].flatMap(n => [...n.attributes].map(a => a.name))"
            ".filter(n => n.toLowerCase().startsWith('on'))"
        )
        assert handlers == []
        hrefs = paper.evaluate("el => [...el.querySelectorAll('[href]')].map(n => n.getAttribute('href'))")
        assert not [h for h in hrefs if not h.startswith("#")], hrefs


def _open_app(page: Any, inspector: Inspector, server_url: str, path: Path) -> tuple[Any, Any, Any]:
    """The Inspector's deep link for reviewing an App, then "Open App": the sandbox's iframe element,
    the viewer's frame inside it, and the sandbox proxy's frame."""
    # The deep link of the Inspector's "Reviewing an MCP App" recipe: connects (autoConnect must be
    # its API token), switches to the Apps tab, selects the app's tool and fills in its arguments.
    app_args = base64.urlsafe_b64encode(json.dumps({"path": str(path)}).encode()).decode().rstrip("=")
    query = urllib.parse.urlencode(
        {
            "serverUrl": server_url,
            "transport": "http",
            "autoConnect": inspector.token,
            "openApp": "view_document",
            "appArgs": app_args,
        }
    )
    page.goto(f"{inspector.url}/?{query}", timeout=WAIT_MS)
    page.locator('[data-testid="connection-status"][data-status="connected"]').wait_for(timeout=WAIT_MS)
    page.locator('[data-testid="open-app"]').click(timeout=WAIT_MS)  # the Inspector calls view_document
    sandbox = f'iframe[src="{inspector.sandbox_origin}/sandbox"]'
    frame = page.frame_locator(sandbox).frame_locator("iframe")
    frame.locator("body[data-ready]").wait_for(timeout=WAIT_MS)
    proxy = next(f for f in page.frames if f.url.startswith(inspector.sandbox_origin))
    return page.locator(sandbox), frame, proxy


def _drive(page: Any, inspector: Inspector, server_url: str, path: Path, doc: Any, entry: Any) -> None:
    outer, frame, proxy = _open_app(page, inspector, server_url, path)

    # Page 1, as the Inspector handed the tool's input and result to the app.
    frame.locator('body[data-ready="1"][data-page="1"]').wait_for(timeout=WAIT_MS)
    (tool_input,) = _messages(proxy, "__fromHost", "ui/notifications/tool-input")
    # The form's every field: path as the link filled it in, the optional ones empty (null).
    assert tool_input["params"]["arguments"]["path"] == str(path)
    (tool_result,) = _messages(proxy, "__fromHost", "ui/notifications/tool-result")
    opened = tool_result["params"]["structuredContent"]
    assert opened["source"] == str(path) and opened["pages"] == doc.page_count == 64
    assert frame.locator("#title").inner_text() == opened["title"]
    assert frame.locator("#page-count").inner_text() == str(doc.page_count)
    assert _squash(frame.locator("#paper").inner_text()) == _squash(doc.extract_text(pages="1"))
    assert frame.locator("#outline-list button").count() == len(doc.outline())
    # Page 1's pictures (GIFs) decode: the resource declares data: in its CSP, which the Inspector
    # (stricter than the MCP Apps default when nothing is declared) would otherwise refuse.
    widths = frame.locator("#paper img").evaluate_all(
        "els => Promise.all(els.map((el) => el.decode().then(() => el.naturalWidth, () => 0)))"
    )
    assert widths and all(widths), f"page 1's pictures did not decode (widths {widths}): data: refused by the CSP?"

    # → from the keyboard (focus inside the app, two frames down).
    frame.locator("#title").click()
    page.keyboard.press("ArrowRight")
    frame.locator('body[data-ready="1"][data-page="2"]').wait_for(timeout=WAIT_MS)
    assert _squash(frame.locator("#paper").inner_text()) == _squash(doc.extract_text(pages="2"))

    # An outline entry: the page it names, and that page's text.
    frame.locator("#outline-list button").filter(has_text=entry.text).first.click(timeout=WAIT_MS)
    frame.locator(f'body[data-ready="1"][data-page="{entry.page}"]').wait_for(timeout=WAIT_MS)
    assert frame.locator("#page-input").input_value() == str(entry.page)
    assert _squash(frame.locator("#paper").inner_text()) == _squash(doc.extract_text(pages=str(entry.page)))

    # What the app asked of the Inspector: the pages through its tools/call bridge, and what the
    # model should be told of each page on screen.
    shown = [1, 2, entry.page]
    page.wait_for_function(
        "n => window.__fromApp.filter((m) => m && m.method === 'ui/update-model-context').length >= n",
        arg=len(shown),
        timeout=WAIT_MS,
    )
    calls = _messages(page.main_frame, "__fromApp", "tools/call")
    assert [c["params"]["arguments"]["page"] for c in calls if c["params"]["name"] == "viewer_page"] == shown
    contexts = _messages(page.main_frame, "__fromApp", "ui/update-model-context")
    assert [c["params"]["structuredContent"]["page"] for c in contexts] == shown
    for number, context in zip(shown, contexts, strict=True):
        told = context["params"]["content"][0]["text"]
        assert f"page {number} of {doc.page_count}" in told
        assert _squash(doc.extract_text(pages=str(number)))[:100] in _squash(told)
        assert context["params"]["structuredContent"]["source"] == str(path)
    # Every one was answered (2.12.0: an error, "Method not found"), so none is left waiting.
    ids = [c["id"] for c in contexts]
    proxy.wait_for_function(
        "ids => ids.every((id) => window.__fromHost.some((m) => m && m.id === id && !m.method))",
        arg=ids,
        timeout=WAIT_MS,
    )

    from PIL import Image, ImageStat

    shot = outer.screenshot()
    stat = ImageStat.Stat(Image.open(io.BytesIO(shot)).convert("L"))
    assert stat.var[0] > 100, "the screenshot of the app in the Inspector is blank"
    keep = os.environ.get("RHWP_VIEWER_SCREENSHOT")
    if keep:
        # The README's picture (docs/viewer-inspector.png): the whole Inspector window.
        page.screenshot(path=keep)
