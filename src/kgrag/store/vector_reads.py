"""Reading many stored vectors by text hash without one huge ``IN (...)`` list or one huge result.

Sentence vectors are not rows of their own in the chunk tables, so the indexing stage that looks for
missing ones and the query-time sentence matrix both ask the store for tens of thousands of hashes. They
ask in batches through this one generator, each batch one ``store.vectors.get`` on any backend, and keep
what they need of it (the stage only the hashes, the matrix the vectors).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from kgrag.store.base import Store

HASH_BATCH = 2000
"""Text hashes per ``store.vectors.get`` call."""


def iter_stored_vectors(store: Store, model: str, hashes: Sequence[str]) -> Iterator[tuple[str, np.ndarray]]:
    """(hash, vector) of each of ``hashes`` that has a vector for ``model``, in the order of ``hashes``."""
    for start in range(0, len(hashes), HASH_BATCH):
        batch = hashes[start : start + HASH_BATCH]
        found = store.vectors.get(model, batch)
        yield from ((text_hash, found[text_hash]) for text_hash in batch if text_hash in found)
