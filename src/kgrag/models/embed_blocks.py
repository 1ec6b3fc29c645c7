"""Texts to vectors in consecutive blocks: how every indexing path (chunks, sentences, graph facts)
calls an embedder, so where the model runs (this process, or an indexing engine's workers) is chosen in
one place, not by the graph layer."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from kgrag.models.embeddings import Embedder

EmbedBlocks = Callable[[Embedder, Sequence[str], int], Iterator[np.ndarray]]
"""(embedder, texts, batch size) → the texts' vectors in order, in consecutive blocks: where the model
runs (an indexing engine's ``compute.embed``); by default inline, one batch at a time."""


def embed_inline(embedder: Embedder, texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
    """The default :data:`EmbedBlocks`: the embedder in this process, ``batch_size`` texts per call."""
    block = max(1, batch_size)
    for start in range(0, len(texts), block):
        yield embedder.embed(list(texts[start : start + block]))
