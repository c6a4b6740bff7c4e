"""Fetch a document from an http(s) URL without letting the URL reach into the server's own network (SSRF).

Each hop resolves the host name once, refuses the URL if any address is not public, and connects to
one of those very addresses, so a second DNS answer cannot swap in an internal one. TLS is verified
against the URL's host name. Redirects are followed by hand so every hop gets the same checks, and
the whole fetch runs against one deadline and one byte cap. Only the standard library is used;
http.client and ssl are imported on first use so importing this module stays cheap.
"""

from __future__ import annotations

import io
import ipaddress
import socket
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote, urljoin, urlsplit

from ..plugin.errors import FILE_NOT_FOUND, INVALID_INPUT, PERMISSION_DENIED, TOO_LARGE, ToolFailure

if TYPE_CHECKING:
    import http.client

    from _typeshed import WriteableBuffer


@dataclass(frozen=True)
class FetchPolicy:
    allow_http: bool = False  # --fetch-allow-http
    allow_private: bool = False  # --fetch-allow-private
    max_bytes: int = 50 * 1024 * 1024  # --fetch-max-mb
    timeout: float = 30.0  # --fetch-timeout: whole fetch incl. redirects, seconds
    max_redirects: int = 5


Resolver = Callable[[str, int], list[str]]

CHUNK = 64 * 1024
USER_AGENT = "rhwp-mcp-fetch/1"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_DEFAULT_PORTS = {"http": 80, "https": 443}
# A zero timeout would make the socket non-blocking, so a nearly spent deadline still gets a sliver.
_MIN_TIMEOUT = 0.01
# Characters left as they are in the request target; everything else (non-ASCII, quotes, braces) is
# percent-encoded, which http.client needs and servers read the same way.
_TARGET_SAFE = "/%:@!$&'()*+,;=?~"
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_BROADCAST = ipaddress.IPv4Address("255.255.255.255")

_UPLOAD = "download it yourself and upload it with POST /documents or pass it as a data: URI"


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the operating system gives for host, in its order, without repeats."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found = (str(sockaddr[0]) for family, _, _, _, sockaddr in infos if family in (socket.AF_INET, socket.AF_INET6))
    return list(dict.fromkeys(found))


def address_refusal(ip: str) -> str | None:
    """Why the fetcher must not connect to ip (e.g. "a loopback address"), or None for a public address."""
    try:
        addr = ipaddress.ip_address(ip)
    except ValueError:
        return "not an IP address"
    if isinstance(addr, ipaddress.IPv6Address):
        # Mapped and NAT64 addresses are delivered to the embedded IPv4 host, so that host decides alone.
        inner = addr.ipv4_mapped or (ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF) if addr in _NAT64 else None)
        if inner is not None:
            reason = address_refusal(str(inner))
            return f"{reason} ({inner}) inside an IPv6 address" if reason else None
        # A 6to4 address travels through the embedded IPv4 host: check it, then the IPv6 address itself.
        if addr.sixtofour is not None and (reason := address_refusal(str(addr.sixtofour))):
            return f"{reason} ({addr.sixtofour}) inside a 6to4 address"
    # Most specific first, so the message names the real reason; is_global alone misses multicast.
    checks = (
        (addr.is_unspecified, "the unspecified address"),
        (addr.is_loopback, "a loopback address"),
        (addr.is_link_local, "a link-local address (where cloud metadata services live)"),
        (addr.is_multicast, "a multicast address"),
        (addr == _BROADCAST, "the broadcast address"),
        (addr in _SHARED, "a shared (carrier-grade NAT) address"),
        (addr.is_private or getattr(addr, "is_site_local", False), "a private address"),
        (addr.is_reserved, "a reserved address"),
        (not addr.is_global, "not a globally reachable address"),
    )
    return next((reason for refused, reason in checks if refused), None)


