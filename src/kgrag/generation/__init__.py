"""Answer generation: LLM answers with citations, the extractive LLM-free path, answer strategies (the
default one, global map-reduce), recipes composed from a pipeline and its strategy, and the
query-to-response path."""

from kgrag.generation.answer import IDK_SENTENCE, generate_answer
from kgrag.generation.context import ContextBlock, build_context
from kgrag.generation.extractive import extractive_answer
from kgrag.generation.recipes import answer_strategy, resolve_strategy
from kgrag.generation.respond import QueryCost, QueryResponse, respond
from kgrag.generation.strategy import DEFAULT_STRATEGY, AnswerStrategy, FixedAnswer, LLMOrExtractive
from kgrag.generation.types import Answer

__all__ = [
    "DEFAULT_STRATEGY",
    "IDK_SENTENCE",
    "Answer",
    "AnswerStrategy",
    "ContextBlock",
    "FixedAnswer",
    "LLMOrExtractive",
    "QueryCost",
    "QueryResponse",
    "answer_strategy",
    "build_context",
    "extractive_answer",
    "generate_answer",
    "resolve_strategy",
    "respond",
]
