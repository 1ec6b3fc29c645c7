"""Shortening merged descriptions that grew past ``graph.max_description_tokens``.

An entity mentioned in hundreds of chunks accumulates hundreds of descriptions; the merged text must
stay small enough to embed, to show, and to fit an answer prompt. Two summarisers share one protocol:

* :class:`ExtractiveSummarizer` (no LLM): keeps the most *central* sentences — those sharing the most
  words with the other sentences, i.e. what many mentions agree on — up to the token limit, in their
  original order. Deterministic, so re-running on the same mentions gives the same text.
* :class:`CallableSummarizer`: the hook for an LLM. It wraps any ``(name, descriptions) -> str``
  callable and falls back to the extractive summary if the call fails or returns nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from kgrag.config import KgragConfig
from kgrag.core.errors import BudgetExceededError
from kgrag.documents import TokenCounter, split_sentences
from kgrag.documents.words import content_words
from kgrag.models.llm.client import LLMClient

_NAME_BONUS = 0.5


class Summarizer(Protocol):
    """Shortens the descriptions of one entity or relation to at most ``max_tokens`` tokens.

    ``failures`` counts summaries that fell back to a lesser method; the graph builder flags those
    entities for a retry on the next run (a deterministic summariser never fails and keeps it at 0).
    """

    max_tokens: int
    failures: int

    def summarize(self, name: str, descriptions: Sequence[str]) -> str: ...


def _sentences(descriptions: Sequence[str]) -> list[str]:
    """Distinct sentences of all descriptions, in order of first appearance."""
    seen: dict[str, None] = {}
    for text in descriptions:
        for start, end in split_sentences(text):
            sentence = re.sub(r"\s+", " ", text[start:end]).strip()
            if sentence:
                seen.setdefault(sentence, None)
    return list(seen)


def centrality(sentences: Sequence[str], name: str = "") -> list[float]:
    """Per sentence: average number of *other* sentences sharing each of its content words, plus a bonus
    for naming the subject. Linear in the text size (word document frequencies, not sentence pairs)."""
    words = [content_words(s) for s in sentences]
    frequency: Counter[str] = Counter(w for ws in words for w in ws)
    subject = content_words(name)
    scores = []
    for ws in words:
        if not ws:
            scores.append(0.0)
            continue
        shared = sum(frequency[w] - 1 for w in ws) / len(ws)
        scores.append(shared + (_NAME_BONUS if subject and subject & ws else 0.0))
    return scores


class ExtractiveSummarizer:
    """LLM-free summary: the most central sentences that fit ``max_tokens``, in original order."""

    def __init__(self, max_tokens: int = 300, counter: TokenCounter | None = None) -> None:
        self.max_tokens = max_tokens
        self._counter = counter
        self.failures = 0

    @property
    def counter(self) -> TokenCounter:
        if self._counter is None:
            self._counter = TokenCounter.for_encoding()
        return self._counter

    def summarize(self, name: str, descriptions: Sequence[str]) -> str:
        sentences = _sentences(descriptions)
        if not sentences:
            return ""
        scores = centrality(sentences, name)
        ranked = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
        chosen: list[int] = []
        used = 0
        for index in ranked:
            cost = self.counter.count(sentences[index]) + 1
            if used + cost <= self.max_tokens:
                chosen.append(index)
                used += cost
        if not chosen:  # even the best sentence is too long: cut it at the token limit
            return self._truncate(sentences[ranked[0]])
        return " ".join(sentences[i] for i in sorted(chosen))

    def _truncate(self, text: str) -> str:
        tokens = self.counter.encode(text)
        return self.counter.decode(tokens[: max(1, self.max_tokens - 1)]).rstrip() + "…"


class CallableSummarizer:
    """Summaries from any callable (typically an LLM prompt); extractive fallback on failure.

    The callable owns its prompt, cache and usage accounting; this class only guarantees that a
    summary is always produced, within the limit, even when the model errs.
    """

    def __init__(
        self,
        summarize_fn: Callable[[str, Sequence[str]], str],
        max_tokens: int = 300,
        counter: TokenCounter | None = None,
    ) -> None:
        self._fn = summarize_fn
        self.max_tokens = max_tokens
        self._fallback = ExtractiveSummarizer(max_tokens, counter)
        self.failures = 0

    def summarize(self, name: str, descriptions: Sequence[str]) -> str:
        try:
            text = (self._fn(name, descriptions) or "").strip()
        except BudgetExceededError:
            raise  # the run must stop cleanly, not quietly degrade
        except Exception:  # a summary is an optimisation: any model failure falls back, never aborts
            self.failures += 1
            text = ""  # counted: the builder retries it next run (a reply that does not fit is not)
        if not text:
            return self._fallback.summarize(name, descriptions)
        if self._fallback.counter.count(text) > self.max_tokens * 2:  # the model ignored the limit
            return self._fallback.summarize(name, [text])
        return text


def extractive_summarizer(config: KgragConfig, client: LLMClient | None = None) -> ExtractiveSummarizer:
    """``KINDS["summarizer"]["extractive"]``: the LLM-free summariser at ``graph.max_description_tokens``."""
    return ExtractiveSummarizer(
        config.graph.max_description_tokens, TokenCounter.for_encoding(config.chunking.encoding)
    )
