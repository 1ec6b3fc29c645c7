"""Counters of the LLM extractor: what one ``extract`` call did with its units, and their sum over calls.

The graph builder calls ``extract`` once per window of documents, so a run of many windows makes many
calls; the indexing report takes the run's sum (:attr:`LLMExtractor.totals`), while tests and the
estimate's probe read the last call alone (:attr:`LLMExtractor.stats`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields


@dataclass
class ExtractionStats:
    """What :meth:`LLMExtractor.extract` did: units sent, and of them failed, retried at a new temperature,
    split for their size, gleaned (and failed gleans), stopped in a repetition loop; reply items dropped as
    invalid; grounding drops and description repairs; why units were gleaned."""

    units: int = 0
    chunks: int = 0
    failed_units: int = 0
    retried_units: int = 0
    split_units: int = 0
    gleaned_units: int = 0
    glean_failures: int = 0
    loop_units: int = 0  # units whose reply was stopped in a repetition loop (its part before the loop kept)
    dropped_items: int = 0
    ungrounded_entities: int = 0
    ungrounded_relations: int = 0
    clause_entities: int = 0
    clause_relations: int = 0
    unsupported_relations: int = 0
    descriptions_filled: int = 0
    descriptions_replaced: int = 0
    glean_reasons: Counter[str] = field(default_factory=Counter)

    def add(self, other: ExtractionStats) -> None:
        """Add ``other``'s counts to these (every counter, the glean reasons too)."""
        for spec in fields(self):
            mine, theirs = getattr(self, spec.name), getattr(other, spec.name)
            if isinstance(mine, Counter):
                mine.update(theirs)
            else:
                setattr(self, spec.name, mine + theirs)
