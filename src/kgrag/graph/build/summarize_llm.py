"""LLM summaries of merged descriptions, for :class:`kgrag.graph.build.summarize.CallableSummarizer`.

Plug in as ``CallableSummarizer(lambda name, ds: llm_summarize(client, name, ds, max_tokens), max_tokens)``.
The words limit in the prompt is derived from ``max_tokens`` (about 0.75 words per token in English) and
the request's ``max_tokens`` leaves headroom, so a model that overshoots a little is not cut mid-sentence;
a reply still over the limit is trimmed to its last whole sentence that fits. A reply cut off by the
model (``finish_reason == "length"``) is never used: it is asked once more, then :class:`SummaryCutError`
is raised. Failures raise: the ``CallableSummarizer`` wrapper owns the extractive fallback.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgrag.config import KgragConfig
from kgrag.core.errors import ConfigError
from kgrag.core.stages import EXTRACT, SUMMARIZE, ledger_stage
from kgrag.documents import TokenCounter
from kgrag.graph.build.summarize import CallableSummarizer
from kgrag.models.llm.client import LLMClient

STAGE_SUMMARIZE = ledger_stage(EXTRACT, SUMMARIZE)  # "index.summarize", whichever stage summarises
SUMMARIZE_PROMPT = "summarize_descriptions"
WORDS_PER_TOKEN = 0.75
HEADROOM = 1.5
MAX_INPUT_TOKENS = 3000
ATTEMPTS = 2  # a reply cut at max_tokens is asked again (it is never cached); then the caller falls back


class SummaryCutError(RuntimeError):
    """No usable reply: every attempt came back cut off (``finish_reason == "length"``), or a reply was empty;
    the caller falls back and the graph builder retries the summary on the next run."""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SPACES = re.compile(r"\s+")


def _distinct(descriptions: Sequence[str]) -> list[str]:
    seen: dict[str, None] = {}
    for text in descriptions:
        cleaned = _SPACES.sub(" ", text).strip()
        if cleaned:
            seen.setdefault(cleaned, None)
    return list(seen)


def _within(client: LLMClient, texts: Sequence[str], limit: int) -> list[str]:
    """The first descriptions that fit ``limit`` tokens (at least one), so a hub entity's hundreds of
    mentions cannot overflow the model's window."""
    kept: list[str] = []
    used = 0
    for text in texts:
        cost = client.count_tokens(text) + 2
        if kept and used + cost > limit:
            break
        kept.append(text)
        used += cost
    return kept


def _trim(client: LLMClient, text: str, max_tokens: int) -> str:
    if client.count_tokens(text) <= max_tokens:
        return text
    kept: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        if client.count_tokens(" ".join([*kept, sentence])) > max_tokens:
            break
        kept.append(sentence)
    return " ".join(kept)


def llm_summarize(
    client: LLMClient,
    name: str,
    descriptions: Sequence[str],
    max_tokens: int,
    *,
    kind: str = "entity",
    max_input_tokens: int = MAX_INPUT_TOKENS,
) -> str:
    """One description of ``name`` (an entity, or a relation with ``kind="relation"``) merged from
    ``descriptions``, at most ``max_tokens`` tokens; ``""`` when there is nothing to summarise or the
    reply cannot be trimmed to fit (the caller then falls back). Raises what the client raises."""
    texts = _within(client, _distinct(descriptions), max_input_tokens)
    if not texts:
        return ""
    variables = {
        "kind": kind,
        "name": name,
        "max_words": max(5, int(max_tokens * WORDS_PER_TOKEN)),
        "descriptions": "\n".join(f"- {text}" for text in texts),
    }
    for _ in range(ATTEMPTS):
        result = client.chat_prompt(
            SUMMARIZE_PROMPT, variables, stage=STAGE_SUMMARIZE, max_tokens=int(max_tokens * HEADROOM) + 8
        )
        if result.finish_reason != "length":  # a cut reply is half an answer: never trimmed and kept
            text = _SPACES.sub(" ", result.text).strip()
            if not text:  # an empty or null reply is a failed call, not a summary: counted and retried
                raise SummaryCutError(f"the summary of {name!r} came back empty")
            return _trim(client, text, max_tokens)
    raise SummaryCutError(f"the summary of {name!r} was cut off at the token limit {ATTEMPTS} times")


def llm_summarizer(config: KgragConfig, client: LLMClient | None) -> CallableSummarizer:
    """``KINDS["summarizer"]["llm"]``: summaries by ``client``, extractive when a call fails."""
    if client is None or not client.available:
        raise ConfigError("the llm summariser needs an LLM client; set llm.provider")
    limit = config.graph.max_description_tokens
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    return CallableSummarizer(
        lambda name, descriptions: llm_summarize(client, name, descriptions, limit), limit, counter
    )