@dataclass(frozen=True)
class _Target:
    url: str  # without the fragment; what messages show
    scheme: str
    host: str  # lower case, ASCII (IDNA), no brackets
    port: int
    literal: str | None  # the address when the URL names one instead of a host name
    host_header: str
    request_target: str
    via: str  # " (redirected from URL)" on later hops, so every message says how the fetch got there

    @property
    def shown(self) -> str:
        return _shown(self.url) + self.via


def _shown(url: str) -> str:
    return url if len(url) <= 200 else url[:200] + "…"


def _invalid(url: str, problem: str) -> ToolFailure:
    return ToolFailure(
        INVALID_INPUT,
        f"{url} is not a usable URL: {problem}",
        "pass an absolute https:// URL such as https://example.com/file.hwp",
    )


def _parse(raw: str, policy: FetchPolicy, via: str = "") -> _Target:
    url = repr(_shown(raw)) + via
    if any(ch.isspace() or ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in raw):
        raise _invalid(url, "it contains whitespace or control characters (percent-encode them, e.g. %20)")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise _invalid(url, str(exc)) from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise _invalid(url, f"the scheme is {scheme + ':' if scheme else 'missing'}; only https:// (and http://) work")
    if "@" in parts.netloc:
        raise ToolFailure(
            INVALID_INPUT,
            f"{url} carries a user name or password; the fetcher never sends credentials",
            f"remove the user:password@ part if the file is public; otherwise {_UPLOAD}",
        )
    if scheme == "http" and not policy.allow_http:
        raise ToolFailure(
            PERMISSION_DENIED,
            f"{url} uses plain http://, which this server does not fetch",
            "use the https:// address of the file, or start the server with --fetch-allow-http",
        )
    if not parts.hostname:
        raise _invalid(url, "it names no host")
    if port == 0:
        raise _invalid(url, "port 0 is not a port")
    host, literal = _host(url, parts.hostname)
    if "[" in parts.netloc and (literal is None or ":" not in literal):
        raise _invalid(url, "only IPv6 addresses go in brackets")
    port = port or _DEFAULT_PORTS[scheme]
    bracketed = f"[{host}]" if ":" in host else host
    target = quote(parts.path or "/", safe=_TARGET_SAFE) + (
        f"?{quote(parts.query, safe=_TARGET_SAFE)}" if parts.query else ""
    )
    return _Target(
        url=raw.split("#", 1)[0],
        scheme=scheme,
        host=host,
        port=port,
        literal=literal,
        host_header=bracketed if port == _DEFAULT_PORTS[scheme] else f"{bracketed}:{port}",
        request_target=target,
        via=via,
    )


def _host(url: str, hostname: str) -> tuple[str, str | None]:
    """The host as sent on the wire, and its address when it is an IP literal."""
    try:
        return hostname, str(ipaddress.ip_address(hostname))
    except ValueError:
        pass
    try:
        host = hostname.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise _invalid(url, f"the host name {hostname!r} is not valid") from None
    labels = host.removesuffix(".").split(".")
    if len(host) > 253 or not all(0 < len(label) <= 63 and set(label) <= _HOST_CHARS for label in labels):
        raise _invalid(url, f"the host name {hostname!r} is not valid")
    # Like browsers, read a host ending in a number as an IPv4 address in the old inet_aton forms
    # (2130706433, 0x7f.1, 127.1): the system resolver would, and it must be checked as an address.
    last = labels[-1]
    if last.isdigit() or (last[:2] == "0x" and all(c in "0123456789abcdef" for c in last[2:])):
        try:
            ip = socket.inet_ntoa(socket.inet_aton(host.removesuffix(".")))
            return ip, ip
        except OSError:
            raise _invalid(url, f"the host {hostname!r} is neither a host name nor an IPv4 address") from None
    return host, None


