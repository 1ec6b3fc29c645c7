"""The LLM-free answer: the retrieved sentences most similar to the question, each with its citation.

Two rankings (``generation.extractive_ranking``). ``embedding``: cosine similarity to the question with
the workspace's embedder, plus a small bonus for shared content words (which keeps exact names and
numbers on top when the embedder is weak). ``lexical``: BM25 of each sentence against the question (IDF
over the candidate sentences) plus the same bonus; it needs no model, so a BM25 query never loads one.
``auto`` (the default) ranks lexically for pipelines that search no vectors: a lexical pipeline stays
model-free and a dense one keeps the ranking of the model it loads anyway. On ~200 Medical
questions the two rankings score within noise of each other (``bench/bench_extractive_ranking.py``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kgrag.core.context import RetrievalResult
from kgrag.documents import split_sentences
from kgrag.documents.words import content_words
from kgrag.generation.types import Answer
from kgrag.models.embeddings import Embedder

LEXICAL_WEIGHT = 0.3
MIN_SENTENCE_CHARS = 20
BM25_K1, BM25_B = 1.2, 0.75  # the usual BM25 constants, the ones SQLite FTS5 ranks passages with
Ranking = Literal["embedding", "lexical"]
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


def _bm25(question_words: set[str], sentences: list[set[str]]) -> np.ndarray:
    """BM25 of each sentence (a bag of content words) against the question, scaled to a maximum of 1 so
    it sits on the same scale as a cosine; all zeros when no sentence shares a word with the question."""
    n = len(sentences)
    frequency = Counter(word for words in sentences for word in words & question_words)
    average = sum(len(words) for words in sentences) / n or 1.0
    scores = np.zeros(n)
    for row, words in enumerate(sentences):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(words) / average)
        for word in words & question_words:
            idf = math.log(1 + (n - frequency[word] + 0.5) / (frequency[word] + 0.5))
            scores[row] += idf * (BM25_K1 + 1) / (1 + norm)
    top = scores.max()
    return scores / top if top > 0 else scores


def sentence_scores(question: str, texts: list[str], embedder: Embedder | None, ranking: Ranking) -> np.ndarray:
    """The score of each candidate sentence: similarity (embedding or BM25) plus the shared-word bonus."""
    question_words = content_words(question)
    words = [content_words(text) for text in texts]
    lexical = np.array([len(question_words & w) / max(1, len(question_words)) for w in words])
    if ranking == "lexical" or embedder is None:
        return _bm25(question_words, words) + LEXICAL_WEIGHT * lexical
    vectors = embedder.embed([question, *texts])
    return np.asarray(vectors[1:] @ vectors[0]) + LEXICAL_WEIGHT * lexical


def extractive_answer(
    question: str,
    result: RetrievalResult,
    embedder: Embedder | None,
    n_sentences: int,
    ranking: Ranking = "embedding",
) -> Answer:
    """Pick the ``n_sentences`` best sentences of the retrieved context and cite their chunks (ties go
    to the sentence of the better-ranked passage)."""
    candidates = _candidates(result)
    if not candidates:
        return Answer(text=NO_CONTEXT, citations=[], mode="extractive", idk=True)
    scores = sentence_scores(question, [c.text for c in candidates], embedder, ranking)
    best = sorted(np.argsort(-scores, kind="stable")[:n_sentences].tolist(), key=lambda i: -scores[i])
    chosen = [candidates[i] for i in best]
    text = " ".join(f"{c.text} [{c.chunk_id}]" for c in chosen)
    evidence = [
        {"sentence": c.text, "chunk_id": c.chunk_id, "score": round(float(scores[i]), 4)}
        for c, i in zip(chosen, best, strict=True)
    ]
    return Answer(
        text=text, citations=list(dict.fromkeys(c.chunk_id for c in chosen)), mode="extractive", evidence=evidence
    )
