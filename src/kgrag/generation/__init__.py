"""Answer generation: LLM answers with citations, and the extractive LLM-free path."""

from kgrag.generation.answer import IDK_SENTENCE, generate_answer
from kgrag.generation.context import ContextBlock, build_context
from kgrag.generation.extractive import extractive_answer
from kgrag.generation.types import Answer

__all__ = ["IDK_SENTENCE", "Answer", "ContextBlock", "build_context", "extractive_answer", "generate_answer"]
