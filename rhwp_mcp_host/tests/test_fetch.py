"""The URL fetcher against a real local HTTP(S) server, and its address checks against stub resolvers."""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from rhwp_mcp_host.documents import fetch
from rhwp_mcp_host.plugin.errors import FILE_NOT_FOUND, INVALID_INPUT, PERMISSION_DENIED, TOO_LARGE, ToolFailure

FetchPolicy = fetch.FetchPolicy

DOC = bytes(range(256)) * 3  # 768 bytes: under the tiny cap
LARGE = bytes(range(256)) * 1000  # 256 000 bytes: several chunks
TINY = FetchPolicy(allow_http=True, allow_private=True, max_bytes=1000, timeout=1.0)
OPEN = FetchPolicy(allow_http=True, allow_private=True)


@dataclass
class Site:
    base: str  # http://127.0.0.1:PORT
    port: int
    stop: threading.Event
    endless_done: threading.Event = field(default_factory=threading.Event)
    last_headers: dict[str, str] = field(default_factory=dict)


class Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in {"Content-Length": str(len(body)), **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str, status: int = 302) -> None:
        self._send(status, headers={"Location": location})

    def do_GET(self) -> None:
        site = self.server.site
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        if path == "/doc":
            self._send(200, DOC)
        elif path.startswith("/redirect/"):
            n = int(path.rsplit("/", 1)[1])
            # Alternate relative and absolute locations: both must be resolved against the current URL.
            self._redirect("/doc" if n == 1 else f"/redirect/{n - 1}" if n % 2 else f"{site.base}/redirect/{n - 1}")
        elif path == "/loop":
            self._redirect("/loop", 301)
        elif path == "/go":
            self._redirect(query["to"][0], int(query.get("status", ["302"])[0]))
        elif path == "/to-private":
            self._redirect(f"http://{query.get('host', ['127.0.0.1'])[0]}:{site.port}/doc")
        elif path.startswith("/status/"):
            self._send(int(path.rsplit("/", 1)[1]), b"status page")
        elif path == "/large":
            self._send(200, LARGE)
        elif path == "/big":
            self._send(200, b"x" * 5000)
        elif path == "/unframed":  # no Content-Length: the body ends when the connection does
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"x" * 5000)
        elif path == "/liar":  # claims 10 bytes, then sends 5000 chunked (chunked framing wins)
            body = b"x" * 5000
            self.wfile.write(
                b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n"
                + f"{len(body):x}\r\n".encode()
                + body
                + b"\r\n0\r\n\r\n"
            )
        elif path == "/short-length":  # says 10 bytes and sends 5000: only the 10 may be read
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n" + b"y" * 5000)
        elif path == "/truncated":  # promises 500 bytes, sends 100, closes
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + b"z" * 100)
        elif path == "/slow":
            site.stop.wait(1.0)
            self._send(200, DOC)
        elif path == "/drip":  # every byte arrives well within any socket timeout, the whole never does
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                if site.stop.wait(0.02):
                    return
                self.wfile.write(b"d")
                self.wfile.flush()
        elif path == "/endless":
            try:
                self.send_response(200)
                self.end_headers()
                while not site.stop.is_set():
                    self.wfile.write(b"e" * 65536)
            except OSError:
                pass
            finally:
                site.endless_done.set()
        elif path == "/headers":
            site.last_headers = dict(self.headers.items())
            self._send(200, json.dumps(site.last_headers).encode())
        else:
            self._send(404, b"no such page")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    site: Site

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that hang up early are part of the tests


