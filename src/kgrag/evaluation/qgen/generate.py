"""The question-generation loop: sample a source per question, ask the generator (reasoning first),
drop duplicates, check each question against the passages it cites, attach evidence; every rejection
is counted by reason.

The checks read passages only, never the graph's entity and relation descriptions (a model's summary
that may hold facts the text does not): the answer's words must occur in the cited passages, and with
``llm_check`` a judge (a separate model when one is given) must find the question answerable from those
passages alone. ``multi-fact`` and ``subgraph`` questions must cite two or more passages, spread their
words over them (:func:`kgrag.evaluation.qgen.checks.needs_several`), and, with ``llm_check``, not be
answerable from any one cited passage alone.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from kgrag.core.errors import KgragError
from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import LLM_KINDS, QAItem
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import Answerability, GeneratedQuestion, GeneratedQuestions
from kgrag.evaluation.qgen.checks import (
    evidence_for,
    evidence_per_passage,
    is_duplicate,
    lexically_answerable,
    needs_several,
)
from kgrag.evaluation.qgen.sources import Source, SourceSampler
from kgrag.models.llm import LLMClient

GRAPH_LEVELS = ("node", "edge", "subgraph")
MULTI_KINDS = ("multi-fact", "subgraph")
DOC_KINDS = ("answer-given", "single-fact", "multi-fact")
PROMPTS = {kind: "qgen_" + kind.replace("-", "_") for kind in LLM_KINDS}
"""Question kind → the name of the prompt that writes it (``qgen_`` and the kind, hyphens as underscores)."""


PerKind = int | Mapping[str, int]
"""How many per kind: one count for every kind, or a count per kind name (each kind asked must be in it)."""


def count_for(per_kind: PerKind, kind: str) -> int:
    """The count ``per_kind`` gives ``kind``."""
    return per_kind if isinstance(per_kind, int) else per_kind[kind]


class ItemMeta(TypedDict):
    """What a generated question is written with besides the dataset fields: the chunks it came from
    and, for an LLM-free question, the answer's label, the template that worded it, its quality
    (:mod:`kgrag.evaluation.qgen.quality`), the headings it names (:mod:`kgrag.evaluation.qgen.scope`)
    and, for a known-item question, its chance of being usable as it is
    (:mod:`kgrag.evaluation.qgen.usability`)."""

    chunk_ids: list[str]
    answer_label: NotRequired[str]
    template: NotRequired[str]
    quality: NotRequired[float]
    headings: NotRequired[list[str]]
    usability: NotRequired[float]


@dataclass
class QGenResult:
    """Kept questions (as dataset items) and what happened to the rest."""

    items: list[QAItem] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)
    generated: int = 0
    notes: list[str] = field(default_factory=list)
    meta: dict[str, ItemMeta] = field(default_factory=dict)
    offered: Counter[str] = field(default_factory=Counter)
    """Pieces (entities, passages, relations, descriptions) the sources offered, and those the token
    budget left out, summed over every source."""
    left_out: Counter[str] = field(default_factory=Counter)
    """Per kept question id: extra fields written with it (the chunks it came from, how it was made)."""


def _sampler_call(sampler: SourceSampler, kind: str) -> Callable[[], Source | None]:
    return {
        "node": sampler.node,
        "edge": sampler.edge,
        "subgraph": sampler.subgraph,
        "answer-given": sampler.answer_given,
        "single-fact": sampler.single_fact,
        "multi-fact": sampler.multi_fact,
    }[kind]


def _cited(source: Source, numbers: Sequence[int]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The chunk ids and texts of the passages a question cites (1-based numbers; invalid ones ignored)."""
    valid = [n for n in dict.fromkeys(numbers) if 1 <= n <= len(source.passages)]
    return tuple(source.chunk_ids[n - 1] for n in valid), tuple(source.passages[n - 1] for n in valid)


def _judged(judge: LLMClient, passages: Sequence[str], question: str, answer: str, seed: int) -> bool | None:
    """The judge's verdict on the question from ``passages`` alone; None when it gave none."""
    text = "\n\n".join(f"[Passage {i}] {p}" for i, p in enumerate(passages, start=1))
    reply = ask(
        judge,
        "qgen_answerable",
        {"source": text, "question": question, "answer": answer},
        Answerability,
        stage="eval.qgen.check",
        temperature=0.0,
        seed=seed,
    )
    return None if reply.value is None else reply.value.answerable


