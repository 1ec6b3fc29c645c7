"""Extraction units: runs of consecutive chunks of one document, sent to the LLM in one call.

Every call repeats the instructions, so extracting per ~200-token chunk would spend most prompt tokens
on the prompt itself. Grouping consecutive chunks into units of up to ``graph.extractors.llm.unit_tokens`` tokens pays
the instructions once per unit instead. Chunks overlap (the chunker repeats trailing sentences), so a
unit shows each chunk only from where the previous one ended: the model reads every sentence once, and
the overlap is not paid twice.

Only chunks that are neighbours (same document, ``ord`` one apart) share a unit, so an incremental run
that extracts a few scattered chunks never glues unrelated passages together.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.core.records import ChunkRecord
from kgrag.models.llm.tokens import TextTokenCounter

PART_SEPARATOR = "\n"


@dataclass(frozen=True)
class ExtractionUnit:
    """Chunks extracted together; ``text`` is what the model reads (overlaps shown once)."""

    doc_id: str
    chunks: tuple[ChunkRecord, ...]
    text: str
    n_tokens: int

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        return tuple(chunk.id for chunk in self.chunks)

    @property
    def key(self) -> str:
        """A stable key of the unit (its chunks), for the LLM ledger's links between a unit's calls."""
        return unit_key(self.chunk_ids)


def unit_key(chunk_ids: Sequence[str]) -> str:
    """The key of the unit of ``chunk_ids`` (:attr:`ExtractionUnit.key`)."""
    return hashlib.sha256("\n".join(chunk_ids).encode("utf-8")).hexdigest()[:16]


def new_part(previous: ChunkRecord | None, chunk: ChunkRecord) -> str:
    """The text of ``chunk`` not already shown by ``previous`` (its neighbour in the same unit).

    Chunks are exact slices of the document, so the overlap is ``previous.char_end - chunk.char_start``
    characters at the start of ``chunk``; when that does not hold (inconsistent offsets) the whole chunk
    is shown, which costs tokens but never hides text.
    """
    if previous is None or previous.doc_id != chunk.doc_id:
        return chunk.text
    overlap = previous.char_end - chunk.char_start
    if overlap <= 0 or overlap >= len(chunk.text):
        return chunk.text
    if not previous.text.endswith(chunk.text[:overlap]):
        return chunk.text
    return chunk.text[overlap:].lstrip()


def _document_order(chunks: Sequence[ChunkRecord]) -> list[ChunkRecord]:
    """Unique chunks, documents in order of first appearance, chunks by ``ord`` within a document."""
    first_seen: dict[str, int] = {}
    unique: dict[str, ChunkRecord] = {}
    for chunk in chunks:
        first_seen.setdefault(chunk.doc_id, len(first_seen))
        unique.setdefault(chunk.id, chunk)
    return sorted(unique.values(), key=lambda c: (first_seen[c.doc_id], c.ord))


def _is_neighbour(previous: ChunkRecord | None, chunk: ChunkRecord) -> bool:
    return previous is not None and previous.doc_id == chunk.doc_id and chunk.ord == previous.ord + 1


class _UnitBuilder:
    """Accumulates parts until the next one would overflow the token budget."""

    def __init__(self, max_tokens: int, counter: TextTokenCounter) -> None:
        self.max_tokens = max_tokens
        self.counter = counter
        self.units: list[ExtractionUnit] = []
        self._chunks: list[ChunkRecord] = []
        self._parts: list[str] = []
        self._tokens = 0

    def add(self, chunk: ChunkRecord) -> None:
        previous = self._chunks[-1] if self._chunks else None
        if not _is_neighbour(previous, chunk):
            self.flush()
            previous = None
        part = new_part(previous, chunk)
        tokens = self.counter.count(part) + (1 if self._parts else 0)
        if self._chunks and self._tokens + tokens > self.max_tokens:
            self.flush()
            part = chunk.text
            tokens = self.counter.count(part)
        self._chunks.append(chunk)
        self._parts.append(part)
        self._tokens += tokens

    def flush(self) -> None:
        if not self._chunks:
            return
        text = PART_SEPARATOR.join(self._parts)
        self.units.append(ExtractionUnit(self._chunks[0].doc_id, tuple(self._chunks), text, self._tokens))
        self._chunks, self._parts, self._tokens = [], [], 0


def build_units(chunks: Sequence[ChunkRecord], max_tokens: int, counter: TextTokenCounter) -> list[ExtractionUnit]:
    """Group ``chunks`` into units of at most ``max_tokens`` tokens of unit text.

    A chunk longer than ``max_tokens`` on its own becomes a unit by itself (it is never split: chunks are
    the unit of provenance). Duplicate chunk ids are extracted once.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    builder = _UnitBuilder(max_tokens, counter)
    for chunk in _document_order(chunks):
        builder.add(chunk)
    builder.flush()
    return builder.units