def _serve(tls: ssl.SSLContext | None = None) -> Iterator[Site]:
    server = _Server(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    scheme = "https" if tls else "http"
    server.site = Site(base=f"{scheme}://127.0.0.1:{port}", port=port, stop=threading.Event())
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.site
    finally:
        server.site.stop.set()
        server.shutdown()
        server.server_close()
        thread.join(2)


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    yield from _serve()


def _get(url: str, policy: FetchPolicy = TINY, **kwargs: object) -> bytes:
    return b"".join(fetch.fetch_chunks(url, policy, **kwargs))


def _fails(url: str, policy: FetchPolicy = TINY, **kwargs: object) -> ToolFailure:
    with pytest.raises(ToolFailure) as caught:
        _get(url, policy, **kwargs)
    failure = caught.value
    assert failure.message and failure.suggestion
    return failure


class StubResolver:
    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append((host, port))
        if host not in self.answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.answers[host]


@pytest.fixture
def no_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> socket.socket:
        raise AssertionError(f"the fetcher tried to connect: {args}")

    monkeypatch.setattr(socket, "create_connection", refuse)


# --- over a real local server -------------------------------------------------------------------


def test_doc_is_returned_exactly(site: Site) -> None:
    assert _get(f"{site.base}/doc") == DOC


def test_body_comes_in_chunks_of_at_most_64_kib(site: Site) -> None:
    chunks = list(fetch.fetch_chunks(f"{site.base}/large", OPEN))
    assert b"".join(chunks) == LARGE
    assert all(0 < len(chunk) <= 64 * 1024 for chunk in chunks)


def test_headers_sent_and_proxies_ignored(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    # A proxy in the environment would see the request instead of the checked address; it must be ignored.
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    resolver = StubResolver({"docs.test": ["127.0.0.1"]})
    sent = json.loads(_get(f"http://docs.test:{site.port}/headers#frag", resolve=resolver))
    assert resolver.calls == [("docs.test", site.port)]  # resolved once, then the address was dialled
    lowered = {k.lower(): v for k, v in sent.items()}
    assert lowered == {
        "host": f"docs.test:{site.port}",
        "user-agent": "rhwp-mcp-fetch/1",
        "accept": "*/*",
        "accept-encoding": "identity",
        "connection": "close",
    }


@pytest.mark.parametrize("hops", [1, 2, 5])
def test_redirect_chains_up_to_the_limit_work(site: Site, hops: int) -> None:
    assert _get(f"{site.base}/redirect/{hops}") == DOC


def test_one_redirect_too_many_is_too_large(site: Site) -> None:
    failure = _fails(f"{site.base}/redirect/6")
    assert failure.code == TOO_LARGE
    assert "more than 5 redirects" in failure.message


def test_redirect_loop_is_too_large(site: Site) -> None:
    assert _fails(f"{site.base}/loop").code == TOO_LARGE


@pytest.mark.parametrize("status", [301, 303, 307, 308])
def test_every_redirect_status_is_followed(site: Site, status: int) -> None:
    assert _get(f"{site.base}/go?to=/doc&status={status}") == DOC


def test_redirect_without_location(site: Site) -> None:
    failure = _fails(f"{site.base}/status/302")
    assert failure.code == FILE_NOT_FOUND
    assert "Location" in failure.message


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (404, FILE_NOT_FOUND),
        (410, FILE_NOT_FOUND),
        (401, PERMISSION_DENIED),
        (403, PERMISSION_DENIED),
        (500, FILE_NOT_FOUND),
        (503, FILE_NOT_FOUND),
        (206, FILE_NOT_FOUND),
        (304, FILE_NOT_FOUND),
    ],
)
def test_status_codes(site: Site, status: int, code: str) -> None:
    failure = _fails(f"{site.base}/status/{status}")
    assert failure.code == code
    assert str(status) in failure.message
    if code == PERMISSION_DENIED:
        assert "credentials" in failure.message
        assert "POST /documents" in failure.suggestion and "data: URI" in failure.suggestion


@pytest.mark.parametrize("status", [201, 203])
def test_other_2xx_give_the_body(site: Site, status: int) -> None:
    assert _get(f"{site.base}/status/{status}") == b"status page"


def test_204_gives_an_empty_body(site: Site) -> None:
    assert _get(f"{site.base}/status/204") == b""


def test_honest_content_length_over_the_cap(site: Site) -> None:
    failure = _fails(f"{site.base}/big")
    assert failure.code == TOO_LARGE
    assert "Content-Length" in failure.message
    assert "--fetch-max-mb" in failure.suggestion


