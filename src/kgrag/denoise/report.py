"""What a denoising run (or plan) shows a reviewer: before/after graph statistics (SPEC component 5),
counts per stage, and a sample of merges and drops with their scores and reasons.

Samples are spread over the score range (not just the most confident, which are the least informative
to review): sorted by score, then taken at even steps.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from typing_extensions import TypedDict

from kgrag.core.denoise_records import RelationScore
from kgrag.denoise.types import ResolutionGraph, ResolutionPlan
from kgrag.graph.analysis.render import comparison_markdown, headline_markdown
from kgrag.graph.analysis.stats import GraphStats, GraphStatsDict


@dataclass(frozen=True)
class MergeSample:
    canonical: str
    aliases: list[str]
    score: float
    mode: str
    reason: str


@dataclass(frozen=True)
class DropSample:
    source: str
    label: str
    target: str
    score: float
    reason: str


class DenoiseReportDict(TypedDict):
    """A :class:`DenoiseReport` as JSON."""

    applied: bool
    run_id: str
    counts: dict[str, dict[str, int]]
    merges: list[dict[str, str | float | list[str]]]
    drops: list[dict[str, str | float]]
    before: GraphStatsDict | None
    after: GraphStatsDict | None


@dataclass
class DenoiseReport:
    """A plan (``applied`` False, ``run_id`` empty) or an applied run, ready for JSON or markdown."""

    applied: bool
    run_id: str = ""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    merges: list[MergeSample] = field(default_factory=list)
    drops: list[DropSample] = field(default_factory=list)
    before: GraphStats | None = None
    after: GraphStats | None = None

    def to_dict(self) -> DenoiseReportDict:
        return DenoiseReportDict(
            applied=self.applied,
            run_id=self.run_id,
            counts={stage: dict(numbers) for stage, numbers in self.counts.items()},
            merges=[asdict(m) for m in self.merges],
            drops=[asdict(d) for d in self.drops],
            before=self.before.to_dict() if self.before else None,
            after=self.after.to_dict() if self.after else None,
        )

    def markdown(self) -> str:
        title = f"Denoising run {self.run_id}" if self.applied else "Denoising plan (dry run: nothing changed)"
        lines = [f"## {title}", ""]
        if self.before and self.after:
            lines += [comparison_markdown(self.before, self.after), ""]
        elif self.before:  # a plan: the graph as it is, which the planned merges and drops start from
            lines += [headline_markdown(self.before), ""]
        for stage, numbers in self.counts.items():
            lines.append(f"**{stage}**: " + ", ".join(f"{k} {v:,}" for k, v in numbers.items()))
        lines += [
            "",
            f"### Sample merges ({len(self.merges)})",
            "",
            "| canonical | aliases | score | mode |",
            "|---|---|---:|---|",
        ]
        lines += [
            f"| {_cell(m.canonical)} | {_cell('; '.join(m.aliases))} | {m.score:.3f} | {m.mode} |" for m in self.merges
        ]
        lines += [
            "",
            f"### Sample drops ({len(self.drops)})",
            "",
            "| source | label | target | score | reason |",
            "|---|---|---|---:|---|",
        ]
        lines += [
            f"| {_cell(d.source)} | {_cell(d.label)} | {_cell(d.target)} | {d.score:.2f} | {_cell(d.reason)} |"
            for d in self.drops
        ]
        return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def spread(items: list[Any], n: int) -> list[Any]:
    """``n`` items at even steps through ``items`` (all of them when there are few)."""
    if n <= 0:
        return []
    if len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def merge_samples(plan: ResolutionPlan | None, graph: ResolutionGraph | None, n: int) -> list[MergeSample]:
    if plan is None or graph is None:
        return []
    groups = sorted(plan.groups, key=lambda g: (-g.score, g.canonical))
    return [
        MergeSample(graph.names[g.canonical], [graph.names[a] for a in g.aliases], round(g.score, 4), g.mode, g.reason)
        for g in spread(groups, n)
    ]


def drop_samples(scores: list[RelationScore], n: int) -> list[DropSample]:
    """A spread of the dropped relations' verdicts, lowest score first."""
    dropped = sorted((s for s in scores if s.dropped), key=lambda s: (s.score, s.relation_id))
    return [DropSample(s.source_name, s.label, s.target_name, s.score, s.reason) for s in spread(dropped, n)]
