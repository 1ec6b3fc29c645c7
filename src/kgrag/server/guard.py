"""Browser-borne attacks on a server without keys: DNS rebinding and cross-site request forgery.

A keyless server on 127.0.0.1 trusts whoever reaches it, and a web page in the user's browser can reach
it too. Two rules keep such pages out, checked before any route runs:

* **Host**: the ``Host`` header must name this server (127.0.0.1, localhost, [::1], the bound ``host``,
  or ``server.allowed_hosts``). A rebinding attack points the attacker's own domain at 127.0.0.1, so its
  requests carry that domain as ``Host`` and are refused. The header must be exactly ``host[:port]``;
  anything after it (``127.0.0.1:8000 evil``) makes it malformed, refused whatever the allowed names.
* **Cross-site writes**: a request that changes something (any method but GET, HEAD, OPTIONS) must be one
  a foreign page cannot send without the browser asking this server first (a CORS preflight, which it
  never grants): it carries ``X-Kgrag-Request``, an API key header, or a JSON body. A plain HTML form
  (``multipart/form-data``, ``application/x-www-form-urlencoded``, ``text/plain``) has none of these.
  Besides, a browser's ``Origin`` must be this server's own, and ``Sec-Fetch-Site`` must not say the
  request came from another site.

The server sets no cookies (keys travel in headers and the page keeps them in ``sessionStorage``), so
there is no ambient credential for a forged request to ride on; these rules protect the keyless case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from kgrag.server.errors import error_response

CSRF_HEADER = "X-Kgrag-Request"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
_KEY_HEADERS = ("authorization", "x-api-key")
# RFC 9110 Host: a bracketed IPv6 literal or a name/IPv4 address, then an optional numeric port; nothing else
_HOST_HEADER = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9._~-]+)(?::[0-9]{1,5})?", re.IGNORECASE)


def host_name(value: str) -> str:
    """The name part of a ``Host`` header or URL netloc, lower-case, without port or IPv6 brackets."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def host_header_name(value: str) -> str | None:
    """The name a ``Host`` header names (as :func:`host_name` gives it), or None when the header is not a
    well-formed ``host[:port]`` (``127.0.0.1:8000 evil`` is not)."""
    match = _HOST_HEADER.fullmatch(value)
    return host_name(value) if match is not None else None


def allowed_hosts(bind_host: str, extra: Iterable[str]) -> frozenset[str] | None:
    """The names a server bound to ``bind_host`` answers to; None: any (``*``, or a wildcard bind without
    an explicit list)."""
    names = [host_name(n) for n in extra if n.strip()]
    if "*" in names or (host_name(bind_host) in WILDCARDS and not names):
        return None
    return frozenset({*LOOPBACK_NAMES, host_name(bind_host), *names} - WILDCARDS)


def _is_json(content_type: str) -> bool:
    mime = content_type.split(";", 1)[0].strip().lower()
    return mime == "application/json" or mime.endswith("+json")


def cross_site_problem(method: str, headers: Headers) -> str | None:
    """Why a state-changing request may have been forged by another site (None: it was not)."""
    if method in SAFE_METHODS:
        return None
    if headers.get("sec-fetch-site", "") in ("cross-site", "same-site"):
        return "request sent by another site's page"
    origin = headers.get("origin")
    if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != headers.get("host", "").lower()):
        return f"request from origin {origin!r}, not this server's page"
    signalled = CSRF_HEADER.lower() in headers or any(h in headers for h in _KEY_HEADERS)
    if not signalled and not _is_json(headers.get("content-type", "")):
        return f"a request that changes something needs a JSON body or the {CSRF_HEADER} header"
    return None


class RequestGuardMiddleware:
    """Refuse foreign ``Host`` headers (400) and possibly forged writes (403) before routing."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        name = host_header_name(host)
        if name is None and host:
            await error_response(400, "bad_host", f"malformed Host header {host[:100]!r}")(scope, receive, send)
            return
        if self.hosts is not None and name not in self.hosts:
            message = (
                f"unknown Host {host[:100]!r}: this server answers to {', '.join(sorted(self.hosts))} "
                "(add the name to server.allowed_hosts)"
            )
            await error_response(400, "bad_host", message)(scope, receive, send)
            return
        problem = cross_site_problem(scope["method"], headers)
        if problem is not None:
            await error_response(403, "cross_site", f"refused: {problem}")(scope, receive, send)
            return
        await self.app(scope, receive, send)
