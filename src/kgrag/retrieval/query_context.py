"""What a retrieval step or an answer strategy may use: the store, the config and a cache of named
query-time resources.

A resource is a :class:`QueryResource`: a name, how to build the value from the context and whether the
value follows the store (rebuilt after a committed write, like the graph snapshot) or lives as long as
the context (the embedding model). Each is declared in its own module under
:mod:`kgrag.retrieval.resources` and registered by name in ``KINDS["query_resource"]``, so a new
resource is a new file and one registration line, and code (or a plug-in) can replace one by registering
another under its name. :class:`QueryContext` builds each one on first use, exactly once even when many
threads ask at the same time (:class:`~kgrag.core.lazy.Lazy`, :class:`~kgrag.core.hot.HotValue`), so a
BM25 query never loads the embedding model and a retrieval-only query never builds an LLM client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from kgrag.config import KgragConfig
from kgrag.core.hot import HotValue
from kgrag.core.lazy import Lazy
from kgrag.core.registries import Registries, RegistryKind
from kgrag.core.registry import Registry
from kgrag.store.base import Store

if TYPE_CHECKING:
    import numpy as np

    from kgrag.graph.index import GraphIndex
    from kgrag.graph.snapshot import GraphSnapshot
    from kgrag.models.embeddings import Embedder
    from kgrag.models.llm import LLMClient
    from kgrag.retrieval.rerank import Reranker

T = TypeVar("T")


@dataclass(frozen=True)
class QueryResource(Generic[T]):
    """A query-time resource: ``build(ctx)`` makes it; ``per_generation`` rebuilds it after each committed
    write (values derived from stored content), otherwise it is built once per context."""

    name: str
    build: Callable[[QueryContext], T]
    per_generation: bool = False


class QueryContext:
    """Store, config and the query-time resources built from them, each created on first use.

    ``model_id`` is the ``provider:model`` key vectors are stored under. ``provided`` holds the values the
    composition root makes itself, by resource name (the embedder bound to the database, the LLM client
    with the workspace's ledger, the ``sentence_vectors`` decision): the context calls each factory at
    most once instead of the resource's own ``build``. ``embedder``, ``llm``, ``reranker`` and
    ``sentence_vectors`` are shorthands for those entries. ``pipelines`` is the workspace's pipeline
    registry, so a routing step can run another pipeline by name. ``registries`` are the workspace's
    registries: the resources build the embedder, LLM client and reranker from them, so what the workspace
    registered is what a query uses (a context made without them owns fresh ones: built-ins and plug-ins).
    ``pipelines`` and ``resources`` default to its ``pipeline`` and ``query_resource`` registries.
    """

    def __init__(
        self,
        store: Store,
        config: KgragConfig,
        *,
        model_id: str,
        embedder: Callable[[], Embedder] | None = None,
        llm: Callable[[], LLMClient] | None = None,
        reranker: Reranker | None = None,
        sentence_vectors: Callable[[], bool] | None = None,
        provided: Mapping[str, Callable[[], Any]] | None = None,
        pipelines: Registry[Any] | None = None,
        resources: Registry[Any] | None = None,
        registries: Registries | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.model_id = model_id
        self.registries = registries if registries is not None else Registries()
        self.pipelines: Registry[Any] = pipelines if pipelines is not None else self.registries.get(_PIPELINES)
        self.resources: Registry[Any] = resources if resources is not None else self.registries.get(QUERY_RESOURCES)
        shorthands: dict[str, Callable[[], Any] | None] = {
            "embedder": embedder,
            "llm": llm,
            "sentence_vectors_on": sentence_vectors,
        }
        if reranker is not None:
            shorthands["reranker"] = lambda: reranker
        self._provided = {**{k: v for k, v in shorthands.items() if v is not None}, **(provided or {})}
        self._held: dict[str, Lazy[Any] | HotValue[Any]] = {}
        self._lock = threading.Lock()

    def get(self, resource: QueryResource[T] | str) -> T:
        """The resource's value (built on first use; per-generation ones rebuilt after a committed write).
        A name is looked up in the ``query_resource`` registry (plug-in resources)."""
        name = resource if isinstance(resource, str) else resource.name
        held = self._held.get(name)
        if held is None:
            held = self._hold(name, resource)
        return cast(T, held.get())

    def created(self, resource: QueryResource[Any] | str) -> bool:
        """Whether the resource was built already (listings and tests ask without building it)."""
        held = self._held.get(resource if isinstance(resource, str) else resource.name)
        return held is not None and (not isinstance(held, Lazy) or held.created)

    def _hold(self, name: str, resource: QueryResource[Any] | str) -> Lazy[Any] | HotValue[Any]:
        with self._lock:
            held = self._held.get(name)
            if held is not None:
                return held
            if name in self._provided:
                held = Lazy(self._provided[name])
            else:
                chosen = self._resolve(name, resource)
                if chosen.per_generation:
                    held = HotValue(lambda: chosen.build(self), lambda: self.store.generation())
                else:
                    held = Lazy(lambda: chosen.build(self))
            self._held[name] = held
            return held

    def _resolve(self, name: str, resource: QueryResource[Any] | str) -> QueryResource[Any]:
        """The registered resource of that name (which may replace the built-in), else the one given."""
        if name in self.resources:
            return cast(QueryResource[Any], self.resources.load(name))
        if isinstance(resource, str):
            self.resources.entry(name)  # fails with the list of known names
        return cast(QueryResource[Any], resource)

    # -- shorthands for what nearly every step reads --------------------------------------------------
    def embedder(self) -> Embedder:
        """The workspace's embedder."""
        return self.get("embedder")

    def llm(self) -> LLMClient:
        """The workspace's LLM client (``available`` is False for provider ``none``)."""
        return self.get("llm")

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector, from the ``query_vectors`` cache when it was asked recently."""
        return self.get("query_vectors").get(text, lambda t: self.embedder().embed([t])[0])

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in the chunking encoding (what context budgets are measured in), remembered
        in the ``token_counts`` cache."""
        return self.get("token_counts").get(text, lambda t: self.get("tokenizer").count(t))

    def graph_snapshot(self) -> GraphSnapshot:
        """The graph of the current store generation: read once, every in-memory form derived from it."""
        return self.get("graph")

    def graph_index(self) -> GraphIndex:
        """The whole graph in memory (possibly empty; graph steps say what to do then)."""
        return self.graph_snapshot().index


QUERY_RESOURCES: RegistryKind[QueryResource[Any]] = RegistryKind("query_resource")
_PIPELINES: RegistryKind[Any] = RegistryKind("pipeline")
"""The pipeline kind (typed as ``PIPELINES`` in :mod:`kgrag.retrieval.pipelines`, which imports this module)."""
"""Named query-time resources (``KINDS["query_resource"]``): built-ins, plug-ins, a workspace's own."""
