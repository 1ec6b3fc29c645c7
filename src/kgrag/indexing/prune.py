"""``kgrag prune``: delete what removed or edited documents left in the caches, then compact the database.

Vectors are a cache keyed by the hash of the text embedded, so removing a document keeps its texts'
vectors for when they come back (see ``docs/cli.md``, "Indexing"). A vector is derived from its text,
and a team that removes a document often wants everything derived from it gone. Pruning keeps exactly
the vectors some part of the current index can still ask for — chunk texts and their sentences, entity
and relation texts, the texts entity resolution compares (in each of its modes), community reports —
for the workspace's embedding model, and deletes every other vector, including all vectors of models the
workspace no longer uses. The LLM reply cache is keyed by a hash of the whole prompt, so which replies
came from a removed document cannot be told; ``llm_cache=True`` empties it (replies are paid for again
when asked again). Compacting rewrites the database so the deleted bytes leave its files too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kgrag.communities.vectors import report_hash
from kgrag.core.progress import Progress, SilentProgress
from kgrag.denoise.resolve import EGO_TEXTS, ego_text
from kgrag.documents.records import content_hash
from kgrag.documents.sentences import sentence_texts
from kgrag.graph.texts import entity_text, relation_text
from kgrag.store.base import Store


@dataclass
class PruneReport:
    """What a prune deleted (or, dry, would delete) and what it kept."""

    model: str
    vectors_kept: int = 0
    vectors_deleted: dict[str, int] = field(default_factory=dict)  # model -> vectors deleted
    llm_replies_deleted: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    compacted: bool = False
    dry_run: bool = False

    @property
    def deleted_anything(self) -> bool:
        return bool(self.vectors_deleted or self.llm_replies_deleted)


def live_vector_hashes(store: Store) -> set[str]:
    """The hash of every text the current index may embed or read a vector of."""
    live: set[str] = set()
    for chunk in store.chunks.iter_all():
        live.add(chunk.text_hash)
        live.update(content_hash(sentence) for sentence in sentence_texts(chunk.text))
    entities = store.graph.entities()
    names = {e.id: e.name for e in entities}
    live.update(content_hash(entity_text(e)) for e in entities)
    live.update(content_hash(ego_text(e, mode)) for e in entities for mode in EGO_TEXTS)
    live.update(content_hash(relation_text(r, names)) for r in store.graph.relations())
    live.update(report_hash(r) for r in store.communities.reports())
    return live


def prune_caches(
    store: Store, model: str, *, llm_cache: bool = False, dry_run: bool = False, progress: Progress | None = None
) -> PruneReport:
    """Delete the vectors no part of the index can use (all of other models'; those of ``model`` whose
    text is no longer indexed) and, with ``llm_cache``, every cached LLM reply; then compact. The caller
    holds the indexing lock, so no run adds texts between reading the live set and deleting."""
    progress = progress or SilentProgress()
    report = PruneReport(model=model, dry_run=dry_run, bytes_before=store.size_bytes())
    live = live_vector_hashes(store)
    for name, count in store.vectors.models().items():
        dead = None  # another model's: all of its vectors
        if name == model:
            dead = [h for h in store.vectors.hashes(name) if h not in live]
            report.vectors_kept, count = count - len(dead), len(dead)
        if count:
            report.vectors_deleted[name] = count if dry_run else store.vectors.delete(name, dead)
    if llm_cache:
        report.llm_replies_deleted = store.llm_cache.count() if dry_run else store.llm_cache.clear()
    if not dry_run and report.deleted_anything:
        progress.note("compacting the database (rewrites it without the deleted rows)")
        report.compacted = store.compact()
    report.bytes_after = store.size_bytes()
    return report


def prune_lines(report: PruneReport) -> Iterable[str]:
    """The report as the CLI prints it: what went (or would go), per model, and the database's size."""
    verb = "would delete" if report.dry_run else "deleted"
    for name, count in sorted(report.vectors_deleted.items()):
        why = "texts no longer indexed" if name == report.model else "a model this workspace no longer uses"
        yield f"{verb} {count:,} vectors of {name} ({why})"
    if not report.vectors_deleted:
        yield "no vector to delete: every cached vector belongs to a text the index holds"
    yield f"kept {report.vectors_kept:,} vectors of {report.model}"
    if report.llm_replies_deleted:
        yield f"{verb} {report.llm_replies_deleted:,} cached LLM replies"
    if report.dry_run:
        return
    size = f"database {_mb(report.bytes_before)} → {_mb(report.bytes_after)}"
    if report.deleted_anything:
        if report.compacted:
            yield f"{size} (compacted: the deleted rows are gone from its files)"
        else:
            yield (
                f"{size}; not compacted: another process was reading the database (e.g. a query of `kgrag serve`), "
                "so the deleted rows' bytes may stay in its files until `kgrag prune` runs again"
            )


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"
