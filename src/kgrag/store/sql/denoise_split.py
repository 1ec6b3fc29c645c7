"""Taking one merged name back out of its canonical entity (the store half of ``kgrag graph edit split``).

A merge re-points the alias's mentions to the canonical entity and remembers the alias key
(:mod:`kgrag.store.sql.denoise`). Splitting reverses that for one alias, from the graph as it is now rather
than from a snapshot, so merges, edits and re-indexing done since are kept:

- the alias entity comes back under its own id (ids are hashes of keys), and every mention of the canonical
  entity written under the alias's name moves to it; so do mentions the merge run's snapshot shows on the
  alias (a name whose key the caller's rule does not reproduce, as an import may write);
- a relation mention moves with the alias when its passage names only the alias, or (where a passage
  names both) when the merge run's snapshot shows it on the alias; the rest stay with the canonical entity;
- relations between the two that the merge dropped as self-loops come back from the snapshot, for
  passages the store still has;
- the alias key is forgotten, so later mentions of that name land on the alias again.

What changed is flagged stale; the caller rebuilds it (:func:`kgrag.graph.build.aggregate.recompute_stale`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgrag.core.denoise_records import SplitCounts
from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.store.sql.database import SqlDatabase


@dataclass(frozen=True)
class _Mention:
    row: int
    chunk: str
    relation: str
    source: str
    target: str
    forward: int


def split_alias(db: SqlDatabase, alias_key: str, surface_key: Callable[[str], str]) -> SplitCounts | None:
    """Split ``alias_key`` out of its canonical entity (in the caller's transaction); None when the key is
    no alias. ``surface_key`` maps a mention's surface to its entity key (the graph layer's rule)."""
    found = db.query("SELECT canonical_id, run_id FROM entity_aliases WHERE alias_key = ?", (alias_key,))
    if not found:
        return None
    canonical, merged_in = str(found[0][0]), str(found[0][1])
    alias = entity_id_for_key(alias_key)
    rows = db.query(
        "SELECT rowid, chunk_id, surface, type FROM entity_mentions WHERE entity_id = ? ORDER BY rowid", (canonical,)
    )
    snapped = _snapshot_mentions(db, merged_in, alias)
    moving = [r for r in rows if surface_key(str(r[2])) == alias_key or (int(r[0]), str(r[1]), str(r[2])) in snapped]
    db.execute("DELETE FROM entity_aliases WHERE alias_key = ?", (alias_key,))
    if not moving:
        return SplitCounts()
    db.execute(
        "INSERT INTO entities(id, key, name, type) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
        (alias, alias_key, str(moving[0][2]), str(moving[0][3])),
    )
    for row in moving:
        db.execute("UPDATE entity_mentions SET entity_id = ? WHERE rowid = ?", (alias, int(row[0])))
    alias_chunks = {str(r[1]) for r in moving}
    kept_chunks = {str(r[1]) for r in rows if r not in moving}
    moved = _move_relation_mentions(db, canonical, alias, merged_in, alias_chunks, kept_chunks)
    restored = _restore_loops(db, canonical, alias, merged_in)
    db.execute("UPDATE entities SET stale = 1 WHERE id = ? OR id = ?", (canonical, alias))
    return SplitCounts(len(moving), moved, restored)


def _snapshot_mentions(db: SqlDatabase, run_id: str, entity_id: str) -> set[tuple[int, str, str]]:
    """The entity's mentions in the snapshot, by row id *and* content: SQLite reuses the row ids of deleted
    rows, so an id alone may name another mention written since."""
    rows = db.query(
        "SELECT row_id, chunk_id, surface FROM denoise_snap_entity_mentions WHERE snap_run = ? AND entity_id = ?",
        (run_id, entity_id),
    )
    return {(int(r[0]), str(r[1]), str(r[2])) for r in rows}


def _move_relation_mentions(
    db: SqlDatabase, canonical: str, alias: str, merged_in: str, alias_chunks: set[str], kept_chunks: set[str]
) -> int:
    """Re-key the canonical entity's relation mentions that belong to the alias; returns how many."""
    rows = db.query(
        "SELECT m.rowid, m.chunk_id, m.relation_id, r.source_id, r.target_id, m.forward FROM relation_mentions m "
        "JOIN relations r ON r.id = m.relation_id WHERE r.source_id = ? OR r.target_id = ? ORDER BY m.rowid",
        (canonical, canonical),
    )
    snapped = _snapshot_relation_rows(db, merged_in, alias)
    dropped = {str(r[0]) for r in db.query("SELECT relation_id FROM denoise_dropped")}
    moved = 0
    emptied: set[str] = set()
    for raw in rows:
        m = _Mention(int(raw[0]), str(raw[1]), str(raw[2]), str(raw[3]), str(raw[4]), int(raw[5]))
        if m.chunk not in alias_chunks or (m.chunk in kept_chunks and (m.row, m.chunk) not in snapped):
            continue
        _rekey(db, m, canonical, alias, dropped)
        emptied.add(m.relation)
        moved += 1
    _delete_empty(db, sorted(emptied))
    return moved