def _addresses(target: _Target, policy: FetchPolicy, resolve: Resolver) -> list[str]:
    if target.literal is not None:
        found = [target.literal]
    else:
        try:
            found = resolve(target.host, target.port)
        except (OSError, UnicodeError) as exc:
            found, error = [], f": {exc}"
        else:
            error = " to any address"
        if not found:
            raise ToolFailure(
                FILE_NOT_FOUND,
                f"could not resolve the host name {target.host!r} of {target.shown}{error}",
                f"check the host name; it is looked up on the server's machine. If only your machine can reach it, "
                f"{_UPLOAD}",
            )
    for ip in found:
        try:
            ipaddress.ip_address(ip)
            reason = None if policy.allow_private else address_refusal(ip)
        except ValueError:
            reason = "not an IP address"
        if reason is None:
            continue
        named = (
            f"{target.shown} names {ip}" if target.literal else f"{target.host!r} (of {target.shown}) resolves to {ip}"
        )
        raise ToolFailure(
            PERMISSION_DENIED,
            f"{named}, {reason}; the server only fetches from public addresses",
            f"if the server should reach private networks, start it with --fetch-allow-private; otherwise {_UPLOAD}",
        )
    return found


class _DeadlineSocket(io.RawIOBase):
    """What http.client is given as its socket: every read and write first sets the timeout to the time left,
    so a server that drips one byte at a time still cannot stretch the fetch past the deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        self._deadline = deadline

    def _arm(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the deadline passed")
        self._sock.settimeout(max(left, _MIN_TIMEOUT))

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        self._arm()
        return self._sock.recv_into(buffer)

    def sendall(self, data: bytes) -> None:
        self._arm()
        self._sock.sendall(data)

    def makefile(self, mode: str = "rb") -> io.BufferedReader:
        return io.BufferedReader(self)

    def close(self) -> None:
        # http.client "closes" its socket as soon as the response says Connection: close, before the
        # body is read; the real socket is closed by fetch_chunks when it is done.
        pass


def _connect(target: _Target, ips: list[str], deadline: float) -> socket.socket:
    last: OSError | None = None
    for ip in ips:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the deadline passed")
        try:
            sock = socket.create_connection((ip, target.port), timeout=max(left, _MIN_TIMEOUT))
            break
        except OSError as exc:
            last = exc
    else:
        raise ToolFailure(
            FILE_NOT_FOUND,
            f"could not connect to {target.host} ({', '.join(ips)}) port {target.port} for {target.shown}: {last}",
            f"check that the site is up and reachable from the server's machine; otherwise {_UPLOAD}",
        )
    if target.scheme == "http":
        return sock
    import ssl

    try:
        sock.settimeout(max(deadline - time.monotonic(), _MIN_TIMEOUT))
        # The name, not the address we dialled, is what the certificate must prove (and what SNI asks for).
        return ssl.create_default_context().wrap_socket(sock, server_hostname=target.host)
    except ssl.SSLCertVerificationError as exc:
        sock.close()
        raise ToolFailure(
            PERMISSION_DENIED,
            f"the TLS certificate of {target.host} did not verify ({exc.verify_message or exc.reason})",
            f"the site's certificate did not verify; fix the site or {_UPLOAD}",
        ) from None
    except BaseException:
        sock.close()
        raise


def _refuse_status(target: _Target, status: int, reason: str) -> None:
    answered = f"{target.shown} answered {status} {reason}".rstrip()
    if status in (401, 403):
        raise ToolFailure(
            PERMISSION_DENIED,
            f"{answered}: the site requires credentials, which the fetcher never sends",
            f"{_UPLOAD}",
        )
    if not 200 <= status < 300 or status == 206:
        where = "no file there" if status in (404, 410) else "no document was returned"
        raise ToolFailure(FILE_NOT_FOUND, f"{answered}: {where}", f"check the URL; if it opens in a browser, {_UPLOAD}")


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB" if n >= 1024 * 1024 else f"{n} bytes"


def _too_large(target: _Target, policy: FetchPolicy, size: str) -> ToolFailure:
    return ToolFailure(
        TOO_LARGE,
        f"{target.shown} is {size}, over the server's fetch limit of {_size(policy.max_bytes)}",
        "start the server with a larger --fetch-max-mb, or download the file and upload it with POST /documents",
    )


def fetch_chunks(url: str, policy: FetchPolicy, *, resolve: Resolver = system_resolver) -> Generator[bytes, None, None]:
    """A generator: validates, connects, follows redirects, then yields the body in chunks (<= 64 KiB).
    Raises ToolFailure (before or during iteration). Closing the generator early closes the connection."""
    import http.client

    # Wall-clock time, so a consumer that pauses between chunks spends the same budget.
    deadline = time.monotonic() + policy.timeout
    target = _parse(url, policy)
    for _ in range(policy.max_redirects + 1):
        sock: socket.socket | None = None
        conn: http.client.HTTPConnection | None = None
        try:
            ips = _addresses(target, policy, resolve)
            sock = _connect(target, ips, deadline)
            conn = http.client.HTTPConnection(target.host, target.port)
            # Our connected (and verified) socket is handed over, so http.client never resolves or dials
            # anything itself; it also never reads proxy settings, which would defeat the address check.
            conn.sock = _DeadlineSocket(sock, deadline)
            headers = {
                "Host": target.host_header,
                "User-Agent": USER_AGENT,
                "Accept": "*/*",
                "Accept-Encoding": "identity",
                "Connection": "close",
            }
            conn.request("GET", target.request_target, headers=headers)
            response = conn.getresponse()
            if response.status not in _REDIRECTS:
                _refuse_status(target, response.status, response.reason)
                if response.length is not None and response.length > policy.max_bytes:
                    raise _too_large(target, policy, f"{_size(response.length)} (by its Content-Length)")
                yield from _body(target, policy, response)
                return
            location = response.getheader("Location")
        except TimeoutError:
            raise ToolFailure(
                TOO_LARGE,
                f"fetching {_shown(url)} took longer than {policy.timeout:g} s",
                "start the server with a larger --fetch-timeout, or download the file and upload it with "
                "POST /documents",
            ) from None
        except (OSError, http.client.HTTPException) as exc:
            raise ToolFailure(
                FILE_NOT_FOUND,
                f"fetching {target.shown} failed: {type(exc).__name__}: {exc}",
                f"check that the URL opens in a browser; otherwise {_UPLOAD}",
            ) from None
        finally:
            if conn is not None:
                conn.close()
            if sock is not None:
                sock.close()
        if not location:
            raise ToolFailure(
                FILE_NOT_FOUND,
                f"{target.shown} redirects ({response.status}) without saying where (no Location header)",
                f"check the URL in a browser; {_UPLOAD}",
            )
        target = _parse(urljoin(target.url, location.strip()), policy, f" (redirected from {_shown(url)})")
    raise ToolFailure(
        TOO_LARGE,
        f"{_shown(url)} led through more than {policy.max_redirects} redirects (the last to {_shown(target.url)})",
        f"the site redirects in a loop or too deep; open the URL in a browser and pass the final address, or {_UPLOAD}",
    )


def _body(target: _Target, policy: FetchPolicy, response: http.client.HTTPResponse) -> Iterator[bytes]:
    # Content-Length was only a hint: the bytes themselves are counted, whatever the framing.
    count = 0
    while chunk := response.read1(CHUNK):
        count += len(chunk)
        if count > policy.max_bytes:
            raise _too_large(target, policy, f"more than {_size(policy.max_bytes)}")
        yield chunk
    # read1 reports a connection closed too early as a plain end; the length still owed tells.
    if response.length:
        raise ToolFailure(
            FILE_NOT_FOUND,
            f"{target.shown} stopped after {count} bytes, {response.length} short of its Content-Length",
            f"try again later; if it keeps failing, {_UPLOAD}",
        )
