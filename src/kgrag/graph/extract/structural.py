"""What an estimate extracts instead of asking the model: names and their co-occurrences, LLM-free.

An estimate sends nothing, so the stages after extraction (communities and their reports, entity
resolution and its LLM confirmations, triple reflection) would run on an empty graph and cost nothing.
Their cost depends on the graph's structure, so the estimate builds a stand-in graph from the text itself:
every distinct capitalised name (the same rule the estimate prices replies by,
:func:`kgrag.models.llm.estimate.names_in`) is an entity, and two names that follow each other in one
sentence are related. The later stages then run for real on that graph inside the estimate's dry run,
and the calls they make (one report per community the builder finds, one confirmation per candidate
group the blocking step proposes, one reflection batch per ``denoise.reflectors.llm.batch`` relations) are
counted, not guessed. Descriptions stay empty, so no description summary is triggered twice (the
estimate predicts summaries from the names' spread itself).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable

from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.types import ExtractedEntity, ExtractedRelation
from kgrag.models.llm.estimate import names_in

STAND_IN_TYPE = "concept"
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")


def structural_items(text: str, name_share: float = 1.0, relation_share: float = 1.0) -> ParsedItems:
    """Entities (distinct names) and relations (names next to each other in a sentence) of ``text``.

    ``name_share`` < 1 keeps only that share of the names, the most frequent in ``text`` first (a model
    that returns fewer entities names the salient ones); ``relation_share`` < 1 keeps that share of the
    relations among them (in order of first appearance), > 1 adds relations between names further apart
    in a sentence (two places, then three…) until there are that many times as many (a model that
    relates more than neighbours)."""
    sentences = [names_in(sentence) for sentence in _SENTENCE.split(text)]
    counts = Counter(name.casefold() for names in sentences for name in names if len(name) > 1)
    keep = math.ceil(len(counts) * min(1.0, name_share))
    kept = {key for key, _ in counts.most_common(keep)}
    entities: dict[str, ExtractedEntity] = {}
    relations: dict[tuple[str, str], ExtractedRelation] = {}
    kept_sentences = [[name for name in sentence if name.casefold() in kept] for sentence in sentences]
    for names in kept_sentences:
        for name in names:
            entities.setdefault(name.casefold(), ExtractedEntity(name, STAND_IN_TYPE, ""))
        _relate(relations, itertools.pairwise(names))
    wanted = math.ceil(len(relations) * relation_share)
    longest = max((len(names) for names in kept_sentences), default=0)
    for distance in range(2, longest):
        if len(relations) >= wanted:
            break
        for names in kept_sentences:
            _relate(relations, zip(names, names[distance:], strict=False), wanted)
    return ParsedItems(list(entities.values()), list(relations.values())[:wanted])


def _relate(
    relations: dict[tuple[str, str], ExtractedRelation], pairs: Iterable[tuple[str, str]], limit: int | None = None
) -> None:
    """Add a relation for each pair of different names not related yet (until there are ``limit``)."""
    for left, right in pairs:
        if limit is not None and len(relations) >= limit:
            return
        first, second = sorted((left.casefold(), right.casefold()))
        if first != second and (first, second) not in relations:
            relations[(first, second)] = ExtractedRelation(left, right, "related to", "")
