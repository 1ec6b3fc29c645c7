"""One question set from the sets of several generators (an LLM's and the LLM-free one, say).

Each generator de-duplicates its own questions; a question of a later set that duplicates one kept from an
earlier set (the same content-word test, :func:`kgrag.evaluation.qgen.checks.is_duplicate`) is dropped and
counted as a duplicate, so the combined set holds no question twice whoever wrote it.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.checks import is_duplicate
from kgrag.evaluation.qgen.generate import QGenResult


def combine(results: Sequence[QGenResult], dedup_threshold: float) -> QGenResult:
    """The questions of every result in order, cross-set duplicates dropped; counts and notes summed."""
    combined = QGenResult()
    kept_words: list[set[str]] = []
    for result in results:
        combined.generated += result.generated
        combined.rejected.update(result.rejected)
        combined.notes.extend(result.notes)
        combined.offered.update(result.offered)
        combined.left_out.update(result.left_out)
        for item in result.items:
            if is_duplicate(item.question, kept_words, dedup_threshold):
                combined.rejected["duplicate"] += 1
                continue
            kept_words.append(content_words(item.question))
            combined.items.append(item)
            if item.id in result.meta:
                combined.meta[item.id] = result.meta[item.id]
    return combined
