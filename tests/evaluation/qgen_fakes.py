"""The slice of a store that question generation reads (graph and chunks), for the qgen tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import cast

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.core.records import ChunkRecord
from kgrag.store import Store


@dataclass
class _Graph:
    ents: list[EntityRecord] = field(default_factory=list)
    rels: list[RelationRecord] = field(default_factory=list)

    def entities(self) -> list[EntityRecord]:
        return self.ents

    def relations(self) -> list[RelationRecord]:
        return self.rels


@dataclass
class _Chunks:
    chunks: dict[str, ChunkRecord]

    def iter_all(self) -> Iterator[ChunkRecord]:
        return iter(self.chunks.values())

    def get_many(self, ids: list[str]) -> list[ChunkRecord]:
        return [self.chunks[i] for i in ids if i in self.chunks]


@dataclass
class _Store:
    graph: _Graph
    chunks: _Chunks


def fake_store(
    texts: dict[str, str],
    ents: list[EntityRecord],
    rels: list[RelationRecord],
    tokens: Callable[[str], int] = lambda text: len(text.split()),
) -> Store:
    """Chunks ``texts`` (id → text, one document) with ``tokens(text)`` tokens each, and that graph."""
    chunks = {cid: ChunkRecord(cid, "d", i, 0, len(t), t, tokens(t), cid) for i, (cid, t) in enumerate(texts.items())}
    return cast(Store, _Store(_Graph(ents, rels), _Chunks(chunks)))
