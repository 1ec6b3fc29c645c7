"""Answer generation: LLM answers with citations, the extractive LLM-free path, the default answer
strategy and the query-to-response path."""

from kgrag.generation.answer import IDK_SENTENCE, generate_answer
from kgrag.generation.context import ContextBlock, build_context
from kgrag.generation.extractive import extractive_answer
from kgrag.generation.respond import QueryResponse, respond
from kgrag.generation.strategy import DEFAULT_STRATEGY, LLMOrExtractive
from kgrag.generation.types import Answer

__all__ = [
    "DEFAULT_STRATEGY",
    "IDK_SENTENCE",
    "Answer",
    "ContextBlock",
    "LLMOrExtractive",
    "QueryResponse",
    "build_context",
    "extractive_answer",
    "generate_answer",
    "respond",
]
