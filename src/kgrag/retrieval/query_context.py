"""Everything a retrieval step or an answer strategy may use, typed, created lazily and shared safely.

One :class:`QueryContext` per workspace serves every query, from any number of threads. Expensive
resources are created on first use and exactly once (:class:`~kgrag.core.lazy.Lazy`), so a BM25 query
never loads the embedding model and a retrieval-only query never builds an LLM client. Indexes derived
from the store are :class:`~kgrag.core.hot.HotValue` s, reloaded only after a committed write. A new
resource is a new typed attribute here, never a string-keyed extra that every reader must cast.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from kgrag.communities.index import CommunityIndex, load_community_index
from kgrag.config import KgragConfig
from kgrag.core.hot import HotValue
from kgrag.core.lazy import Lazy
from kgrag.core.registry import Registry
from kgrag.documents import TokenCounter
from kgrag.graph.index import GraphIndex, load_graph_index
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient
from kgrag.retrieval.rerank import Reranker
from kgrag.retrieval.sentence_matrix import SentenceMatrix
from kgrag.store.base import Store

if TYPE_CHECKING:  # igraph (and its matplotlib drawing) loads only when a graph pipeline needs it
    import igraph as ig

    from kgrag.graph.analysis.pagerank import VertexPassages
    from kgrag.retrieval.passage_graph import PassageGraph

QUERY_CACHE_SIZE = 2048
SENTENCE_CACHE_CHUNKS = 2048
"""Passages whose sentence vectors are kept (~24 sentences × 1.5 KB each for a 480-token chunk: ≤ ~75 MB);
an evaluation re-reads the same few hundred pool members across questions."""
SENTENCE_MEANS_CACHE = 16
"""Queries whose best-sentence score of every chunk is kept: a query's dense search and its reranker
read the same array (one ~0.7 ms product on Medical's 8.7k sentences instead of two); an array costs 8
bytes a chunk."""
TOKEN_CACHE_SIZE = 4096
"""Texts whose token count is remembered (~2 MB): graph facts recur across questions and pipelines, and
counting one costs ~50 µs of tiktoken, ~3 ms per graph query's budget step on Medical."""
V = TypeVar("V")


class TextCache(Generic[V]):
    """Recent values computed from a text, least recently used dropped first. Locked: an ``OrderedDict``
    reordered by two threads at once can lose or corrupt entries. The computation runs outside the lock,
    so threads with different texts compute in parallel."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[str, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str, compute: Callable[[str], V]) -> V:
        with self._lock:
            cached = self._values.get(text)
            if cached is not None:
                self._values.move_to_end(text)
                return cached
        value = compute(text)
        with self._lock:
            self._values[text] = value
            while len(self._values) > self.size:
                self._values.popitem(last=False)
        return value

    def get_many(self, texts: Sequence[str], compute: Callable[[list[str]], list[V]]) -> list[V]:
        """The values of ``texts``, computing the ones not cached in one ``compute`` call (one store read
        for a whole pool instead of one per text)."""
        with self._lock:
            found = {text: value for text in texts if (value := self._values.get(text)) is not None}
            for text in found:
                self._values.move_to_end(text)
        missing = list(dict.fromkeys(text for text in texts if text not in found))
        if missing:
            computed = dict(zip(missing, compute(missing), strict=True))
            found.update(computed)
            with self._lock:
                self._values.update(computed)
                while len(self._values) > self.size:
                    self._values.popitem(last=False)
        return [found[text] for text in texts]

    def __len__(self) -> int:
        return len(self._values)


class QueryVectorCache(TextCache[np.ndarray]):
    """Recent query vectors (evaluation asks one question of many pipelines)."""

    def __init__(self, size: int = QUERY_CACHE_SIZE) -> None:
        super().__init__(size)


class IGraphView:
    """An igraph graph of the store, the entity id of each vertex and the vertex of each id, the global
    PageRank (node importance for path scoring) and its personalized PageRank (igraph, one OpenMP thread),
    computed once per graph version."""

    def __init__(self, graph: ig.Graph, ids: list[str]) -> None:
        from kgrag.graph.analysis.pagerank import OneThreadPageRank

        self.graph = graph
        self.ids = ids
        self.vertex = {entity_id: v for v, entity_id in enumerate(ids)}
        weights = "weight" if graph.ecount() else None
        ranks = graph.pagerank(weights=weights) if graph.vcount() else []
        top = max(ranks, default=0.0) or 1.0
        self.importance = {entity_id: ranks[v] / top for v, entity_id in enumerate(ids)}
        self.walk = OneThreadPageRank(graph)
        self._passages: tuple[GraphIndex, VertexPassages] | None = None

    def passages(self, index: GraphIndex) -> VertexPassages:
        """The passages each vertex's entity in ``index`` cites (PageRank's scoring back to passages), built
        once per graph index (a race builds it twice: harmless)."""
        held = self._passages
        if held is None or held[0] is not index:
            from kgrag.graph.analysis.pagerank import VertexPassages

            entities = index.entities
            held = (index, VertexPassages.build([e.chunk_ids if (e := entities.get(i)) else () for i in self.ids]))
            self._passages = held
        return held[1]


class QueryContext:
    """Store, config and the query-time resources built from them.

    ``model_id`` is the ``provider:model`` key vectors are stored under. ``embedder`` and ``llm`` are
    factories, called at most once. Chunk vectors are searched by the store
    (``store.vectors.search``), which keeps its own hot matrix or searches server-side;
    ``reranker`` is an explicit reranker (tests, code); otherwise ``reranker_factory`` builds the
    configured one on first use (see :mod:`kgrag.retrieval.rerank`). ``pipelines`` is the workspace's
    pipeline registry, so a routing step can run another pipeline by name (and only offer a route whose
    pipeline is registered). ``sentence_vectors`` tells (once asked) whether the index holds sentence
    vectors, which dense search and the ``fused`` reranker then read (:meth:`sentence_matrix`).
    """

    def __init__(
        self,
        store: Store,
        config: KgragConfig,
        *,
        model_id: str,
        embedder: Callable[[], Embedder],
        llm: Callable[[], LLMClient],
        reranker: Reranker | None = None,
        reranker_factory: Callable[[], Reranker] | None = None,
        pipelines: Registry[Any] | None = None,
        query_cache_size: int = QUERY_CACHE_SIZE,
        sentence_vectors: Callable[[], bool] = lambda: False,
    ) -> None:
        self.store = store
        self.config = config
        self.model_id = model_id
        self.reranker = reranker
        self.pipelines = pipelines
        self._reranker = Lazy(reranker_factory) if reranker_factory is not None else None
        self._embedder = Lazy(embedder)
        self._llm = Lazy(llm)
        self._uses_sentence_vectors = Lazy(sentence_vectors)
        self._graph = HotValue(lambda: load_graph_index(store, model_id, config.store.ann_params()), store.generation)
        self._tokens = Lazy(lambda: TokenCounter.for_encoding(config.chunking.encoding))
        self._igraph = HotValue(lambda: _load_igraph_view(store), store.generation)
        self._passage_graph = HotValue(lambda: _load_passage_graph(self), store.generation)
        self._graph_entities = HotValue(lambda: store.graph.counts()["entities"], store.generation)
        self._communities = HotValue(lambda: load_community_index(store, model_id), store.generation)
        self._vector_count = HotValue(lambda: store.vectors.count(model_id), store.generation)
        self.query_vectors = QueryVectorCache(query_cache_size)
        self._token_counts: TextCache[int] = TextCache(TOKEN_CACHE_SIZE)
        self._passage_sentences: TextCache[list[str]] = TextCache(SENTENCE_CACHE_CHUNKS)
        # Emptied after every committed write, so sentence vectors embedded later are picked up.
        self._sentence_vectors: HotValue[TextCache[np.ndarray]] = HotValue(
            lambda: TextCache(SENTENCE_CACHE_CHUNKS), store.generation
        )
        self._sentence_matrix = HotValue(lambda: SentenceMatrix.load(store, model_id), store.generation)
        # Emptied after every committed write, like the matrix the arrays index into.
        self._sentence_means: HotValue[TextCache[np.ndarray]] = HotValue(
            lambda: TextCache(SENTENCE_MEANS_CACHE), store.generation
        )

    def embedder(self) -> Embedder:
        """The workspace's embedder, created on first call."""
        return self._embedder.get()

    def llm(self) -> LLMClient:
        """The workspace's LLM client (``available`` is False for provider ``none``), created on first call."""
        return self._llm.get()

    @property
    def embedder_created(self) -> bool:
        return self._embedder.created

    @property
    def llm_created(self) -> bool:
        return self._llm.created

    def graph_index(self) -> GraphIndex:
        """The whole graph in memory (possibly empty; graph steps say what to do then)."""
        return self._graph.get()

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` in the chunking encoding (what context budgets are measured in)."""
        return self._token_counts.get(text, self._tokens.get().count)

    def passage_sentences(self, text: str) -> list[str]:
        """``documents.sentences.sentence_texts`` of a passage, remembered: the budget's excerpts split
        the same passages again and again across questions (~0.3 ms per query on Medical)."""
        from kgrag.documents.sentences import sentence_texts

        return self._passage_sentences.get(text, sentence_texts)

    def active_reranker(self) -> Reranker | None:
        """The explicit reranker, else the configured one (created once, on first use), else None."""
        if self.reranker is not None:
            return self.reranker
        return self._reranker.get() if self._reranker is not None else None

    def igraph(self) -> IGraphView:
        """The graph as igraph with the vertex of each entity id, for PageRank and paths; reloaded after a
        committed write like the other hot indexes."""
        return self._igraph.get()

    def passage_graph(self) -> PassageGraph:
        """The igraph graph with a node per passage linked to its entities (``ppr-passages``), built once
        per graph version from :meth:`igraph` and :meth:`graph_index`."""
        return self._passage_graph.get()

    def graph_entities(self) -> int:
        """How many entities the graph has (cheap: cached until the next write)."""
        return self._graph_entities.get()

    def community_index(self) -> CommunityIndex:
        """Community reports with vectors for the workspace's model (possibly empty)."""
        return self._communities.get()

    def vector_count(self) -> int:
        """How many vectors the workspace's model has (cheap: cached until the next write)."""
        return self._vector_count.get()

    def uses_sentence_vectors(self) -> bool:
        """Whether the index holds sentence vectors (``embedding.sentence_vectors`` resolved; decided once)."""
        return self._uses_sentence_vectors.get()

    def sentence_matrix(self) -> SentenceMatrix:
        """Every chunk's stored sentence vectors in one matrix, rows by chunk id (built once per store
        generation; ``complete`` is False for a corpus too large to hold, see :mod:`.sentence_matrix`)."""
        return self._sentence_matrix.get()

    def sentence_means(self, text: str) -> np.ndarray:
        """The mean cosine of every chunk's two best sentences to ``text`` (rows of
        ``sentence_matrix().chunk_ids``), remembered for the last few texts. Call only when the matrix is
        ``usable``."""
        matrix = self.sentence_matrix()
        return self._sentence_means.get().get(text, lambda t: matrix.all_means(self.embed_query(t)))

    def sentence_vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The stored vectors of each passage text's sentences (rows; 0 rows where none are stored), read
        from the store once per passage (``embedding.sentence_vectors`` stores them at indexing)."""
        return self._sentence_vectors.get().get_many(texts, self._read_sentence_vectors)

    def _read_sentence_vectors(self, texts: list[str]) -> list[np.ndarray]:
        from kgrag.documents.records import content_hash
        from kgrag.documents.sentences import sentence_texts

        hashes = [[content_hash(sentence) for sentence in sentence_texts(text)] for text in texts]
        stored = self.store.vectors.get(self.model_id, sorted({h for per_text in hashes for h in per_text}))
        empty = np.zeros((0, 0), dtype=np.float32)
        return [
            np.vstack(rows).astype(np.float32, copy=False)
            if (rows := [stored[h] for h in per_text if h in stored])
            else empty
            for per_text in hashes
        ]

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector, from the cache when it was asked recently."""
        return self.query_vectors.get(text, lambda t: self.embedder().embed([t])[0])


def _load_igraph_view(store: Store) -> IGraphView:
    """The store's graph as igraph; imported here so queries that never walk the graph (bm25, dense,
    status) do not pay igraph's import (~0.4 s, it pulls in matplotlib)."""
    from kgrag.graph.analysis.igraph_view import to_igraph

    return IGraphView(*to_igraph(store))


def _load_passage_graph(ctx: QueryContext) -> PassageGraph:
    from kgrag.retrieval.passage_graph import build_passage_graph

    return build_passage_graph(ctx.igraph(), ctx.graph_index().entities)
