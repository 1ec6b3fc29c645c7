"""Which extractor and summariser a workspace uses, from ``graph.extractor`` and ``llm.provider``.

``auto`` means "the best that is available": the LLM extractor when an LLM is configured, else spaCy,
else (spaCy not installed) no graph with a note — a plain install must still index. An explicit choice
that cannot be honoured fails loudly, except ``llm`` without an LLM, which falls back to ``nlp`` with a
note because "no LLM" is a normal configuration (``llm.provider = none``), not a mistake to stop on.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from kgrag.config import KgragConfig
from kgrag.core.errors import ConfigError
from kgrag.core.progress import Progress
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.extract.settings import llm_settings, nlp_settings
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


ExtractorFactory = Callable[[KgragConfig, LLMClient | None, Progress], Extractor]
SummarizerFactory = Callable[[KgragConfig, LLMClient | None], Summarizer]
EXTRACTORS: RegistryKind[ExtractorFactory] = RegistryKind("extractor")
SUMMARIZERS: RegistryKind[SummarizerFactory] = RegistryKind("summarizer")


def create_extractor(
    config: KgragConfig,
    client: LLMClient | None,
    progress: Progress,
    registry: Registry[ExtractorFactory] | None = None,
) -> Extractor | None:
    """The configured extractor, or None when no graph is wanted.

    Dependencies are explicit (the config, the caller's LLM client or None, where to send notes) so the
    graph layer never sees the workspace; the extractor itself comes from ``registry`` (the built-ins of
    ``KINDS["extractor"]`` plus plug-ins when none is given).
    """
    mode = extractor_mode(config, progress)
    if mode == "none":
        return None
    extractors: Registry[ExtractorFactory] = registry or EXTRACTORS.new()
    extractor: Extractor = extractors.create(mode, config, client, progress)
    return extractor


def nlp_extractor(config: KgragConfig, client: LLMClient | None, progress: Progress) -> Extractor:
    """``KINDS["extractor"]["nlp"]``: spaCy entities, noun phrases and parse relations (no LLM)."""
    from kgrag.graph.extract.nlp import SpacyExtractor

    own = nlp_settings(config)
    return SpacyExtractor(
        own.spacy_model,
        processes=own.spacy_processes,
        noun_phrases=own.noun_phrases,
        allow_torch=own.spacy_torch,
    )


def llm_extractor(config: KgragConfig, client: LLMClient | None, progress: Progress) -> Extractor:
    """``KINDS["extractor"]["llm"]``: LightRAG-style extraction with the caller's LLM client."""
    if client is None or not client.available:
        raise ConfigError("graph.extractor = llm needs an LLM client; set llm.provider or graph.extractor = nlp")
    from kgrag.graph.extract.llm import create_llm_extractor

    return create_llm_extractor(config, client, llm_settings(config))


def create_summarizer(
    config: KgragConfig, client: LLMClient | None = None, registry: Registry[SummarizerFactory] | None = None
) -> Summarizer:
    """The description summariser ``graph.summarizer`` names, built by ``registry`` (``KINDS["summarizer"]``
    and plug-ins). ``auto``: the LLM (stage ``index.summarize``) when one is available, with the extractive
    summary as its fallback; extractive alone otherwise."""
    summarizers: Registry[SummarizerFactory] = registry or SUMMARIZERS.new()
    name = config.graph.summarizer
    if name == "auto":
        name = "llm" if client is not None and client.available else "extractive"
    summarizer: Summarizer = summarizers.create(name, config, client)
    return summarizer
