"""The answer every generation path returns, LLM-based or extractive (every answer strategy, the default
one and the global map-reduce, returns this type; retrieval never names it)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Literal

from typing_extensions import TypedDict

SupportStatus = Literal["cited", "miscited", "attributed", "unsupported"]
AnswerMode = Literal["llm", "extractive", "context"]


class SentenceDict(TypedDict):
    """A :class:`SentenceSupport` as JSON."""

    text: str
    start: int
    end: int
    status: SupportStatus
    passages: list[str]
    score: float | None


class AnswerUsage(TypedDict, total=False):
    """What the answer step spent and saw, as far as it reports it: the context it packed (an LLM answer),
    the call's tokens, money, cache and latency, and a search-and-answer strategy's calls in total
    (``global``, ``drift``)."""

    context_tokens: int
    context_items: int
    dropped_items: int
    invented_citations: list[str]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    attempts: int
    latency_ms: float
    token_source: str
    llm_calls: int
    budget: int
    dropped_batches: int
    skipped_for_budget: int


class Evidence(TypedDict):
    """A sentence an extractive answer rests on: its passage and how much of the question it covers."""

    sentence: str
    chunk_id: str
    coverage: float


class AnswerDict(TypedDict):
    """An :class:`Answer` as JSON, with its derived ``uncited`` and ``warnings``."""

    text: str
    citations: list[str]
    mode: AnswerMode
    idk: bool
    cost_line: str
    usage: AnswerUsage
    evidence: list[Evidence]
    attributed: list[str]
    sentences: list[SentenceDict]
    uncited: bool
    warnings: list[str]


@dataclass(frozen=True)
class SentenceSupport:
    """One answer sentence and what backs it: ``cited`` (the model's own ``[c:ID]`` markers),
    ``attributed`` (kgrag aligned it to the passage in ``passages``, ``score`` its support), or
    ``unsupported`` (no context passage reached the threshold; ``score`` the best one's)."""

    text: str
    start: int
    end: int
    status: SupportStatus
    passages: list[str]
    score: float | None = None

    def to_dict(self) -> SentenceDict:
        return SentenceDict(
            text=self.text,
            start=self.start,
            end=self.end,
            status=self.status,
            passages=list(self.passages),
            score=self.score,
        )


@dataclass
class Answer:
    """An answer with the chunk ids it cites; ``idk`` is True when the context did not hold the answer.

    ``citations`` holds every passage that backs the answer: the model's own citations first, then the
    ones kgrag attributed (also listed in ``attributed``). ``sentences`` says, sentence by sentence,
    which of the two backs it, or that nothing does (empty when attribution did not run).
    ``mode`` ``context`` is no answer at all: the caller asked for the retrieved context only."""

    text: str
    citations: list[str]
    mode: AnswerMode
    idk: bool = False
    cost_line: str = ""
    usage: AnswerUsage = field(default_factory=lambda: AnswerUsage())
    evidence: list[Evidence] = field(default_factory=list)
    attributed: list[str] = field(default_factory=list)
    sentences: list[SentenceSupport] = field(default_factory=list)

    @property
    def uncited(self) -> bool:
        """An answer that states something (not "I don't know") yet cites no passage: nothing backs it."""
        return bool(self.text.strip()) and not self.idk and not self.citations

    @property
    def model_citations(self) -> list[str]:
        """The citations the model wrote itself (not attributed by kgrag)."""
        attributed = set(self.attributed)
        return [cid for cid in self.citations if cid not in attributed]

    @property
    def unsupported(self) -> list[str]:
        """The answer sentences no context passage supports."""
        return [s.text for s in self.sentences if s.status == "unsupported"]

    @property
    def warnings(self) -> list[str]:
        """What a reader should know before trusting the answer, a line each."""
        out = []
        if self.uncited:
            out.append("this answer cites no passage: check it against the context before relying on it")
        if self.attributed:
            out.append("the model cited no passage for some sentences: kgrag attributed them (marked 'attributed')")
        if self.unsupported:
            n = len(self.unsupported)
            out.append(f"{n} sentence{'s' if n != 1 else ''} of this answer no passage supports (marked 'unsupported')")
        miscited = sum(s.status == "miscited" for s in self.sentences)
        if miscited:
            out.append(
                f"{miscited} sentence{'s' if miscited != 1 else ''} of this answer cite{'' if miscited != 1 else 's'} "
                "a passage that does not support it (marked 'miscited'): check it before relying on it"
            )
        return out

    def to_dict(self) -> AnswerDict:
        return AnswerDict(
            text=self.text,
            citations=list(self.citations),
            mode=self.mode,
            idk=self.idk,
            cost_line=self.cost_line,
            usage=copy.deepcopy(self.usage),
            evidence=copy.deepcopy(self.evidence),
            attributed=list(self.attributed),
            sentences=[s.to_dict() for s in self.sentences],
            uncited=self.uncited,
            warnings=self.warnings,
        )
