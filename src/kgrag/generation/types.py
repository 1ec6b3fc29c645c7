"""The answer every generation path returns, LLM-based or extractive (every answer strategy, the default
one and the global map-reduce, returns this type; retrieval never names it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

SupportStatus = Literal["cited", "attributed", "unsupported"]


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Answer:
    """An answer with the chunk ids it cites; ``idk`` is True when the context did not hold the answer.

    ``citations`` holds every passage that backs the answer: the model's own citations first, then the
    ones kgrag attributed (also listed in ``attributed``). ``sentences`` says, sentence by sentence,
    which of the two backs it, or that nothing does (empty when attribution did not run).
    ``mode`` ``context`` is no answer at all: the caller asked for the retrieved context only."""

    text: str
    citations: list[str]
    mode: Literal["llm", "extractive", "context"]
    idk: bool = False
    cost_line: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)
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
        return out

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "uncited": self.uncited, "warnings": self.warnings}