@pytest.mark.parametrize("path", ["/liar", "/unframed"])
def test_bytes_are_counted_whatever_the_headers_say(site: Site, path: str) -> None:
    failure = _fails(f"{site.base}{path}")
    assert failure.code == TOO_LARGE
    assert "--fetch-max-mb" in failure.suggestion


def test_nothing_past_content_length_is_read(site: Site) -> None:
    assert _get(f"{site.base}/short-length") == b"y" * 10


def test_truncated_body_is_an_error(site: Site) -> None:
    failure = _fails(f"{site.base}/truncated")
    assert failure.code == FILE_NOT_FOUND
    assert "short" in failure.message


def test_slow_server_times_out(site: Site) -> None:
    started = time.monotonic()
    failure = _fails(f"{site.base}/slow", FetchPolicy(allow_http=True, allow_private=True, timeout=0.3))
    assert time.monotonic() - started < 0.9
    assert failure.code == TOO_LARGE
    assert "took longer than 0.3 s" in failure.message
    assert "--fetch-timeout" in failure.suggestion


def test_dripping_server_cannot_outlast_the_deadline(site: Site) -> None:
    started = time.monotonic()
    failure = _fails(f"{site.base}/drip", FetchPolicy(allow_http=True, allow_private=True, timeout=0.3))
    assert time.monotonic() - started < 0.9
    assert failure.code == TOO_LARGE


def test_closing_early_releases_the_server(site: Site) -> None:
    site.endless_done.clear()
    chunks = fetch.fetch_chunks(f"{site.base}/endless", OPEN)
    first = next(chunks)
    assert 0 < len(first) <= 64 * 1024
    chunks.close()
    assert site.endless_done.wait(2), "the server thread is still writing to a closed connection"


def test_connection_refused_everywhere(site: Site) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    failure = _fails(f"http://127.0.0.1:{closed_port}/doc")
    assert failure.code == FILE_NOT_FOUND
    assert "could not connect" in failure.message


def test_next_address_is_tried_when_one_refuses(site: Site) -> None:
    # Nothing listens on ::1 at this port (or IPv6 is off): either way the second address serves.
    resolver = StubResolver({"two.test": ["::1", "127.0.0.1"]})
    assert _get(f"http://two.test:{site.port}/doc", resolve=resolver) == DOC


def test_dns_failure() -> None:
    failure = _fails("https://nowhere.test/doc", resolve=StubResolver({}))
    assert failure.code == FILE_NOT_FOUND
    assert "could not resolve" in failure.message


# --- what the policy refuses -----------------------------------------------------------------------


def test_loopback_refused_without_allow_private(site: Site) -> None:
    failure = _fails(f"{site.base}/doc", FetchPolicy(allow_http=True))
    assert failure.code == PERMISSION_DENIED
    assert "--fetch-allow-private" in failure.suggestion


def test_http_refused_without_allow_http(site: Site) -> None:
    failure = _fails(f"{site.base}/doc", FetchPolicy(allow_private=True))
    assert failure.code == PERMISSION_DENIED
    assert "--fetch-allow-http" in failure.suggestion


