"""The denoise repository of both stores: merges at the mention level, dropped relations, run logs, undo.

A merge re-points the alias's *mentions* to the canonical entity rather than editing aggregates: the graph
is derived from mentions (:mod:`kgrag.store.sql.graph`), so a merge done on aggregates would be undone by
the next refresh. Relations follow their endpoints (re-keyed to the canonical pair; self-loops dropped);
what changed is flagged stale and the graph layer recomputes it. Undo restores a snapshot taken before
the run, table by table with the original row identities, so the graph tables come back identical. The
two statements of a restore that each engine writes its own way are hooks of the backend subclasses.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence

from kgrag.core.denoise_records import DenoiseRun, MergeCounts, MergeEntry, RelationScore, SplitCounts
from kgrag.core.graph_ids import relation_id_for_pair
from kgrag.store.sql.database import Dialect, SqlDatabase
from kgrag.store.sql.denoise_split import split_alias
from kgrag.store.sql.graph import relations_touching

_STALE_TABLES = ("entities", "relations")  # insert triggers flip their stale flags; restore puts them back
_MERGE_COLUMNS = "run_id, canonical_id, canonical_name, alias_id, alias_key, alias_name, score, mode, reason"
_SCORE_COLUMNS = "run_id, relation_id, source_name, target_name, label, score, reason, method, dropped"
# restore order: parents before children (foreign keys), aliases last
RESTORE_ORDER = ("entities", "entity_mentions", "relations", "relation_mentions", "entity_aliases", "denoise_dropped")


def snapshot_column(column: str) -> str:
    """A graph table's column as its snapshot table names it (``rowid`` is reserved, so ``row_id``)."""
    return "row_id" if column == "rowid" else column


