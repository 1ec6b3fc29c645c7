"""The answer every generation path returns, LLM-based or extractive.

It lives in ``core`` (not ``generation``) because retrieval pipelines may carry their own answer
strategy (:class:`kgrag.retrieval.answer.AnswerStrategy`), and retrieval and generation are sibling
layers: both must name this type without importing each other.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass
class Answer:
    """An answer with the chunk ids it cites; ``idk`` is True when the context did not hold the answer."""

    text: str
    citations: list[str]
    mode: Literal["llm", "extractive"]
    idk: bool = False
    cost_line: str = ""
    usage: dict[str, Any] = field(default_factory=dict)
    evidence: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
