"""What an indexing run takes from a workspace (:class:`IndexParts`; the workspace's ``Components``
satisfies it), and one run over those parts (:func:`run_with_parts`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgrag.core.progress import Progress
from kgrag.core.stages import EXTRACT
from kgrag.indexing.context import IndexContext
from kgrag.indexing.estimate_probe import ProbeParts
from kgrag.indexing.report import IndexReport
from kgrag.indexing.runner import resolve_stages, run_pipeline, run_stages

if TYPE_CHECKING:
    from kgrag.core.registries import Registries
    from kgrag.graph.build.summarize import Summarizer
    from kgrag.graph.types import Extractor
    from kgrag.indexing.registries import IndexRegistries
    from kgrag.models.embeddings import Embedder, KeyedEmbedder
    from kgrag.models.llm import LLMClient, Prices


class IndexParts(ProbeParts, Protocol):
    """The workspace's parts an indexing run uses: store, config (read after the client fitted it),
    models, extractor and summariser, and its registries."""

    @property
    def path(self) -> Path: ...

    @property
    def registries(self) -> Registries: ...

    @property
    def index_registries(self) -> IndexRegistries: ...

    @property
    def llm_notes(self) -> list[str]: ...

    def llm(self) -> LLMClient: ...

    def llm_for_indexing(self) -> LLMClient | None: ...

    def llm_created(self) -> LLMClient | None: ...

    def prices(self) -> Prices: ...

    def embedder(self) -> KeyedEmbedder: ...

    def record_model(self, embedder: Embedder) -> None: ...

    def extractor(self, progress: Progress | None = None) -> Extractor | None: ...

    def summarizer(self) -> Summarizer: ...

    def sentence_vectors_on(self) -> bool: ...

    def for_estimate(self) -> IndexParts: ...

    def close(self, *, store: bool = True) -> None: ...


def run_with_parts(
    parts: IndexParts,
    paths: list[Path],
    progress: Progress,
    pipeline: str | None,
    engine: str | None = None,
    prune: bool = True,
    *,
    stages: Sequence[str] | None = None,
) -> IndexReport:
    """Run ``pipeline`` (or only its ``stages``, by name) over ``parts``; the report carries the LLM usage."""
    llm = parts.llm_for_extraction()  # first: it fits the config to the server's context window
    plan, warnings = parts.chunk_plan()
    warnings = [*parts.llm_notes, *warnings]
    for warning in warnings:
        progress.note(warning)
    context = IndexContext(
        store=parts.store,
        config=parts.config,
        plan=plan,
        embedder=parts.embedder(),
        paths=paths,
        prune=prune,
        progress=progress,
        extractor=parts.extractor(progress),
        summarizer=parts.summarizer(),
        llm=llm,
        sentence_vectors=parts.sentence_vectors_on,  # decided at the embed stage, from the chunks stored by then
        registries=parts.registries,
    )
    if stages is not None:
        report = run_stages(context, resolve_stages(stages, parts.index_registries))
    else:
        report = run_pipeline(context, pipeline or parts.config.indexing.pipeline, parts.index_registries, engine)
    report.warnings.extend(warnings)
    account_llm_usage(parts, report)
    return report


def account_llm_usage(parts: IndexParts, report: IndexReport) -> None:
    """Put this run's LLM usage, and the extraction cost per corpus token, into the report."""
    client = parts.llm_created()
    if client is None or not client.available:
        return
    usage = client.ledger.summary(client.run_id, prices=parts.prices())
    if not usage.by_stage:
        return
    report.llm_lines = usage.lines()
    from kgrag.indexing.stages.extract import ExtractReport

    extracted = report.stages.get(EXTRACT)
    if isinstance(extracted, ExtractReport) and extracted.corpus_tokens and not report.chunks_extraction_failed:
        from kgrag.graph.extract.llm import extraction_cost_ratio  # only complete runs get a ratio

        report.extraction_prompt_ratio = round(extraction_cost_ratio(usage, extracted.corpus_tokens), 3)
