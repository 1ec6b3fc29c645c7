"""The LLM-free answer: the retrieved sentences most similar to the question, each with its citation.

Sentences are scored by cosine similarity to the question with the workspace's embedder, plus a small
bonus for shared content words (which keeps exact names and numbers on top when the embedder is weak).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kgrag.core.context import RetrievalResult
from kgrag.documents import split_sentences
from kgrag.documents.words import content_words
from kgrag.generation.types import Answer
from kgrag.models.embeddings import Embedder

LEXICAL_WEIGHT = 0.3
MIN_SENTENCE_CHARS = 20
NO_CONTEXT = "I don't know: nothing relevant was retrieved for this question."


@dataclass(frozen=True)
class _Candidate:
    text: str
    chunk_id: str
    position: int


def _candidates(result: RetrievalResult) -> list[_Candidate]:
    """Sentences of the retrieved passages. Entity/relation/report texts are derived from passages
    (and prefixed with names), so they are used only when no passage was retrieved; otherwise the
    same sentence would come back once per item that quotes it."""
    passages = [item for item in result.items if item.kind == "chunk"]
    out: list[_Candidate] = []
    seen: set[str] = set()
    for item in passages or result.items:
        if not item.text:
            continue
        cite = item.chunk_ids[0] if item.chunk_ids else item.id
        for start, end in split_sentences(item.text):
            sentence = " ".join(item.text[start:end].split())
            if len(sentence) >= MIN_SENTENCE_CHARS and sentence not in seen:
                seen.add(sentence)
                out.append(_Candidate(sentence, cite, len(out)))
    return out


def extractive_answer(question: str, result: RetrievalResult, embedder: Embedder, n_sentences: int) -> Answer:
    """Pick the ``n_sentences`` best sentences of the retrieved context and cite their chunks."""
    candidates = _candidates(result)
    if not candidates:
        return Answer(text=NO_CONTEXT, citations=[], mode="extractive", idk=True)
    vectors = embedder.embed([question] + [c.text for c in candidates])
    similarity = vectors[1:] @ vectors[0]
    question_words = content_words(question)
    lexical = np.array([len(question_words & content_words(c.text)) / max(1, len(question_words)) for c in candidates])
    scores = similarity + LEXICAL_WEIGHT * lexical
    best = sorted(np.argsort(-scores)[:n_sentences].tolist(), key=lambda i: -scores[i])
    chosen = [candidates[i] for i in best]
    text = " ".join(f"{c.text} [{c.chunk_id}]" for c in chosen)
    evidence = [
        {"sentence": c.text, "chunk_id": c.chunk_id, "score": round(float(scores[i]), 4)}
        for c, i in zip(chosen, best, strict=True)
    ]
    return Answer(
        text=text, citations=list(dict.fromkeys(c.chunk_id for c in chosen)), mode="extractive", evidence=evidence
    )
