"""Hand edits of an entity's name and description, kept as recorded decisions.

The graph is derived from mentions, so an edit written only into the ``entities`` row would be lost at
the next rebuild of that entity (a re-index of one of its documents flags it stale). Every edit is
therefore also appended to a log in the store's meta table (``graph_edits``: one JSON list), and
:func:`apply_overrides` lays the edits still in force over freshly aggregated records. An edit belongs to
an undoable denoising run (:mod:`kgrag.denoise.edits`); once that run is undone its edit no longer
applies. Edits are keyed by the entity's key (its normalised name as extracted), which a re-extraction
reproduces, so they find the same entity again.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from kgrag.core.graph_records import EntityRecord
from kgrag.store.base import Store

EDITS_KEY = "graph_edits"
UNDONE = "undone"
FIELDS = ("name", "description")


def edit_log(store: Store) -> list[dict[str, Any]]:
    """Every recorded edit, oldest first (undone ones included, marked by their run's status)."""
    raw = store.meta.get(EDITS_KEY)
    if not raw:
        return []
    try:
        found = json.loads(raw)
    except json.JSONDecodeError:
        return []
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def append_edit(store: Store, entry: dict[str, Any]) -> None:
    """Add one edit to the log (in the caller's transaction)."""
    store.meta.set(EDITS_KEY, json.dumps([*edit_log(store), entry], ensure_ascii=False))


def overrides(store: Store) -> dict[str, dict[str, str]]:
    """Entity key → field → value, from the edits whose run is still in force (the latest edit wins)."""
    undone = {r.id for r in store.denoise.runs() if r.status == UNDONE}
    found: dict[str, dict[str, str]] = {}
    for entry in edit_log(store):
        if entry.get("field") in FIELDS and entry.get("run_id") not in undone and entry.get("key"):
            found.setdefault(str(entry["key"]), {})[str(entry["field"])] = str(entry.get("after", ""))
    return found


def held_apart(store: Store) -> frozenset[frozenset[str]]:
    """Entity-key pairs a split still in force keeps apart (``kgrag graph edit split``): denoising never
    merges them again."""
    undone = {r.id for r in store.denoise.runs() if r.status == UNDONE}
    return frozenset(
        frozenset((str(e["key"]), str(e["split_key"])))
        for e in edit_log(store)
        if e.get("op") == "split" and e.get("run_id") not in undone and e.get("key") and e.get("split_key")
    )


def apply_overrides(records: Sequence[EntityRecord], edits: dict[str, dict[str, str]]) -> list[EntityRecord]:
    """``records`` with the edited names and descriptions laid over what aggregation produced."""
    if not edits:
        return list(records)
    return [_edited(r, edits[r.key]) if r.key in edits else r for r in records]


def _edited(record: EntityRecord, fields: dict[str, str]) -> EntityRecord:
    return replace(
        record, name=fields.get("name", record.name), description=fields.get("description", record.description)
    )
