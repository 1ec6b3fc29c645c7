"""Moving a workspace to another store backend: ``kgrag migrate --from sqlite --to postgresql://…``.

The workspace directory keeps its ``kgrag.toml``; the data is copied by the generic, verified,
all-or-nothing copier (:func:`kgrag.store.transfer.copy_store`), so either direction works. The copy
holds the source store's indexing lock (the workspace's file lock for SQLite, the schema's advisory lock
for PostgreSQL), so a ``kgrag index`` started meanwhile on it waits instead of writing to a source that is
half copied. Afterwards the workspace still uses its old store until ``[store]`` in
``kgrag.toml`` (or ``KGRAG_STORE``) names the new one — :attr:`Migration.switch_hint` says how.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kgrag.config import load_config
from kgrag.config.store import StoreConfig, store_from_url
from kgrag.core.errors import ConfigError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.store import open_store
from kgrag.store.index_lock import indexing_lock
from kgrag.store.postgres.url import redact
from kgrag.store.transfer import CopyReport, copy_store

PASSWORD_NOTE = "# the password is not shown: write the one of --to, or leave it out and use ~/.pgpass or PGPASSWORD"


@dataclass(frozen=True)
class Migration:
    source: StoreConfig
    target: StoreConfig
    report: CopyReport

    @property
    def switch_hint(self) -> str:
        """The ``[store]`` table of kgrag.toml that makes the workspace use the target store. A generated
        kgrag.toml already has an (empty) ``[store]`` table, so the settings go there rather than as a
        top-level ``store = …`` line, which TOML would refuse next to it. A password in the URL is masked
        (it would stay on screen and in logs), and the hint says so."""
        if self.target.backend == "sqlite":
            return '[store]\nbackend = "sqlite"' + (f"\nurl = {json.dumps(self.target.url)}" if self.target.url else "")
        shown = redact(self.target.url or "")
        table = f'[store]\nbackend = "postgresql"\nurl = {json.dumps(shown)}'
        if shown != (self.target.url or ""):
            table += f"\n{PASSWORD_NOTE}"
        return table


def resolve_store(spec: str | None, current: StoreConfig, flag: str) -> StoreConfig:
    """``None`` → the workspace's store; a backend name → that backend (with the workspace's url when it
    is the configured backend); a URL (``postgresql://…``, ``sqlite:///…``) → exactly that store."""
    if spec is None:
        return current
    if "://" in spec:
        try:
            return StoreConfig(**store_from_url(spec))
        except ValueError as exc:
            raise ConfigError(f"{flag}: {exc}") from exc
    if spec == current.backend:
        return current
    if spec == "postgresql":
        raise ConfigError(f"{flag} postgresql needs the server: pass {flag} postgresql://USER@HOST:PORT/DATABASE")
    try:
        return StoreConfig(backend=spec)
    except ValueError as exc:
        raise ConfigError(f"{flag}: {exc}") from exc


def migrate_store(directory: Path, to: str, source: str | None = None, progress: Progress | None = None) -> Migration:
    """Copy the workspace at ``directory`` from ``source`` (default: its configured store) into the empty
    store ``to``; verified before it commits, nothing kept if anything fails."""
    progress = progress or SilentProgress()
    config = load_config(directory)
    origin = resolve_store(source, config.store, "--from")
    target = resolve_store(to, config.store, "--to")
    if (origin.backend, origin.url) == (target.backend, target.url):
        raise ConfigError("--from and --to name the same store; nothing to copy")
    reader = open_store(origin, directory)
    try:
        with indexing_lock(directory, reader, progress):
            writer = open_store(target, directory)
            try:
                report = copy_store(reader, writer, progress)
            finally:
                writer.close()
    finally:
        reader.close()
    return Migration(origin, target, report)
