"""Token counts, sentence splits and content words of texts, remembered across queries (budgets and excerpts count and
split the same passages and graph facts again and again)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgrag.retrieval.query_context import QueryContext, QueryResource
from kgrag.retrieval.resources.caches import TextCache

if TYPE_CHECKING:
    from kgrag.documents import TokenCounter

TOKEN_CACHE_SIZE = 4096
"""Texts whose token count is remembered (~2 MB): graph facts recur across questions and pipelines, and
counting them again with tiktoken is a visible share of a graph query's budget step
(docs/results/design-measurements.md)."""
SENTENCE_CACHE_CHUNKS = 2048
"""Passages whose sentence split is remembered."""
PASSAGE_WORDS_CACHE = 2048
"""Passages whose content-word set is remembered (~10 KB each for a 500-token chunk: ≤ ~20 MB whatever the
corpus size); a graph pipeline's reranker meets the same few hundred passages across questions."""


def _tokenizer(ctx: QueryContext) -> TokenCounter:
    from kgrag.documents import TokenCounter

    return TokenCounter.for_encoding(ctx.config.chunking.encoding)


TOKENIZER: QueryResource[TokenCounter] = QueryResource("tokenizer", _tokenizer)
TOKEN_COUNTS: QueryResource[TextCache[int]] = QueryResource("token_counts", lambda ctx: TextCache(TOKEN_CACHE_SIZE))
PASSAGE_SENTENCES: QueryResource[TextCache[list[str]]] = QueryResource(
    "passage_sentences", lambda ctx: TextCache(SENTENCE_CACHE_CHUNKS)
)

PASSAGE_WORDS: QueryResource[TextCache[frozenset[str]]] = QueryResource(
    "passage_words", lambda ctx: TextCache(PASSAGE_WORDS_CACHE), per_generation=True
)
"""Emptied after every committed write, like every value derived from stored passages."""


def passage_words(ctx: QueryContext, texts: Sequence[str]) -> list[frozenset[str]]:
    """``documents.words.content_words`` of each passage text, remembered: the ``fused`` reranker's word
    coverage is then a set intersection per passage instead of a text search per query word."""
    from kgrag.documents.words import content_words

    return ctx.get(PASSAGE_WORDS).get_many(texts, lambda missing: [frozenset(content_words(t)) for t in missing])


def passage_sentences(ctx: QueryContext, text: str) -> list[str]:
    """``documents.sentences.sentence_texts`` of a passage, remembered: the budget's excerpts split the
    same passages again and again across questions."""
    from kgrag.documents.sentences import sentence_texts

    return ctx.get(PASSAGE_SENTENCES).get(text, sentence_texts)
