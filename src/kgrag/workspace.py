"""The Python API: a workspace directory holding ``kgrag.toml`` and one SQLite database.

    from kgrag import Workspace
    ws = Workspace.open("my-ws")
    ws.index(["docs/"])
    response = ws.query("Who leads the Platform team?", pipeline="hybrid")

The CLI and the HTTP server are thin layers over this class.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from kgrag.config import CONFIG_FILE_NAME, KgragConfig, default_toml, load_config
from kgrag.core.builtins import new_registry
from kgrag.core.errors import WorkspaceError
from kgrag.core.records import DocumentStatus
from kgrag.core.registry import Registry
from kgrag.documents import TokenCounter, resolve_chunk_sizes
from kgrag.generation import QueryResponse, respond
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.extract.choose import create_extractor, create_summarizer
from kgrag.graph.extract.preflight import preflight_context_window
from kgrag.graph.types import Extractor
from kgrag.indexing import (
    ChunkPlan,
    IndexContext,
    IndexRegistries,
    IndexReport,
    Progress,
    SilentProgress,
    remove_documents,
    run_pipeline,
)
from kgrag.models.embeddings import Embedder, FakeEmbedder, KeyedEmbedder, create_embedder
from kgrag.models.llm import Estimate, LedgerSummary, LLMClient, Prices, create_llm_client
from kgrag.models.llm.status import llm_status
from kgrag.retrieval import PipelineFactory, QueryContext, RetrievalResult, build_pipeline
from kgrag.store import Store, open_store

DB_FILE_NAME = "kgrag.sqlite3"
META_MODEL = "embedding.model"
META_DIMENSION = "embedding.dimension"
META_WINDOW = "embedding.window"


def resolve_workspace_dir(path: Path | str | None) -> Path:
    """Explicit path, else ``KGRAG_WORKSPACE``, else the current directory (read at call time)."""
    if path is not None:
        return Path(path).expanduser()
    return Path(os.environ.get("KGRAG_WORKSPACE") or ".")


class Workspace:
    """A kgrag workspace: config, store, models and pipelines, created lazily and shared."""

    def __init__(self, path: Path, config: KgragConfig, store: Store) -> None:
        self.path = path
        self.config = config
        self.store = store
        self.pipelines: Registry[PipelineFactory] = new_registry("pipeline")
        self._embedder = KeyedEmbedder(self.embedding_model_id, self._load_embedder)
        self._llm: LLMClient | None = None
        self.context = QueryContext(
            store, config, model_id=self.embedding_model_id, embedder=self.embedder, llm=self.llm
        )

    # -- lifecycle -------------------------------------------------------------------------------
    @classmethod
    def init(cls, path: Path | str | None = None, **overrides: Any) -> Workspace:
        """Create the directory, a commented ``kgrag.toml`` (kept if present) and the database."""
        directory = resolve_workspace_dir(path)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            toml = directory / CONFIG_FILE_NAME
            if not toml.exists():
                toml.write_text(default_toml(), encoding="utf-8")
        except OSError as exc:
            raise WorkspaceError(f"{directory}: cannot create workspace ({exc.strerror})") from exc
        return cls.open(directory, **overrides)

    @classmethod
    def open(cls, path: Path | str | None = None, *, allow_model_change: bool = False, **overrides: Any) -> Workspace:
        """Open an existing workspace; fails clearly if it is not one or its models do not match."""
        directory = resolve_workspace_dir(path)
        if not (directory / CONFIG_FILE_NAME).exists() and not (directory / DB_FILE_NAME).exists():
            raise WorkspaceError(
                f"{directory.resolve()} is not a kgrag workspace; run `kgrag init {directory}` or pass --workspace"
            )
        config = load_config(directory, **overrides)
        store = open_store(config.store, directory)
        workspace = cls(directory, config, store)
        if not allow_model_change:
            try:
                workspace._check_embedding_model()
            except WorkspaceError:
                store.close()  # the caller never gets the workspace, so nobody else would close it
                raise
        return workspace

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
        self.store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- models ----------------------------------------------------------------------------------
    @property
    def embedding_model_id(self) -> str:
        """Provider and model, as recorded in the database next to the vectors they produced."""
        return f"{self.config.embedding.provider}:{self.config.embedding.model}"

    def _check_embedding_model(self) -> None:
        recorded = self.store.meta.get(META_MODEL)
        if recorded is not None and recorded != self.embedding_model_id:
            raise WorkspaceError(
                f"this workspace was embedded with {recorded!r} but the config asks for "
                f"{self.embedding_model_id!r}; run `kgrag reindex --embeddings` to re-embed with the new "
                "model, or set embedding.model/provider back"
            )

    def embedder(self) -> KeyedEmbedder:
        """The embedder, keyed by ``provider:model``; the model itself loads on first use."""
        return self._embedder

    def _load_embedder(self) -> Embedder:
        embedder = create_embedder(self.config.embedding)
        self._record_model(embedder)
        return embedder

    def _record_model(self, embedder: Embedder) -> None:
        with self.store.transaction():
            self.store.meta.set(META_MODEL, self.embedding_model_id)
            self.store.meta.set(META_DIMENSION, str(embedder.dimension))
            if embedder.window_tokens:
                self.store.meta.set(META_WINDOW, str(embedder.window_tokens))

    def llm(self) -> LLMClient:
        """The workspace's LLM client: one response cache, one usage ledger and one run id for everything
        this Workspace object does (a CLI command = one run). ``available`` is False for ``none``."""
        if self._llm is None:
            preflight_context_window(self.config)
            self._llm = create_llm_client(self.config.llm, self.store)
        return self._llm

    def chunk_plan(self) -> tuple[ChunkPlan, list[str]]:
        """Chunk size and overlap; the default follows the embedder's window (read from the database
        when known, so unchanged re-runs need not load the model)."""
        window_text = self.store.meta.get(META_WINDOW)
        window = int(window_text) if window_text else None
        if window is None and self.config.chunking.size_tokens is None:
            window = self.embedder().window_tokens
        size, overlap, warnings = resolve_chunk_sizes(self.config.chunking, window)
        return ChunkPlan(size, overlap, TokenCounter.for_encoding(self.config.chunking.encoding)), warnings

    # -- indexing --------------------------------------------------------------------------------
    def index(
        self, paths: Sequence[Path | str], progress: Progress | None = None, *, pipeline: str | None = None
    ) -> IndexReport:
        """Index files/directories incrementally with ``pipeline`` (default ``indexing.pipeline``);
        unchanged files cost nothing."""
        progress = progress or SilentProgress()
        plan, warnings = self.chunk_plan()
        for warning in warnings:
            progress.note(warning)
        context = self._index_context([Path(p) for p in paths], plan, progress)
        report = run_pipeline(context, pipeline or self.config.indexing.pipeline, self.index_registries)
        report.warnings.extend(warnings)
        self._account_llm_usage(report)
        return report

    def _account_llm_usage(self, report: IndexReport) -> None:
        """Put this run's LLM usage, and the extraction cost per corpus token, into the report."""
        if self._llm is None or not self._llm.available:
            return
        usage = self._llm.ledger.summary(self._llm.run_id, prices=self._prices())
        if not usage.by_stage:
            return
        report.llm_lines = usage.lines()
        if report.extracted_corpus_tokens and not report.chunks_extraction_failed:  # only complete runs
            from kgrag.graph.extract.llm import extraction_cost_ratio

            report.extraction_prompt_ratio = round(extraction_cost_ratio(usage, report.extracted_corpus_tokens), 3)

    @cached_property
    def index_registries(self) -> IndexRegistries:
        """This workspace's indexing stages, pipelines, extractors and summarisers (built-ins, plug-ins,
        and whatever code registers here; other workspaces do not see those)."""
        return IndexRegistries.builtin()

    def _index_context(self, paths: list[Path], plan: ChunkPlan, progress: Progress) -> IndexContext:
        """One run's context: this workspace's store, models and configured extractor."""
        return IndexContext(
            store=self.store,
            config=self.config,
            plan=plan,
            embedder=self._embedder,
            paths=paths,
            progress=progress,
            extractor=self.extractor(progress),
            summarizer=self.summarizer(),
            llm=self.llm() if self.config.llm.provider != "none" else None,
        )

    def extractor(self, progress: Progress | None = None) -> Extractor | None:
        """The graph extractor ``graph.extractor`` asks for (None: build no graph); see kgrag.graph.extract.choose."""
        client = self.llm() if self.config.llm.provider != "none" else None
        return create_extractor(self.config, client, progress or SilentProgress(), self.index_registries.extractors)

    def summarizer(self) -> Summarizer:
        """Shortens merged entity/relation descriptions past ``graph.max_description_tokens``."""
        client = self.llm() if self.config.llm.provider != "none" else None
        return create_summarizer(self.config, client, self.index_registries.summarizers)

    def estimate_index(
        self, paths: Sequence[Path | str], progress: Progress | None = None
    ) -> tuple[IndexReport, Estimate]:
        """What ``index(paths)`` would spend on the LLM, without calling it and without changing anything.

        The run goes through the real code path inside a store dry run (everything it writes is rolled
        back; cached replies count as free) with an estimating LLM provider and a hashing embedder
        (vectors are not what is being estimated).
        """
        dimension = self.store.meta.get(META_DIMENSION)
        with self.store.dry_run():
            scratch = Workspace(self.path, self.config, self.store)
            scratch._embedder = KeyedEmbedder(
                self.embedding_model_id, lambda: FakeEmbedder(int(dimension) if dimension else 64)
            )
            scratch._llm = create_llm_client(self.config.llm, self.store, estimate=True)
            try:
                report = scratch.index(paths, progress)
                estimate = scratch._llm.estimate() or Estimate(0, 0, 0, 0.0)
            finally:
                scratch._llm.close()  # not scratch.close(): the store is this workspace's
        return report, estimate

    def llm_usage(self, run_id: str | None = None) -> LedgerSummary:
        """Calls, tokens, retries, cache hits and money per stage and per run, from the usage ledger."""
        return self.llm().ledger.summary(run_id, prices=self._prices())

    def _prices(self) -> Prices:
        return Prices(self.config.llm.price_prompt_per_1m, self.config.llm.price_completion_per_1m)

    def remove(self, refs: Sequence[str]) -> tuple[list[str], list[str]]:
        """Remove documents (by id, source or path) and everything derived from them."""
        return remove_documents(self.store, refs, self.summarizer(), self.embedder)

    def reindex_embeddings(self, progress: Progress | None = None) -> IndexReport:
        """Re-embed every chunk (and graph entity/relation) with the configured model and make it the
        workspace's model."""
        progress = progress or SilentProgress()
        self._record_model(self._embedder.inner())
        context = self._index_context([], self.chunk_plan()[0], progress)
        return run_pipeline(context, self.config.indexing.pipeline, self.index_registries)

    # -- querying --------------------------------------------------------------------------------
    def retrieve(self, question: str, pipeline: str | None = None, k: int | None = None) -> RetrievalResult:
        """Run the named pipeline (default ``retrieval.default_pipeline``) after checking its requirements."""
        name = pipeline or self.config.retrieval.default_pipeline
        return build_pipeline(self.pipelines, name, self.config).run(
            question, self.context, k or self.config.retrieval.k
        )

    def query(self, question: str, pipeline: str | None = None, k: int | None = None) -> QueryResponse:
        """Retrieve context and answer from it with the pipeline's own answer strategy, else the default
        one (the LLM when configured, with citations; else extractive); see kgrag.generation.respond."""
        name = pipeline or self.config.retrieval.default_pipeline
        recipe = build_pipeline(self.pipelines, name, self.config)
        return respond(recipe, self.context, question, k or self.config.retrieval.k)

    # -- status ----------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        meta = self.store.meta
        return {
            "workspace": str(self.path.resolve()),
            "documents": self.store.documents.count_by_status(),
            "chunks": self.store.chunks.count(),
            "vectors": self.store.vectors.count(self.embedding_model_id),
            "graph": self.store.graph.counts(),
            "llm": self._llm_status(),
            "database_bytes": self.store.size_bytes(),
            "embedding": {
                "model": meta.get(META_MODEL) or self.embedding_model_id,
                "dimension": meta.get(META_DIMENSION),
                "window": meta.get(META_WINDOW),
            },
            "failed": [
                {"source": d.source, "error": d.error} for d in self.store.documents.list(DocumentStatus.FAILED)
            ],
        }

    def _llm_status(self) -> dict[str, Any]:
        status = llm_status(self.store.llm_cache, self.store.llm_ledger, self._prices())
        return {
            "provider": self.config.llm.provider,
            "model": self.config.llm.model,
            "cache_entries": status.cache_entries,
            "calls": status.calls,
            "cache_hit_rate": round(status.hit_rate, 4),
            "prompt_tokens": status.prompt_tokens,
            "completion_tokens": status.completion_tokens,
            "cost_usd": round(status.cost_usd, 6),
        }
