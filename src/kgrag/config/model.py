"""The one configuration model: every section of kgrag.toml under one pydantic-settings class."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from kgrag.config.chunking import ChunkingConfig
from kgrag.config.communities import GLOBAL_KEYS, CommunitiesConfig
from kgrag.config.denoise import DenoiseConfig
from kgrag.config.documents import DocumentsConfig
from kgrag.config.embedding import EmbeddingConfig
from kgrag.config.entry_settings import move_across
from kgrag.config.evaluation import EvaluationConfig
from kgrag.config.generation import GenerationConfig
from kgrag.config.graph import GraphConfig
from kgrag.config.indexing import IndexingConfig
from kgrag.config.llm import LLMConfig
from kgrag.config.rerank import RerankConfig
from kgrag.config.retrieval import RetrievalConfig
from kgrag.config.server import ServerConfig
from kgrag.config.store import StoreConfig


class KgragConfig(BaseSettings):
    """All of kgrag's settings; one instance per workspace."""

    model_config = SettingsConfigDict(
        env_prefix="KGRAG_", env_nested_delimiter="__", extra="forbid", validate_assignment=True
    )

    documents: DocumentsConfig = Field(default=DocumentsConfig(), description="File discovery and reading.")
    chunking: ChunkingConfig = Field(default=ChunkingConfig(), description="Chunking.")
    embedding: EmbeddingConfig = Field(default=EmbeddingConfig(), description="Embedding model.")
    retrieval: RetrievalConfig = Field(default=RetrievalConfig(), description="Retrieval defaults.")
    rerank: RerankConfig = Field(default=RerankConfig(), description="Reranker of pipelines with a rerank step.")
    generation: GenerationConfig = Field(default=GenerationConfig(), description="Answer generation.")
    llm: LLMConfig = Field(default=LLMConfig(), description="Chat LLM.")
    graph: GraphConfig = Field(default=GraphConfig(), description="Knowledge graph construction.")
    communities: CommunitiesConfig = Field(
        default=CommunitiesConfig(), description="Communities, reports, community and global search."
    )
    denoise: DenoiseConfig = Field(default=DenoiseConfig(), description="Graph denoising.")
    indexing: IndexingConfig = Field(default=IndexingConfig(), description="Indexing pipeline.")
    evaluation: EvaluationConfig = Field(default=EvaluationConfig(), description="Evaluation.")
    # NoDecode: KGRAG_STORE may be a URL (the shorthand), which StoreConfig reads itself, not JSON only
    store: Annotated[StoreConfig, NoDecode] = Field(default=StoreConfig(), description="Storage backend.")
    server: ServerConfig = Field(default=ServerConfig(), description="HTTP server (`kgrag serve`).")

    @model_validator(mode="before")
    @classmethod
    def _moved_across_sections(cls, data: Any) -> Any:
        """``communities.global_*`` → ``[retrieval.pipelines.global]``, with the one-line note."""
        moves = {f"global_{key}": f"pipelines.global.{key}" for key in GLOBAL_KEYS}
        return move_across(data, "communities", "retrieval", moves)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        if settings_cls.model_config.get("toml_file"):
            sources.append(TomlConfigSettingsSource(settings_cls))
        return tuple(sources)