def test_every_hop_is_checked_again(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    # Let the first hop's address through as if it were public; the redirect's target must still be refused.
    real = fetch.address_refusal
    seen: list[str] = []

    def first_hop_public(ip: str) -> str | None:
        seen.append(ip)
        return None if len(seen) == 1 else real(ip)

    monkeypatch.setattr(fetch, "address_refusal", first_hop_public)
    policy = FetchPolicy(allow_http=True)
    resolver = StubResolver({"start.test": ["127.0.0.1"], "private.test": ["127.0.0.1"]})
    for location in ("", "?host=private.test"):
        seen.clear()
        failure = _fails(f"http://start.test:{site.port}/to-private{location}", policy, resolve=resolver)
        assert failure.code == PERMISSION_DENIED
        assert "redirected from" in failure.message
        assert seen == ["127.0.0.1", "127.0.0.1"]


@pytest.mark.parametrize(
    "to",
    ["ftp://example.com/doc", "https://user:pass@example.com/doc", "https://exa mple.com/doc", "https:///doc"],
)
def test_redirect_to_an_invalid_url(site: Site, to: str) -> None:
    failure = _fails(f"{site.base}/go?to={quote(to, safe='')}")
    assert failure.code == INVALID_INPUT
    assert "redirected from" in failure.message


# --- address checks, with no connection at all ----------------------------------------------------

REFUSED = [
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "127.0.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "240.0.0.1",
    "::1",
    "fe80::1",
    "fc00::1",
    "fec0::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.1.2.3",
    "2002:7f00:1::1",
    "2002:a9fe:a9fe::1",
    "64:ff9b::a00:1",
    "::",
    "::127.0.0.1",
]


@pytest.mark.parametrize("ip", REFUSED)
def test_non_public_address_refused_before_connecting(ip: str, no_connect: None) -> None:
    resolver = StubResolver({"host.test": [ip]})
    failure = _fails("https://host.test/doc", FetchPolicy(), resolve=resolver)
    assert failure.code == PERMISSION_DENIED
    assert ip in failure.message
    assert "--fetch-allow-private" in failure.suggestion
    assert resolver.calls == [("host.test", 443)]


@pytest.mark.parametrize("ip", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])
def test_public_addresses_pass(ip: str) -> None:
    assert fetch.address_refusal(ip) is None


def test_one_private_address_among_public_ones_refuses_the_url(no_connect: None) -> None:
    for answers in (["93.184.216.34", "10.0.0.1"], ["10.0.0.1", "93.184.216.34"]):
        failure = _fails("https://mixed.test/", FetchPolicy(), resolve=StubResolver({"mixed.test": answers}))
        assert failure.code == PERMISSION_DENIED
        assert "10.0.0.1" in failure.message


def test_resolver_answer_that_is_not_an_address(no_connect: None) -> None:
    failure = _fails("https://odd.test/", OPEN, resolve=StubResolver({"odd.test": ["localhost"]}))
    assert failure.code == PERMISSION_DENIED


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/",
        "https://[::1]/",
        "https://[::ffff:7f00:1]:8443/",
        "https://169.254.169.254/latest/meta-data/",
        "https://2130706433/",
        "https://0x7f.1/",
        "https://127.1/",
        "https://0177.0.0.1/",
    ],
)
def test_ip_literals_are_checked_without_resolving(url: str, no_connect: None) -> None:
    resolver = StubResolver({})
    failure = _fails(url, FetchPolicy(), resolve=resolver)
    assert failure.code == PERMISSION_DENIED
    assert resolver.calls == []


@pytest.mark.parametrize(
    "url",
    [
        "https://user:pass@example.com/doc",
        "https://user@example.com/doc",
        "ftp://example.com/doc",
        "file:///etc/passwd",
        "example.com/doc",
        "https://exa mple.com/doc",
        "https://example.com/a b",
        "https://example.com/\ttab",
        "https://example.com/\x00",
        "https:///doc",
        "https://",
        "https://example.com:99999/",
        "https://example.com:http/",
        "https://example.com:0/",
        "https://[::1/",
        "https://[example.com]/",
        "https://exa%6dple.com/",
        "https://a..b/",
        "https://1.2.3.999/",
        "https://localhost.127.0.0.1/",
    ],
)
def test_unusable_urls_are_invalid_input(url: str, no_connect: None) -> None:
    resolver = StubResolver({})
    failure = _fails(url, OPEN, resolve=resolver)
    assert failure.code == INVALID_INPUT
    assert resolver.calls == []


def test_userinfo_suggestion_says_to_upload(no_connect: None) -> None:
    failure = _fails("https://user:pass@example.com/doc", OPEN)
    assert "credentials" in failure.message
    assert "POST /documents" in failure.suggestion


def test_nothing_happens_until_iteration(no_connect: None) -> None:
    resolver = StubResolver({})
    chunks = fetch.fetch_chunks("https://host.test/", FetchPolicy(), resolve=resolver)
    assert resolver.calls == []
    chunks.close()


