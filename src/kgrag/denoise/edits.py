"""Hand edits of the graph: rename an entity, rewrite its description, merge two entities, split a merged
name back out, delete a relation. Each edit is one denoising run (snapshot first, so ``kgrag graph
undo-denoise`` restores the graph as it was) and one line of the edit log (who changed what from what to what, when).

Edits outlive re-indexing the way denoising decisions do: a merge leaves an alias (new mentions of the
merged name land on the kept entity), a deleted relation is remembered as dropped (re-extraction skips
it), a split keeps the two names apart in later denoising runs
(:func:`kgrag.graph.build.overrides.held_apart`), and a name or
description is laid over the entity whenever it is rebuilt from its mentions
(:mod:`kgrag.graph.build.overrides`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from kgrag.core.denoise_records import DenoiseRun, MergeEntry
from kgrag.core.errors import KgragError
from kgrag.core.graph_ids import entity_id_for_key
from kgrag.core.graph_records import EntityRecord
from kgrag.denoise.apply import APPLYING, finish_run
from kgrag.denoise.runner import new_run_id
from kgrag.documents import TokenCounter
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.overrides import append_edit, edit_log
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.normalize import entity_key
from kgrag.store.base import Store

MAX_NAME = 200
MAX_DESCRIPTION = 20_000
MANUAL = "manual edit"


@dataclass(frozen=True)
class EditResult:
    """One applied edit: its run (undo it with ``kgrag graph undo-denoise``) and its log line."""

    run_id: str
    entry: dict[str, Any]


def _entity(store: Store, ident: str) -> EntityRecord:
    """The entity with id ``ident``, or else the one whose normalised name is ``ident``'s."""
    found = store.graph.entities([ident])
    if found:
        return found[0]
    by_name = store.graph.entity_by_key(entity_key(ident))
    if by_name is None:
        raise KgragError(f"no entity {ident!r} (neither an entity id nor an entity's name)")
    return by_name


def _refuse_taken_name(store: Store, entity: EntityRecord, name: str) -> None:
    """Refuse to give ``entity`` a name another entity answers to: names match by their identity key (case
    and a plural folded, as mentions and ``kgrag graph edit`` match them), so two entities with one name
    would leave a later edit by that name to pick one of them."""
    key = entity_key(name)
    if not key:
        return
    for ident, other_key, other_name in store.graph.entity_names():
        if ident != entity.id and key in (other_key, entity_key(other_name)):
            raise KgragError(
                f"an entity already has the name {name!r}: {ident} ({other_name!r}); to make one entity of the "
                f"two, use `kgrag graph edit merge {ident} {entity.id}` instead of renaming"
            )


def _start(store: Store) -> DenoiseRun:
    return DenoiseRun(new_run_id(store), datetime.now(UTC).isoformat(timespec="seconds"), APPLYING, "")


def _entry(run: DenoiseRun, op: str, target: str, before: str, after: str, **extra: Any) -> dict[str, Any]:
    return {"run_id": run.id, "at": run.created, "op": op, "target": target, "before": before, "after": after, **extra}


def _finish(store: Store, run: DenoiseRun, entry: dict[str, Any]) -> EditResult:
    finish_run(store, run, {"counts": {"edit": {entry["op"]: 1}}, "edit": entry})
    return EditResult(run.id, entry)


def set_field(store: Store, entity_id: str, field: str, value: str) -> EditResult:
    """Rename an entity (``field="name"``) or rewrite its description; kept over later rebuilds."""
    value = value.strip()
    if field not in ("name", "description"):
        raise KgragError(f"cannot edit {field!r}: only name and description")
    if field == "name" and not value:
        raise KgragError("the new name is empty")
    if len(value) > (MAX_NAME if field == "name" else MAX_DESCRIPTION):
        raise KgragError(
            f"the new {field} is too long (at most {MAX_NAME if field == 'name' else MAX_DESCRIPTION} characters)"
        )
    entity = _entity(store, entity_id)
    if field == "name":
        _refuse_taken_name(store, entity, value)
    before = str(getattr(entity, field))
    run = _start(store)
    entry = _entry(
        run, "rename" if field == "name" else "describe", entity.id, before, value, key=entity.key, field=field
    )
    with store.transaction():
        store.denoise.snapshot(run.id)
        store.denoise.save_run(run)
        changed = replace(entity, name=value) if field == "name" else replace(entity, description=value)
        store.graph.save_entities([changed])
        append_edit(store, entry)
    return _finish(store, run, entry)


