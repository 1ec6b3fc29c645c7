"""Estimate mode: run a pipeline without calling the LLM and count what it would have cost.

The wrapper answers every request with an empty reply and counts the prompt tokens offline, so the calls
the pipeline makes for sure (one first-pass extraction per unit, answers, reports) are counted exactly.
What a real run does *because of* the replies cannot be seen this way, so it is predicted from stated,
settable assumptions (:class:`EstimateAssumptions`, the ``llm.estimate_*`` fields):

* the completion of an extraction call grows with the entities the text names, not with its length
  (dense incident notes reply with ~4 JSON tokens per text token, clinical prose with ~1.8), so it is
  ``completion_per_name`` tokens per distinct capitalised name in the unit (an entity with its share of
  relations, written as JSON); other calls assume ``completion_tokens`` each;
* gleaning: a share ``glean_rate`` of the first passes get one more call (with the stand-in's shares
  measured: the units whose stand-in first pass looks incomplete), re-sending what the run would re-send
  were the reply the stand-in graph (:mod:`kgrag.models.llm.estimate_glean`), answered with
  ``glean_completion_share`` of an average first-pass reply;
* repetition loops: the measured share of first passes stopped in a loop is priced at what was read
  before the loop, and those units are not gleaned (:mod:`kgrag.models.llm.estimate_loops`);
* description summaries: a name met in ``n`` units merges ``n`` descriptions of about
  ``description_tokens`` each; past ``graph.max_description_tokens`` it costs one summary call (its
  descriptions plus ``summary_overhead_tokens`` in, the limit out);
  where a probe or the stored graph measured the model's own entities and description lengths
  (``described``), summaries are predicted from those instead (:mod:`kgrag.models.llm.estimate_summaries`);
* the stages after extraction (community reports, LLM confirmation of entity merges, LLM triple
  reflection) run for real on a stand-in graph the extractor builds from the text LLM-free
  (:mod:`kgrag.graph.extract.structural`), so their calls and prompts are counted from the graph's
  structure; their replies are ``completion_tokens`` each, or the mean this model's recent calls of the
  same prompt measured (``replies``). The summaries merges redo are not seen (no merge is confirmed
  here): once the workspace's earlier resolutions measured them, per merge confirmation call counted
  (``merge_summaries``), else per distinct name (:class:`StagePrediction`), each reply capped by its
  stage's ``max_tokens``.

Every assumed completion is capped by the request's ``max_tokens``; a measured one is not (it is what
this server sent for such requests, and some servers ignore ``max_tokens``). When the workspace
has already made real calls, the workspace layer replaces the reply sizes, the gleaning share and the
rate of re-asks and retries by what the configured model's own recent calls measured
(:mod:`kgrag.models.llm.reply_stats`; ``calibrated`` in the assumption lines); ``kgrag index --estimate
--probe`` makes such calls first, on two sample units; each unit's reply is then the measured one scaled
by the unit's names (:mod:`kgrag.models.llm.estimate_reply`). Where the ledger's first passes fit a reply
size per unit, each unit's chance of a first pass cut at ``max_tokens`` moves the follow-up rate from the
measured units' cut share to these units' (:mod:`kgrag.models.llm.estimate_cuts`).

The client treats these replies as "not sent": it still consults the cache (a cached call would be free
in the real run too) but never caches, retries, re-asks or charges the budget.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field

from kgrag.core.llm_types import ChatRequest, ChatResponse, Prices
from kgrag.models.llm.base import ChatProvider
from kgrag.models.llm.estimate_assumed import AFTER_MERGES, EstimateAssumptions
from kgrag.models.llm.estimate_counted import MERGE_PROMPT, counted_share, held_parts, quoted_descriptions
from kgrag.models.llm.estimate_glean import GLEAN_PROMPT, priced_gleaning
from kgrag.models.llm.estimate_range import Bounds, FailureSample
from kgrag.models.llm.estimate_reply import name_scale
from kgrag.models.llm.estimate_summaries import predicted_summaries
from kgrag.models.llm.tokens import TextTokenCounter, count_message_tokens

ESTIMATE_FINISH_REASON = "estimate"
EXTRACTION_PROMPTS = frozenset({"extract_graph", "glean_graph"})
SUMMARY_PROMPT = "summarize_descriptions"
TEXT_MARKER = "Text:\n"
REASK_CORRECTION_TOKENS = 60  # the message that asks again, naming what was wrong with the reply
EXAMPLE_INPUT = "For this input:\n"  # how a prompt's worked example is shown (kgrag.prompts.loader)
EXAMPLE_REPLY = "\nthe reply is:\n"
_WORD = r"[A-ZÀ-ÖØ-Þ][\w'&]*(?:[-.]\w+)*"
_NAME = re.compile(_WORD + r"(?:[ \t]+(?:" + _WORD + r"|\d+(?:\.\d+)*))*")
# Capitalised only because they start a sentence: not names, so stripped from the front of a run.
_FUNCTION_WORDS = frozenset(
    "a an the this that these those every each any all our we it its in on at for if when since after before "
    "during while with by from to of and or but as so also then here there what which who how why no not "
    "some many most such other they he she these is are was were".split()
)


def _name(run: str) -> str:
    words = run.split()
    while words and words[0].casefold() in _FUNCTION_WORDS:
        words = words[1:]
    return " ".join(words)


def names_in(text: str) -> list[str]:
    """The capitalised names of ``text`` in order (leading sentence-initial function words stripped)."""
    return [name for m in _NAME.finditer(text) if (name := _name(m.group(0)))]


def distinct_names(text: str) -> set[str]:
    """The distinct (casefolded) names of ``text`` an extraction reply is priced by."""
    return {name.casefold() for name in names_in(text) if len(name) > 1}


@dataclass(frozen=True)
class Estimate:
    """Calls, tokens and money a run would spend on uncached LLM calls, and what that assumes."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    assumptions: tuple[str, ...] = ()
    predicted: tuple[str, ...] = field(default=())  # the predicted (not counted) parts, one line each
    names: int = 0  # distinct names the extraction texts hold (what the per-name predictions scale with)
    low: Bounds | None = None  # the range re-asks and retries leave (kgrag.models.llm.estimate_range)
    high: Bounds | None = None

    def line(self) -> str:
        return (
            f"{self.calls} LLM calls, ~{self.prompt_tokens} prompt + ~{self.completion_tokens} completion "
            f"tokens, ~${self.cost_usd:.4f}"
        )

    def range_line(self) -> str | None:
        from kgrag.models.llm.estimate_range import range_line

        return range_line(self.low, self.high) if self.low is not None and self.high is not None else None

    def prices_line(self, batch_share: float) -> str:
        """Live and Batch API prices side by side (``llm.batch_price_share`` of the live price)."""
        return (
            f"price: live ~${self.cost_usd:.4f}, with --batch ~${self.cost_usd * batch_share:.4f} "
            f"(llm.batch_price_share = {batch_share:g}; requests a batch rejects are sent live at live price)"
        )


