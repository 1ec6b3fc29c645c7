"""Gleaning: when a first pass looks incomplete, and what the one extra call re-sends.

Gleaning re-sends text, so it can double a unit's cost; it is worth paying only where the first pass
probably missed something, and only for the text where it did. :class:`GleanPolicy` decides both:

* *whether*: the unit yielded fewer than ``min_entities_per_100_tokens`` entities per 100 tokens, or many
  entities but almost no relations (a list of names, not a graph); only the accepted items decide, never
  whether the reply needed a re-ask, so a run with transient faults builds the graph a fault-free run does;
* *which text*: for sparse units, only the chunks that are themselves sparse (after attribution) are
  re-sent; a relation-poor unit is re-sent whole. The names already found in the re-sent
  chunks go with it, so the model answers with what is missing instead of repeating itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.core.llm_types import StructuredResult
from kgrag.graph.extract.attribution import ChunkLocator, unit_locator
from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.extract.units import PART_SEPARATOR, ExtractionUnit, new_part
from kgrag.models.llm.reply_loop import LOOP_FINISH

REASKED = "re-asked"
FEW_ENTITIES = "few entities"
FEW_RELATIONS = "few relations"
NOTHING_FOUND = "(none)"


@dataclass(frozen=True)
class GleanRequest:
    """The text and the already-found names one gleaning call sends."""

    text: str
    found: str
    chunk_indices: tuple[int, ...]


@dataclass(frozen=True)
class GleanPolicy:
    """Thresholds of the "looks incomplete" heuristic (see the module docstring).

    Units and chunks shorter than ``min_tokens`` (a heading, a table row) are exempt from the density
    rules. Defaults were set on the sample corpus, where a weak pass finds far fewer entities per 100 tokens
    than a complete one (docs/results/design-measurements.md).
    """

    enabled: bool = True
    min_entities_per_100_tokens: float = 1.0
    min_relations_per_entity: float = 0.3
    min_entities_for_relations: int = 4
    min_tokens: int = 80

    def _sparse(self, entities: int, tokens: int) -> bool:
        return tokens >= self.min_tokens and entities * 100 < self.min_entities_per_100_tokens * tokens

    def reason(self, unit: ExtractionUnit, result: StructuredResult[Any], items: ParsedItems) -> str | None:
        """Why this unit should be gleaned, or None when its first pass looks complete."""
        if not self.enabled or result.finish_reason == LOOP_FINISH:
            return None  # a model that fell into repeating itself has shown it has nothing more to add
        # A re-ask is not a reason of its own: whether a reply had to be asked again depends on transient
        # faults (a cut or garbled transmission), and the graph must not. A re-asked answer that came
        # back shortened is caught by the density rules below, like any other thin answer.
        if self._sparse(len(items.entities), unit.n_tokens):
            return FEW_ENTITIES
        entities = len(items.entities)
        if (
            entities >= self.min_entities_for_relations
            and len(items.relations) < self.min_relations_per_entity * entities
        ):
            return FEW_RELATIONS
        return None

    def request(
        self, unit: ExtractionUnit, items: ParsedItems, reason: str, locator: ChunkLocator | None = None
    ) -> GleanRequest:
        """What to re-send: the sparse chunks for ``few entities``, else the whole unit (``locator``: the
        unit's, when the caller has one)."""
        locator = locator or unit_locator(unit)
        located = [(entity.name, locator.locate(entity.name)) for entity in items.entities]
        chosen = tuple(range(len(unit.chunks)))
        if reason == FEW_ENTITIES:
            counts = [sum(index in where for _, where in located) for index in range(len(unit.chunks))]
            sparse = tuple(i for i, chunk in enumerate(unit.chunks) if self._sparse(counts[i], chunk.n_tokens))
            chosen = sparse or chosen
        names = [name for name, where in located if set(where) & set(chosen)]
        return GleanRequest(_text_of(unit, chosen), "; ".join(names) or NOTHING_FOUND, chosen)


def _text_of(unit: ExtractionUnit, indices: Sequence[int]) -> str:
    """The unit text restricted to some chunks; a chunk right after a kept one skips the overlap again."""
    if len(indices) == len(unit.chunks):
        return unit.text
    parts: list[str] = []
    for position, index in enumerate(indices):
        previous = unit.chunks[indices[position - 1]] if position and indices[position - 1] == index - 1 else None
        parts.append(new_part(previous, unit.chunks[index]))
    return PART_SEPARATOR.join(parts)