def merge(
    store: Store, keep_id: str, other_id: str, summarizer: Summarizer, counter: TokenCounter | None = None
) -> EditResult:
    """Fold ``other_id`` into ``keep_id`` through the denoising merge (mentions re-pointed, an alias kept
    so later mentions of the other name land on the kept entity, relations re-keyed, logged)."""
    if keep_id == other_id:
        raise KgragError("cannot merge an entity into itself")
    keep, other = _entity(store, keep_id), _entity(store, other_id)
    if keep.id == other.id:
        raise KgragError("cannot merge an entity into itself")
    run = _start(store)
    entry = _entry(run, "merge", keep.id, other.name, keep.name, merged_id=other.id, merged_key=other.key)
    log = MergeEntry(run.id, keep.id, keep.name, other.id, other.key, other.name, 1.0, "merge", MANUAL)
    with store.transaction():
        store.denoise.snapshot(run.id)
        store.denoise.save_run(run)
        store.denoise.merge_entities({other.id: keep.id}, run.id)
        store.denoise.log_merges([log])
        append_edit(store, entry)
        recompute_stale(store, summarizer, counter)
    return _finish(store, run, entry)


def split(
    store: Store, entity_id: str, merged: str, summarizer: Summarizer, counter: TokenCounter | None = None
) -> EditResult:
    """Take the name ``merged`` (or the id its entity had) back out of entity ``entity_id``: its mentions and
    relations become an entity again (:mod:`kgrag.store.sql.denoise_split`), new mentions of it no longer
    land on ``entity_id``, and later denoising runs keep the two apart."""
    entity = _entity(store, entity_id)
    aliases = store.denoise.merged_names(entity.id)
    wanted = merged.strip()
    exact = [k for k, name in aliases.items() if wanted in (k, entity_id_for_key(k), name)]
    folded = [k for k, name in aliases.items() if wanted.casefold() == name.casefold()]
    alias_key = (exact or folded or [entity_key(wanted)])[0]
    if alias_key not in aliases:
        held = ", ".join(repr(n) for n in sorted(set(aliases.values()), key=str.casefold)) or "none"
        raise KgragError(f"{entity.name!r} ({entity.id}) has no merged name {merged!r}; its merged names: {held}")
    run = _start(store)
    entry = _entry(
        run, "split", entity.id, entity.name, aliases[alias_key], key=entity.key, split_key=alias_key,
        split_id=entity_id_for_key(alias_key),
    )  # fmt: skip
    with store.transaction():
        store.denoise.snapshot(run.id)
        store.denoise.save_run(run)
        counts = store.denoise.split_alias(alias_key, entity_key)
        append_edit(store, entry)
        recompute_stale(store, summarizer, counter)
    moved = counts.entity_mentions if counts else 0
    return _finish(store, run, {**entry, "mentions_moved": moved})


def delete_relation(store: Store, relation_id: str) -> EditResult:
    """Remove a relation and remember it as dropped, so re-extracting its passages does not bring it back."""
    found = store.graph.relations([relation_id])
    if not found:
        raise KgragError(f"no relation {relation_id!r}")
    relation = found[0]
    names = {e.id: e.name for e in store.graph.entities([relation.source_id, relation.target_id])}
    source, target = (names.get(i, i) for i in (relation.source_id, relation.target_id))
    shown = f"{source} —{relation.label}— {target}"
    run = _start(store)
    entry = _entry(run, "delete_relation", relation.id, shown, "")
    with store.transaction():
        store.denoise.snapshot(run.id)
        store.denoise.save_run(run)
        store.denoise.drop_relations([relation.id], run.id)
        append_edit(store, entry)
    return _finish(store, run, entry)


def history(store: Store) -> list[dict[str, Any]]:
    """The edit log, oldest first, each line with its run's status (``applied`` or ``undone``)."""
    status = {r.id: r.status for r in store.denoise.runs()}
    return [{**e, "status": status.get(str(e.get("run_id")), "unknown")} for e in edit_log(store)]
