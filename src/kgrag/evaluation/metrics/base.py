"""What a metric sees (:class:`Sample`), what it returns (:class:`Measured`) and the tools it may use.

A metric never returns 0 for "could not tell": a failed judge call, an empty answer or a question
without evidence is ``Measured(None, note=why)``, stored and reported as *unmeasured* beside the mean
of what was measured. Averaging such cases as 0 is how RAGAS-style reports get their NaNs and their
spurious drops. The converse holds too: a pipeline that retrieved nothing has been measured, and its
retrieval-judged scores (context relevance, evidence recall, faithfulness) are 0, not unmeasured, so
that an empty retrieval cannot raise a pipeline's mean by leaving it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel

from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry, settings_of
from kgrag.evaluation.judge_client import JudgeClient

S = TypeVar("S", bound=BaseModel)
Mode = Literal["llm-free", "llm"]
Similarity = Callable[[str, str], float]


@dataclass(frozen=True)
class Sample:
    """One question through one pipeline: the reference, the answer and the retrieved context (and the
    dataset's question type, which a metric profile may use to decide whether a metric applies)."""

    question: str
    reference: str
    answer: str
    contexts: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    question_type: str = ""


@dataclass(frozen=True)
class Measured:
    """A metric value in [0, 1], or ``None`` (unmeasured) with the reason in ``note``."""

    value: float | None
    note: str = ""
    judge_tokens: int = 0

    @classmethod
    def unmeasured(cls, why: str, judge_tokens: int = 0) -> Measured:
        return cls(None, why, judge_tokens)


NOTHING_RETRIEVED = Measured(0.0, "nothing retrieved")
"""The score of a retrieval-judged metric when the pipeline returned no text: measured, and 0."""


def retrieved(sample: Sample) -> bool:
    """Whether the pipeline returned any text for the question."""
    return any(text.strip() for text in sample.contexts)


@dataclass(frozen=True)
class MetricTools:
    """Shared helpers: the semantic similarity (the workspace embedder), the judge client for LLM
    versions, the ``[evaluation]`` settings every metric shares, and each metric's own validated
    ``[evaluation.metrics.<name>]`` table (read with :meth:`settings_for`)."""

    similarity: Similarity
    judge: JudgeClient | None = None
    evidence_overlap: float = 0.7
    temperature: float = 0.0
    seed: int = 0
    settings: Mapping[str, BaseModel] = field(default_factory=dict)

    def settings_for(self, metric: str, model: type[S]) -> S:
        """``metric``'s settings as ``model`` (its table, else ``model``'s defaults)."""
        return settings_of(self.settings, metric, model)


class Metric(Protocol):
    """A named metric: ``llm_free`` is deterministic; ``judged`` asks ``tools.judge`` (reasoning first)."""

    name: str
    paper: str

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured: ...
    def judged(self, sample: Sample, tools: MetricTools) -> Measured: ...


METRICS: RegistryKind[Callable[[], Metric]] = RegistryKind("metric")
"""Metric classes (or factories) called with no arguments; ``KINDS["metric"].default_set`` (or a plug-in's
``default_set = True``) puts one in the metrics a run scores when none are named."""


def metric_registry() -> Registry[Callable[[], Metric]]:
    """A fresh registry of metrics: built-ins plus plug-ins from the ``kgrag.metrics`` group."""
    return METRICS.new()


def measure(metric: Metric, sample: Sample, tools: MetricTools, mode: Mode) -> Measured:
    """One metric in one mode; the judged version needs an available judge, else it is unmeasured."""
    if mode == "llm-free":
        return metric.llm_free(sample, tools)
    if tools.judge is None or not tools.judge.available:
        return Measured.unmeasured("no LLM judge configured")
    return metric.judged(sample, tools)
