"""Fail before the first call when the configured context window cannot hold the biggest request.

Checking each call (as :mod:`kgrag.models.llm.calls` also does) catches the problem only when the
first oversized request comes, possibly an hour into indexing. This estimates the largest request the
configuration can produce (graph extraction of a full unit with its reply room; an answer with a full
context budget) and checks it once, when the workspace builds its LLM client.

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

# JSON-format instructions and schema the layer adds to structured prompts (measured ≈ 180 tokens).
STRUCTURED_OVERHEAD_TOKENS = 200


def _template_tokens(name: str, config: KgragConfig, counter: TokenCounter) -> int:
    prompt = load_prompt(name, config.llm.prompts_dir)
    return counter.count(prompt.system) + counter.count(prompt.user)


def preflight_context_window(config: KgragConfig) -> None:
    """Raise :class:`~kgrag.core.errors.ModelError` if the largest request would not fit ``llm.context_window``."""
    window = config.llm.context_window
    if window is None or config.llm.provider == "none":
        return
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    extraction_prompt = (
        _template_tokens("extract_graph", config, counter) + STRUCTURED_OVERHEAD_TOKENS + config.graph.unit_tokens
    )
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
