"""What one server holds: its workspaces (each with its own jobs and uploads), keys, limits, metrics.

Built by :func:`kgrag.server.app.create_app` and hung on ``app.state``; nothing lives at module level,
so two apps in one process (tests do this) share nothing, and two workspaces of one app share no
object that holds data (each has its own :class:`~kgrag.workspace.Workspace`, store and job manager).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from fastapi import Request

from kgrag.config import ServerConfig
from kgrag.core.errors import ConfigError
from kgrag.documents.loaders import LOADERS
from kgrag.server.jobs import JobManager
from kgrag.server.metrics import Metrics
from kgrag.server.scrub import PathScrubber, default_roots
from kgrag.server.security import KeyRing, RateLimiter
from kgrag.server.uploads import UPLOADS_DIR, Uploads, uploads_dir
from kgrag.workspace import Workspace
from kgrag.workspace.documents_api import DocumentSize

WORKSPACE_NAME = r"^[A-Za-z0-9_-]{1,64}$"


ROOTS_REFRESH_S = 10.0
"""How old the set of document directories a scrubber hides may get (the CLI may index beside the server)."""


@dataclass
class HostedWorkspace:
    """A workspace as the server hosts it: the workspace, its job manager and its upload area."""

    name: str
    ws: Workspace
    jobs: JobManager
    uploads: Uploads
    _scrubber: PathScrubber | None = field(default=None, repr=False)
    _built_at: float = 0.0
    version: int = 0
    _sizes: tuple[tuple[Any, ...], dict[str, DocumentSize]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.jobs.scrub = self.scrub

    def roots(self) -> list[tuple[Path, str]]:
        """What no response may name: the workspace's directory (shown as its name), its uploads, the
        directories its documents were indexed from (shown by their own names), the home and temporary
        directories."""
        directories = sorted({PurePath(d.source.partition("#")[0]).parent for d in self.ws.documents.list()})
        kept: list[PurePath] = []
        for directory in directories:  # sorted: a parent comes before what lies under it
            if (
                directory.is_absolute()
                and len(directory.parts) > 1
                and not any(directory.is_relative_to(k) for k in kept)
            ):
                kept.append(directory)
        sources = [(Path(d), d.name) for d in kept]
        return [(self.ws.path, self.name), (uploads_dir(self.ws.path), UPLOADS_DIR), *sources, *default_roots()]

    def sizes(self) -> dict[str, DocumentSize]:
        """Passages and entities per document (``ws.documents.sizes``), computed again only when the counts
        of documents, chunks or graph rows changed: a status table polls this while a job runs."""
        key: tuple[Any, ...] = (
            self.ws.documents.chunk_count(),
            tuple(sorted(self.ws.documents.counts().items())),
            tuple(sorted(self.ws.graph.counts().items())),
        )
        if self._sizes is None or self._sizes[0] != key:
            self._sizes = (key, self.ws.documents.sizes())
        return self._sizes[1]

    def forget_roots(self) -> None:
        """Documents were added, changed or removed: the next scrub reads their directories again, and the
        next listing counts their sizes again."""
        self._scrubber = None
        self._sizes = None

    def scrubber(self) -> PathScrubber:
        if self._scrubber is None or time.monotonic() - self._built_at > ROOTS_REFRESH_S:
            self._scrubber = PathScrubber(self.roots(), self.uploads.shown_name)
            self._built_at = time.monotonic()
            self.version += 1
        return self._scrubber

    def source_name(self, source: str) -> str:
        """A document's source as a client sees it: the file name (as uploaded, for the server's uploads),
        with a record's ``#n`` kept; never the directory."""
        path, sep, record = source.partition("#")
        return self.uploads.shown_name(PurePath(path).name) + sep + record

    def scrub(self, value: Any) -> Any:
        """``value`` (a text or JSON-like data) with this workspace's server paths replaced by file names."""
        return self.scrubber().data(value)


@dataclass
class ServerState:
    """Everything a request handler may reach, per app."""

    limits: ServerConfig
    keys: KeyRing
    workspaces: dict[str, HostedWorkspace] = field(default_factory=dict)
    metrics: Metrics = field(default_factory=Metrics)
    limiter: RateLimiter = field(init=False)
    auth_failures: RateLimiter = field(init=False)
    _scrubber: PathScrubber | None = field(init=False, default=None)
    _versions: tuple[int, ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        self.limiter = RateLimiter(self.limits.rate_limit_per_minute, self.limits.rate_limit_burst)
        per_minute = self.limits.failed_auth_per_minute
        self.auth_failures = RateLimiter(per_minute, per_minute)  # per client address

    def host(self, name: str, ws: Workspace) -> HostedWorkspace:
        """Add ``ws`` under ``name`` (URL-safe, unique)."""
        if not re.match(WORKSPACE_NAME, name):
            raise ConfigError(f"workspace name {name!r}: use letters, digits, '-' and '_' (at most 64)")
        if name in self.workspaces:
            raise ConfigError(f"two workspaces are named {name!r}; name them with NAME=PATH")
        suffixes = sorted(ws.registries.get(LOADERS).names())  # what this workspace can index
        uploads = Uploads(uploads_dir(ws.path), self.limits, suffixes)
        hosted = HostedWorkspace(name, ws, JobManager(name), uploads)
        self.workspaces[name] = hosted
        self._scrubber = None
        return hosted

    def scrubber(self) -> PathScrubber:
        """One scrubber for every hosted workspace's paths (the response layer's last resort), rebuilt when
        a workspace's own one is."""
        hosted = list(self.workspaces.values())
        for h in hosted:
            h.scrubber()
        versions = tuple(h.version for h in hosted)
        if self._scrubber is None or versions != self._versions:
            roots = [root for h in hosted for root in h.roots()]

            def rename(stored: str) -> str:
                return next((shown for h in hosted if (shown := h.uploads.shown_name(stored)) != stored), stored)

            self._scrubber = PathScrubber(roots, rename)
            self._versions = versions
        return self._scrubber

    def shutdown(self) -> None:
        """Stop jobs first (they write), then leave closing the workspaces to their owner."""
        for hosted in self.workspaces.values():
            hosted.jobs.shutdown()


def server_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.kgrag
    return state
