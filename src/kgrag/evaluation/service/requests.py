"""The typed requests the evaluation services take, and the question sets they accept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kgrag.evaluation.datasets import QAItem, load_dataset
from kgrag.evaluation.pairwise.types import PairwiseSettings
from kgrag.evaluation.runner import RunMode, RunOptions

Questions = Sequence[QAItem] | str | Path
"""Labelled questions, or the path of a GraphRAG-Bench .json/.jsonl file holding them (str or Path)."""


def questions_of(items: Questions) -> list[QAItem]:
    """``items`` as a list, read from the dataset file first when ``items`` is its path."""
    if isinstance(items, str | Path):
        return load_dataset(Path(items))
    return list(items)


@dataclass(frozen=True)
class EvalRequest:
    """One metric run (``kgrag eval run``): answer ``items`` with every pipeline ``runs`` times and score the
    answers with ``metrics`` (None: the defaults) and ``judges`` in ``mode`` (None: by whether an LLM is
    configured); ``k``/``runs`` None take the config's. ``dataset``, ``label`` and ``sample`` are recorded."""

    items: Questions
    pipelines: Sequence[str]
    metrics: Sequence[str] | None = None
    runs: int | None = None
    mode: RunMode | None = None
    judges: Sequence[str] = ()
    k: int | None = None
    dataset: str = ""
    label: str = ""
    sample: str = ""
    options: RunOptions = field(default_factory=RunOptions)


@dataclass(frozen=True)
class PairwiseRequest:
    """What to compare: pipelines ``a`` and ``b`` under ``judge`` (settings default to the config), at
    ``k`` items, with an A/A check (A's answers on both sides) when ``aa_check``."""

    a: str
    b: str
    judge: str = "unbiased"
    settings: PairwiseSettings | None = None
    k: int | None = None
    dataset: str = ""
    aa_check: bool = False
