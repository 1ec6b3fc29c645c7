"""Which extractor and summariser a workspace uses, from ``graph.extractor`` and ``llm.provider``.

``auto`` means "the best that is available": the LLM extractor when an LLM is configured, else spaCy,
else (spaCy not installed) no graph with a note — a plain install must still index. An explicit choice
that cannot be honoured fails loudly, except ``llm`` without an LLM, which falls back to ``nlp`` with a
note because "no LLM" is a normal configuration (``llm.provider = none``), not a mistake to stop on.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from kgrag.config import KgragConfig
from kgrag.core.errors import KgragError
from kgrag.core.progress import Progress
from kgrag.documents import TokenCounter
from kgrag.graph.build.summarize import CallableSummarizer, ExtractiveSummarizer, Summarizer
from kgrag.graph.types import Extractor
from kgrag.models.llm.client import LLMClient


def extractor_mode(config: KgragConfig, progress: Progress) -> str:
    """``llm``, ``nlp`` or ``none`` after resolving ``auto`` and the no-LLM fallback."""
    mode = config.graph.extractor
    has_llm = config.llm.provider != "none"
    if mode == "auto":
        if has_llm:
            return "llm"
        if importlib.util.find_spec("spacy") is None:
            progress.note(
                "graph: skipped (graph.extractor = auto, no LLM configured and spaCy is not "
                "installed; pip install 'kgrag[local]' for the NLP extractor)"
            )
            return "none"
        return "nlp"
    if mode == "llm" and not has_llm:
        progress.note("graph: graph.extractor = llm but llm.provider = none; using the NLP extractor")
        return "nlp"
    return mode


def create_extractor(config: KgragConfig, workspace: Any, progress: Progress) -> Extractor | None:
    """The configured extractor, or None when no graph is wanted."""
    mode = extractor_mode(config, progress)
    if mode == "none":
        return None
    if mode == "llm":
        try:
            from kgrag.graph.extract.llm import create_llm_extractor
        except ImportError as exc:
            raise KgragError(
                "graph.extractor = llm needs kgrag.graph.extract.llm, which this installation "
                "lacks; set graph.extractor = nlp"
            ) from exc
        extractor: Extractor = create_llm_extractor(workspace)
        return extractor
    from kgrag.graph.extract.nlp import SpacyExtractor

    graph = config.graph
    return SpacyExtractor(graph.spacy_model, processes=graph.spacy_processes, noun_phrases=graph.noun_phrases)


def create_summarizer(config: KgragConfig, client: LLMClient | None = None) -> Summarizer:
    """The description summariser: the LLM (stage ``index.summarize``) when one is available, with the
    extractive summary as its fallback; extractive alone otherwise."""
    counter = TokenCounter.for_encoding(config.chunking.encoding)
    limit = config.graph.max_description_tokens
    if client is None or not client.available:
        return ExtractiveSummarizer(limit, counter)
    from kgrag.graph.build.summarize_llm import llm_summarize

    return CallableSummarizer(
        lambda name, descriptions: llm_summarize(client, name, descriptions, limit), limit, counter
    )