def check(kind: str, question: str, answer: str, passages: Sequence[str], judge: LLMClient | None, seed: int) -> str:
    """Why a question fails against its cited ``passages`` (see the module docstring), or ``""``."""
    multi = kind in MULTI_KINDS
    if not passages:
        return "multi-fact: cites fewer than two passages" if multi else "cites no passage"
    if multi and len(passages) < 2:
        return "multi-fact: cites fewer than two passages"
    if not lexically_answerable(answer, passages):
        return "answer not in the cited passages"
    if multi and not needs_several(question, answer, passages):
        return "multi-fact: one passage holds it all"
    if judge is None:
        return ""
    verdict = _judged(judge, passages, question, answer, seed)
    if verdict is None:
        return "answerability check failed"
    if not verdict:
        return "judged unanswerable from the cited passages"
    if multi and any(_judged(judge, [p], question, answer, seed) for p in passages):
        return "multi-fact: judged answerable from one passage"
    return ""


def _one(client: LLMClient, kind: str, source: Source, seed: int) -> list[GeneratedQuestion] | str:
    reply = ask(
        client,
        PROMPTS[kind],
        {"source": source.text, "count": 1, "answer_hint": source.hint},
        GeneratedQuestions,
        stage=f"eval.qgen.{kind}",
        temperature=0.7,
        seed=seed,
    )
    if reply.value is None:
        return reply.note
    return [q for q in reply.value.questions if q.question.strip()]


def _numbers(kind: str, q: GeneratedQuestion, source: Source) -> list[int]:
    """The passages a question cites; a single-source question citing none is held to all it was shown."""
    if q.passages or kind in MULTI_KINDS:
        return list(q.passages)
    return list(range(1, 1 + len(source.passages)))


def _keep(result: QGenResult, kind: str, q: GeneratedQuestion, source: Source) -> None:
    question, answer = q.question.strip(), q.answer.strip()
    chunk_ids, passages = _cited(source, _numbers(kind, q, source))
    evidence = (
        evidence_per_passage(question, answer, passages) if kind in MULTI_KINDS else evidence_for(answer, passages)
    )
    qid = "gen-" + hashlib.sha1(f"{kind}|{question}".encode()).hexdigest()[:10]
    result.items.append(QAItem(qid, question, answer, kind, evidence))
    result.meta[qid] = {"chunk_ids": list(chunk_ids)}


def generate_questions(
    sampler: SourceSampler,
    client: LLMClient,
    kinds: Sequence[str],
    per_kind: PerKind,
    dedup_threshold: float,
    llm_check: bool = True,
    on_question: Callable[[], None] | None = None,
    judge: LLMClient | None = None,
) -> QGenResult:
    """``per_kind`` attempts per kind (each one sampled source → questions); see the module docstring.
    ``judge`` checks answerability (default: ``client`` itself) when ``llm_check``."""
    unknown = [k for k in kinds if k not in PROMPTS]
    if unknown:
        raise KgragError(f"unknown question kind(s) {', '.join(unknown)}; choose from {', '.join(PROMPTS)}")
    checker = (judge or client) if llm_check else None
    result, kept_words = QGenResult(), list[set[str]]()
    for kind in kinds:
        for attempt in range(count_for(per_kind, kind)):
            if on_question is not None:
                on_question()
            source = _sampler_call(sampler, kind)()
            if source is None:
                result.rejected["no source (graph too small or empty, or no passage fits the budget)"] += 1
                continue
            result.offered.update(source.offered)
            result.left_out.update(source.left_out)
            produced = _one(client, kind, source, attempt)
            if isinstance(produced, str):
                result.rejected["generation failed"] += 1
                result.notes.append(produced)
                continue
            for q in produced:
                result.generated += 1
                if is_duplicate(q.question, kept_words, dedup_threshold):
                    result.rejected["duplicate"] += 1
                    continue
                cited = _cited(source, _numbers(kind, q, source))[1]
                why = check(kind, q.question, q.answer.strip(), cited, checker, attempt)
                if why:
                    result.rejected[why] += 1
                    continue
                kept_words.append(content_words(q.question))
                _keep(result, kind, q, source)
    return result