class SqlDenoise:
    """Implements :class:`kgrag.store.base.DenoiseRepository`; writes join the caller's transaction."""

    def __init__(self, db: SqlDatabase, dialect: Dialect, snapshot_tables: Mapping[str, tuple[str, ...]]) -> None:
        self._db = db
        self._dialect = dialect
        self._tables = snapshot_tables

    def restore_order_by(self, columns: Sequence[str]) -> str:
        """The snapshot table's order in which :meth:`restore` re-inserts a graph table's rows."""
        return snapshot_column(columns[0])

    def restore_stale_sql(self, table: str) -> str:
        """An update putting back the snapshot's stale flags of ``table`` (one ``?``: the run id)."""
        return (
            f"UPDATE {table} SET stale = (SELECT s.stale FROM denoise_snap_{table} s "
            f"WHERE s.snap_run = ? AND s.row_id = {table}.rowid)"
        )

    # -- merging -----------------------------------------------------------------------------------
    def merge_entities(self, mapping: Mapping[str, str], run_id: str) -> MergeCounts:
        """Fold each alias id into its canonical id (a flat map: no canonical is itself an alias)."""
        if any(c in mapping for c in mapping.values()):
            raise ValueError("merge mapping must be flat: a canonical entity cannot also be an alias")
        with self._db.transaction():
            moved = 0
            for alias, canonical in mapping.items():
                moved += self._db.changes(
                    "UPDATE entity_mentions SET entity_id = ? WHERE entity_id = ?", (canonical, alias)
                )
            relations_moved, loops = self._move_relations(mapping)
            self._remember_aliases(mapping, run_id)
            for condition, params in self._dialect.in_batches("id", list(mapping.values())):
                self._db.execute(f"UPDATE entities SET stale = 1 WHERE {condition}", params)
            for condition, params in self._dialect.in_batches("id", list(mapping)):
                self._db.execute(f"DELETE FROM entities WHERE {condition}", params)
        return MergeCounts(moved, relations_moved, loops)

    def _move_relations(self, mapping: Mapping[str, str]) -> tuple[int, int]:
        rows = relations_touching(self._db, self._dialect, "id, source_id, target_id", list(mapping))
        dropped = {r[0] for r in self._db.query("SELECT relation_id FROM denoise_dropped")}
        moved = loops = 0
        for rid, source_id, target_id in ((r[0], r[1], r[2]) for r in rows):
            new_s, new_t = mapping.get(source_id, source_id), mapping.get(target_id, target_id)
            if new_s == new_t:
                self._db.execute("DELETE FROM relations WHERE id = ?", (rid,))
                loops += 1
                continue
            low, high = sorted((new_s, new_t))
            new_id = relation_id_for_pair(low, high)
            if new_id != rid and new_id in dropped:  # re-keyed onto a relation removed on purpose: it stays gone
                self._db.execute("DELETE FROM relations WHERE id = ?", (rid,))
                continue
            self._db.execute(
                "INSERT INTO relations(id, source_id, target_id, label) SELECT ?, ?, ?, label FROM relations "
                "WHERE id = ? ON CONFLICT DO NOTHING",
                (new_id, low, high, rid),
            )
            # a mention stated source→target keeps its direction: forward means "source is the low id"
            self._db.execute(
                "UPDATE relation_mentions SET relation_id = ?, forward = CASE forward WHEN 1 THEN ? ELSE ? END "
                "WHERE relation_id = ?",
                (new_id, int(new_s < new_t), int(new_t < new_s), rid),
            )
            self._db.execute("UPDATE relations SET stale = 1 WHERE id = ?", (new_id,))
            if new_id != rid:
                self._db.execute("DELETE FROM relations WHERE id = ?", (rid,))
            moved += 1
        return moved, loops

    def _remember_aliases(self, mapping: Mapping[str, str], run_id: str) -> None:
        keys: dict[str, str] = {}
        for condition, params in self._dialect.in_batches("id", [*mapping, *mapping.values()]):
            keys.update((r[0], r[1]) for r in self._db.query(f"SELECT id, key FROM entities WHERE {condition}", params))
        for alias, canonical in mapping.items():  # earlier aliases of a merged alias follow it
            self._db.execute(
                "UPDATE entity_aliases SET canonical_id = ?, canonical_key = ? WHERE canonical_id = ?",
                (canonical, keys[canonical], alias),
            )
        self._db.executemany(
            "INSERT INTO entity_aliases(alias_key, canonical_id, canonical_key, run_id) VALUES (?,?,?,?) "
            "ON CONFLICT(alias_key) DO UPDATE SET canonical_id = excluded.canonical_id, "
            "canonical_key = excluded.canonical_key, run_id = excluded.run_id",
            [(keys[a], c, keys[c], run_id) for a, c in mapping.items()],
        )

    def aliases(self) -> dict[str, str]:
        """alias key → canonical entity id, for every merge still in force."""
        rows = self._db.query("SELECT alias_key, canonical_id FROM entity_aliases ORDER BY alias_key")
        return {r[0]: r[1] for r in rows}

    def merged_names(self, entity_id: str) -> dict[str, str]:
        """Alias key → the name it had when merged (the key when no merge log names it), for every alias
        of ``entity_id`` in force."""
        rows = self._db.query(
            "SELECT a.alias_key, m.alias_name FROM entity_aliases a LEFT JOIN denoise_merges m "
            "ON m.alias_key = a.alias_key WHERE a.canonical_id = ? ORDER BY a.alias_key, m.rowid",
            (entity_id,),
        )
        names: dict[str, str] = {}
        for row in rows:
            key = str(row[0])
            names[key] = str(row[1]) if row[1] else names.get(key, key)
        return names

    def split_alias(self, alias_key: str, surface_key: Callable[[str], str]) -> SplitCounts | None:
        """Take one merged name back out of its canonical entity (see :mod:`kgrag.store.sql.denoise_split`);
        None when ``alias_key`` is no alias in force."""
        with self._db.transaction():
            return split_alias(self._db, alias_key, surface_key)

    def drop_relations(self, relation_ids: Sequence[str], run_id: str) -> int:
        """Delete relations (their mentions cascade) and remember them, so re-extraction skips them."""
        dropped = 0
        with self._db.transaction():
            for condition, params in self._dialect.in_batches("id", relation_ids):
                dropped += self._db.changes(f"DELETE FROM relations WHERE {condition}", params)
            self._db.executemany(
                "INSERT INTO denoise_dropped(relation_id, run_id) VALUES (?,?) ON CONFLICT DO NOTHING",
                [(r, run_id) for r in dict.fromkeys(relation_ids)],
            )
        return dropped

    # -- undo --------------------------------------------------------------------------------------
    def snapshot(self, run_id: str) -> None:
        """Copy the graph tables (row identities included) under ``run_id``, replacing an earlier copy."""
        with self._db.transaction():
            for table, columns in self._tables.items():
                self._db.execute(f"DELETE FROM denoise_snap_{table} WHERE snap_run = ?", (run_id,))
                cols = ", ".join(snapshot_column(c) for c in columns)
                self._db.execute(
                    f"INSERT INTO denoise_snap_{table} (snap_run, {cols}) SELECT ?, {', '.join(columns)} FROM {table}",
                    (run_id,),
                )

    def restore(self, run_id: str) -> None:
        """Put the graph tables back exactly as :meth:`snapshot` found them, then forget the snapshot."""
        with self._db.transaction():
            for table in reversed(RESTORE_ORDER):
                self._db.execute(f"DELETE FROM {table}")
            for table in RESTORE_ORDER:
                columns = self._tables[table]
                cols = ", ".join(snapshot_column(c) for c in columns)
                self._db.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) SELECT {cols} FROM denoise_snap_{table} "
                    f"WHERE snap_run = ? ORDER BY {self.restore_order_by(columns)}",
                    (run_id,),
                )
            for table in _STALE_TABLES:
                self._db.execute(self.restore_stale_sql(table), (run_id,))
            self.forget_snapshot(run_id)

    def forget_snapshot(self, run_id: str) -> None:
        with self._db.transaction():
            for table in self._tables:
                self._db.execute(f"DELETE FROM denoise_snap_{table} WHERE snap_run = ?", (run_id,))

    def fingerprint(self) -> str:
        """A hash of every graph table's rows in row order: equal fingerprints, identical tables."""
        digest = hashlib.sha256()
        for table, columns in self._tables.items():
            digest.update(table.encode())
            for row in self._db.query(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {columns[0]}"):
                digest.update(repr(tuple(row[i] for i in range(len(columns)))).encode())
        return digest.hexdigest()

    # -- runs and logs -----------------------------------------------------------------------------
    def save_run(self, run: DenoiseRun) -> None:
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO denoise_runs(id, created, status, fingerprint, summary) VALUES (?,?,?,?,?) "
                "ON CONFLICT(id) DO UPDATE SET status = excluded.status, fingerprint = excluded.fingerprint, "
                "summary = excluded.summary",
                (run.id, run.created, run.status, run.fingerprint, json.dumps(run.summary, sort_keys=True)),
            )

    def runs(self) -> list[DenoiseRun]:
        """Every run, oldest first."""
        rows = self._db.query("SELECT id, created, status, fingerprint, summary FROM denoise_runs ORDER BY rowid")
        return [DenoiseRun(r[0], r[1], r[2], r[3], json.loads(r[4])) for r in rows]

    def log_merges(self, entries: Sequence[MergeEntry]) -> None:
        with self._db.transaction():
            self._db.executemany(
                f"INSERT INTO denoise_merges({_MERGE_COLUMNS}) VALUES ({', '.join(['?'] * 9)})",
                [_merge_row(e) for e in entries],
            )

    def merges(self, run_id: str) -> list[MergeEntry]:
        rows = self._db.query(f"SELECT {_MERGE_COLUMNS} FROM denoise_merges WHERE run_id = ? ORDER BY rowid", (run_id,))
        return [MergeEntry(r[0], r[1], r[2], r[3], r[4], r[5], float(r[6]), r[7], r[8]) for r in rows]

    def log_scores(self, scores: Sequence[RelationScore]) -> None:
        with self._db.transaction():
            self._db.executemany(
                f"INSERT INTO relation_scores({_SCORE_COLUMNS}) VALUES ({', '.join(['?'] * 9)})",
                [_score_row(s) for s in scores],
            )

    def scores(self, run_id: str | None = None) -> list[RelationScore]:
        """Reflection verdicts of one run (or all runs), in the order they were made."""
        where, params = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
        rows = self._db.query(f"SELECT {_SCORE_COLUMNS} FROM relation_scores {where} ORDER BY rowid", params)
        return [RelationScore(r[0], r[1], r[2], r[3], r[4], float(r[5]), r[6], r[7], bool(r[8])) for r in rows]

    def scored_relation_ids(self, method: str) -> set[str]:
        """Relations already judged by ``method`` (a resumed reflection skips them)."""
        rows = self._db.query("SELECT DISTINCT relation_id FROM relation_scores WHERE method = ?", (method,))
        return {r[0] for r in rows}

    def delete_logs(self, run_id: str) -> None:
        """Forget the merges and scores of an undone run (the run row stays, marked ``undone``)."""
        with self._db.transaction():
            self._db.execute("DELETE FROM denoise_merges WHERE run_id = ?", (run_id,))
            self._db.execute("DELETE FROM relation_scores WHERE run_id = ?", (run_id,))


def _merge_row(e: MergeEntry) -> tuple[object, ...]:
    names = (e.canonical_name, e.alias_id, e.alias_key, e.alias_name)
    return (e.run_id, e.canonical_id, *names, e.score, e.mode, e.reason)


def _score_row(s: RelationScore) -> tuple[object, ...]:
    return (s.run_id, s.relation_id, s.source_name, s.target_name, s.label, s.score, s.reason, s.method, int(s.dropped))
