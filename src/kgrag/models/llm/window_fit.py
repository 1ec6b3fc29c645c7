"""Fit an answer request to the model's context window before the first call, instead of refusing it.

Every LLM client answers questions, so the client's set-up fits what an answer needs: the reply room
(``llm.max_output_tokens``, at most a quarter of a small window) and the context an answer may carry
(``generation.context_tokens``, what the window leaves after the answer template, the question and the
reply). Graph extraction has larger requests of its own; they are fitted where extraction runs
(:mod:`kgrag.graph.extract.preflight`), so a query never loads the extraction code.
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.documents import TokenCounter
from kgrag.models.llm.budget import check_context_window
from kgrag.prompts import load_prompt

QUESTION_TOKENS = 128  # room for the question itself in an answer request
MIN_CONTEXT_TOKENS = 64
SMALL_WINDOW_REPLY_SHARE = 4  # on a small window a reply gets at most a quarter of it


def template_tokens(name: str, config: KgragConfig, counter: TokenCounter) -> int:
    """Tokens of prompt ``name``'s system and user templates and its worked example."""
    prompt = load_prompt(name, config.llm.prompts_dir)
    return counter.count(prompt.system) + counter.count(prompt.user) + counter.count(prompt.example_block())


def fitted_line(window: int, changes: list[str]) -> list[str]:
    """The note a fit prints: one line naming the window and every size it changed (none: no line)."""
    return [f"fitted to the model's {window}-token context window: " + ", ".join(changes)] if changes else []


def fit_answer_to_window(config: KgragConfig, window: int | None) -> tuple[KgragConfig, list[str]]:
    """``config`` with ``llm.context_window`` set and the reply and answer-context sizes shrunk to fit
    ``window``, and the changes (``"field old -> new"``). Nothing grows."""
    if window is None or config.llm.provider == "none":
        return config, []
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    changes: list[str] = []
    llm = config.llm.model_copy(update={"context_window": window})
    reply = min(llm.max_output_tokens, max(MIN_CONTEXT_TOKENS, window // SMALL_WINDOW_REPLY_SHARE))
    if reply < llm.max_output_tokens:
        changes.append(f"llm.max_output_tokens {llm.max_output_tokens} -> {reply}")
        llm = llm.model_copy(update={"max_output_tokens": reply})
    generation = config.generation
    room = window - template_tokens("answer", config, counter) - QUESTION_TOKENS - reply
    context = max(MIN_CONTEXT_TOKENS, room)
    if context < generation.context_tokens:
        changes.append(f"generation.context_tokens {generation.context_tokens} -> {context}")
        generation = generation.model_copy(update={"context_tokens": context})
    return config.model_copy(update={"llm": llm, "generation": generation}), changes


def check_answer_window(config: KgragConfig) -> None:
    """Raise :class:`~kgrag.core.errors.ModelError` if an answer with a full context would not fit
    ``llm.context_window``."""
    window = config.llm.context_window
    if window is None or config.llm.provider == "none":
        return
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    answer_prompt = template_tokens("answer", config, counter) + config.generation.context_tokens
    check_context_window(window, answer_prompt, config.llm.max_output_tokens)
