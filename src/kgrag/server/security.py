"""API keys, rate limits and the request-size guard.

The rules: a server bound to anything but loopback must have keys (checked before it binds, see
:func:`check_bind`); a key may be limited to some workspaces, so one team's key cannot read another
team's index; every key (or, without keys, every client address) has its own token bucket; a request body
over the limit is refused before it is parsed, and a body without a length is cut off as it streams in.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kgrag.core.errors import ConfigError, KgragError
from kgrag.fileio import read_regular_text
from kgrag.server.errors import error_response

MAX_TRACKED_CLIENTS = 10_000


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``; a wildcard (0.0.0.0, ::) or a name is not."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ApiKey:
    """A key (kept only as its SHA-256) and the workspaces it may use (None: all of them)."""

    digest: bytes
    label: str
    workspaces: frozenset[str] | None


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8")).digest()


class KeyRing:
    """The accepted keys. Lookups compare digests in constant time, so timing does not leak a key."""

    def __init__(self, keys: Iterable[ApiKey] = ()) -> None:
        self.keys = list(keys)

    @classmethod
    def parse(cls, lines: Iterable[str], source: str) -> KeyRing:
        """One key per line, optionally followed by the comma-separated workspaces it may use; ``#``
        starts a comment. Keys shorter than 16 characters are refused (guessable)."""
        keys = []
        for number, raw in enumerate(lines, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            secret, _, scope = line.partition(" ")
            if len(secret) < 16:
                raise ConfigError(f"{source}:{number}: API keys must be at least 16 characters")
            names = frozenset(n.strip() for n in scope.split(",") if n.strip()) or None
            keys.append(ApiKey(_digest(secret), f"key-{_digest(secret).hex()[:8]}", names))
        return cls(keys)

    @classmethod
    def from_file(cls, path: Path) -> KeyRing:
        try:
            text = read_regular_text(path)  # a FIFO or /dev/zero is refused, not read forever
        except KgragError as exc:
            raise ConfigError(f"API key file: {exc}") from exc
        return cls.parse(text.splitlines(), str(path))

    def __bool__(self) -> bool:
        return bool(self.keys)

    def find(self, secret: str) -> ApiKey | None:
        digest = _digest(secret)
        match = None
        for key in self.keys:  # no early exit: the time taken does not depend on which key matched
            if hmac.compare_digest(key.digest, digest):
                match = key
        return match


def check_bind(host: str, keys: KeyRing) -> None:
    """Refuse to serve beyond this machine without keys (the LightRAG default of an open server)."""
    if not is_loopback(host) and not keys:
        raise ConfigError(
            f"refusing to bind {host}: a server reachable from other machines needs an API key "
            "(--api-key-file FILE or KGRAG_API_KEYS=key1,key2); bind 127.0.0.1 for local use without one"
        )


class RateLimiter:
    """A token bucket per client: ``burst`` requests at once, refilled at ``per_minute``/60 per second."""

    def __init__(self, per_minute: int, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._lock = threading.Lock()
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def acquire(self, client: str, *, spend: bool = True) -> float:
        """0.0 when the request may go ahead, else the seconds until it could (for Retry-After).
        ``spend=False`` only looks (the failed-key limiter asks before it knows whether to charge)."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.pop(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / self.rate
            self._buckets[client] = (tokens - 1 if wait == 0.0 and spend else tokens, now)
            while len(self._buckets) > MAX_TRACKED_CLIENTS:
                self._buckets.popitem(last=False)
        return wait


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` when a streamed body passes the limit: an HTTP 413, so whichever layer is
    reading the body (form parsing included) turns it into the JSON error rather than a parse error."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body over the limit of {limit} bytes")


class BodyLimitMiddleware:
    """Refuse bodies over ``limit`` bytes: by ``Content-Length`` before reading, else while streaming."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(scope, receive, send)
            return
        seen = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise BodyTooLarge(self.limit)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(413, "too_large", f"request body over the limit of {self.limit} bytes")
        await response(scope, receive, send)