def test_system_resolver_dedupes_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    v4 = (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.1", 80))
    v6 = (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", 80, 0, 0))
    other = (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.2", 80))
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [v6, v4, v6, other, v4])
    assert fetch.system_resolver("x.test", 80) == ["::1", "10.0.0.1", "10.0.0.2"]


# --- HTTPS ---------------------------------------------------------------------------------------


@dataclass
class Certs:
    ca: Path  # PEM of the CA that signed the server's certificate
    other_ca: Path  # PEM of a CA that signed nothing here
    chain: Path  # server certificate + key (for names: localhost, 127.0.0.1)


def _make_certs(where: Path) -> Certs:
    x509 = pytest.importorskip("cryptography.x509", reason="the HTTPS tests need the cryptography package")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def name(text: str) -> object:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    def ca(label: str) -> tuple[object, object]:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(name(label))
            .issuer_name(name(label))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256())
        )
        return key, cert

    ca_key, ca_cert = ca("rhwp test CA")
    _, other_cert = ca("unrelated CA")
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(name("localhost"))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = Certs(ca=where / "ca.pem", other_ca=where / "other.pem", chain=where / "server.pem")
    paths.ca.write_bytes(ca_cert.public_bytes(pem))
    paths.other_ca.write_bytes(other_cert.public_bytes(pem))
    paths.chain.write_bytes(
        leaf.public_bytes(pem) + key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return _make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def tls_site(certs: Certs) -> Iterator[Site]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certs.chain)
    yield from _serve(context)


@pytest.fixture
def trust(certs: Certs, monkeypatch: pytest.MonkeyPatch) -> Certs:
    monkeypatch.setenv("SSL_CERT_FILE", str(certs.ca))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return certs


HTTPS_ONLY = FetchPolicy(allow_private=True, max_bytes=1000, timeout=2.0)


def test_https_verifies_the_url_host_while_dialling_the_checked_address(tls_site: Site, trust: Certs) -> None:
    resolver = StubResolver({"localhost": ["127.0.0.1"]})
    assert _get(f"https://localhost:{tls_site.port}/doc", HTTPS_ONLY, resolve=resolver) == DOC
    assert resolver.calls == [("localhost", tls_site.port)]


def test_https_to_an_ip_literal_checks_the_ip_in_the_certificate(tls_site: Site, trust: Certs) -> None:
    assert _get(f"https://127.0.0.1:{tls_site.port}/doc", HTTPS_ONLY) == DOC


def test_https_certificate_for_another_name_is_refused(tls_site: Site, trust: Certs) -> None:
    resolver = StubResolver({"elsewhere.test": ["127.0.0.1"]})
    failure = _fails(f"https://elsewhere.test:{tls_site.port}/doc", HTTPS_ONLY, resolve=resolver)
    assert failure.code == PERMISSION_DENIED
    assert "certificate" in failure.message
    assert "did not verify" in failure.suggestion


def test_https_untrusted_certificate_is_refused(tls_site: Site, certs: Certs, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certs.other_ca))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    failure = _fails(f"https://127.0.0.1:{tls_site.port}/doc", HTTPS_ONLY)
    assert failure.code == PERMISSION_DENIED
    assert "certificate" in failure.message


def test_https_to_http_downgrade_is_refused(tls_site: Site, site: Site, trust: Certs) -> None:
    failure = _fails(f"https://127.0.0.1:{tls_site.port}/go?to={site.base}/doc", HTTPS_ONLY)
    assert failure.code == PERMISSION_DENIED
    assert "--fetch-allow-http" in failure.suggestion
    # ...and allowed when plain http is.
    policy = FetchPolicy(allow_http=True, allow_private=True, max_bytes=1000, timeout=2.0)
    assert _get(f"https://127.0.0.1:{tls_site.port}/go?to={site.base}/doc", policy) == DOC


def test_plain_http_to_a_tls_port_fails_cleanly(tls_site: Site) -> None:
    failure = _fails(f"http://127.0.0.1:{tls_site.port}/doc")
    assert failure.code == FILE_NOT_FOUND
