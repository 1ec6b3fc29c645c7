"""The whole-chunk ceiling of evidence recall and the miss locations, on hand-made chunks."""

from __future__ import annotations

from kgrag.evaluation.ceiling import MISS_KINDS, ChunkWords, chunk_ceiling, miss_locations

CHUNKS = ChunkWords(
    [
        "Aspirin lowers fever in adults.",
        "Ibuprofen reduces swelling. The dose",
        "is taken twice daily with food.",
        "Paracetamol treats mild pain.",
    ]
)


def test_evidence_across_a_boundary_is_unreachable() -> None:
    evidence = ["Aspirin lowers fever.", "The ibuprofen dose is taken twice daily with food and reduces swelling."]
    ceiling = chunk_ceiling(evidence, CHUNKS, k=5, threshold=0.7)
    assert ceiling is not None
    assert ceiling.reachable == 0.5  # the second sentence straddles chunks 1 and 2
    assert ceiling.best_k == 0.5


def test_best_k_is_limited_by_k() -> None:
    evidence = ["Aspirin lowers fever.", "Paracetamol treats mild pain."]
    one = chunk_ceiling(evidence, CHUNKS, k=1, threshold=0.7)
    two = chunk_ceiling(evidence, CHUNKS, k=2, threshold=0.7)
    assert one is not None and two is not None
    assert (one.reachable, one.best_k, two.best_k) == (1.0, 0.5, 1.0)


def test_no_usable_evidence_gives_none() -> None:
    assert chunk_ceiling(["the of and"], CHUNKS, k=5, threshold=0.7) is None


def test_miss_locations_sort_each_sentence_once() -> None:
    evidence = ["Aspirin lowers fever.", "Paracetamol treats mild pain.", "Ibuprofen is taken twice daily swelling."]
    ranked = ["Ibuprofen reduces swelling. The dose", "Aspirin lowers fever in adults."]
    where = miss_locations(evidence, ranked, CHUNKS, k=1, threshold=0.7)
    assert where == {MISS_KINDS[1]: 1, MISS_KINDS[3]: 1, MISS_KINDS[4]: 1}
