"""Output schemas of the evaluation prompts (registered by short name in ``KINDS["prompt_schema"]``).

Every schema puts ``reasoning`` first: models write fields in order, so the verdict comes after the
argument for it (judges that answer first and justify afterwards rationalise instead of reason).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class StatementVerdict(BaseModel):
    statement: str
    reasoning: str = ""
    supported: bool


class StatementVerdicts(BaseModel):
    """Faithfulness, coverage and evidence recall: one verdict per statement."""

    reasoning: str
    verdicts: list[StatementVerdict]


class AccuracyClassification(BaseModel):
    """Answer accuracy: answer statements split into true and false positives, reference statements the
    answer misses as false negatives."""

    reasoning: str
    true_positives: list[str]
    false_positives: list[str]
    false_negatives: list[str]


class ContextRelevance(BaseModel):
    """One grade per retrieved item: 0 irrelevant, 1 partly relevant, 2 fully relevant."""

    reasoning: str
    scores: list[int]


class StatementList(BaseModel):
    """Statement extraction (GraphRAG-Bench profile): the text broken into self-contained statements."""

    reasoning: str
    statements: list[str]


class ContextScore(BaseModel):
    """Whole-context relevance (GraphRAG-Bench profile): one grade from 0 (no relevant information) to 2."""

    reasoning: str
    score: float = Field(ge=0, le=2)


class ReferenceScore(BaseModel):
    """Reference-based judge: 1 (wrong) to 5 (fully correct and complete)."""

    reasoning: str
    score: int = Field(ge=1, le=5)


class DimensionScore(BaseModel):
    """Per-dimension judge: one integer 0-10 against the dimension's rubric."""

    reasoning: str
    score: int = Field(ge=0, le=10)


class TwoPassVerdict(BaseModel):
    """Pairwise judge with a winner per criterion: "1", "2" or "tie"."""

    reasoning: str
    comprehensiveness: Literal["1", "2", "tie"]
    diversity: Literal["1", "2", "tie"]
    empowerment: Literal["1", "2", "tie"]
    overall: Literal["1", "2", "tie"]


class AspectScores(BaseModel):
    """Whole points 0-5 per aspect for one answer, the scale of zeng-unbiased-eval: equal totals (ties)
    happen as often as on the paper's scale, so tie rates compare with its figures (a fractional scale
    makes ties all but vanish)."""

    comprehensiveness: int = Field(ge=0, le=5)
    relevance: int = Field(ge=0, le=5)
    empowerment: int = Field(ge=0, le=5)
    directness: int = Field(ge=0, le=5)

    def total(self) -> int:
        return self.comprehensiveness + self.relevance + self.empowerment + self.directness


class AspectComparison(BaseModel):
    """Unbiased pairwise judge: reasoning, then four 0-5 aspect scores for each of the two answers."""

    reasoning: str
    answer_1: AspectScores
    answer_2: AspectScores


class GeneratedQuestion(BaseModel):
    question: str
    answer: str
    passages: list[int] = Field(default_factory=list)
    """Numbers of the source passages that support the answer (question generation checks against them)."""


class GeneratedQuestions(BaseModel):
    """Question generation: reasoning about the source, then the question-answer pairs."""

    reasoning: str
    questions: list[GeneratedQuestion]


class Answerability(BaseModel):
    """Answerability check: can the question be answered from the source text alone, with that answer?"""

    reasoning: str
    answerable: bool
