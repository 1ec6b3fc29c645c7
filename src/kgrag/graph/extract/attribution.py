"""Which chunk(s) of a unit each extracted item came from.

A unit holds several chunks, but provenance is per chunk, so every item must be assigned to the chunks
that support it. Two options were on the table: ask the model to cite a chunk label per item, or find
each name in each chunk's text. We find names, because it is the robust one:

* it costs no prompt or completion tokens and no chunk labels in the unit text;
* it cannot be wrong in the way citations are (models, weak ones especially, cite the first or the last
  label, or invent one), and it does not depend on the model following one more instruction;
* the prompt already asks for names copied as written, which also serves entity merging.

Lookup order for a name: (1) the exact name, case-insensitive, on word boundaries, in the chunk's full
text (overlaps included, so an item in an overlap belongs to both chunks); (2) when the model reworded
the name, the chunks holding the largest share (at least half) of its words; (3) when nothing matches,
every chunk of the unit: the item came from this unit, and over-attributing within it is better than
dropping a real item or guessing one chunk. A relation belongs to the chunks where both endpoints
occur, or, if they never occur together, to the chunks of either (the statement spans a boundary).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgrag.graph.extract.parse import ParsedItems, name_key
from kgrag.graph.extract.units import ExtractionUnit
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

MIN_WORD_SHARE = 0.5
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) > 1 or w.isdigit()}


class ChunkLocator:
    """Finds names in the chunks of one unit; results are memoised per name."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._texts = [_SPACES.sub(" ", t).casefold() for t in texts]
        self._words = [_words(t) for t in texts]
        self._memo: dict[str, tuple[int, ...]] = {}

    @property
    def everywhere(self) -> tuple[int, ...]:
        return tuple(range(len(self._texts)))

    def locate(self, name: str) -> tuple[int, ...]:
        """Indices of the chunks that mention ``name`` (see the module docstring for the fallbacks)."""
        key = name_key(name)
        if key not in self._memo:
            self._memo[key] = self._exact(key) or self._by_words(key) or self.everywhere
        return self._memo[key]

    def _exact(self, key: str) -> tuple[int, ...]:
        if not key:
            return ()
        pattern = re.compile(r"(?<!\w)" + re.escape(key) + r"(?!\w)")
        return tuple(i for i, text in enumerate(self._texts) if pattern.search(text))

    def _by_words(self, key: str) -> tuple[int, ...]:
        wanted = _words(key)
        if not wanted:
            return ()
        shares = [len(wanted & words) / len(wanted) for words in self._words]
        best = max(shares)
        if best < MIN_WORD_SHARE:
            return ()
        return tuple(i for i, share in enumerate(shares) if share == best)

    def locate_relation(self, relation: ExtractedRelation) -> tuple[int, ...]:
        source, target = self.locate(relation.source), self.locate(relation.target)
        both = tuple(i for i in source if i in target)
        return both or tuple(sorted(set(source) | set(target)))


def attribute(unit: ExtractionUnit, items: ParsedItems) -> list[ChunkExtraction]:
    """One :class:`ChunkExtraction` per chunk of ``unit`` (in order), holding the items it supports."""
    locator = ChunkLocator([chunk.text for chunk in unit.chunks])
    entities: list[list[ExtractedEntity]] = [[] for _ in unit.chunks]
    relations: list[list[ExtractedRelation]] = [[] for _ in unit.chunks]
    for entity in items.entities:
        for index in locator.locate(entity.name):
            entities[index].append(entity)
    for relation in items.relations:
        for index in locator.locate_relation(relation):
            relations[index].append(relation)
    last = len(unit.chunks) - 1
    return [
        ChunkExtraction(chunk.id, entities[i], relations[i], unit_end=i == last) for i, chunk in enumerate(unit.chunks)
    ]


def failed(unit: ExtractionUnit, error: str) -> list[ChunkExtraction]:
    """Error extractions for every chunk of a unit whose call failed (they are retried on the next run)."""
    last = len(unit.chunks) - 1
    return [ChunkExtraction(chunk.id, error=error, unit_end=i == last) for i, chunk in enumerate(unit.chunks)]
