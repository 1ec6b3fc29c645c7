"""The composition root: the one place that builds a workspace's parts from its config and wires them.

Everything else receives what it needs from here (a store, an embedder, an LLM client, registries) and
never builds its own. Keeping construction in one object is what lets an estimate run be "the same
workspace with two parts swapped" (:meth:`Components.for_estimate`) instead of a second workspace whose
private fields get overwritten, and what lets the CLI, the Python API and a server share one wiring.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from kgrag.config import KgragConfig
from kgrag.core.progress import Progress, SilentProgress
from kgrag.core.registries import Registries
from kgrag.core.registry import Registry
from kgrag.models.binding import (
    META_DIMENSION,
    META_MODEL,
    META_WINDOW,
    bind_model,
    mismatch_error,
    record_model,
    vector_key,
)
from kgrag.store import Store

if TYPE_CHECKING:  # types only: the layers below load when a part is first built (see Components)
    from kgrag.evaluation.service import EvalService, Querying
    from kgrag.graph.build.summarize import Summarizer
    from kgrag.graph.types import Extractor
    from kgrag.indexing import ChunkPlan, IndexRegistries
    from kgrag.models.embeddings import Embedder, KeyedEmbedder
    from kgrag.models.llm import EstimateAssumptions, LLMClient, Prices
    from kgrag.models.rerankers import RerankResources
    from kgrag.retrieval import PipelineFactory, QueryContext
    from kgrag.tuning import TuningService

__all__ = ["META_DIMENSION", "META_MODEL", "META_WINDOW", "Components"]


class Components:
    """A workspace's parts, each created on first use and shared by every sub-API.

    ``llm_factory``/``embedder_factory`` replace how the LLM client and the embedding model are made
    (tests; estimates swap in a hashing embedder); by default they come from the config through the
    registries. ``estimate_llm`` makes the configured client an estimating one (nothing is sent).
    """

    def __init__(
        self,
        path: Path,
        config: KgragConfig,
        store: Store,
        *,
        llm_factory: Callable[[], LLMClient] | None = None,
        embedder_factory: Callable[[], Embedder] | None = None,
        index_registries: IndexRegistries | None = None,
        registries: Registries | None = None,
        allow_model_change: bool = False,
        estimate_llm: bool = False,
    ) -> None:
        self.path = path
        self.config = config
        self.store = store
        self.vector_key = vector_key(store, self.embedding_model_id, allow_model_change)
        """The ``provider:model`` key vectors are read and written under (see :mod:`kgrag.models.binding`)."""
        self._llm_factory = llm_factory
        self._estimate_llm = estimate_llm
        self.llm_notes: list[str] = []
        """What fitting the LLM work to the server's context window changed (see :mod:`kgrag.models.llm.setup`)."""
        self._embedder_factory = embedder_factory or self._configured_embedder
        self._llm: LLMClient | None = None
        self._extraction_fitted = False
        self._examples_decided = False
        self.registries = registries or Registries()
        """One registry per kind for this workspace (``kgrag.workspace.kinds`` has a typed accessor each):
        what code registers here is used by every part this workspace builds, and by no other workspace."""
        if index_registries is not None:
            index_registries.adopt_into(self.registries)

    # Built on first use, like the models: the indexing and retrieval layers (and NumPy, igraph) load only
    # in commands that index or query, so `kgrag status` or `kgrag cost` opens a workspace in a fraction
    # of the time. Building them later changes nothing else: they hold no state until used.
    @cached_property
    def pipelines(self) -> Registry[PipelineFactory]:
        """This workspace's retrieval pipelines (the retrieval layer loads only when they are first asked for)."""
        from kgrag.retrieval.pipelines import PIPELINES

        return self.registries.get(PIPELINES)

    @cached_property
    def index_registries(self) -> IndexRegistries:
        """This workspace's indexing stages, pipelines, extractors and summarisers (built-ins, plug-ins,
        and whatever code registers here; other workspaces do not see those)."""
        from kgrag.indexing import IndexRegistries

        return IndexRegistries.of(self.registries)

    @cached_property
    def query_context(self) -> QueryContext:
        """What every query reads: store, config, models and the hot indexes (one per workspace)."""
        from kgrag.retrieval import QueryContext

        return QueryContext(
            self.store,
            self.config,
            model_id=self.vector_key,
            embedder=self.embedder,
            llm=self.llm,
            sentence_vectors=self.sentence_vectors_on,
            registries=self.registries,  # pipelines, resources and the reranker come from this workspace's
        )

    def sentence_vectors_on(self) -> bool:
        """``embedding.sentence_vectors`` resolved: ``auto`` is on when the stored chunks (at quantile
        ``LARGE_CHUNK_SHARE`` of their token counts; the configured chunk size while none are stored)
        exceed the embedder's window, read from the database when it is known."""
        from kgrag.documents.chunking import LARGE_CHUNK_SHARE, wants_sentence_vectors

        setting = self.config.embedding.sentence_vectors
        if isinstance(setting, bool):
            return setting
        stored = self.store.chunks.token_quantile(LARGE_CHUNK_SHARE)
        size = stored if stored is not None else self.chunk_plan()[0].size
        window_text = self.store.meta.get(META_WINDOW)
        window = int(window_text) if window_text else self.embedder().window_tokens
        return wants_sentence_vectors(setting, size, window)

    def rerank_resources(self) -> RerankResources:
        """What a reranker may use (see :func:`kgrag.retrieval.resources.reranker.rerank_resources`)."""
        from kgrag.retrieval.resources.reranker import rerank_resources

        return rerank_resources(self.query_context)

    def eval_service(self, querying: Querying) -> EvalService:
        """The evaluation service over these parts, ``querying`` and this workspace's registries."""
        from kgrag.evaluation.service import EvalService

        return EvalService(self, querying, self.registries)

    def tuning_service(self, querying: Querying) -> TuningService:
        """The tuning service over these parts, ``querying`` and this workspace's registries."""
        from kgrag.tuning import TuningService
        from kgrag.workspace.prompt_dir import WORKSPACE_PROMPTS

        return TuningService(self, querying, self.registries, self.path / WORKSPACE_PROMPTS)

    # -- models ----------------------------------------------------------------------------------
    @property
    def embedding_model_id(self) -> str:
        """Provider and model, as recorded in the database next to the vectors they produced."""
        return f"{self.config.embedding.provider}:{self.config.embedding.model}"

    def embedder(self) -> KeyedEmbedder:
        """The embedder, keyed by ``provider:model``; the model itself loads on first use."""
        return self._keyed_embedder

    @cached_property
    def _keyed_embedder(self) -> KeyedEmbedder:
        from kgrag.models.embeddings import KeyedEmbedder

        return KeyedEmbedder(self.vector_key, self._embedder_factory)

    def _configured_embedder(self) -> Embedder:
        from kgrag.models.embeddings import EMBEDDERS, create_embedder

        embedder = create_embedder(self.config.embedding, self.registries.get(EMBEDDERS))
        threshold = self.config.embedding.agreement_min_cosine
        bind_model(self.store, embedder, self.embedding_model_id, self.vector_key, threshold)
        return embedder

    def record_model(self, embedder: Embedder) -> None:
        """Make ``embedder`` the workspace's recorded model (checked on every open)."""
        record_model(self.store, embedder, self.embedding_model_id)

    def check_embedding_model(self) -> None:
        """Opening a workspace with another model than its vectors were made with is a user error; another
        backend of the same model is accepted here and verified when it loads."""
        recorded = self.store.meta.get(META_MODEL)
        if recorded is not None and recorded != self.vector_key:
            raise mismatch_error(recorded, self.embedding_model_id)

    def llm(self) -> LLMClient:
        """One LLM client per workspace object: one response cache, one usage ledger and one run id for
        everything it does (a CLI command = one run). ``available`` is False for ``none``."""
        if self._llm is None:
            if self._llm_factory is not None:
                self._llm = self._llm_factory()
            else:
                from kgrag.models.llm.setup import configured_client

                def assumptions(config: KgragConfig) -> EstimateAssumptions:  # only an estimate loads indexing
                    from kgrag.indexing.estimate_assumptions import estimate_assumptions_for

                    return estimate_assumptions_for(config, self.store, self.registries)

                # the config is replaced by the one fitted to the server's window: every part built after
                # this (extractor, summariser, answer step) sizes its requests to fit
                self._llm, self.config, self.llm_notes = configured_client(
                    self.config, self.store, self.registries, estimate=assumptions if self._estimate_llm else None
                )
        return self._llm

    def llm_for_indexing(self) -> LLMClient | None:
        """:meth:`llm_if_configured`, with ``llm.prompt_examples = "auto"`` decided first (the model probed
        once when no verdict is stored): what indexing takes before its extraction and report calls, the
        prompts the probe sizes. Queries never probe; a client made by a factory or an estimate is left as
        it is."""
        client = self.llm_if_configured()
        if client is not None and not self._examples_decided and self._llm_factory is None and not self._estimate_llm:
            from kgrag.models.llm.prompt_examples import decide_prompt_examples

            decide_prompt_examples(client, self.config)
            self._examples_decided = True
        return client

    def llm_for_extraction(self) -> LLMClient | None:
        """:meth:`llm_for_indexing`, with the config also fitted to graph extraction's requests (once): what
        an indexing run takes, since it may extract; queries never pay for the extraction pre-flight."""
        client = self.llm_for_indexing()
        if client is not None and not self._extraction_fitted:
            from kgrag.graph.extract.preflight import fit_for_extraction

            self.config, notes = fit_for_extraction(self.config)
            self.llm_notes.extend(notes)
            self._extraction_fitted = True
        return client

    def llm_if_configured(self) -> LLMClient | None:
        """The client when a provider other than ``none`` is configured (stages then take the LLM path)."""
        return self.llm() if self.config.llm.provider != "none" else None

    def llm_created(self) -> LLMClient | None:
        """The client if something already created it (bookkeeping must not create one)."""
        return self._llm

    def prices(self) -> Prices:
        from kgrag.models.llm import Prices

        llm = self.config.llm
        return Prices(llm.price_prompt_per_1m, llm.price_completion_per_1m, llm.batch_price_share)

    # -- indexing parts --------------------------------------------------------------------------
    def chunk_plan(self) -> tuple[ChunkPlan, list[str]]:
        """Chunk size and overlap; the default follows the embedder's window (read from the database
        when known, so unchanged re-runs need not load the model)."""
        from kgrag.documents import TokenCounter, resolve_chunk_sizes
        from kgrag.indexing import ChunkPlan

        window_text = self.store.meta.get(META_WINDOW)
        window = int(window_text) if window_text else None
        if window is None and self.config.chunking.size_tokens is None:
            window = self.embedder().window_tokens
        size, overlap, warnings = resolve_chunk_sizes(self.config.chunking, window)
        return ChunkPlan(size, overlap, TokenCounter.for_encoding(self.config.chunking.encoding)), warnings

    def extractor(self, progress: Progress | None = None) -> Extractor | None:
        """The graph extractor ``graph.extractor`` asks for (None: build no graph)."""
        from kgrag.graph.extract.choose import create_extractor

        registry = self.index_registries.extractors
        client = self.llm_for_extraction()  # first: it may fit the config to the server's window
        return create_extractor(self.config, client, progress or SilentProgress(), registry)

    def summarizer(self) -> Summarizer:
        """Shortens merged entity/relation descriptions past ``graph.max_description_tokens``."""
        from kgrag.graph.extract.choose import create_summarizer

        client = self.llm_if_configured()  # first: it may fit the config to the server's window
        return create_summarizer(self.config, client, self.index_registries.summarizers)

    # -- variants and lifecycle ------------------------------------------------------------------
    def for_estimate(self) -> Components:
        """The same workspace with an estimating LLM (nothing is sent; cached replies count as free) and a
        hashing embedder of the recorded dimension (vectors are not what is being estimated). Use it
        inside ``store.dry_run()``."""
        from kgrag.models.embeddings import FakeEmbedder
        from kgrag.models.llm.profile_store import save_profile

        if self._llm is not None:  # what this workspace's client learnt (examples or compact prompts) so far
            with self.store.transaction():
                save_profile(self._llm, self.store.meta)
        dimension = self.store.meta.get(META_DIMENSION)
        return Components(
            self.path,
            self.config,
            self.store,
            embedder_factory=lambda: FakeEmbedder(int(dimension) if dimension else 64),
            registries=self.registries,  # the same stages, extractors, pipelines... as this workspace
            estimate_llm=True,  # nothing is sent; sizes follow the stored server profile
        )

    def close(self, *, store: bool = True) -> None:
        """Close the LLM client and (unless ``store`` is False: a variant sharing it) the store."""
        if self._llm is not None:
            from kgrag.models.llm.profile_store import save_profile

            try:
                save_profile(self._llm, self.store.meta)
            finally:
                self._llm.close()
        if store:
            self.store.close()
