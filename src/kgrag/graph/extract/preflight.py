"""Fit graph extraction to the model's context window before the first call, instead of refusing it.

The largest request a configuration produces is graph extraction of a full unit (with its reply room).
When the window is known (``llm.context_window``, set by the client's own fit,
:mod:`kgrag.models.llm.window_fit`), :func:`fit_extraction_to_window` shrinks ``graph.extractors.llm.unit_tokens`` so
it fits, and :func:`check_extraction_window` checks the fitted configuration once, so a window too small
for any useful request fails at once rather than an hour into indexing. The workspace runs them only
where extraction runs (an indexing run), never for a query.

It lives with the extractor, not in ``models``, because the prompt and reply sizes come from the
extraction arithmetic (:func:`extraction_max_tokens`), and the models layer must not import the graph
layer above it. :func:`fit_to_window` and :func:`preflight_context_window` are both fits and both checks
in one call.
"""

from __future__ import annotations

from kgrag.config import KgragConfig
from kgrag.documents import TokenCounter
from kgrag.graph.extract.llm import EXTRACT_PROMPT, extraction_max_tokens
from kgrag.graph.extract.settings import llm_settings, with_llm_settings
from kgrag.models.llm.budget import check_context_window
from kgrag.models.llm.request_fit import size_settings
from kgrag.models.llm.window_fit import check_answer_window, fit_answer_to_window, fitted_line, template_tokens

# What the layer adds to a structured prompt besides its templates and worked example (counted apart): the
# output-format line, or for a prompt without an example the JSON schema (≈ 180 tokens), with message framing.
STRUCTURED_OVERHEAD_TOKENS = 300
MIN_UNIT_TOKENS = 100


def _extracts_with_llm(config: KgragConfig) -> bool:
    return config.llm.provider != "none" and config.graph.extractor in ("llm", "auto")


def _extraction_overhead(config: KgragConfig, counter: TokenCounter) -> int:
    return template_tokens("extract_graph", config, counter) + STRUCTURED_OVERHEAD_TOKENS


def fit_extraction_to_window(config: KgragConfig) -> tuple[KgragConfig, list[str]]:
    """``config`` with ``graph.extractors.llm.unit_tokens`` shrunk to fit ``llm.context_window``, and the changes.

    Extraction keeps half of what the prompt leaves for the unit's text and half for the reply (a complete
    extraction is about as long as its text). Nothing grows."""
    window = config.llm.context_window
    if window is None or not _extracts_with_llm(config):
        return config, []
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    configured = llm_settings(config).unit_tokens
    unit = max(MIN_UNIT_TOKENS, (window - _extraction_overhead(config, counter)) // 2)
    if unit >= configured:
        return config, []
    changes = [f"graph.extractors.llm.unit_tokens {configured} -> {unit}"]
    return with_llm_settings(config, unit_tokens=unit), changes


def check_extraction_window(config: KgragConfig) -> None:
    """Raise :class:`~kgrag.core.errors.ModelError` if an extraction request would not fit
    ``llm.context_window``."""
    window = config.llm.context_window
    if window is None or not _extracts_with_llm(config):
        return
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    unit_tokens = llm_settings(config).unit_tokens
    extraction_prompt = _extraction_overhead(config, counter) + unit_tokens
    # extraction_max_tokens already shrinks the reply room to fit the window; what must fit is the
    # prompt plus the configured minimum reply
    check_context_window(
        window,
        extraction_prompt,
        min(extraction_max_tokens(config.llm, unit_tokens), config.llm.max_output_tokens),
        size_settings(EXTRACT_PROMPT),
    )


def fit_to_window(config: KgragConfig, window: int | None) -> tuple[KgragConfig, list[str]]:
    """Both fits, answer then extraction, with one note line naming every change."""
    fitted, changes = fit_answer_to_window(config, window)
    if window is None or config.llm.provider == "none":
        return fitted, []
    fitted, more = fit_extraction_to_window(fitted)
    return fitted, fitted_line(window, changes + more)


def preflight_context_window(config: KgragConfig) -> None:
    """Both checks: the largest extraction request and the largest answer request must fit."""
    check_extraction_window(config)
    check_answer_window(config)


def fit_for_extraction(config: KgragConfig) -> tuple[KgragConfig, list[str]]:
    """``config`` (already fitted for answers by the client's setup) with graph extraction's sizes fitted
    to ``llm.context_window`` and checked, and a note line when a size changed; the workspace calls it only
    where graph extraction may run, so a query never loads the extraction code."""
    fitted, changes = fit_extraction_to_window(config)
    check_extraction_window(fitted)
    window = fitted.llm.context_window
    return fitted, fitted_line(window, changes) if window is not None else []
