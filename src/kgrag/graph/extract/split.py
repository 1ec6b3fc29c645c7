"""Smaller requests for a unit whose reply was cut at the token limit or whose request did not fit.

Asking the same unit again gets the same too-long reply (or the same refusal); half the text needs about
half the reply. :func:`split_unit` halves a unit: between its chunks when it has several (each half is a
unit of whole chunks, so provenance is unchanged), else inside its one chunk at the sentence boundary
nearest the middle (both halves belong to that chunk; grounding and attribution still read the whole
chunk). A unit below ``2 * MIN_PART_TOKENS`` is not split: it fails with its reason.

:func:`merge_parts` turns the per-chunk extractions of the parts back into one per chunk of the unit: a
chunk any failed part covers fails (and is retried, alone or with its failed neighbours, next run); the
items of a chunk read in two halves are joined.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgrag.graph.extract.parse import dedupe_entities, dedupe_relations
from kgrag.graph.extract.units import ExtractionUnit, build_units
from kgrag.graph.types import ChunkExtraction
from kgrag.models.llm.tokens import TextTokenCounter

MIN_PART_TOKENS = 48  # a part shorter than this holds too little to be worth a call of its own
MAX_SPLIT_DEPTH = 2  # halves, then quarters: a unit costs at most 2 + 2 + 4 calls
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
_SPACE = re.compile(r"\s+")


def split_unit(unit: ExtractionUnit, counter: TextTokenCounter) -> list[ExtractionUnit] | None:
    """Two smaller units covering ``unit``, or None when it is too small to split."""
    if unit.n_tokens < 2 * MIN_PART_TOKENS:
        return None
    if len(unit.chunks) > 1:
        return _split_chunks(unit, counter)
    return _split_text(unit, counter)


def _split_chunks(unit: ExtractionUnit, counter: TextTokenCounter) -> list[ExtractionUnit]:
    sizes = [counter.count(chunk.text) for chunk in unit.chunks]
    half = sum(sizes) / 2
    cut = min(range(1, len(sizes)), key=lambda index: abs(sum(sizes[:index]) - half))  # the most even split
    halves = (unit.chunks[:cut], unit.chunks[cut:])
    # neighbours of one document always form one unit when the budget is unbounded
    return [build_units(part, 10**9, counter)[0] for part in halves]


def _boundaries(text: str) -> list[int]:
    """Offsets where a sentence (or, lacking any, a word) of ``text`` starts, the first excluded."""
    found = [m.end() for m in _SENTENCE_END.finditer(text) if 0 < m.end() < len(text)]
    return found or [m.end() for m in _SPACE.finditer(text) if 0 < m.end() < len(text)]


def _split_text(unit: ExtractionUnit, counter: TextTokenCounter) -> list[ExtractionUnit] | None:
    starts = _boundaries(unit.text)
    if not starts:
        return None
    middle = len(unit.text) / 2
    cut = min(starts, key=lambda offset: abs(offset - middle))
    parts = [unit.text[:cut].strip(), unit.text[cut:].strip()]
    if not all(parts):
        return None
    return [ExtractionUnit(unit.doc_id, unit.chunks, part, counter.count(part)) for part in parts]


def merge_parts(unit: ExtractionUnit, parts: Sequence[Sequence[ChunkExtraction]]) -> list[ChunkExtraction]:
    """One extraction per chunk of ``unit`` from the extractions of its parts (see the module docstring)."""
    merged = {chunk.id: ChunkExtraction(chunk.id) for chunk in unit.chunks}
    for extractions in parts:
        for extraction in extractions:
            into = merged[extraction.chunk_id]
            if extraction.error is not None:
                into.error = into.error or extraction.error
                into.entities, into.relations = [], []
            elif into.error is None:
                into.entities.extend(extraction.entities)
                into.relations.extend(extraction.relations)
    last = len(unit.chunks) - 1
    out = []
    for index, chunk in enumerate(unit.chunks):
        extraction = merged[chunk.id]
        extraction.entities = dedupe_entities(extraction.entities)
        extraction.relations = dedupe_relations(extraction.relations)
        extraction.unit_end = index == last  # the whole unit is still one merge group
        out.append(extraction)
    return out
