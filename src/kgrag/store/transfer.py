"""Copying a whole workspace from one store to another, whatever the two backends (``kgrag migrate``).

Written against the protocols only (:class:`~kgrag.store.base.CopyableStore`, the logical tables of
:mod:`kgrag.store.tables`), so SQLite → PostgreSQL, PostgreSQL → SQLite and any future pair are the same
loop. The copy is **all-or-nothing**: every row lands in one transaction of the target, which is checked
before it commits — each table's row count must equal the source's, and the graph fingerprint (every
graph row, identities and stale flags included) must match — so a failed or interrupted copy leaves the
target as empty as it was, and simply running it again is the way to resume. The target must be empty:
merging two workspaces is not a copy.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from kgrag.core.errors import WorkspaceError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.store.base import CopyableStore, Store
from kgrag.store.tables import COPIED, TABLES

COPY_STAGE = "migrate"
BATCH_ROWS = 1000


@dataclass(frozen=True)
class TableCount:
    table: str
    source: int
    target: int

    @property
    def equal(self) -> bool:
        return self.source == self.target


@dataclass
class CopyReport:
    """What a copy moved, per table, and whether the target verified equal to the source."""

    tables: list[TableCount] = field(default_factory=list)
    fingerprint_equal: bool = False
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(t.target for t in self.tables)

    @property
    def verified(self) -> bool:
        return self.fingerprint_equal and all(t.equal for t in self.tables)


class CopyMismatchError(WorkspaceError):
    """The copy did not verify; the target's transaction was rolled back."""


def _copyable(store: Store, role: str) -> CopyableStore:
    if not isinstance(store, CopyableStore):
        raise WorkspaceError(f"the {role} store ({type(store).__name__}) cannot be copied row by row")
    return store


def copy_store(source: Store, target: Store, progress: Progress | None = None) -> CopyReport:
    """Copy every table of ``source`` into the empty ``target`` in one verified transaction."""
    progress = progress or SilentProgress()
    reader, writer = _copyable(source, "source").rows, _copyable(target, "target").rows
    occupied = [(t.name, n) for t in COPIED if (n := writer.count(t))]
    if occupied:
        name, n = occupied[0]
        raise WorkspaceError(
            f"the target store is not empty ({name}: {n} rows); migrate into a new schema (?schema=NAME) or a new "
            "file — kgrag migrate copies a workspace, it does not merge two"
        )
    started = time.perf_counter()
    report = CopyReport()
    totals = {t.name: reader.count(t) for t in COPIED}
    progress.start(COPY_STAGE, sum(totals.values()))
    with target.transaction():
        for table in TABLES:
            for rows in reader.read(table, BATCH_ROWS):
                writer.write(table, rows)
                if not table.update:
                    progress.advance(COPY_STAGE, len(rows))
        writer.finish_import()
        report.tables = [TableCount(t.name, totals[t.name], writer.count(t)) for t in COPIED]
        report.fingerprint_equal = source.denoise.fingerprint() == target.denoise.fingerprint()
        if not report.verified:
            bad = [f"{t.table} {t.source}→{t.target}" for t in report.tables if not t.equal]
            raise CopyMismatchError(
                "the copy did not verify (" + (", ".join(bad) or "graph fingerprints differ") + "); nothing was "
                "kept in the target — please report this as a bug"
            )
    progress.finish(COPY_STAGE)
    report.seconds = time.perf_counter() - started
    return report
