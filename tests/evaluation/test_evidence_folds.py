"""Folds that keep questions about the same evidence passage together (kgrag.tuning.evidence_folds)."""

from __future__ import annotations

import pytest

from kgrag.core.errors import KgragError
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.tuning.evidence_folds import evidence_folds, main_passages

CHUNKS = [
    "Aspirin reduces fever and inflammation. It inhibits cyclooxygenase enzymes.",
    "Insulin regulates blood glucose. The pancreas secretes insulin after meals.",
    "Penicillin kills bacteria by blocking cell wall synthesis.",
    "Statins lower cholesterol by inhibiting HMG-CoA reductase in the liver.",
]


def _item(n: int, *evidence: str) -> QAItem:
    return QAItem(id=f"q{n}", question=f"question {n}?", answer="", evidence=list(evidence))


ITEMS = [
    _item(0, "Aspirin reduces fever and inflammation."),
    _item(1, "Aspirin inhibits cyclooxygenase enzymes."),
    _item(2, "Insulin regulates blood glucose."),
    _item(3, "The pancreas secretes insulin after meals.", "Insulin regulates blood glucose."),
    _item(4, "Penicillin kills bacteria by blocking cell wall synthesis."),
    _item(5, "Statins lower cholesterol in the liver."),
    _item(6, "Comets orbit the sun in long ellipses."),
]


def test_main_passage_is_the_chunk_holding_most_evidence_and_none_when_no_chunk_holds_any() -> None:
    assert main_passages(ITEMS, ChunkWords(CHUNKS), 0.7) == [0, 0, 1, 1, 2, 3, None]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_questions_about_one_passage_share_a_fold_and_folds_stay_even(seed: int) -> None:
    split = evidence_folds(ITEMS, ChunkWords(CHUNKS), folds=3, seed=seed)
    fold = split.fold
    assert fold[0] == fold[1] and fold[2] == fold[3]
    assert split.groups == 5 and split.largest_group == 2
    sizes = sorted(fold.count(f) for f in range(3))
    assert sizes[-1] - sizes[0] <= 1 and sum(sizes) == len(ITEMS)


def test_the_seed_changes_which_groups_share_a_fold() -> None:
    splits = {tuple(evidence_folds(ITEMS, ChunkWords(CHUNKS), folds=3, seed=s).fold) for s in range(8)}
    assert len(splits) > 1


def test_too_few_questions_or_folds_is_one_clear_error() -> None:
    with pytest.raises(KgragError, match="at least 2"):
        evidence_folds(ITEMS, ChunkWords(CHUNKS), folds=1)
    with pytest.raises(KgragError, match="lower --folds"):
        evidence_folds(ITEMS[:2], ChunkWords(CHUNKS), folds=3)
