"""What the evaluation services need from a workspace, as two small protocols (the workspace's
``Components`` and its query sub-API satisfy them; evaluation never imports the workspace)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from kgrag.config import KgragConfig
    from kgrag.core.context import RetrievalResult
    from kgrag.generation import QueryResponse
    from kgrag.models.embeddings import KeyedEmbedder
    from kgrag.models.llm import LLMClient
    from kgrag.models.rerankers import RerankResources
    from kgrag.retrieval import Pipeline, QueryContext
    from kgrag.store import Store


class Querying(Protocol):
    """The workspace's read path: named pipelines, retrieval and answers over its parts."""

    def pipeline(self, name: str | None = None) -> Pipeline: ...

    def retrieve(self, question: str, pipeline: str | None = None, k: int | None = None) -> RetrievalResult: ...

    def query(self, question: str, pipeline: str | None = None, k: int | None = None) -> QueryResponse: ...

    def require_chunks(self) -> None: ...

    def shared_preparation(self, pipelines: Sequence[str]) -> Callable[[str], float | None] | None: ...


class EvalParts(Protocol):
    """The workspace's parts an evaluation reads (the config is read on every use: fitting the LLM client
    to its server replaces it)."""

    @property
    def config(self) -> KgragConfig: ...

    @property
    def store(self) -> Store: ...

    @property
    def embedding_model_id(self) -> str: ...

    @property
    def query_context(self) -> QueryContext: ...

    def embedder(self) -> KeyedEmbedder: ...

    def llm(self) -> LLMClient: ...

    def llm_if_configured(self) -> LLMClient | None: ...

    def rerank_resources(self) -> RerankResources: ...
