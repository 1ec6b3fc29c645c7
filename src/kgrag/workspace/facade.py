"""The Python API: a workspace directory holding ``kgrag.toml`` and its store.

    from kgrag import Workspace
    with Workspace.open("my-ws") as ws:
        ws.index(["docs/"])
        response = ws.query("Who leads the Platform team?", pipeline="hybrid")

:class:`Workspace` is a thin facade: the parts are built by :class:`~kgrag.workspace.components.Components`
(the composition root) and the work is done by sub-APIs — ``ws.indexing``, ``ws.querying``,
``ws.conversations``, ``ws.documents``, ``ws.graph``, ``ws.communities``, ``ws.denoise``, ``ws.eval``,
``ws.usage`` — that the CLI, the HTTP server and users all call, so nothing is implemented twice. The most
used calls are also methods here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgrag.config import CONFIG_FILE_NAME, default_toml, load_config
from kgrag.core.errors import WorkspaceError
from kgrag.core.index_state import unfinished_line
from kgrag.core.registries import Registries
from kgrag.models.binding import stored_verdict
from kgrag.store import open_store
from kgrag.store.registry import STORES
from kgrag.workspace.components import META_DIMENSION, META_MODEL, META_WINDOW, Components
from kgrag.workspace.kinds import with_registered_kinds
from kgrag.workspace.prompt_dir import with_workspace_prompts

if TYPE_CHECKING:  # types only: each sub-API module is imported when its sub-API is first used
    from kgrag.config import KgragConfig
    from kgrag.core.context import RetrievalResult
    from kgrag.core.progress import Progress
    from kgrag.core.registry import Registry
    from kgrag.generation import QueryResponse
    from kgrag.indexing import IndexReport
    from kgrag.models.llm import Estimate, LedgerSummary
    from kgrag.retrieval import PipelineFactory
    from kgrag.store import Store
    from kgrag.tuning import TuningService
    from kgrag.workspace.communities_api import CommunitiesAPI
    from kgrag.workspace.conversation_api import ConversationAPI
    from kgrag.workspace.denoise_api import DenoiseAPI
    from kgrag.workspace.documents_api import DocumentsAPI
    from kgrag.workspace.eval_api import EvalAPI
    from kgrag.workspace.graph_api import GraphAPI
    from kgrag.workspace.indexing_api import IndexingAPI
    from kgrag.workspace.prompt_tune_api import PromptTuneAPI
    from kgrag.workspace.query_api import QueryAPI
    from kgrag.workspace.tune_api import TuneAPI
    from kgrag.workspace.usage_api import UsageAPI

DB_FILE_NAME = "kgrag.sqlite3"


def resolve_workspace_dir(path: Path | str | None) -> Path:
    """Explicit path, else ``KGRAG_WORKSPACE``, else the current directory (read at call time)."""
    if path is not None:
        return Path(path).expanduser()
    return Path(os.environ.get("KGRAG_WORKSPACE") or ".")


class Workspace:
    """A kgrag workspace: its parts (:attr:`components`) and the sub-APIs over them.

    Each sub-API is built on first access (and its module imported then), so a command pays only for
    the sub-APIs it uses: ``kgrag status`` never loads denoising (igraph, matplotlib, rapidfuzz) or
    evaluation. The sub-APIs hold no state of their own beyond the shared components, so building one
    later instead of at open changes nothing but the start-up time.
    """

    def __init__(self, components: Components) -> None:
        self.components = components

    @cached_property
    def indexing(self) -> IndexingAPI:
        from kgrag.workspace.indexing_api import IndexingAPI

        return IndexingAPI(self.components)

    @cached_property
    def querying(self) -> QueryAPI:
        from kgrag.workspace.query_api import QueryAPI

        return QueryAPI(self.components)

    @cached_property
    def conversations(self) -> ConversationAPI:
        from kgrag.workspace.conversation_api import ConversationAPI

        return ConversationAPI(self.components, self.querying)

    @cached_property
    def documents(self) -> DocumentsAPI:
        from kgrag.workspace.documents_api import DocumentsAPI

        return DocumentsAPI(self.components)

    @cached_property
    def graph(self) -> GraphAPI:
        from kgrag.workspace.graph_api import GraphAPI

        return GraphAPI(self.components)

    @cached_property
    def communities(self) -> CommunitiesAPI:
        from kgrag.workspace.communities_api import CommunitiesAPI

        return CommunitiesAPI(self.components)

    @cached_property
    def denoise(self) -> DenoiseAPI:
        from kgrag.workspace.denoise_api import DenoiseAPI

        return DenoiseAPI(self.components)

    @cached_property
    def eval(self) -> EvalAPI:
        from kgrag.workspace.eval_api import EvalAPI

        return EvalAPI(self.components, self.querying)

    @cached_property
    def usage(self) -> UsageAPI:
        from kgrag.workspace.usage_api import UsageAPI

        return UsageAPI(self.components)

    @cached_property
    def tune(self) -> TuneAPI:
        from kgrag.workspace.tune_api import TuneAPI

        return TuneAPI(self._tuning)

    @cached_property
    def prompt_tune(self) -> PromptTuneAPI:
        from kgrag.workspace.prompt_tune_api import PromptTuneAPI

        return PromptTuneAPI(self._tuning.prompts)

    @cached_property
    def _tuning(self) -> TuningService:
        return self.components.tuning_service(self.querying)

    # -- lifecycle -------------------------------------------------------------------------------
    @classmethod
    def init(
        cls, path: Path | str | None = None, *, registries: Registries | None = None, **overrides: Any
    ) -> Workspace:
        """Create the directory, a commented ``kgrag.toml`` (kept if present) and the store."""
        directory = resolve_workspace_dir(path)
        try:
            directory.mkdir(parents=True, exist_ok=True)
            toml = directory / CONFIG_FILE_NAME
            if not toml.exists():
                toml.write_text(default_toml(), encoding="utf-8")
        except OSError as exc:
            raise WorkspaceError(f"{directory}: cannot create workspace ({exc.strerror})") from exc
        return cls.open(directory, registries=registries, **overrides)

    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        allow_model_change: bool = False,
        registries: Registries | None = None,
        **overrides: Any,
    ) -> Workspace:
        """Open an existing workspace; fails clearly if it is not one or its models do not match.

        ``registries`` holds entries registered before the workspace exists (a store backend, an embedder,
        an LLM provider it opens with); every other kind can also be registered later, on
        ``ws.registries``."""
        directory = resolve_workspace_dir(path)
        if not (directory / CONFIG_FILE_NAME).exists() and not (directory / DB_FILE_NAME).exists():
            raise WorkspaceError(
                f"{directory.resolve()} is not a kgrag workspace; run `kgrag init {directory}` or pass --workspace"
            )
        owner = registries or Registries()
        config = with_registered_kinds(
            with_workspace_prompts(load_config(directory, registries=owner, **overrides), directory), owner
        )
        store = open_store(config.store, directory, owner.get(STORES))
        components = Components(directory, config, store, registries=owner, allow_model_change=allow_model_change)
        if not allow_model_change:
            try:
                components.check_embedding_model()
            except WorkspaceError:
                components.close()  # the caller never gets the workspace, so nobody else would close it
                raise
        return cls(components)

    def close(self) -> None:
        self.components.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the parts, for code that extends a workspace ----------------------------------------------
    @property
    def path(self) -> Path:
        return self.components.path

    @property
    def config(self) -> KgragConfig:
        return self.components.config

    @property
    def store(self) -> Store:
        """The store, for tests and extensions; applications use the sub-APIs."""
        return self.components.store

    @property
    def registries(self) -> Registries:
        """This workspace's registries, one per kind (typed accessors: :mod:`kgrag.workspace.kinds`)."""
        return self.components.registries

    @property
    def pipelines(self) -> Registry[PipelineFactory]:
        """This workspace's retrieval pipelines; ``ws.pipelines.register(name, factory)`` adds one here only."""
        return self.components.pipelines

    # -- the most used calls -----------------------------------------------------------------------
    def index(
        self,
        paths: Sequence[Path | str],
        progress: Progress | None = None,
        *,
        pipeline: str | None = None,
        engine: str | None = None,
        prune: bool = True,
    ) -> IndexReport:
        """Index files/directories incrementally (see :meth:`IndexingAPI.run`); ``engine="ray"`` runs the
        heavy work on Ray (``indexing.engines.ray.address``, else a local Ray); ``prune=False`` keeps the documents
        of files deleted from the folders."""
        return self.indexing.run(paths, progress, pipeline=pipeline, engine=engine, prune=prune)

    def estimate_index(
        self, paths: Sequence[Path | str], progress: Progress | None = None, *, probe: bool = False
    ) -> tuple[IndexReport, Estimate]:
        """What indexing ``paths`` would spend on the LLM; nothing is sent or changed (``probe``: one sample
        unit is extracted for real first, to calibrate the estimate; see :meth:`IndexingAPI.estimate`)."""
        return self.indexing.estimate(paths, progress, probe=probe)

    def reindex_embeddings(self, progress: Progress | None = None) -> IndexReport:
        return self.indexing.reindex_embeddings(progress)

    def remove(self, refs: Sequence[str]) -> tuple[list[str], list[str]]:
        """Remove documents (by id, source or path) and everything derived from them."""
        return self.indexing.remove(refs)

    def retrieve(self, question: str, pipeline: str | None = None, k: int | None = None) -> RetrievalResult:
        return self.querying.retrieve(question, pipeline, k)

    def query(self, question: str, pipeline: str | None = None, k: int | None = None) -> QueryResponse:
        """Retrieve context and answer from it, with citations (see :meth:`QueryAPI.query`)."""
        return self.querying.query(question, pipeline, k)

    def llm_usage(self, run_id: str | None = None) -> LedgerSummary:
        return self.usage.summary(run_id)

    def status(self) -> dict[str, Any]:
        """Counts, sizes, models, LLM usage and failed documents, as plain data (CLI/JSON/server); ``unfinished``:
        the line saying a stopped run left documents behind (:mod:`kgrag.core.index_state`), or None."""
        parts = self.components
        meta = parts.store.meta
        documents, graph = self.documents.counts(), self.graph.counts()
        vectors = parts.store.vectors.count(parts.vector_key)
        return {
            "workspace": str(parts.path.resolve()),
            "documents": documents,
            "chunks": self.documents.chunk_count(),
            "vectors": vectors,
            "graph": graph,
            "unfinished": unfinished_line(documents, vectors, graph.get("entities", 0), graph.get("chunks_failed", 0)),
            "llm": self.usage.overview().to_dict(),
            "database_bytes": parts.store.size_bytes(),
            "embedding": {
                "model": meta.get(META_MODEL) or parts.embedding_model_id,
                "dimension": meta.get(META_DIMENSION),
                "window": meta.get(META_WINDOW),
                "configured": parts.embedding_model_id,
                "agreement": stored_verdict(parts.store, parts.embedding_model_id),
            },
            "failed": [{"source": d.source, "error": d.error} for d in self.documents.failed()],
        }
