"""Cross-validation folds that share no main evidence passage, so held-out questions are unseen as new ones are.

Questions drawn at random into folds can leak: GraphRAG-Bench asks several questions about the same
passage, so a rule fitted on one of them is tested on its siblings and can look better held out than it
does on new questions (``docs/results/learned-router.md``). Each question's *main evidence passage* is the chunk that
holds the most of its evidence sentences (``threshold`` of a sentence's content words, as evidence recall
counts a hit: :class:`kgrag.evaluation.ceiling.ChunkWords`; ties go to the first chunk), and questions with
the same main passage go to the same fold; a question whose evidence no chunk holds is a group of its own.
Linking questions through *every* chunk that holds some evidence sentence would be stricter, but generic
evidence sentences are held by many chunks, so on a benchmark corpus that joins most questions into one
group and leaves nothing to cross-validate (``docs/results/passage-graph-fusion.md``). Groups are dealt
largest first, each to the fold with the fewest questions so far (equal sizes in a seeded shuffled order).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.documents.words import content_words
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.tuning.router_fit import check_folds


@dataclass(frozen=True)
class EvidenceFolds:
    """The fold of each question (in the order given), the number of groups and the size of the largest."""

    fold: list[int]
    groups: int
    largest_group: int


def main_passages(items: Sequence[QAItem], chunks: ChunkWords, threshold: float) -> list[int | None]:
    """Each question's main evidence passage (a chunk index), None when no chunk holds any of its evidence."""
    main: list[int | None] = []
    for item in items:
        held: Counter[int] = Counter()
        for sentence in item.evidence:
            words = content_words(sentence)
            if words:
                held.update(chunks.holding(words, threshold))
        main.append(min(held, key=lambda chunk: (-held[chunk], chunk)) if held else None)
    return main


def evidence_folds(
    items: Sequence[QAItem], chunks: ChunkWords, folds: int, seed: int = 0, threshold: float = 0.7
) -> EvidenceFolds:
    """``folds`` folds of ``items``; questions sharing a main evidence passage are in the same fold."""
    check_folds(len(items), folds)
    members: dict[tuple[str, int], list[int]] = defaultdict(list)
    for q, passage in enumerate(main_passages(items, chunks, threshold)):
        members[("chunk", passage) if passage is not None else ("question", q)].append(q)
    groups = list(members.values())
    random.Random(seed).shuffle(groups)
    groups.sort(key=len, reverse=True)  # stable: equal sizes keep the shuffled order
    sizes = [0] * folds
    fold = [0] * len(items)
    for group in groups:
        target = min(range(folds), key=lambda f: (sizes[f], f))
        for q in group:
            fold[q] = target
        sizes[target] += len(group)
    return EvidenceFolds(fold=fold, groups=len(groups), largest_group=max(len(g) for g in groups))
