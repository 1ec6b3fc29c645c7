"""Grounding and attribution: which chunk(s) of a unit each extracted item came from, if any.

A unit holds several chunks, but provenance is per chunk, so every item must be assigned to the chunks
that support it. We find each name in each chunk's text rather than asking the model to cite chunk labels:

* it costs no prompt or completion tokens and no chunk labels in the unit text;
* it cannot be wrong in the way citations are (models, weak ones especially, cite the first or the last
  label, or invent one), and it does not depend on the model following one more instruction;
* the prompt already asks for names copied as written, which also serves entity merging.

The same lookup is the grounding check. Small models add names the text never contains: a name from the
prompt's worked example, from the model's own knowledge, or a paraphrase that became a new entity. Such an
item is **ungrounded**: it is dropped and counted, never attributed to a chunk (a graph must not state
as a document's fact what the document does not say).

Lookup for a name, case-insensitive, in the chunk's full text (overlaps included, so an item in an
overlap belongs to both chunks): (1) the exact name on word boundaries; (2) every word of three or more
letters of the name (a title or an initial may differ: "Dr. Ilse Varnow" for "Ilse Varnow"); (3) a fuzzy
match of the whole name against every run of as many words in the chunk, at least ``min_similarity``
(0-100, rapidfuzz's ratio; ``graph.extractors.llm.grounding_similarity``): an inflection or a typo
("Velloran Tides") is found, a fragment of a longer word ("Plat" in "platform") is not, and words of up to
three letters (titles, initials) must be spelt as the text spells them, so "Mrs. Hall" is not found in a
text about "Mr. Hall". A relation is grounded when both endpoints are, and belongs to the chunks where
both occur, or, if they never occur together, to the chunks of either (the statement spans a boundary).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.graph.extract.parse import ParsedItems, name_key
from kgrag.graph.extract.units import ExtractionUnit
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

DEFAULT_MIN_SIMILARITY = 90
MIN_WORD_CHARS = 3
SHORT_WORD_CHARS = 3  # a fuzzy match must spell words this short exactly: "Mrs. Hall" is not "Mr. Hall"
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) >= MIN_WORD_CHARS or w.isdigit()}


class ChunkLocator:
    """Finds names in the chunks of one unit; results are memoised per name."""

    def __init__(self, texts: Sequence[str], min_similarity: int = DEFAULT_MIN_SIMILARITY) -> None:
        self._texts = [_SPACES.sub(" ", t).casefold() for t in texts]
        self._words = [_words(t) for t in texts]
        self._tokens = [_WORD.findall(t) for t in self._texts]
        self._min_similarity = min_similarity
        self._memo: dict[str, tuple[int, ...]] = {}
        self._runs: dict[tuple[int, int], list[str]] = {}

    def locate(self, name: str) -> tuple[int, ...]:
        """Indices of the chunks that mention ``name``; empty when no chunk does (the name is ungrounded)."""
        key = name_key(name)
        if key not in self._memo:
            self._memo[key] = self._exact(key) or self._by_words(key) or self._fuzzy(key)
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
        return tuple(i for i, words in enumerate(self._words) if wanted <= words)

    def _fuzzy(self, key: str) -> tuple[int, ...]:
        words = _WORD.findall(key)
        if len(key) < MIN_WORD_CHARS or not words or self._min_similarity > 100:
            return ()
        from rapidfuzz import fuzz, process  # only names that are neither exact nor word-for-word get here

        wanted = " ".join(words)
        short = [(i, w) for i, w in enumerate(words) if len(w) <= SHORT_WORD_CHARS]
        found = []
        for index in range(len(self._texts)):
            runs = self._word_runs(index, len(words))
            hits = process.extract(wanted, runs, scorer=fuzz.ratio, score_cutoff=self._min_similarity, limit=None)
            tokens = self._tokens[index]
            if any(all(tokens[start + i] == w for i, w in short) for _, _, start in hits):
                found.append(index)
        return tuple(found)

    def _word_runs(self, index: int, size: int) -> list[str]:
        """Every run of ``size`` consecutive words of chunk ``index``, built once per chunk and size."""
        if (index, size) not in self._runs:
            tokens = self._tokens[index]
            self._runs[index, size] = [" ".join(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]
        return self._runs[index, size]

    def locate_relation(self, relation: ExtractedRelation) -> tuple[int, ...]:
        source, target = self.locate(relation.source), self.locate(relation.target)
        if not source or not target:
            return ()
        both = tuple(i for i in source if i in target)
        return both or tuple(sorted(set(source) | set(target)))


@dataclass
class Attribution:
    """Per-chunk extractions of one unit, and how many items were dropped as ungrounded."""

    extractions: list[ChunkExtraction]
    ungrounded_entities: int = 0
    ungrounded_relations: int = 0


def unit_locator(unit: ExtractionUnit, min_similarity: int = DEFAULT_MIN_SIMILARITY) -> ChunkLocator:
    """The locator of one unit's chunks; one per unit, so grounding, gleaning and attribution share its memo."""
    return ChunkLocator([chunk.text for chunk in unit.chunks], min_similarity)


def attribute(
    unit: ExtractionUnit,
    items: ParsedItems,
    *,
    min_similarity: int = DEFAULT_MIN_SIMILARITY,
    grounding: bool = True,
    locator: ChunkLocator | None = None,
) -> Attribution:
    """One :class:`ChunkExtraction` per chunk of ``unit`` (in order), holding the grounded items it supports.

    ``grounding=False`` keeps an item no chunk mentions and gives it to every chunk of the unit (for text a
    model must translate or transliterate); it is never the default. ``locator``: the unit's, when the caller
    already has one (else one is made at ``min_similarity``).
    """
    locator = locator or unit_locator(unit, min_similarity)
    everywhere = tuple(range(len(unit.chunks)))
    entities: list[list[ExtractedEntity]] = [[] for _ in unit.chunks]
    relations: list[list[ExtractedRelation]] = [[] for _ in unit.chunks]
    result = Attribution([])
    for entity in items.entities:
        where = locator.locate(entity.name) or (() if grounding else everywhere)
        result.ungrounded_entities += not where
        for index in where:
            entities[index].append(entity)
    for relation in items.relations:
        where = locator.locate_relation(relation) or (() if grounding else everywhere)
        result.ungrounded_relations += not where
        for index in where:
            relations[index].append(relation)
    last = len(unit.chunks) - 1
    result.extractions = [
        ChunkExtraction(chunk.id, entities[i], relations[i], unit_end=i == last) for i, chunk in enumerate(unit.chunks)
    ]
    return result


def ground(
    unit: ExtractionUnit,
    items: ParsedItems,
    *,
    min_similarity: int = DEFAULT_MIN_SIMILARITY,
    grounding: bool = True,
    locator: ChunkLocator | None = None,
) -> tuple[ParsedItems, int, int]:
    """``items`` without the ones no chunk of ``unit`` mentions, and how many entities and relations went."""
    if not grounding:
        return items, 0, 0
    locator = locator or unit_locator(unit, min_similarity)
    entities = [e for e in items.entities if locator.locate(e.name)]
    relations = [r for r in items.relations if locator.locate_relation(r)]
    kept = ParsedItems(entities, relations, items.dropped)
    return kept, len(items.entities) - len(entities), len(items.relations) - len(relations)


def failed(unit: ExtractionUnit, error: str) -> list[ChunkExtraction]:
    """Error extractions for every chunk of a unit whose call failed (they are retried on the next run)."""
    last = len(unit.chunks) - 1
    return [ChunkExtraction(chunk.id, error=error, unit_end=i == last) for i, chunk in enumerate(unit.chunks)]
