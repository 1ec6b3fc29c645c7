"""A stored conversation: its turns, each with the question as asked and as searched for, and the answer."""

from __future__ import annotations

from dataclasses import dataclass, field

from typing_extensions import TypedDict


class TurnDict(TypedDict, total=False):
    """A :class:`ConversationTurn` as stored (a row written by an older kgrag may lack fields)."""

    question: str
    standalone: str
    answer: str
    citations: list[str]
    pipeline: str
    created_at: float


class ConversationDict(TypedDict):
    """A :class:`ConversationRecord` as JSON."""

    id: str
    created_at: float
    updated_at: float
    title: str
    turns: list[TurnDict]


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
    def from_dict(cls, data: TurnDict) -> ConversationTurn:
        return cls(
            question=str(data.get("question", "")),
            standalone=str(data.get("standalone", "")),
            answer=str(data.get("answer", "")),
            citations=[str(c) for c in data.get("citations", [])],
            pipeline=str(data.get("pipeline", "")),
            created_at=float(data.get("created_at", 0.0)),
        )

    def to_dict(self) -> TurnDict:
        return TurnDict(
            question=self.question,
            standalone=self.standalone,
            answer=self.answer,
            citations=list(self.citations),
            pipeline=self.pipeline,
            created_at=self.created_at,
        )


@dataclass(frozen=True)
class ConversationRecord:
    """A conversation of one workspace; ``title`` is its first question, shortened."""

    id: str
    created_at: float
    updated_at: float
    title: str
    turns: tuple[ConversationTurn, ...] = ()

    def to_dict(self) -> ConversationDict:
        return ConversationDict(
            id=self.id,
            created_at=self.created_at,
            updated_at=self.updated_at,
            title=self.title,
            turns=[t.to_dict() for t in self.turns],
        )
