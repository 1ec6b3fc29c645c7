"""What one server holds: its workspaces (each with its own jobs and uploads), keys, limits, metrics.

Built by :func:`kgrag.server.app.create_app` and hung on ``app.state``; nothing lives at module level,
so two apps in one process (tests do this) share nothing, and two workspaces of one app share no
object that holds data (each has its own :class:`~kgrag.workspace.Workspace`, store and job manager).
"""

from __future__ import annotations

import logging
import re
import threading
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


REFRESH_WAIT_S = 0.5
"""How long a response waits for the directories to be read again (a store that answers takes milliseconds)."""
ROOTS_REFRESH_S = 10.0
"""How old the set of document directories a scrubber hides may get (the CLI may index beside the server)."""

log = logging.getLogger("kgrag.server")


@dataclass
class HostedWorkspace:
    """A workspace as the server hosts it: the workspace, its job manager and its upload area.

    Its scrubber hides the directories its documents were indexed from, read from the store when it is
    hosted, by the thread that changes documents here, and again in a thread of its own when a response finds
    them older than the refresh period (the response waits for that read at most briefly). A store that
    cannot be read (a database server that is down) keeps the last known directories, so one workspace's
    database never fails another workspace's responses and a failed read never forgets a directory.
    """

    name: str
    ws: Workspace
    jobs: JobManager
    uploads: Uploads
    _scrubber: PathScrubber | None = field(default=None, repr=False)
    _sources: list[tuple[Path, str]] = field(default_factory=list, repr=False)
    _read_at: float = 0.0
    _reading: threading.Lock = field(default_factory=threading.Lock, repr=False)  # one background read
    _merging: threading.Lock = field(default_factory=threading.Lock, repr=False)
    version: int = 0
    _sizes: tuple[tuple[Any, ...], dict[str, DocumentSize]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.jobs.scrub = self.scrub

    def roots(self) -> list[tuple[Path, str]]:
        """What no response may name: the workspace's directory (shown as its name), its uploads, the
        directories its documents were indexed from (shown by their own names; as last read), the home and
        temporary directories."""
        fixed = [(self.ws.path, self.name), (uploads_dir(self.ws.path), UPLOADS_DIR)]
        return [*fixed, *self._sources, *default_roots()]

    def _document_directories(self) -> list[tuple[Path, str]]:
        """The outermost absolute directories of the workspace's document sources, read from the store."""
        directories = sorted({PurePath(d.source.partition("#")[0]).parent for d in self.ws.documents.list()})
        kept: list[PurePath] = []
        for directory in directories:  # sorted: a parent comes before what lies under it
            if (
                directory.is_absolute()
                and len(directory.parts) > 1
                and not any(directory.is_relative_to(k) for k in kept)
            ):
                kept.append(directory)
        return [(Path(d), d.name) for d in kept]

    def _read_sources(self) -> PathScrubber:
        """Read the document directories again and rebuild the scrubber when they grew; when the store
        cannot be read, the directories known so far stay hidden (and the next refresh tries again)."""
        self._read_at = time.monotonic()
        try:
            found = self._document_directories()
        except Exception as exc:  # a store that cannot be read must not fail what is being scrubbed
            log.warning("workspace %s: document directories not read again (%s); the last known stay hidden",
                        self.name, exc)  # fmt: skip
            found = []
        with self._merging:  # a directory once hidden stays hidden: its paths may sit in a job's notes
            sources = [*self._sources, *(s for s in found if s not in self._sources)]
            scrubber = self._scrubber
            if scrubber is None or sources != self._sources:
                self._sources = sources
                scrubber = self._scrubber = PathScrubber(self.roots(), self.uploads.shown_name)
                self.version += 1
            return scrubber

    def _refresh_in_background(self) -> threading.Thread | None:
        """Read the directories again in a thread of its own (None when a read is already running)."""
        if not self._reading.acquire(blocking=False):
            return None  # one refresh at a time
        self._read_at = time.monotonic()

        def read() -> None:
            try:
                self._read_sources()
            finally:
                self._reading.release()

        reading = threading.Thread(target=read, name=f"kgrag-roots-{self.name}", daemon=True)
        reading.start()
        return reading

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
        """Documents were added, changed or removed: their directories are read now, by the thread that
        changed them (so the response about them hides them, and no response waits for the store), and the
        next listing counts their sizes again."""
        self._sizes = None
        self._read_sources()

    def scrubber(self) -> PathScrubber:
        """The scrubber for this workspace's paths as last read (read now only on first use). Once older than
        the refresh period they are read again in a thread this waits for up to :data:`REFRESH_WAIT_S`: a
        store that answers is read before the response (a directory the CLI just indexed is hidden in it),
        one that does not delays it no longer."""
        scrubber = self._scrubber
        if scrubber is None:
            return self._read_sources()
        if time.monotonic() - self._read_at > ROOTS_REFRESH_S:
            reading = self._refresh_in_background()
            if reading is not None:
                reading.join(REFRESH_WAIT_S)
        return self._scrubber or scrubber

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
        hosted.scrubber()  # the document directories are read while the store is known to answer
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
            roots = [root for h in hosted for root in h.roots()]  # as last read: no store is read here

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
