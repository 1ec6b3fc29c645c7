"""What ``ws.indexing`` runs: index files, estimate what indexing would cost, re-embed, remove documents, prune caches,
over a workspace's parts (:class:`~kgrag.indexing.parts.IndexParts`), each write under its writer lock."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from kgrag.core.progress import Progress, SilentProgress
from kgrag.indexing.parts import IndexParts, run_with_parts
from kgrag.indexing.prune import PruneReport, prune_caches
from kgrag.indexing.registries import IndexRegistries
from kgrag.indexing.remove import remove_documents
from kgrag.indexing.report import IndexReport
from kgrag.indexing.runner import pipeline_names
from kgrag.models.llm import Estimate, LLMClient
from kgrag.store.index_lock import indexing_lock

Stages = Sequence[str] | None
LEXICAL_ONLY = "fast"  # discover, ingest (load + chunk), finalize: what an estimate without an LLM runs
NO_LLM = ("no LLM is configured (llm.provider = none): indexing makes no LLM calls",)


class IndexingService:
    """Every write path from files to the index, over one workspace's parts."""

    def __init__(self, parts: IndexParts) -> None:
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
            return run_with_parts(self._parts, files, progress, pipeline, engine, prune)

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
            return run_with_parts(parts, files, note, name, on, prune, stages=stages)

        def names(name: str) -> list[str]:
            return pipeline_names(name, parts.index_registries)

        job = BatchJob(parts.store, parts.config.llm, client, names, run)
        return run_batched(job, pipeline or parts.config.indexing.pipeline, engine, progress)

    def estimate(
        self, paths: Sequence[Path | str], progress: Progress | None = None, *, probe: bool = False
    ) -> tuple[IndexReport, Estimate]:
        """What :meth:`run` would spend on the LLM, without calling it and without changing anything.

        ``probe=True`` first extracts two sample units for real (and, when the pipeline confirms merges or
        reflects with the LLM, sends a few of those prompts; :mod:`kgrag.indexing.estimate_probe`), so the
        estimate is calibrated by this model's own replies even before any run; only ledger rows and
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
                files = [Path(p) for p in paths]
                report = run_with_parts(estimating, files, progress or SilentProgress(), pipeline, "local")
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
            return run_with_parts(self._parts, [], progress, None)

    def remove(self, refs: Sequence[str], progress: Progress | None = None) -> tuple[list[str], list[str]]:
        """Remove documents (by id, source or path) and everything derived from them; returns (removed
        sources, refs that matched nothing). Waits (noting it to ``progress``) while another writer runs."""
        with indexing_lock(self._parts.path, self._parts.store, progress):
            return remove_documents(self._parts.store, refs, self._parts.summarizer(), self._parts.embedder)

    def prune(self, *, llm_cache: bool = False, dry_run: bool = False, progress: Progress | None = None) -> PruneReport:
        """Delete the cached vectors no part of the index can use and, with ``llm_cache``, the cached LLM
        replies; then compact the database (see :mod:`kgrag.indexing.prune`). Waits while another writer runs."""
        with indexing_lock(self._parts.path, self._parts.store, progress):
            return prune_caches(
                self._parts.store, self._parts.embedder().name, llm_cache=llm_cache, dry_run=dry_run, progress=progress
            )
