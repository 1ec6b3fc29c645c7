"""The question-generation loop: sample a source per question, ask the generator (reasoning first),
drop duplicates, check answerability, attach evidence; every rejection is counted by reason."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kgrag.core.errors import KgragError
from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import Answerability, GeneratedQuestions
from kgrag.evaluation.qgen.checks import evidence_for, is_duplicate, lexically_answerable
from kgrag.evaluation.qgen.sources import Source, SourceSampler
from kgrag.models.llm import LLMClient

GRAPH_LEVELS = ("node", "edge", "subgraph")
DOC_KINDS = ("answer-given", "single-fact", "multi-fact")
PROMPTS = {
    "node": "qgen_node",
    "edge": "qgen_edge",
    "subgraph": "qgen_subgraph",
    "answer-given": "qgen_answer_given",
    "single-fact": "qgen_single_fact",
    "multi-fact": "qgen_multi_fact",
}


@dataclass
class QGenResult:
    """Kept questions (as dataset items) and what happened to the rest."""

    items: list[QAItem] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)
    generated: int = 0
    notes: list[str] = field(default_factory=list)


def _sampler_call(sampler: SourceSampler, kind: str) -> Callable[[], Source | None]:
    return {
        "node": sampler.node,
        "edge": sampler.edge,
        "subgraph": sampler.subgraph,
        "answer-given": sampler.answer_given,
        "single-fact": sampler.single_fact,
        "multi-fact": sampler.multi_fact,
    }[kind]


def _answerable(
    client: LLMClient, source: Source, question: str, answer: str, check: bool, seed: int
) -> tuple[bool, str]:
    if not check:
        return lexically_answerable(answer, source.passages), "lexical check failed"
    reply = ask(
        client,
        "qgen_answerable",
        {"source": source.text, "question": question, "answer": answer},
        Answerability,
        stage="eval.qgen.check",
        temperature=0.0,
        seed=seed,
    )
    if reply.value is None:
        return False, "answerability check failed"
    return reply.value.answerable, "judged unanswerable"


def _one(client: LLMClient, kind: str, source: Source, seed: int) -> list[tuple[str, str]] | str:
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
    return [(q.question.strip(), q.answer.strip()) for q in reply.value.questions if q.question.strip()]


def generate_questions(
    sampler: SourceSampler,
    client: LLMClient,
    kinds: Sequence[str],
    per_kind: int,
    dedup_threshold: float,
    llm_check: bool = True,
    on_question: Callable[[], None] | None = None,
) -> QGenResult:
    """``per_kind`` attempts per kind (each one sampled source → questions); see the module docstring."""
    unknown = [k for k in kinds if k not in PROMPTS]
    if unknown:
        raise KgragError(f"unknown question kind(s) {', '.join(unknown)}; choose from {', '.join(PROMPTS)}")
    result, kept_words = QGenResult(), list[set[str]]()
    for kind in kinds:
        for attempt in range(per_kind):
            if on_question is not None:
                on_question()
            source = _sampler_call(sampler, kind)()
            if source is None:
                result.rejected["no source (graph too small or empty)"] += 1
                continue
            produced = _one(client, kind, source, attempt)
            if isinstance(produced, str):
                result.rejected["generation failed"] += 1
                result.notes.append(produced)
                continue
            for question, answer in produced:
                result.generated += 1
                if is_duplicate(question, kept_words, dedup_threshold):
                    result.rejected["duplicate"] += 1
                    continue
                ok, why = _answerable(client, source, question, answer, llm_check, attempt)
                if not ok:
                    result.rejected[why] += 1
                    continue
                kept_words.append(content_words(question))
                qid = "gen-" + hashlib.sha1(f"{kind}|{question}".encode()).hexdigest()[:10]
                result.items.append(QAItem(qid, question, answer, kind, evidence_for(answer, source.passages)))
    return result
