"""A fast, deterministic stand-in extractor for graph tests (importable by subprocesses too).

Entities are capitalised words; relations link consecutive entities of a sentence. It behaves like a
real extractor where the graph code cares — repeated names across chunks, relations whose endpoints
are entities, failures on request — and costs microseconds per chunk.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence

from kgrag.core.records import ChunkRecord
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

ChunkFactory = Callable[[str, list[str]], list[str]]
"""Type of the ``add_doc`` fixture: (doc id, chunk texts) → chunk ids."""

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
PEOPLE = frozenset({"Aisha", "Rui", "Daniel", "Sofia", "Maja", "Joel", "Beatriz", "Carolina", "Tiago", "Priya"})


class WordExtractor:
    """Capitalised words → entities; consecutive pairs in a sentence → ``next_to`` relations.

    ``fail`` lists chunk ids to report as failed; ``exit_after`` ends the whole process (no cleanup,
    like a kill) after yielding that many extractions; ``delay_s`` sleeps per chunk.
    """

    chunkwise = True  # every chunk on its own, like the spaCy extractor

    def __init__(
        self,
        name: str = "words:v1",
        fail: frozenset[str] = frozenset(),
        exit_after: int | None = None,
        delay_s: float = 0.0,
    ) -> None:
        self.name = name
        self.fail = fail
        self.exit_after = exit_after
        self.delay_s = delay_s
        self.seen = 0

    def _one(self, chunk: ChunkRecord) -> ChunkExtraction:
        if chunk.id in self.fail:
            return ChunkExtraction(chunk_id=chunk.id, error="scripted failure")
        entities: dict[str, ExtractedEntity] = {}
        relations: list[ExtractedRelation] = []
        for sentence in _SENTENCE.findall(chunk.text):
            names = list(dict.fromkeys(_NAME.findall(sentence)))
            for name in names:
                entities.setdefault(
                    name, ExtractedEntity(name, "person" if name in PEOPLE else "concept", sentence.strip())
                )
            relations.extend(
                ExtractedRelation(a, b, "next_to", sentence.strip(), (a.lower(),), 1.0)
                for a, b in itertools.pairwise(names)
            )
        return ChunkExtraction(chunk_id=chunk.id, entities=list(entities.values()), relations=relations)

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        for chunk in chunks:
            if self.exit_after is not None and self.seen >= self.exit_after:
                os._exit(3)
            if self.delay_s:
                time.sleep(self.delay_s)
            self.seen += 1
            yield self._one(chunk)


class CrashingWordExtractor(WordExtractor):
    """A :class:`WordExtractor` whose worker fails: it raises on the chunks in ``crash_on`` while the file
    ``switch`` exists, after ``pause_s`` (so the batches before it are written first). Picklable, so it can
    crash inside a Ray actor; remove ``switch`` and a re-run recovers."""

    def __init__(self, switch: str, crash_on: frozenset[str], pause_s: float = 3.0) -> None:
        super().__init__()
        self.switch, self.crash_on, self.pause_s = switch, crash_on, pause_s

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        for chunk in chunks:
            if chunk.id in self.crash_on and os.path.exists(self.switch):
                time.sleep(self.pause_s)
                raise RuntimeError(f"injected worker failure on {chunk.id}")
            yield self._one(chunk)


def graph_snapshot(store: object) -> dict[str, object]:
    """Everything a graph comparison should cover: entities, relations (with provenance) and mentions."""
    graph = store.graph  # type: ignore[attr-defined]
    entities = sorted((e.id, e.key, e.name, e.type, e.description, e.chunk_ids) for e in graph.entities())
    relations = sorted(
        (r.id, r.source_id, r.target_id, r.label, r.description, r.keywords, r.weight, r.chunk_ids)
        for r in graph.relations()
    )
    entity_ids = [e[0] for e in entities]
    relation_ids = [r[0] for r in relations]
    mentions = sorted((k, tuple(sorted(map(repr, v)))) for k, v in graph.entity_mentions(entity_ids).items())
    rel_mentions = sorted((k, tuple(sorted(map(repr, v)))) for k, v in graph.relation_mentions(relation_ids).items())
    counts = graph.counts()
    return {
        "entities": entities,
        "relations": relations,
        "mentions": mentions,
        "relation_mentions": rel_mentions,
        "counts": counts,
    }
