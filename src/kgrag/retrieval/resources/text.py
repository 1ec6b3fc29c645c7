"""Token counts and sentence splits of texts, remembered across queries (budgets and excerpts count and
split the same passages and graph facts again and again)."""

from __future__ import annotations

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


def _tokenizer(ctx: QueryContext) -> TokenCounter:
    from kgrag.documents import TokenCounter

    return TokenCounter.for_encoding(ctx.config.chunking.encoding)


TOKENIZER: QueryResource[TokenCounter] = QueryResource("tokenizer", _tokenizer)
TOKEN_COUNTS: QueryResource[TextCache[int]] = QueryResource("token_counts", lambda ctx: TextCache(TOKEN_CACHE_SIZE))
PASSAGE_SENTENCES: QueryResource[TextCache[list[str]]] = QueryResource(
    "passage_sentences", lambda ctx: TextCache(SENTENCE_CACHE_CHUNKS)
)


def passage_sentences(ctx: QueryContext, text: str) -> list[str]:
    """``documents.sentences.sentence_texts`` of a passage, remembered: the budget's excerpts split the
    same passages again and again across questions."""
    from kgrag.documents.sentences import sentence_texts

    return ctx.get(PASSAGE_SENTENCES).get(text, sentence_texts)
