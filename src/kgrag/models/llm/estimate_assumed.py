"""What the estimate assumes about the replies it never sees, and what measured them instead.

:class:`EstimateAssumptions` holds the ``llm.estimate_*`` defaults and, once a probe, the stored graph or the
workspace ledger measured them, the measured reply sizes, rates and shares; :meth:`EstimateAssumptions.lines`
says which of them an estimate rests on. How each is used is in :mod:`kgrag.models.llm.estimate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgrag.models.llm.estimate_cuts import CutChance
from kgrag.models.llm.estimate_loops import LoopShare
from kgrag.models.llm.estimate_range import FailureSample
from kgrag.models.llm.estimate_reply import measured_reply_line
from kgrag.models.llm.estimate_summaries import DescribedNames

AFTER_MERGES = "summaries after merges"  # the stage merges' re-summaries are predicted as


@dataclass(frozen=True)
class StagePrediction:
    """A stage predicted per distinct name: ``per_name`` calls each, of ``prompt`` and ``completion`` tokens."""

    stage: str
    per_name: float
    prompt: int
    completion: int
    setting: str  # the setting that explains it, for the assumption line
    requires: str = ""  # a prompt whose counted calls it follows: none counted, none predicted

    def tally(self, names: int) -> tuple[int, int, int]:
        calls = round(names * self.per_name)
        return calls, calls * self.prompt, calls * self.completion


@dataclass(frozen=True)
class MergeSummaries:
    """The summaries that merges made the workspace's earlier runs redo, per merge confirmation they sent.

    A confirmed merge re-summarises the merged entity (and the relations it joins) only when their joined
    descriptions pass the summary limit, and how often that happens depends on how often the model
    confirms and how long its descriptions are: both this model's. So once the workspace has resolved
    with LLM confirmation, the estimate predicts these summaries per confirmation it counts, at the rate
    and the sizes the earlier runs showed (:func:`~kgrag.indexing.estimate_merges.merge_summaries`).
    """

    confirmations: int  # confirmation calls sent (paid) by the earlier runs' resolutions
    summaries: int  # summary calls sent right after those confirmations (the merges' re-summaries)
    prompt: int = 0  # mean prompt tokens of one such summary (0: none seen)
    completion: int = 0

    @property
    def rate(self) -> float:
        return self.summaries / self.confirmations if self.confirmations else 0.0

    def tally(self, confirmations: int) -> tuple[int, int, int]:
        """Calls, prompt and completion tokens for a run sending ``confirmations`` confirmation calls."""
        calls = round(confirmations * self.rate)
        return calls, calls * self.prompt, calls * self.completion


@dataclass(frozen=True)
class EstimateAssumptions:
    """What the estimate assumes about replies it never sees (see the module docstring)."""

    completion_tokens: int = 256
    completion_per_name: float = 75.0
    glean_rate: float = 0.04
    glean_by_stand_in: bool = False  # gleaning decided per unit on the stand-in graph (its shares measured)
    glean_scale: float = 1.0  # the shares' scale for that decision, fitted on the run's gleaned units
    glean_fit: str = ""  # what the scale was fitted on, for the assumption lines
    glean_completion_share: float = 0.1
    description_tokens: float = 20.0
    summary_overhead_tokens: int = 200
    summary_limit: int | None = None  # graph.max_description_tokens when LLM summaries follow extraction
    stages: tuple[StagePrediction, ...] = ()
    extraction_completion: float | None = None  # measured mean reply of an extraction call (calibration)
    follow_up_completion: float | None = None  # measured mean reply of an extraction re-ask, retry or half
    extraction_names: float | None = None  # mean distinct names of the units measured (estimate_reply)
    follow_up_rate: float = 0.0  # re-asks, retries and halves per first extraction call (measured)
    calibrated: str = ""  # where measured figures replaced the defaults, for the assumption lines
    replies: tuple[tuple[str, float, float], ...] = ()  # per prompt name: measured mean reply, follow-up rate
    name_share: float = 1.0  # names the model returns per stand-in name (measured)
    relation_share: float = 1.0  # relations the model returns per stand-in relation (measured)
    shares_source: str = "the probe"  # what measured the two shares, for the assumption line
    entity_description: float = 0.0  # measured tokens of an entity description as quoted (0: not measured)
    relation_description: float = 0.0  # the same for a relation description
    report_share: float = 1.0  # the model's reportable communities per stand-in one (measured)
    merge_share: float = 1.0  # the model's resolution groups (merge confirmations) per stand-in one (measured)
    merge_summaries: MergeSummaries | None = None  # summaries after merges per confirmation, as measured
    extract_sample: FailureSample = field(default_factory=FailureSample)  # the measured extraction calls (range)
    reply_samples: tuple[tuple[str, FailureSample], ...] = ()  # per prompt name: its measured calls
    held_back: str = ""  # why the run will leave units failed and which stages wait (a warning), if so
    described: DescribedNames | None = None  # the model's entities and description lengths (summaries)
    loops: LoopShare = field(default_factory=LoopShare)  # first passes stopped in a repetition loop (measured)
    reply_size: tuple[float, float] = (1.0, 1.0)  # the measured first-pass reply at its interval's ends (range)
    cuts: CutChance | None = None  # each unit's chance of a first pass cut at max_tokens (measured)

    def reply_for(self, prompt: str | None) -> int:
        """The completion assumed for a non-extraction call of ``prompt``: measured, else the default."""
        sizes = {name: size for name, size, _ in self.replies}
        return round(sizes.get(prompt or "", self.completion_tokens))

    def follow_ups_for(self, prompt: str) -> float:
        """Re-asks and retries per call of ``prompt``, as measured (0 when never measured)."""
        return next((rate for name, _, rate in self.replies if name == prompt), 0.0)

    def lines(self) -> list[str]:
        """The assumptions in words, for the estimate's output."""
        lines = [
            f"assumed: extraction replies {self.completion_per_name:g} completion tokens per distinct capitalised "
            f"name in a unit (llm.estimate_completion_per_name); other calls {self.completion_tokens} "
            "(llm.estimate_completion_tokens)",
            f"assumed: gleaning {self.glean_rate:.0%} of first passes get one more call, replying "
            f"{self.glean_completion_share:.0%} of a first pass (llm.estimate_glean_rate, "
            "llm.estimate_glean_completion_share)",
        ]
        if self.glean_by_stand_in:
            lines[1] = (
                "assumed: gleaning the units whose stand-in first pass (at the measured shares) looks incomplete to "
                f"the gleaning policy, each replying {self.glean_completion_share:.0%} of a first pass"
            )
        if self.extraction_completion is not None:
            lines[0] = measured_reply_line(self)
        for stage in self.stages:
            lines.append(
                f"assumed: {stage.stage} {stage.per_name:g} calls per distinct name, ~{stage.prompt} prompt + "
                f"~{stage.completion} completion tokens each ({stage.setting})"
                + (f", none without a counted {stage.requires} call" if stage.requires else "")
            )
        if self.follow_up_rate:
            lines.append(
                f"assumed: {self.follow_up_rate:.2f} re-asks and retries per extraction call (replies rejected, "
                "cut at the token limit or retried smaller), as measured (at most a re-ask and a retry)"
            )
        if self.calibrated:
            lines.append(f"calibrated from this workspace's ledger: {self.calibrated}")
        if self.glean_fit:
            lines.append(self.glean_fit)
        lines.extend(line for line in (self.cuts.line() if self.cuts else "", self.loops.line()) if line)
        if self.replies:
            measured = ", ".join(f"{name} {size:.0f} ({rate:.2f} re-asks)" for name, size, rate in self.replies)
            lines.append(f"calibrated from this workspace's ledger: mean reply tokens of {measured}")
        lines.extend(self._stand_in_lines())
        if self.summary_limit is not None:
            lines.append(self._summary_line(self.summary_limit))
        if self.merge_summaries is not None:
            after = self.merge_summaries
            lines.append(
                f"calibrated from this workspace's ledger: summaries after merges {after.rate:.3f} per merge "
                f"confirmation ({after.summaries} after the {after.confirmations} confirmations its earlier "
                "resolutions sent)"
            )
        return [f"warning: {self.held_back}", *lines] if self.held_back else lines

    def _stand_in_lines(self) -> list[str]:
        """What the stand-in graph was calibrated by, in words."""
        lines = []
        source = self.shares_source
        if (self.name_share, self.relation_share) != (1.0, 1.0):
            lines.append(
                f"calibrated by {source}: the stand-in graph keeps {self.name_share:.0%} of its names "
                f"and has {self.relation_share:.0%} of its relations (what the model returned there)"
            )
        if self.entity_description or self.relation_description:
            lines.append(
                f"calibrated by {source}: entity descriptions ~{self.entity_description:.0f} tokens and "
                f"relation descriptions ~{self.relation_description:.0f} as the denoising prompts quote them"
            )
        if self.report_share != 1.0 and not self.held_back:
            lines.append(f"calibrated by {source}: {self.report_share:.2f} reports per stand-in report")
        if self.merge_share != 1.0:
            lines.append(
                f"calibrated by {source}: {self.merge_share:.2f} merge confirmations per stand-in one "
                "(groups the resolution plan finds among this model's entities)"
            )
        return lines

    def _summary_line(self, limit: int) -> str:
        """How description summaries are predicted, in words."""
        described = self.described
        if described is None:
            return (
                f"assumed: summaries, one call per name met in more than {limit / self.description_tokens:.0f} "
                f"units ({self.description_tokens:g} tokens of description each, llm.estimate_description_tokens; "
                f"graph.max_description_tokens = {limit})"
            )
        return (
            f"calibrated on {described.units} extracted units: summaries, one call per name of this model's "
            f"{len(described.names)} whose descriptions pass graph.max_description_tokens = {limit}, at "
            f"~{described.mention_tokens:.0f} tokens per description, from the share of units naming it that "
            f"it was extracted from ({described.hit:.0%} on average)"
        )