@dataclass
class _Tally:
    calls: int = 0
    prompt: int = 0
    completion: int = 0
    units: Counter[str] = field(default_factory=Counter)  # casefolded name -> extraction units naming it

    def add(self, calls: int, prompt: float, completion: float) -> None:
        self.calls += calls
        self.prompt += round(prompt)
        self.completion += round(completion)


class EstimatingProvider:
    """Wraps the configured provider without calling it; keeps its name so cache keys match a real run."""

    available = True
    estimating = True

    def __init__(self, inner: ChatProvider, counter: TextTokenCounter, assumptions: EstimateAssumptions | int) -> None:
        self.name = inner.name
        self._inner = inner
        self._counter = counter
        if isinstance(assumptions, int):  # the completion size alone (older callers)
            assumptions = EstimateAssumptions(completion_tokens=assumptions)
        self.assumptions = assumptions
        self._lock = threading.Lock()
        self._all = _Tally()
        self._extract = _Tally()
        self._by_prompt: dict[str, _Tally] = {}  # the counted calls of the stages after extraction
        self._glean_priced = _Tally()  # gleaning requests built for the first passes (estimate_glean)
        self._max_tokens = 0  # the largest max_tokens of an extraction request (a runaway reply's length)
        self._texts: list[str] = []  # the first-pass units' texts (summaries, estimate_summaries)
        self._cut_chance = 0.0  # the first passes' cut chances summed (estimate_cuts)

    @property
    def inner(self) -> ChatProvider:
        """The provider this estimate stands in for (never called)."""
        return self._inner

    @property
    def calls(self) -> int:
        return self._all.calls

    def complete(self, request: ChatRequest) -> ChatResponse:
        prompt = count_message_tokens(self._counter, request.messages) + quoted_descriptions(self.assumptions, request)
        if request.prompt is not None and request.prompt.name == GLEAN_PROMPT:  # priced, predicted by the rate
            with self._lock:
                self._glean_priced.add(1, prompt, 0)
            return ChatResponse("", ESTIMATE_FINISH_REASON, prompt, 0)
        names = self._names(request)
        measured = self.assumptions.extraction_completion
        if names is None:
            completion = self._other_reply(request)
            measured = completion if self._measured(request) else None
        elif measured is not None:  # a share of first passes stops in a loop, priced at what was read
            completion = round(self.assumptions.loops.first_pass(measured * name_scale(self.assumptions, len(names))))
        else:
            completion = round(self.assumptions.completion_per_name * len(names))
        if measured is None:  # an assumed reply never passes max_tokens; a measured one is what the server sent
            completion = min(completion, request.max_tokens or completion)
        cuts = self.assumptions.cuts
        with self._lock:
            self._all.add(1, prompt, completion)
            if names is not None:
                self._extract.add(1, prompt, completion)
                self._cut_chance += cuts.chance(len(names), request.max_tokens) if cuts is not None else 0.0
                self._max_tokens = max(self._max_tokens, request.max_tokens or 0)
                self._extract.units.update(names)
                self._texts.append(self._text(request))  # a first pass: gleaning requests returned above
            elif request.prompt is not None:
                self._by_prompt.setdefault(request.prompt.name, _Tally()).add(1, prompt, completion)
        return ChatResponse("", ESTIMATE_FINISH_REASON, prompt, completion)

    def _measured(self, request: ChatRequest) -> bool:
        return self._measured_prompt(request.prompt.name if request.prompt else None)

    def _measured_prompt(self, name: str | None) -> bool:
        return any(prompt == name for prompt, _, _ in self.assumptions.replies)

    def _other_reply(self, request: ChatRequest) -> int:
        """A non-extraction call's reply: measured for its prompt, else as long as the prompt's worked example
        reply scaled by how much larger the input is than the example's, else the default."""
        name = request.prompt.name if request.prompt else None
        if any(prompt == name for prompt, _, _ in self.assumptions.replies):
            return self.assumptions.reply_for(name)
        system = next((str(m.get("content", "")) for m in request.messages if m.get("role") == "system"), "")
        head, marker, reply = system.rpartition(EXAMPLE_REPLY)
        example_input = head.rpartition(EXAMPLE_INPUT)[2]
        user = next((str(m.get("content", "")) for m in request.messages if m.get("role") == "user"), "")
        if not marker or not example_input or not reply.strip():
            return self.assumptions.completion_tokens
        scale = max(1.0, self._counter.count(user) / max(1, self._counter.count(example_input)))
        return min(self.assumptions.completion_tokens, round(self._counter.count(reply) * scale))

    @staticmethod
    def _text(request: ChatRequest) -> str:
        """The text an extraction request sends."""
        user = next((str(m.get("content", "")) for m in request.messages if m.get("role") == "user"), "")
        return user.split(TEXT_MARKER, 1)[-1]

    @classmethod
    def _names(cls, request: ChatRequest) -> set[str] | None:
        """Distinct capitalised names in an extraction request's text; None for other requests."""
        if request.prompt is None or request.prompt.name not in EXTRACTION_PROMPTS:
            return None
        return distinct_names(cls._text(request))

    def report(self, prices: Prices) -> Estimate:
        with self._lock:
            total = _Tally(self._all.calls, self._all.prompt, self._all.completion)
            parts = [("gleaning", self._gleaning()), ("summaries", self._summaries())]
            names = len(self._extract.units)
            counted = sorted(self._by_prompt.items())
        held = held_parts(self.assumptions, counted)
        counted = [(name, self._scaled(name, part, total)) for name, part in counted]
        for stage in self.assumptions.stages:
            follows = not stage.requires or any(name == stage.requires and part.calls for name, part in counted)
            parts.append((stage.stage, _Tally(*stage.tally(names)) if follows else _Tally()))
        after_merges = self._after_merges(counted)
        if after_merges is not None:
            parts.append((AFTER_MERGES, after_merges))
        for _, part in parts:
            total.add(part.calls, part.prompt, part.completion)
        low, high = (self._bounds(prices, total, counted, end) for end in (0, 1))
        follow = self._follow_up_parts(counted, None)
        for _, part in follow:
            total.add(part.calls, part.prompt, part.completion)
        parts.extend(follow)
        predicted = tuple(
            f"of which predicted: {name} {part.calls} calls, {part.prompt} prompt + {part.completion} completion tokens"
            for name, part in parts
        ) + tuple(
            f"of which counted: {name} {part.calls} calls, {part.prompt} prompt + {part.completion} completion tokens"
            for name, part in [*counted, *held]
        )
        cost = prices.cost(total.prompt, total.completion)
        lines = tuple(self.assumptions.lines())
        return Estimate(total.calls, total.prompt, total.completion, cost, lines, predicted, names, low, high)

    def _scaled(self, name: str, part: _Tally, total: _Tally) -> _Tally:
        """A counted prompt's calls scaled by its measured share (``total`` follows)."""
        share = counted_share(self.assumptions, name)
        new = _Tally(round(part.calls * share), round(part.prompt * share), round(part.completion * share))
        total.add(new.calls - part.calls, new.prompt - part.prompt, new.completion - part.completion)
        return new

    def _after_merges(self, counted: list[tuple[str, _Tally]]) -> _Tally | None:
        """The summaries merges redo, at the measured rate per merge confirmation call (the counted ones and
        their re-asks, as the ledger counts them); None when not measured (then predicted per name)."""
        measured = self.assumptions.merge_summaries
        if measured is None:
            return None
        confirming = [(name, part) for name, part in counted if name == MERGE_PROMPT]
        calls = sum(part.calls for _, part in [*confirming, *self._reasks(confirming, None)])
        return _Tally(*measured.tally(calls))

    def _bounds(self, prices: Prices, base: _Tally, counted: list[tuple[str, _Tally]], end: int) -> Bounds:
        """One end of the range (0 low, 1 high): ``base`` and the follow-ups at that end, the first passes'
        replies that do not loop at that end of their size's interval, and the gleaning with the loop share
        at the other end of its interval (more loops, less gleaning)."""
        total = _Tally(base.calls, base.prompt, base.completion)
        for _, part in self._follow_up_parts(counted, end):
            total.add(part.calls, part.prompt, part.completion)
        first, loops = self._extract, self.assumptions.loops
        clean = (1 - loops.share) * loops.unlooped(first.completion, first.calls)
        total.add(0, 0, round((self.assumptions.reply_size[end] - 1) * clean))
        point, at_end = self._gleaning(), self._gleaning(loops.interval()[1 - end])
        total.add(at_end.calls - point.calls, at_end.prompt - point.prompt, at_end.completion - point.completion)
        return Bounds(total.calls, total.prompt, total.completion, prices.cost(total.prompt, total.completion))

    def _follow_up_parts(self, counted: list[tuple[str, _Tally]], end: int | None) -> list[tuple[str, _Tally]]:
        """Extraction re-asks and retries, and each counted prompt's re-asks: at the measured rates
        (``end`` None) or at one end of their interval (:mod:`kgrag.models.llm.estimate_range`)."""
        first = self._extract
        rate = self._follow_up_rate() if end is None else self._follow_up_end(end)
        each = first.completion / first.calls if first.calls else 0.0  # a follow-up as large as a first pass
        if self.assumptions.follow_up_completion is not None:  # unless the follow-ups' replies were measured
            each = self.assumptions.follow_up_completion
        if end == 1:  # the high end: each follow-up runs on to max_tokens
            each = max(each, float(self._max_tokens))
        parts = []
        if first.calls and rate > 0:
            calls = round(first.calls * rate)
            parts.append(("re-asks", _Tally(calls, round(first.prompt * rate), round(calls * each))))
        return parts + self._reasks(counted, end)

    def _reasks(self, counted: list[tuple[str, _Tally]], end: int | None) -> list[tuple[str, _Tally]]:
        """Each counted prompt's re-asks, at its measured rate (``end`` None) or one end of its interval."""
        from kgrag.models.llm.estimate_range import reask_rates

        samples = dict(self.assumptions.reply_samples)
        parts = []
        for name, part in counted:
            share = self.assumptions.follow_ups_for(name)
            if end is not None:
                share = reask_rates(samples.get(name, FailureSample()), part.calls)[end]
            if share > 0:
                calls = round(part.calls * share)  # a re-ask re-sends the conversation, the bad reply and a correction
                prompt = (part.prompt + part.completion) * share + calls * REASK_CORRECTION_TOKENS
                parts.append((f"{name} re-asks", _Tally(calls, round(prompt), round(part.completion * share))))
        return parts

    def _follow_up_rate(self) -> float:
        """Extraction follow-ups per first pass: as measured, moved by these units' cut chances."""
        cuts, first = self.assumptions.cuts, self._extract
        if cuts is None or not first.calls:
            return self.assumptions.follow_up_rate
        return cuts.rate(self.assumptions.follow_up_rate, self._cut_chance / first.calls)

    def _follow_up_end(self, end: int) -> float:
        """Extraction follow-ups per first pass at one end of the range: the interval of the share the run's
        own calls will show, moved as the point is by the units' cut chances."""
        from kgrag.models.llm.estimate_range import extraction_rates

        point = self._follow_up_rate()
        new = max(1, round(self._extract.calls * (1 + point)))
        moved = point - self.assumptions.follow_up_rate  # 0 without a cut chance
        return max(0.0, extraction_rates(self.assumptions.extract_sample, new)[end] + moved)

    def _gleaning(self, loop_share: float | None = None) -> _Tally:
        """Gleaning, with ``loop_share`` of the first passes stopped in a loop (None: the measured share)."""
        first, priced, loops = self._extract, self._glean_priced, self.assumptions.loops
        gleaning = priced_gleaning(
            (first.calls, first.prompt, loops.unlooped(first.completion, first.calls)),
            (priced.calls, priced.prompt),
            self.assumptions.glean_rate,
            self.assumptions.glean_completion_share,
            per_unit=self.assumptions.glean_by_stand_in,
        )
        # the stand-in's per-unit choice knows nothing of loops: a looped unit is not gleaned
        kept = 1 - (loops.share if loop_share is None else loop_share) if self.assumptions.glean_by_stand_in else 1.0
        return _Tally(round(gleaning.calls * kept), round(gleaning.prompt * kept), round(gleaning.completion * kept))

    def _summaries(self) -> _Tally:
        limit, each = self.assumptions.summary_limit, self.assumptions.description_tokens
        tally = _Tally()
        described = self.assumptions.described
        if limit is not None and described is not None:  # measured: the model's own names and lengths
            reply = self.assumptions.reply_for(SUMMARY_PROMPT) if self._measured_prompt(SUMMARY_PROMPT) else None
            calls, prompt, completion = predicted_summaries(
                self._texts, described, limit, self.assumptions.summary_overhead_tokens, reply
            )
            tally.add(round(calls), prompt, completion)
            return tally
        if limit is None or each <= 0:
            return tally
        for units in self._extract.units.values():
            if units * each > limit:
                tally.add(1, units * each + self.assumptions.summary_overhead_tokens, limit)
        return tally

    def close(self) -> None:
        self._inner.close()
