"""What one server holds: its workspaces (each with its own jobs and uploads), keys, limits, metrics.

Built by :func:`kgrag.server.app.create_app` and hung on ``app.state``; nothing lives at module level,
so two apps in one process (tests do this) share nothing, and two workspaces of one app share no
object that holds data (each has its own :class:`~kgrag.workspace.Workspace`, store and job manager).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from fastapi import Request

from kgrag.config import ServerConfig
from kgrag.core.errors import ConfigError
from kgrag.documents import supported_suffixes
from kgrag.server.jobs import JobManager
from kgrag.server.metrics import Metrics
from kgrag.server.scrub import PathScrubber, default_roots
from kgrag.server.security import KeyRing, RateLimiter
from kgrag.server.uploads import UPLOADS_DIR, Uploads, uploads_dir
from kgrag.workspace import Workspace

WORKSPACE_NAME = r"^[A-Za-z0-9_-]{1,64}$"


@dataclass
class HostedWorkspace:
    """A workspace as the server hosts it: the workspace, its job manager and its upload area."""

    name: str
    ws: Workspace
    jobs: JobManager
    uploads: Uploads
    scrubber: PathScrubber

    def source_name(self, source: str) -> str:
        """A document's source as a client sees it: the file name (as uploaded, for the server's uploads),
        with a record's ``#n`` kept; never the directory."""
        path, sep, record = source.partition("#")
        return self.uploads.shown_name(PurePath(path).name) + sep + record

    def scrub(self, value: Any) -> Any:
        """``value`` (a text or JSON-like data) with this workspace's server paths replaced by file names."""
        return self.scrubber.data(value)


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
        uploads = Uploads(uploads_dir(ws.path), self.limits, supported_suffixes())
        scrubber = PathScrubber(_roots(name, ws.path), uploads.shown_name)
        hosted = HostedWorkspace(name, ws, JobManager(name, scrubber.data), uploads, scrubber)
        self.workspaces[name] = hosted
        self._scrubber = None
        return hosted

    def scrubber(self) -> PathScrubber:
        """One scrubber for every hosted workspace's paths (the response layer's last resort)."""
        if self._scrubber is None:
            hosted = list(self.workspaces.values())
            roots = [root for h in hosted for root in _roots(h.name, h.ws.path)]

            def rename(stored: str) -> str:
                return next((shown for h in hosted if (shown := h.uploads.shown_name(stored)) != stored), stored)

            self._scrubber = PathScrubber(roots, rename)
        return self._scrubber

    def shutdown(self) -> None:
        """Stop jobs first (they write), then leave closing the workspaces to their owner."""
        for hosted in self.workspaces.values():
            hosted.jobs.shutdown()


def _roots(name: str, path: Path) -> list[tuple[Path, str]]:
    """A workspace's directory (shown as its name), its uploads (``uploads``), the home and temporary
    directories: what no response may name."""
    return [(path, name), (uploads_dir(path), UPLOADS_DIR), *default_roots()]


def server_state(request: Request) -> ServerState:
    state: ServerState = request.app.state.kgrag
    return state
