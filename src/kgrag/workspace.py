"""The Python API: a workspace directory holding ``kgrag.toml`` and one SQLite database.

    from kgrag import Workspace
    ws = Workspace.open("my-ws")
    ws.index(["docs/"])
    response = ws.query("Who leads the Platform team?", pipeline="hybrid")

The CLI and the HTTP server are thin layers over this class.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgrag.config import CONFIG_FILE_NAME, KgragConfig, default_toml, load_config
from kgrag.core.context import TraceStep
from kgrag.core.errors import WorkspaceError
from kgrag.core.records import DocumentStatus
from kgrag.documents import TokenCounter, resolve_chunk_sizes
from kgrag.generation import Answer, extractive_answer, generate_answer
from kgrag.graph.build.summarize import Summarizer
from kgrag.graph.extract.choose import create_extractor, create_summarizer
from kgrag.graph.types import Extractor
from kgrag.indexing import ChunkPlan, IndexReport, Progress, SilentProgress, remove_documents, run_index
from kgrag.models.embeddings import Embedder, FakeEmbedder, KeyedEmbedder, create_embedder
from kgrag.models.llm import Estimate, LedgerSummary, LLMClient, Prices, create_llm_client, llm_free_note
from kgrag.models.llm.preflight import preflight_context_window
from kgrag.models.llm.status import llm_status
from kgrag.retrieval import PipelineRegistry, RetrievalResult, builtin_registry
from kgrag.retrieval.env import RetrievalEnv
from kgrag.store import Store, open_store

DB_FILE_NAME = "kgrag.sqlite3"
META_MODEL = "embedding.model"
META_DIMENSION = "embedding.dimension"
META_WINDOW = "embedding.window"


@dataclass
class QueryResponse:
    """Retrieved context plus the answer built from it."""

    result: RetrievalResult
    answer: Answer
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer.to_dict(), "retrieval": self.result.to_dict(), "timings_ms": self.timings_ms}


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
        self.pipelines: PipelineRegistry = builtin_registry()
        self._embedder = KeyedEmbedder(self.embedding_model_id, self._load_embedder)
        self._llm: LLMClient | None = None
        self.env = RetrievalEnv(store=store, config=config, embedder_factory=self.embedder)

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
    def index(self, paths: Sequence[Path | str], progress: Progress | None = None) -> IndexReport:
        """Index files/directories incrementally; unchanged files cost nothing."""
        progress = progress or SilentProgress()
        plan, warnings = self.chunk_plan()
        for warning in warnings:
            progress.note(warning)
        report = run_index(
            [Path(p) for p in paths],
            self.store,
            self.config,
            plan,
            self._embedder,
            progress,
            self.extractor(progress),
            self.summarizer(),
        )
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

    def extractor(self, progress: Progress | None = None) -> Extractor | None:
        """The graph extractor ``graph.extractor`` asks for (None: build no graph); see kgrag.graph.extract.choose."""
        return create_extractor(self.config, self, progress or SilentProgress())

    def summarizer(self) -> Summarizer:
        """Shortens merged entity/relation descriptions past ``graph.max_description_tokens``."""
        return create_summarizer(self.config, self.llm() if self.config.llm.provider != "none" else None)

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
        return run_index(
            [],
            self.store,
            self.config,
            self.chunk_plan()[0],
            self.embedder(),
            progress,
            self.extractor(progress),
            self.summarizer(),
        )

    # -- querying --------------------------------------------------------------------------------
    def retrieve(self, question: str, pipeline: str | None = None, k: int | None = None) -> RetrievalResult:
        name = pipeline or self.config.retrieval.default_pipeline
        return self.pipelines.build(name, self.config).run(question, self.env, k or self.config.retrieval.k)

    def query(self, question: str, pipeline: str | None = None, k: int | None = None) -> QueryResponse:
        """Retrieve context and answer from it: with the LLM when one is configured (citations, "I don't
        know" when the context lacks the answer), else extractively; the trace says which."""
        result = self.retrieve(question, pipeline, k)
        retrieval_ms = next((s.ms for s in result.trace if s.step == "total"), 0.0)
        started = time.perf_counter()
        client = self.llm()
        if client.available:
            answer = generate_answer(client, question, result, self.config.generation)
            note = "llm answer"
        else:
            answer = extractive_answer(question, result, self.embedder(), self.config.generation.extractive_sentences)
            note = llm_free_note("query.generate")
        generation_ms = round((time.perf_counter() - started) * 1000, 3)
        result.trace.append(
            TraceStep(
                step="generate", params={"mode": answer.mode}, n_out=len(answer.citations), ms=generation_ms, note=note
            )
        )
        return QueryResponse(
            result=result, answer=answer, timings_ms={"retrieval": retrieval_ms, "generation": generation_ms}
        )

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
