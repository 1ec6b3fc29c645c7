"""A stored conversation: its turns, each with the question as asked and as searched for, and the answer."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class ConversationTurn:
    """One exchange: the question as asked, its standalone rewrite, the answer, what it cited, which
    pipeline answered and when."""

    question: str
    standalone: str
    answer: str
    citations: list[str] = field(default_factory=list)
    pipeline: str = ""
    created_at: float = 0.0

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConversationTurn:
        return cls(
            question=str(data.get("question", "")),
            standalone=str(data.get("standalone", "")),
            answer=str(data.get("answer", "")),
            citations=[str(c) for c in data.get("citations", [])],
            pipeline=str(data.get("pipeline", "")),
            created_at=float(data.get("created_at", 0.0)),
        )


@dataclass(frozen=True)
class ConversationRecord:
    """A conversation of one workspace; ``title`` is its first question, shortened."""

    id: str
    created_at: float
    updated_at: float
    title: str
    turns: tuple[ConversationTurn, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "title": self.title,
            "turns": [asdict(t) for t in self.turns],
        }
