"""A pack's tool ``meta`` and its resources (``rhwp_mcp_register_resources``): what a client sees,
and how bad registrations fail the pack alone. Plugin objects stand in for installed packs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from rhwp_mcp_host.testing import pack_session

from rhwp_mcp_host import hookimpl

APP_URI = "ui://demo/app.html"
APP_MIME = "text/html;profile=mcp-app"


def show(text: str) -> str:
    """Show a text (a tool with a UI)."""
    return text


def page(n: int) -> dict[str, int]:
    """One page (a tool only the UI calls)."""
    return {"n": n}


class AppPack:
    @hookimpl
    def rhwp_mcp_register_tools(self, register: Any) -> None:
        register(show, meta={"ui": {"resourceUri": APP_URI}})
        register(page, meta={"ui": {"resourceUri": APP_URI, "visibility": ["app"]}})

    @hookimpl
    def rhwp_mcp_register_resources(self, register: Any) -> None:
        register(APP_URI, lambda: "<!doctype html><title>demo</title>", name="demo app", mime_type=APP_MIME)
        register("data://demo/blob", lambda: b"\x00\x01", mime_type="application/octet-stream")


def test_tool_meta_reaches_the_client_beside_the_hosts_own() -> None:
    with pack_session({"app": AppPack()}) as session:
        tools = {t.name: t for t in session.list_tools()}
        assert tools["show"].meta["ui"] == {"resourceUri": APP_URI}
        assert tools["page"].meta["ui"]["visibility"] == ["app"]
        assert tools["show"].meta["rhwp_mcp"] == {"pack": "app"}
        assert session.call("page", n=3) == {"n": 3}


def test_resources_are_listed_and_read() -> None:
    with pack_session({"app": AppPack()}) as session:
        listed = {str(r.uri): r for r in session.list_resources()}
        assert listed[APP_URI].mime_type == APP_MIME and listed[APP_URI].name == "demo app"
        assert listed[APP_URI].meta["rhwp_mcp"] == {"pack": "app"}
        (content,) = session.read_resource(APP_URI)
        assert content.text == "<!doctype html><title>demo</title>" and content.mime_type == APP_MIME
        (blob,) = session.read_resource("data://demo/blob")
        assert blob.blob == "AAE="  # base64 of the bytes read() returned
    packs = session.host.packs
    record = packs.pack("app")
    assert record is not None and record.resources == [APP_URI, "data://demo/blob"]
    assert record.to_dict()["resources"] == [APP_URI, "data://demo/blob"]


def _pack(tools: Any = None, resources: Any = None) -> Any:
    plugin = SimpleNamespace()
    if tools is not None:
        plugin.rhwp_mcp_register_tools = hookimpl(tools)
    if resources is not None:
        plugin.rhwp_mcp_register_resources = hookimpl(resources)
    return plugin


@pytest.mark.parametrize(
    ("plugin", "reason"),
    [
        (_pack(tools=lambda register: register(show, meta={"rhwp_mcp": 1})), "host's own"),
        (_pack(tools=lambda register: register(show, meta={"x": object()})), "JSON-serialisable"),
        (_pack(tools=lambda register: register(show, meta=["ui"])), "must be a dict"),
        (_pack(resources=lambda register: register("no scheme", lambda: "")), "needs a scheme"),
        (_pack(resources=lambda register: register("ui://x", lambda n: "")), "takes no arguments"),
        (
            _pack(resources=lambda register: [register("ui://x", lambda: ""), register("ui://x", lambda: "")]),
            "twice",
        ),
        # A pack whose resource hook fails loses its tools too: both or nothing.
        (
            _pack(tools=lambda register: register(show), resources=lambda register: register(1, lambda: "")),
            "rhwp_mcp_register_resources",
        ),
    ],
)
def test_bad_registrations_fail_the_pack_alone(plugin: Any, reason: str) -> None:
    with pack_session({"bad": plugin, "app": AppPack()}) as session:
        record = session.host.packs.pack("bad")
        assert record is not None and record.status == "failed"
        assert reason in (record.error or "")
        assert record.tools == [] and record.resources == []
        assert "page" in session.tool_names() and "show" in session.tool_names()


def test_same_resource_uri_first_pack_in_name_order_wins() -> None:
    with pack_session(
        {"a-app": AppPack(), "b-other": _pack(resources=lambda register: register(APP_URI, lambda: "x"))}
    ) as session:
        (content,) = session.read_resource(APP_URI)
        assert content.text.startswith("<!doctype html>")
        other = session.host.packs.pack("b-other")
        assert other is not None and other.resources == [] and "a-app" in other.conflicts[0]