def _snapshot_relation_rows(db: SqlDatabase, run_id: str, entity_id: str) -> set[tuple[int, str]]:
    """The snapshot's relation mentions on the entity, by row id and passage (see :func:`_snapshot_mentions`)."""
    rows = db.query(
        "SELECT m.row_id, m.chunk_id FROM denoise_snap_relation_mentions m JOIN denoise_snap_relations r "
        "ON r.snap_run = m.snap_run AND r.id = m.relation_id "
        "WHERE m.snap_run = ? AND (r.source_id = ? OR r.target_id = ?)",
        (run_id, entity_id, entity_id),
    )
    return {(int(r[0]), str(r[1])) for r in rows}


def _rekey(db: SqlDatabase, m: _Mention, canonical: str, alias: str, dropped: set[str]) -> None:
    """Point one relation mention at the alias's end of its relation, keeping the direction it states."""
    stated_source, stated_target = (m.source, m.target) if m.forward else (m.target, m.source)
    new_source = alias if stated_source == canonical else stated_source
    new_target = alias if stated_target == canonical else stated_target
    low, high = sorted((new_source, new_target))
    new_id = relation_id_for_pair(low, high)
    if new_id in dropped:  # the pair was removed on purpose: it stays gone
        db.execute("DELETE FROM relation_mentions WHERE rowid = ?", (m.row,))
        return
    db.execute(
        "INSERT INTO relations(id, source_id, target_id, label) SELECT ?, ?, ?, label FROM relations WHERE id = ? "
        "ON CONFLICT DO NOTHING",
        (new_id, low, high, m.relation),
    )
    db.execute(
        "UPDATE relation_mentions SET relation_id = ?, forward = ? WHERE rowid = ?",
        (new_id, int(new_source == low), m.row),
    )
    db.execute("UPDATE relations SET stale = 1 WHERE id = ? OR id = ?", (new_id, m.relation))


def _delete_empty(db: SqlDatabase, relation_ids: Sequence[str]) -> None:
    """Relations every mention of which moved away (nothing is left to rebuild them from)."""
    for rid in relation_ids:
        db.execute(
            "DELETE FROM relations WHERE id = ? AND NOT EXISTS (SELECT 1 FROM relation_mentions WHERE relation_id = ?)",
            (rid, rid),
        )


def _restore_loops(db: SqlDatabase, canonical: str, alias: str, merged_in: str) -> int:
    """Relation mentions between the two that the merge deleted as self-loops, from the merge run's snapshot,
    for passages still stored and rows not present again."""
    low, high = sorted((canonical, alias))
    rid = relation_id_for_pair(low, high)
    if db.scalar("SELECT 1 FROM denoise_dropped WHERE relation_id = ?", (rid,)):
        return 0
    rows = db.query(
        "SELECT m.row_id, m.chunk_id, m.forward, m.label, m.description, m.keywords, m.weight, r.label "
        "FROM denoise_snap_relation_mentions m JOIN denoise_snap_relations r "
        "ON r.snap_run = m.snap_run AND r.id = m.relation_id "
        "WHERE m.snap_run = ? AND r.id = ? AND EXISTS (SELECT 1 FROM chunks c WHERE c.id = m.chunk_id) "
        "AND NOT EXISTS (SELECT 1 FROM relation_mentions x WHERE x.rowid = m.row_id) ORDER BY m.row_id",
        (merged_in, rid),
    )
    if not rows:
        return 0
    db.execute(
        "INSERT INTO relations(id, source_id, target_id, label) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
        (rid, low, high, str(rows[0][7])),
    )
    db.executemany(
        "INSERT INTO relation_mentions(relation_id, chunk_id, forward, label, description, keywords, weight) "
        "VALUES (?,?,?,?,?,?,?)",
        [(rid, r[1], r[2], r[3], r[4], r[5], r[6]) for r in rows],
    )
    db.execute("UPDATE relations SET stale = 1 WHERE id = ?", (rid,))
    return len(rows)
