"""Entity and relation embeddings, kept up to date as the graph changes.

Vectors live in the shared ``embeddings`` table keyed by (model, hash of the embedded text), like chunk
vectors: an entity whose description did not change is never embedded again, and one whose description
was re-summarised simply gets a new text hash. The embedded text carries the name and type with the
description (``"name (type): description"``) so that a query naming the entity lands on it even when
the description is short.

The in-memory index built from these vectors is :mod:`kgrag.graph.index`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from kgrag.core.progress import Progress, SilentProgress
from kgrag.core.stages import EMBED_GRAPH, progress_label
from kgrag.documents import content_hash
from kgrag.graph.texts import entity_text, relation_text
from kgrag.models.embed_blocks import EmbedBlocks, embed_inline
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

EMBED_BATCH = 256
PAGE = 2048  # entities read, checked and embedded at a time: memory follows the page, not the graph
VECTORS_META_KEY = "graph.vectors"


def _entity_texts(store: Store, ids: Sequence[str]) -> list[str]:
    return [entity_text(e) for e in store.graph.entities(ids)]


def _relation_texts(store: Store, ids: Sequence[str]) -> list[str]:
    relations = store.graph.relations(ids)
    endpoints = {i for r in relations for i in (r.source_id, r.target_id)}
    names = {e.id: e.name for e in store.graph.entities(sorted(endpoints))}
    return [relation_text(r, names) for r in relations]


TextsOf = Callable[[Store, Sequence[str]], list[str]]
"""(store, ids) → the texts the ids' vectors are made from, in the ids' order."""


def _pages(ids: Sequence[str]) -> Iterator[Sequence[str]]:
    for start in range(0, len(ids), PAGE):
        yield ids[start : start + PAGE]


def _missing_ids(store: Store, model: str, ids: Sequence[str], texts_of: TextsOf, seen: set[str]) -> list[str]:
    """The ids, page by page, whose text has no vector for ``model`` (one id per distinct text; ``seen``
    collects the text hashes already claimed, across entities and relations)."""
    missing: list[str] = []
    for page in _pages(ids):
        hashes = [content_hash(t) for t in texts_of(store, page)]
        present = store.vectors.get(model, hashes)
        for item_id, text_hash in zip(page, hashes, strict=True):
            if text_hash not in present and text_hash not in seen:
                seen.add(text_hash)
                missing.append(item_id)
    return missing


def embed_graph(
    store: Store,
    embedder: Embedder,
    batch_size: int = EMBED_BATCH,
    *,
    with_relations: bool = False,
    progress: Progress | None = None,
    embed: EmbedBlocks = embed_inline,
) -> int:
    """Embed the entities (and, if asked, relations) whose current text has no vector yet; returns how
    many texts were embedded.

    Relations are off by default: no built-in query step searches relation vectors yet, and with a local
    model they cost more embedding time than the entities, as a graph holds more relations than entities
    (docs/results/design-measurements.md). Each batch is committed on its own, so an interrupted run resumes.
    The graph is read in pages of ``PAGE`` ids, twice (find what is missing, then embed it), so peak
    memory does not grow with the graph (reading every entity, its provenance and the present vectors at
    once would make the indexing peak grow with the corpus).
    """
    seen: set[str] = set()
    work = [(_entity_texts, _missing_ids(store, embedder.name, store.graph.entity_ids(), _entity_texts, seen))]
    if with_relations:
        work.append(
            (_relation_texts, _missing_ids(store, embedder.name, store.graph.relation_ids(), _relation_texts, seen))
        )
    total = sum(len(ids) for _, ids in work)
    if not total:
        return 0
    # Often the longest stage of a local run (one vector per entity), so it gets a bar like chunk embedding.
    progress, label = progress or SilentProgress(), progress_label(EMBED_GRAPH)
    progress.start(label, total)
    for texts_of, ids in work:
        for page in _pages(ids):
            texts = texts_of(store, page)
            done = 0
            for vectors in embed(embedder, texts, batch_size):
                batch = texts[done : done + len(vectors)]
                store.vectors.put(embedder.name, zip([content_hash(t) for t in batch], vectors, strict=True))
                progress.advance(label, len(batch))
                done += len(batch)
    progress.finish(label)
    return total


def _fingerprint(store: Store, model: str, with_relations: bool) -> str:
    counts = store.graph.counts()
    sizes = "|".join(str(counts[k]) for k in ("entities", "relations", "entity_mentions", "relation_mentions"))
    return f"{model}|{sizes}|relations={with_relations}"


def mark_graph_vectors_stale(store: Store) -> None:
    """Record that the graph changed, so the next :func:`ensure_graph_vectors` embeds what is missing."""
    store.meta.set(VECTORS_META_KEY, "")


def ensure_graph_vectors(
    store: Store,
    embedder: Embedder,
    *,
    with_relations: bool = False,
    progress: Progress | None = None,
    embed: EmbedBlocks = embed_inline,
) -> int:
    """:func:`embed_graph` unless nothing changed since the last complete run for this model.

    Unchanged re-runs must cost nothing, and scanning every entity to find missing vectors is not
    nothing on a large graph. The marker holds the model and the graph's sizes when vectors were last
    completed; it is cleared by :func:`mark_graph_vectors_stale`, and the sizes catch graph writers
    that never call it (imports). Reading ``embedder.name`` does not load a lazy model.
    """
    fingerprint = _fingerprint(store, embedder.name, with_relations)
    if store.meta.get(VECTORS_META_KEY) == fingerprint:
        return 0
    embedded = embed_graph(store, embedder, with_relations=with_relations, progress=progress, embed=embed)
    store.meta.set(VECTORS_META_KEY, fingerprint)
    return embedded
