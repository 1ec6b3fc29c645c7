"""No response names a server path: messages are rewritten to file names before they leave the server.

Reasons from the indexer and the loaders name the file they are about by its full path (right for the CLI,
whose user owns the disk), and exceptions from libraries quote paths too. A client of the server must see
neither the workspace's directory nor the server's home or temporary directories, so every text that can
carry one (job notes, job errors, document errors, error messages) goes through :class:`PathScrubber`: a
path under one of the server's own roots becomes the file's name (an upload's name as the client sent it),
and a root by itself becomes a neutral word. :class:`ScrubMiddleware` applies the same rewrite to every
JSON response as a last resort, so a route that forgets to scrub still leaks nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

Rename = Callable[[str], str]
"""Maps a file's base name to what a client is shown (an upload's stored name to its original name)."""

_PATH_END = r"[^\s\"'<>()\[\]{},;:]*"  # a path runs until whitespace, a quote, a bracket or a colon
_JSON_TYPES = (b"application/json", b"application/problem+json")


def _keep(name: str) -> str:
    return name


def _variants(root: Path) -> list[str]:
    """``root`` as written and resolved (a symlinked /tmp is written both ways), without a trailing slash."""
    found = {str(root).rstrip(os.sep)}
    with contextlib.suppress(OSError, RuntimeError):
        found.add(str(root.resolve()).rstrip(os.sep))
    return sorted((v for v in found if len(v) > 1), key=len, reverse=True)


def default_roots() -> list[tuple[Path, str]]:
    """The roots every server hides whatever it hosts: the home and temporary directories."""
    return [(Path.home(), "~"), (Path(tempfile.gettempdir()), "tmp")]


class PathScrubber:
    """Rewrites paths under ``roots`` (each with the word shown for the root itself) to their file name.

    Longer roots are matched first, so a workspace inside the home directory is named as the workspace.
    """

    def __init__(self, roots: Iterable[tuple[Path, str]], rename: Rename = _keep) -> None:
        pairs = [(variant, label) for root, label in roots for variant in _variants(root)]
        pairs.sort(key=lambda pair: len(pair[0]), reverse=True)
        self._labels = dict(pairs)
        alternatives = "|".join(re.escape(variant) for variant, _ in pairs)
        self._pattern = re.compile(f"(?<![\\w.~/-])({alternatives})(?![\\w~-]|\\.\\w)({_PATH_END})") if pairs else None
        self._rename = rename

    def _replace(self, match: re.Match[str], escape: bool) -> str:
        root, rest = match.group(1), match.group(2)
        dots = rest[len(rest.rstrip(".")) :]  # a sentence's full stop after the path stays
        base = re.split(r"[/\\]", rest[: len(rest) - len(dots)].strip("/\\"))[-1]
        shown = (self._rename(base) if base else self._labels.get(root, "")) + dots
        return json.dumps(shown, ensure_ascii=False)[1:-1] if escape else shown

    def text(self, value: str, *, json_escaped: bool = False) -> str:
        """``value`` with every path under a root replaced by its (client-side) file name; ``json_escaped``
        when ``value`` is JSON text, so a file name with a quote in it stays valid JSON."""
        if self._pattern is None or not value:
            return value
        return self._pattern.sub(lambda m: self._replace(m, json_escaped), value)

    def data(self, value: Any) -> Any:
        """Every string inside a JSON-like value scrubbed (dict keys included)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.data(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.data(v) for v in value]
        return value


class ScrubMiddleware:
    """The last resort: JSON response bodies pass through :meth:`PathScrubber.text` before they are sent.

    Routes scrub what they build; this catches whatever slips through (a library's exception text in a
    message, a field added later). Only JSON is touched (the page's files and the docs assets are not),
    and the body is rewritten as text, so JSON escaping of ``/`` is the only form it has to know. Paths in
    ``exempt`` answer fixed texts (health) and pass untouched, so they never wait for a scrubber.
    """

    def __init__(
        self, app: ASGIApp, scrubber: Callable[[], PathScrubber], exempt: frozenset[str] = frozenset()
    ) -> None:
        self.app = app
        self.scrubber = scrubber
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") in self.exempt:
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        body: list[bytes] = []

        async def buffered(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                content_type = MutableHeaders(raw=message["headers"]).get("content-type", "").encode()
                if content_type.split(b";")[0].strip() in _JSON_TYPES:
                    start = message
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await self._send_scrubbed(start, b"".join(body), send)

        await self.app(scope, receive, buffered)

    async def _send_scrubbed(self, start: Message, raw: bytes, send: Send) -> None:
        text = raw.decode("utf-8", errors="surrogateescape")
        cleaned = self.scrubber().text(text.replace("\\/", "/"), json_escaped=True)
        encoded = cleaned.encode("utf-8", errors="surrogateescape")
        headers = MutableHeaders(raw=list(start["headers"]))
        headers["content-length"] = str(len(encoded))
        await send({**start, "headers": headers.raw})
        await send({"type": "http.response.body", "body": encoded, "more_body": False})
