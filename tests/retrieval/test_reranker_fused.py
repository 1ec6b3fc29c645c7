"""The offline default reranker ``fused``: coverage leads, the first-stage signals order inside a level."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kgrag import Workspace
from kgrag.config import RerankConfig
from kgrag.core.context import ContextItem
from kgrag.models.embeddings import FakeEmbedder
from kgrag.models.rerankers import RerankResources
from kgrag.models.rerankers.fused import FusedReranker, FusedWeights, pool_ranks
from kgrag.retrieval.rerank import WordOverlapReranker, create_reranker


def _item(n: int, text: str, **scores: float) -> ContextItem:
    return ContextItem(kind="chunk", id=f"c{n}", text=text, score=0.0, scores=dict(scores))


def test_pool_ranks_orders_present_values_and_puts_the_rest_last() -> None:
    assert pool_ranks([1.0, None, 3.0, 3.0]) == [2, 4, 0, 1]  # ties keep the pool order; None ranks len


def test_passages_without_a_cosine_get_the_stored_one() -> None:
    """A graph-found passage has no dense score; with ``similarities`` it competes on its stored cosine."""
    query = "glioma surgery"
    pool = [
        _item(0, "Glioma surgery is common.", dense=0.3),
        _item(1, "Glioma surgery removes the tumour."),
        _item(2, "Glioma surgery: risks.", bm25=2.0),  # BM25 found it, dense did not: no fill
    ]
    asked: list[list[str]] = []

    def stored(q: str, items: object) -> list[float | None]:
        asked.append([i.id for i in items])  # type: ignore[attr-defined]
        return [0.9]

    assert FusedReranker().rerank(query, list(pool), 1)[0].id == "c0"
    filled = FusedReranker(similarities=stored).rerank(query, list(pool), 1)
    assert filled[0].id == "c1" and asked == [["c1"]]  # only the graph-found passage is looked up


def test_best_sentences_decide_between_passages_of_equal_coverage() -> None:
    """Two passages hold the question's words and the same cosine; the one whose sentences match the
    question better wins once sentence scores are there, and a passage without any keeps its cosine."""
    query = "glioma follow-up imaging"
    pool = [
        _item(0, "Glioma imaging is common. Follow-up visits vary.", dense=0.5),
        _item(1, "Follow-up imaging is needed for glioma.", dense=0.5),
        _item(2, "Glioma follow-up imaging, briefly.", dense=0.5),
    ]
    seen: list[list[str]] = []

    def best_sentences(q: str, items: object) -> list[float | None]:
        seen.append([i.id for i in items])  # type: ignore[attr-defined]
        return [0.2, 0.9, None]

    plain = FusedReranker(FusedWeights(first_stage=0.0, bm25_rank=0.0, dense_rank=0.0))
    assert plain.features(query, pool)[:, 5].tolist() == [0.0, 0.0, 0.0]  # no sentence vectors: column 0
    assert plain.rerank(query, list(pool), 1)[0].id == "c0"  # tie: the incoming order
    with_sentences = replace(plain, sentence_similarities=best_sentences)
    assert with_sentences.features(query, pool)[:, 5].tolist() == [0.2, 0.9, 0.5]  # None → the cosine
    assert [i.id for i in with_sentences.rerank(query, list(pool), 3)] == ["c1", "c2", "c0"]
    assert seen[-1] == ["c0", "c1", "c2"]


def test_registry_passes_the_sentence_scores_through() -> None:
    def best_sentences(q: str, items: object) -> list[float | None]:
        return [None]

    resources = RerankResources(FakeEmbedder, lambda: None, None, best_sentences)  # type: ignore[arg-type,return-value]
    reranker = create_reranker(RerankConfig(fused_sentence=0.3), resources)
    assert isinstance(reranker, FusedReranker)
    assert reranker.sentence_similarities is best_sentences and reranker.weights.sentence == 0.3


def test_coverage_leads_and_first_stage_signals_break_its_ties() -> None:
    query = "adrenal tumors imaging"
    pool = [
        _item(0, "Adrenal glands sit on the kidneys.", dense=0.2),  # 1/3 of the words
        _item(1, "Adrenal tumors are often found on imaging tests.", dense=0.1),  # all words, weak signals
        _item(2, "Imaging of adrenal tumors uses CT and MRI.", dense=0.6, bm25=9.0),  # all words, strong signals
    ]
    ranked = FusedReranker().rerank(query, pool, 3)
    assert [i.id for i in ranked] == ["c2", "c1", "c0"]
    assert ranked[0].scores["rerank"] > ranked[1].scores["rerank"] > ranked[2].scores["rerank"]


def test_a_strong_first_stage_passage_beats_one_more_generic_word() -> None:
    """Coverage alone ranks the passage naming the generic words first; the fused score prefers the one the
    first stage found best in both streams when the coverage gap is one word of several."""
    query = "what are the main types of glioma treatment"
    pool = [
        _item(0, "The main types of cancer treatment are listed.", dense=0.3),  # main, types, treatment
        _item(1, "Glioma treatment often starts with surgery.", dense=0.8, bm25=12.0),  # glioma, treatment
    ]
    assert WordOverlapReranker().rerank(query, list(pool), 1)[0].id == "c0"
    weights = FusedWeights(similarity=0.25, first_stage=0.0, bm25_rank=0.3, dense_rank=0.15)
    assert FusedReranker(weights).rerank(query, list(pool), 1)[0].id == "c1"


def test_zero_weights_are_the_lexical_reranker() -> None:
    pool = [_item(n, t, dense=0.9 - n / 10, bm25=float(n)) for n, t in enumerate(["x y", "y z w", "q", "z x y"])]
    fused = FusedReranker(FusedWeights(0, 0, 0, 0, 0)).rerank("x y z", list(pool), 4)
    lexical = WordOverlapReranker().rerank("x y z", list(pool), 4)
    assert [i.id for i in fused] == [i.id for i in lexical]


def test_registry_default_and_config_weights() -> None:
    resources = RerankResources(FakeEmbedder, lambda: None)  # type: ignore[arg-type,return-value]
    default = create_reranker(RerankConfig(), resources)
    assert isinstance(default, FusedReranker) and default.weights == FusedWeights()
    tuned = create_reranker(RerankConfig(fused_similarity=1.0, fused_bm25_rank=0.0), resources)
    assert isinstance(tuned, FusedReranker) and tuned.weights.similarity == 1.0 and tuned.weights.bm25_rank == 0.0
    with pytest.raises(ValueError, match=r"rerank\.fused\.first_stage"):
        RerankConfig(fused_first_stage=-1)


@given(
    st.lists(
        st.tuples(st.text(max_size=40), st.none() | st.floats(-1, 1), st.none() | st.floats(0, 50)),
        max_size=12,
    ),
    st.text(max_size=30),
    st.integers(0, 15),
)
def test_any_pool_gives_k_distinct_items_from_it(rows: list, query: str, k: int) -> None:
    pool = []
    for n, (text, dense, bm25) in enumerate(rows):
        scores = {name: value for name, value in (("dense", dense), ("bm25", bm25)) if value is not None}
        pool.append(_item(n, text, **scores))
    ranked = FusedReranker().rerank(query, pool, k)
    assert len(ranked) == min(k, len(pool)) and len({i.id for i in ranked}) == len(ranked)


def test_the_workspace_reranker_fills_cosines_from_stored_vectors(graph_ws: Workspace) -> None:
    reranker = graph_ws.components.query_context.get("reranker")
    assert isinstance(reranker, FusedReranker) and reranker.similarities is not None
    result = graph_ws.retrieve("Which rule did the Osprey firmware incident lead to?", "graph-mix-rerank", 5)
    passages = [i for i in result.items if i.kind == "chunk"]
    assert passages and all("rerank" in i.scores for i in passages)
    graph_found = [ContextItem(kind="chunk", id=i.id, text=i.text, score=0.0) for i in passages]  # no dense score
    filled = reranker.fill("Osprey firmware incident", graph_found)
    assert filled is not None and all(isinstance(value, float) for value in filled)
