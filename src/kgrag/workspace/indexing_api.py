"""``ws.indexing``: index files, estimate what indexing would cost, re-embed, remove documents."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kgrag.core.progress import Progress, SilentProgress
from kgrag.core.stages import EXTRACT
from kgrag.indexing import IndexContext, IndexRegistries, IndexReport, remove_documents, run_pipeline
from kgrag.indexing.runner import pipeline_names, resolve_stages, run_stages
from kgrag.models.llm import Estimate, LLMClient
from kgrag.workspace.components import Components
from kgrag.workspace.index_lock import indexing_lock

Stages = Sequence[str] | None
LEXICAL_ONLY = "fast"  # discover, ingest (load + chunk), finalize: what an estimate without an LLM runs
NO_LLM = ("no LLM is configured (llm.provider = none): indexing makes no LLM calls",)


class IndexingAPI:
    """Every write path from files to the index, over one :class:`Components`."""

    def __init__(self, parts: Components) -> None:
        self._parts = parts

    @property
    def registries(self) -> IndexRegistries:
        """This workspace's stages, indexing pipelines, extractors and summarisers:
        ``ws.indexing.registries.stages.register("my-stage", MyStage)`` adds a stage here only."""
        return self._parts.index_registries

    def run(
        self,
        paths: Sequence[Path | str],
        progress: Progress | None = None,
        *,
        pipeline: str | None = None,
        engine: str | None = None,
        prune: bool = True,
    ) -> IndexReport:
        """Index files/directories incrementally with ``pipeline`` (default ``indexing.pipeline``) on
        ``engine`` (default ``indexing.engine``: ``local``, or ``ray``, see docs/ray.md); unchanged files
        cost nothing, and a killed or failed run resumes where it stopped. The folders end up indexed as
        they are: documents of files deleted from them are removed (unless ``prune`` is False), a moved file
        keeps its document, and a copy of an indexed file is recorded, not stored twice. With ``llm.batch``
        the LLM calls go through the Batch API first (:mod:`kgrag.indexing.batch_mode`)."""
        progress = progress or SilentProgress()
        files = [Path(p) for p in paths]
        with indexing_lock(self._parts.path, self._parts.store, progress):
            if self._parts.config.llm.batch:
                return self._run_batched(files, progress, pipeline, engine, prune)
            return run_parts(self._parts, files, progress, pipeline, engine, prune)

    def _run_batched(
        self, files: list[Path], progress: Progress, pipeline: str | None, engine: str | None, prune: bool
    ) -> IndexReport:
        from kgrag.indexing.batch_mode import BatchJob, run_batched

        parts = self._parts

        def client() -> LLMClient:
            made = parts.llm()  # first: it fits the config to the server's window
            parts.llm_for_indexing()  # prompts sized to the model by a live probe, before any request is collected
            return made

        def run(name: str | None, on: str | None, note: Progress, *, stages: Stages = None) -> IndexReport:
            return run_parts(parts, files, note, name, on, prune, stages=stages)

        def names(name: str) -> list[str]:
            return pipeline_names(name, parts.index_registries)

        job = BatchJob(parts.store, parts.config.llm, client, names, run)
        return run_batched(job, pipeline or parts.config.indexing.pipeline, engine, progress)

    def estimate(
        self, paths: Sequence[Path | str], progress: Progress | None = None, *, probe: bool = False
    ) -> tuple[IndexReport, Estimate]:
        """What :meth:`run` would spend on the LLM, without calling it and without changing anything.

        ``probe=True`` first extracts one sample unit for real (:mod:`kgrag.indexing.estimate_probe`), so
        the estimate is calibrated by this model's own replies even before any run; only ledger rows and
        cached replies are written.

        The run goes through the real code path inside a store dry run (everything it writes is rolled
        back; cached replies count as free) with an estimating LLM and a hashing embedder. Without an LLM
        (``llm.provider = none``) no stage can spend anything, so only discovery and chunking run (to
        count the new chunks): no model, no graph extraction.
        """
        notes = self._probe([Path(p) for p in paths]) if probe else []
        estimating = self._parts.for_estimate()
        llm_free = self._parts.config.llm.provider == "none"
        with self._parts.store.dry_run():
            try:
                # the local engine: an estimate sends nothing, so there is no heavy work to distribute
                pipeline = LEXICAL_ONLY if llm_free else None
                report = run_parts(
                    estimating, [Path(p) for p in paths], progress or SilentProgress(), pipeline, "local"
                )
                estimate = Estimate(0, 0, 0, 0.0, NO_LLM) if llm_free else estimating.llm().estimate()
                estimate = estimate or Estimate(0, 0, 0, 0.0)
                estimate = replace(estimate, predicted=(*notes, *estimate.predicted))
            finally:
                estimating.close(store=False)  # the store is this workspace's
        return report, estimate

    def _probe(self, paths: list[Path]) -> list[str]:
        from kgrag.documents.loaders import LOADERS
        from kgrag.indexing.estimate_probe import probe_extraction

        return probe_extraction(self._parts, self._parts.registries.get(LOADERS), paths)

    def reindex_embeddings(self, progress: Progress | None = None) -> IndexReport:
        """Re-embed every chunk (and graph entity) with the configured model and make it the workspace's
        model (after ``embedding.model``/``provider`` changed)."""
        progress = progress or SilentProgress()
        with indexing_lock(self._parts.path, self._parts.store, progress):
            self._parts.record_model(self._parts.embedder().inner())
            return run_parts(self._parts, [], progress, None)

    def remove(self, refs: Sequence[str], progress: Progress | None = None) -> tuple[list[str], list[str]]:
        """Remove documents (by id, source or path) and everything derived from them; returns (removed
        sources, refs that matched nothing). Waits (noting it to ``progress``) while another writer runs."""
        with indexing_lock(self._parts.path, self._parts.store, progress):
            return remove_documents(self._parts.store, refs, self._parts.summarizer(), self._parts.embedder)


def run_parts(
    parts: Components,
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
    _account_llm_usage(parts, report)
    return report


def _account_llm_usage(parts: Components, report: IndexReport) -> None:
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
