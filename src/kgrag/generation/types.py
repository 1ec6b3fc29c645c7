"""The answer every generation path returns, LLM-based or extractive (every answer strategy, the default
one and the global map-reduce, returns this type; retrieval never names it)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass
class Answer:
    """An answer with the chunk ids it cites; ``idk`` is True when the context did not hold the answer.
    ``mode`` ``context`` is no answer at all: the caller asked for the retrieved context only."""

    text: str
    citations: list[str]
    mode: Literal["llm", "extractive", "context"]
    idk: bool = False
    cost_line: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)

    @property
    def uncited(self) -> bool:
        """An answer that states something (not "I don't know") yet cites no passage: nothing backs it."""
        return bool(self.text.strip()) and not self.idk and not self.citations

    @property
    def warnings(self) -> list[str]:
        """What a reader should know before trusting the answer, a line each."""
        if self.uncited:
            return ["this answer cites no passage: check it against the context before relying on it"]
        return []

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "uncited": self.uncited, "warnings": self.warnings}
