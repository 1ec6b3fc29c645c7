"""The logical tables every built-in backend stores, as the unit of a store-to-store copy.

Both built-in backends keep the same tables with the same columns (PostgreSQL adds only what it derives
itself: the ``tsvector`` column, the generation counter, ``schema_migrations``; SQLite only the FTS5
index its triggers maintain). Copying at this level, rather than through the repositories, carries
*everything* — row identities (so creation order and undo snapshots survive), stale flags, extraction
marks, the LLM cache — with one generic loop (:mod:`kgrag.store.transfer`). Values are plain Python
(``str``, ``int``, ``float``, ``None``), except ``embeddings.vector``, a float32 NumPy array.

Order matters: parents come before the rows that reference them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableSpec:
    """A table, the columns a copy carries (in this order) and the key it is read in order of."""

    name: str
    columns: tuple[str, ...]
    order_by: tuple[str, ...]
    update: bool = False  # rows update existing ones (key = first column) instead of being inserted


def _snapshot(table: str, columns: tuple[str, ...]) -> TableSpec:
    cols = ("snap_run", *("row_id" if c == "rowid" else c for c in columns))
    return TableSpec(f"denoise_snap_{table}", cols, cols[:2])


_ENTITY = ("rowid", "id", "key", "name", "type", "description", "stale", "metadata")
_ENTITY_MENTION = ("rowid", "entity_id", "chunk_id", "surface", "type", "description")
_RELATION = ("rowid", "id", "source_id", "target_id", "label", "description", "keywords", "weight", "stale")
_RELATION_MENTION = ("rowid", "relation_id", "chunk_id", "forward", "label", "description", "keywords", "weight")
_ALIAS = ("alias_key", "canonical_id", "canonical_key", "run_id")
_DROPPED = ("relation_id", "run_id")

TABLES: tuple[TableSpec, ...] = (
    TableSpec("meta", ("key", "value"), ("key",)),
    TableSpec("documents", ("id", "source", "title", "content_hash", "status", "error", "n_chars", "metadata",
                            "updated_at"), ("id",)),
    TableSpec("chunks", ("rowid", "id", "doc_id", "ord", "char_start", "char_end", "n_tokens", "text", "text_hash"),
              ("rowid",)),
    TableSpec("embeddings", ("model", "text_hash", "vector"), ("model", "text_hash")),
    TableSpec("entities", _ENTITY, ("rowid",)),
    TableSpec("relations", _RELATION, ("rowid",)),
    TableSpec("entity_mentions", _ENTITY_MENTION, ("rowid",)),
    TableSpec("relation_mentions", _RELATION_MENTION, ("rowid",)),
    TableSpec("chunk_extractions", ("chunk_id", "extractor", "error", "n_entities", "n_relations"),
              ("chunk_id", "extractor")),
    TableSpec("communities", ("id", "level", "parent_id", "size", "children"), ("id",)),
    TableSpec("community_members", ("community_id", "entity_id"), ("community_id", "entity_id")),
    TableSpec("community_levels", ("level", "communities", "modularity"), ("level",)),
    TableSpec("community_reports", ("community_id", "level", "title", "summary", "findings", "rating", "method",
                                    "chunk_ids"), ("community_id",)),
    TableSpec("entity_aliases", _ALIAS, ("alias_key",)),
    TableSpec("denoise_dropped", _DROPPED, ("relation_id",)),
    TableSpec("denoise_runs", ("rowid", "id", "created", "status", "fingerprint", "summary"), ("rowid",)),
    TableSpec("denoise_merges", ("rowid", "run_id", "canonical_id", "canonical_name", "alias_id", "alias_key",
                                 "alias_name", "score", "mode", "reason"), ("rowid",)),
    TableSpec("relation_scores", ("rowid", "run_id", "relation_id", "source_name", "target_name", "label", "score",
                                  "reason", "method", "dropped"), ("rowid",)),
    _snapshot("entities", _ENTITY),
    _snapshot("entity_mentions", _ENTITY_MENTION),
    _snapshot("relations", _RELATION),
    _snapshot("relation_mentions", _RELATION_MENTION),
    _snapshot("entity_aliases", _ALIAS),
    _snapshot("denoise_dropped", _DROPPED),
    TableSpec("llm_cache", ("key", "model", "prompt_name", "prompt_version", "response", "finish_reason",
                            "prompt_tokens", "completion_tokens", "created_at"), ("key",)),
    TableSpec("llm_calls", ("id", "run_id", "stage", "provider", "model", "prompt_name", "prompt_version",
                            "prompt_tokens", "completion_tokens", "usage_source", "latency_ms", "cache_hit",
                            "estimated", "attempts", "attempt_errors", "error", "created_at", "unit_key",
                            "call_role"), ("id",)),
    TableSpec("eval_runs", ("id", "kind", "created_at", "dataset", "label", "payload"), ("id",)),
    TableSpec("eval_scores", ("rowid", "run_id", "run_index", "pipeline", "question_id", "question_type", "metric",
                              "value", "note"), ("rowid",)),
    TableSpec("eval_traces", ("rowid", "run_id", "run_index", "pipeline", "question_id", "record"), ("rowid",)),
    TableSpec("conversations", ("id", "created_at", "updated_at", "title", "turns"), ("id",)),
    # inserting mentions fired the stale-flag triggers: put the flags back as they were
    TableSpec("entities", ("rowid", "stale"), ("rowid",), update=True),
    TableSpec("relations", ("rowid", "stale"), ("rowid",), update=True),
)  # fmt: skip
COPIED: tuple[TableSpec, ...] = tuple(t for t in TABLES if not t.update)
