"""Fit the LLM work to the model's context window before the first call, instead of refusing it.

The largest requests a configuration produces are graph extraction of a full unit (with its reply room)
and an answer with a full context budget. When the window is known (``llm.context_window``, or what the
server said: :mod:`kgrag.models.llm.capabilities`), :func:`fit_to_window` shrinks ``graph.unit_tokens``,
``generation.context_tokens`` and ``llm.max_output_tokens`` so both fit, and says what it changed;
:func:`preflight_context_window` then checks the fitted configuration once, so a window too small for any
useful request fails at once rather than an hour into indexing.

It lives with the extractor, not in ``models``, because the largest request is the extractor's: the
prompt and reply sizes come from the extraction arithmetic (:func:`extraction_max_tokens`), and the
models layer must not import the graph layer above it.
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.documents import TokenCounter
from kgrag.graph.extract.llm import extraction_max_tokens
from kgrag.models.llm.budget import check_context_window
from kgrag.prompts import load_prompt

# What the layer adds to a structured prompt besides its templates and worked example (counted apart): the
# output-format line, or for a prompt without an example the JSON schema (≈ 180 tokens), with message framing.
STRUCTURED_OVERHEAD_TOKENS = 300
QUESTION_TOKENS = 128  # room for the question itself in an answer request
MIN_UNIT_TOKENS = 100
MIN_CONTEXT_TOKENS = 64
SMALL_WINDOW_REPLY_SHARE = 4  # on a small window a reply gets at most a quarter of it


def _template_tokens(name: str, config: KgragConfig, counter: TokenCounter) -> int:
    prompt = load_prompt(name, config.llm.prompts_dir)
    return counter.count(prompt.system) + counter.count(prompt.user) + counter.count(prompt.example_block())


def _extraction_overhead(config: KgragConfig, counter: TokenCounter) -> int:
    return _template_tokens("extract_graph", config, counter) + STRUCTURED_OVERHEAD_TOKENS


def fit_to_window(config: KgragConfig, window: int | None) -> tuple[KgragConfig, list[str]]:
    """``config`` with unit, answer-context and reply sizes shrunk to fit ``window``, and a line per change.

    Extraction keeps half of what the prompt leaves for the unit's text and half for the reply (a complete
    extraction is about as long as its text); an answer keeps its template, the question and the reply.
    Nothing grows: a window larger than the configuration needs changes nothing but ``llm.context_window``.
    """
    if window is None or config.llm.provider == "none":
        return config, []
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    notes: list[str] = []
    llm = config.llm.model_copy(update={"context_window": window})
    reply = min(llm.max_output_tokens, max(MIN_CONTEXT_TOKENS, window // SMALL_WINDOW_REPLY_SHARE))
    if reply < llm.max_output_tokens:
        notes.append(f"llm.max_output_tokens {llm.max_output_tokens} -> {reply}")
        llm = llm.model_copy(update={"max_output_tokens": reply})
    graph = config.graph
    if graph.extractor in ("llm", "auto"):
        unit = max(MIN_UNIT_TOKENS, (window - _extraction_overhead(config, counter)) // 2)
        if unit < graph.unit_tokens:
            notes.append(f"graph.unit_tokens {graph.unit_tokens} -> {unit}")
            graph = graph.model_copy(update={"unit_tokens": unit})
    generation = config.generation
    room = window - _template_tokens("answer", config, counter) - QUESTION_TOKENS - reply
    context = max(MIN_CONTEXT_TOKENS, room)
    if context < generation.context_tokens:
        notes.append(f"generation.context_tokens {generation.context_tokens} -> {context}")
        generation = generation.model_copy(update={"context_tokens": context})
    fitted = config.model_copy(update={"llm": llm, "graph": graph, "generation": generation})
    if notes:
        notes = [f"fitted to the model's {window}-token context window: " + ", ".join(notes)]
    return fitted, notes


def preflight_context_window(config: KgragConfig) -> None:
    """Raise :class:`~kgrag.core.errors.ModelError` if the largest request would not fit ``llm.context_window``."""
    window = config.llm.context_window
    if window is None or config.llm.provider == "none":
        return
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    extraction_prompt = _extraction_overhead(config, counter) + config.graph.unit_tokens
    answer_prompt = _template_tokens("answer", config, counter) + config.generation.context_tokens
    if config.graph.extractor in ("llm", "auto"):
        # extraction_max_tokens already shrinks the reply room to fit the window; what must fit is the
        # prompt plus the configured minimum reply
        check_context_window(
            window,
            extraction_prompt,
            min(extraction_max_tokens(config.llm, config.graph.unit_tokens), config.llm.max_output_tokens),
        )
    check_context_window(window, answer_prompt, config.llm.max_output_tokens)
