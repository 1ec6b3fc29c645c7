"""Answer generation: LLM answers with citations, and the extractive LLM-free path."""

from kgrag.generation.extractive import extractive_answer
from kgrag.generation.types import Answer

__all__ = ["Answer", "extractive_answer"]
