"""Sentence vectors: stored once at indexing when configured, read back per passage at query time, and
the best-sentence cosine the ``fused`` reranker adds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import SAMPLE_DOCS
from tests.graph_io.conftest import write_lightrag_graphml
from tests.helpers import add_document

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.documents.chunking import wants_sentence_vectors
from kgrag.documents.records import content_hash
from kgrag.documents.sentences import sentence_texts
from kgrag.indexing.stages.embed import missing_sentences
from kgrag.models.rerankers.fused import FusedReranker
from kgrag.retrieval.resources.caches import TextCache
from kgrag.retrieval.resources.sentence_matrix import Runs, SentenceMatrix, top_means
from kgrag.retrieval.resources.sentences import passage_sentence_vectors
from kgrag.retrieval.steps.sentence_scores import TOP_SENTENCES, best_sentence_similarities

DOC = SAMPLE_DOCS / "team-platform.md"


def _workspace(path: Path, sentence_vectors: bool) -> Workspace:
    return Workspace.init(
        path, embedding={"provider": "fake", "sentence_vectors": sentence_vectors}, graph={"extractor": "none"}
    )


def _all_sentences(ws: Workspace) -> set[str]:
    return {sentence for chunk in ws.store.chunks.iter_all() for sentence in sentence_texts(chunk.text)}


def test_indexing_embeds_every_sentence_once_and_only_when_asked(tmp_path: Path) -> None:
    with _workspace(tmp_path / "on", True) as ws:
        first = ws.index([DOC])
        sentences = _all_sentences(ws)
        model = ws.components.vector_key
        stored = ws.store.vectors.get(model, [content_hash(s) for s in sentences])
        assert len(sentences) > 5 and len(stored) == len(sentences)
        assert missing_sentences(ws.store, model) == []
        chunks = ws.store.chunks.count()
        assert first.texts_embedded >= chunks + len(sentences) - 1  # a one-sentence chunk shares its hash
        assert ws.index([DOC]).texts_embedded == 0  # resumable: nothing is embedded twice
    with _workspace(tmp_path / "off", False) as ws:
        ws.index([DOC])
        sentences = _all_sentences(ws)
        assert len(ws.store.vectors.get(ws.components.vector_key, [content_hash(s) for s in sentences])) < len(
            sentences
        )


def test_turning_sentence_vectors_on_later_embeds_only_the_sentences(tmp_path: Path) -> None:
    with _workspace(tmp_path / "ws", False) as ws:
        ws.index([DOC])
    ws = Workspace.open(
        tmp_path / "ws", embedding={"provider": "fake", "sentence_vectors": True}, graph={"extractor": "none"}
    )
    with ws:
        report = ws.index([DOC])
        assert report.chunks_written == 0 and report.texts_embedded > 0
        assert missing_sentences(ws.store, ws.components.vector_key) == []


def test_best_sentence_similarity_is_the_mean_of_the_best_two(tmp_path: Path) -> None:
    with _workspace(tmp_path / "ws", True) as ws:
        ws.index([DOC])
        env = ws.components.query_context
        chunk = next(c for c in ws.store.chunks.iter_all() if len(sentence_texts(c.text)) > TOP_SENTENCES)
        items = [
            ContextItem(kind="chunk", id=chunk.id, text=chunk.text, score=0.0),
            ContextItem(kind="entity", id="e", text="Platform team", score=0.0),
            ContextItem(kind="chunk", id="x", text="A passage that was never indexed at all.", score=0.0),
        ]
        query = "Who leads the Platform team?"
        scores = best_sentence_similarities(items, env, query)
        sentences = sentence_texts(chunk.text)
        cosines = env.embedder().embed(sentences) @ env.embed_query(query)
        assert scores[0] == pytest.approx(float(np.sort(cosines)[-TOP_SENTENCES:].mean()), abs=1e-5)
        assert scores[1] is None and scores[2] is None


def test_without_stored_sentences_every_score_is_none(sample_ws: Workspace) -> None:
    env = sample_ws.components.query_context
    chunk = next(sample_ws.store.chunks.iter_all())
    item = ContextItem(kind="chunk", id=chunk.id, text=chunk.text, score=0.0)
    assert best_sentence_similarities([item], env, "platform") == [None]


def test_text_cache_get_many_computes_only_the_missing_in_one_call() -> None:
    cache: TextCache[int] = TextCache(3)
    calls: list[list[str]] = []

    def lengths(texts: list[str]) -> list[int]:
        calls.append(texts)
        return [len(t) for t in texts]

    assert cache.get_many(["a", "bb", "a"], lengths) == [1, 2, 1]
    assert cache.get_many(["bb", "ccc", "dddd"], lengths) == [2, 3, 4]
    assert calls == [["a", "bb"], ["ccc", "dddd"]]
    assert len(cache) == 3  # "a", the least recently used, was dropped
    assert cache.get_many(["a"], lengths) == [1] and calls[-1] == ["a"]


def test_the_configured_reranker_reads_sentence_scores_only_when_they_are_stored(tmp_path: Path) -> None:
    with _workspace(tmp_path / "on", True) as on, _workspace(tmp_path / "off", False) as off:
        on.index([DOC])
        off.index([DOC])
        assert off.components.rerank_resources().sentence_similarities is None
        reranker = on.components.query_context.get("reranker")
        assert isinstance(reranker, FusedReranker) and reranker.sentence_similarities is not None
        question = "Who leads the Platform team?"
        pool = [i for i in on.retrieve(question, "hybrid", 10).items if i.kind == "chunk"]
        features = reranker.features(question, pool)
        assert features.shape == (len(pool), 6) and (features[:, 5] != 0).all()
        assert [i.id for i in on.retrieve(question, "rerank", 3).items]  # the pipeline runs with them


def _naive_means(matrix: SentenceMatrix, chunk_ids: list[str], query: np.ndarray) -> list[float]:
    return [float(np.sort(matrix.vectors[matrix.rows[c]] @ query)[-2:].mean()) for c in chunk_ids]


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.integers(0, 7), min_size=1, max_size=12), seed=st.integers(0, 2**16))
def test_all_means_matches_a_chunk_by_chunk_loop(lengths: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((max(1, sum(lengths)), 8)).astype(np.float32)
    rows = {f"c{i}": rng.integers(0, len(vectors), size=n) for i, n in enumerate(lengths)}
    matrix = SentenceMatrix(vectors, rows)
    query = rng.standard_normal(8).astype(np.float32)
    assert matrix.chunk_ids == [chunk_id for chunk_id, n in zip(rows, lengths, strict=True) if n]
    assert [matrix.position[c] for c in matrix.chunk_ids] == list(range(len(matrix.chunk_ids)))
    expected = _naive_means(matrix, matrix.chunk_ids, query)
    assert list(matrix.all_means(query, 2)) == pytest.approx(expected, abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(
    runs=st.lists(st.lists(st.floats(-50, 50), max_size=6), min_size=1, max_size=10),
    top=st.integers(1, 4),
)
def test_top_means_takes_the_largest_values_of_each_run(runs: list[list[float]], top: int) -> None:
    lengths = np.array([len(run) for run in runs], dtype=np.int64)
    values = np.array([v for run in runs for v in run], dtype=np.float64)
    expected = [float(np.mean(sorted(run)[-top:])) if run else 0.0 for run in runs]
    assert list(top_means(values, Runs.of(lengths), top)) == pytest.approx(expected, abs=1e-9)


def test_the_sentence_matrix_scores_as_reading_each_passage_does(tmp_path: Path) -> None:
    with _workspace(tmp_path / "ws", True) as ws:
        ws.index([DOC])
        env = ws.components.query_context
        matrix = env.get("sentence_matrix")
        chunks = list(ws.store.chunks.iter_all())
        assert matrix.complete and set(matrix.rows) == {c.id for c in chunks}
        assert len(matrix.vectors) == len(_all_sentences(ws))  # one row per distinct sentence
        items = [ContextItem(kind="chunk", id=c.id, text=c.text, score=0.0) for c in chunks]
        query = "Who leads the Platform team?"
        from_matrix = best_sentence_similarities(items, env, query)
        by_text = [
            float(np.sort(m @ env.embed_query(query))[-2:].mean())
            for m in passage_sentence_vectors(env, [c.text for c in chunks])
        ]
        assert from_matrix == pytest.approx(by_text, abs=1e-5)


def test_a_corpus_over_the_row_cap_is_scored_passage_by_passage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kgrag.retrieval.resources.sentence_matrix.MAX_SENTENCE_ROWS", 3)
    with _workspace(tmp_path / "ws", True) as ws:
        ws.index([DOC])
        env = ws.components.query_context
        assert not env.get("sentence_matrix").complete and not env.get("sentence_matrix").rows
        chunk = next(c for c in ws.store.chunks.iter_all() if len(sentence_texts(c.text)) > TOP_SENTENCES)
        scores = best_sentence_similarities(
            [ContextItem(kind="chunk", id=chunk.id, text=chunk.text, score=0.0)], env, "team"
        )
        assert scores[0] is not None


def test_the_sentence_matrix_follows_the_index(tmp_path: Path) -> None:
    with _workspace(tmp_path / "ws", True) as ws:
        ws.index([DOC])
        env = ws.components.query_context
        before = set(env.get("sentence_matrix").rows)
        ws.index([SAMPLE_DOCS])
        after = env.get("sentence_matrix")
        assert before < set(after.rows) == {c.id for c in ws.store.chunks.iter_all()}


@pytest.mark.parametrize(
    ("setting", "size", "window", "expected"),
    [
        ("auto", 480, 256, True),
        ("auto", 204, 256, False),
        ("auto", 480, None, False),
        (True, 100, 256, True),
        (False, 480, 256, False),
    ],
)
def test_auto_sentence_vectors_follow_the_chunk_size(
    setting: bool | str, size: int, window: int | None, expected: bool
) -> None:
    assert wants_sentence_vectors(setting, size, window) is expected


def test_auto_embeds_sentences_only_for_chunks_larger_than_the_window(tmp_path: Path) -> None:
    fake = {"provider": "fake", "window_tokens": 64}
    with Workspace.init(
        tmp_path / "big", embedding=fake, chunking={"size_tokens": 120}, graph={"extractor": "none"}
    ) as ws:
        ws.index([DOC])
        assert ws.components.sentence_vectors_on() and missing_sentences(ws.store, ws.components.vector_key) == []
        assert ws.components.rerank_resources().sentence_similarities is not None
    with Workspace.init(tmp_path / "default", embedding=fake, graph={"extractor": "none"}) as ws:
        ws.index([DOC])
        assert not ws.components.sentence_vectors_on()
        assert ws.components.rerank_resources().sentence_similarities is None
        assert missing_sentences(ws.store, ws.components.vector_key)  # none were embedded


def test_an_excerpt_is_scored_by_its_own_sentences_not_its_chunks(tmp_path: Path) -> None:
    with _workspace(tmp_path / "ws", True) as ws:
        ws.index([DOC])
        env = ws.components.query_context
        chunk = next(c for c in ws.store.chunks.iter_all() if len(sentence_texts(c.text)) > TOP_SENTENCES)
        first = sentence_texts(chunk.text)[0]
        excerpt = ContextItem(kind="chunk", id=chunk.id, text=first, score=0.0, metadata={"excerpt": True})
        query = "Who leads the Platform team?"
        [score] = best_sentence_similarities([excerpt], env, query)
        assert score == pytest.approx(
            float(passage_sentence_vectors(env, [first])[0][0] @ env.embed_query(query)), abs=1e-5
        )


def test_an_index_without_its_sentence_vectors_reranks_as_without_them(tmp_path: Path) -> None:
    """Chunks larger than the window turn sentence vectors on (``auto``); an index built before that has
    none stored, and must rank as it did until ``kgrag index`` embeds them."""
    big = {"size_tokens": 120}
    fake = {"provider": "fake", "window_tokens": 64}
    no_graph = {"extractor": "none"}  # reranking needs no graph; building one would dominate the test
    with Workspace.init(
        tmp_path / "ws", embedding={**fake, "sentence_vectors": False}, chunking=big, graph=no_graph
    ) as ws:
        ws.index([SAMPLE_DOCS])
        question = "Who leads the Platform team?"
        before = [(i.id, round(i.score, 9)) for i in ws.retrieve(question, "rerank", 5).items]
    with Workspace.open(tmp_path / "ws", embedding=fake, chunking=big, graph=no_graph) as ws:  # auto: on, none stored
        assert ws.components.sentence_vectors_on()
        assert [(i.id, round(i.score, 9)) for i in ws.retrieve(question, "rerank", 5).items] == before
        assert ws.index([SAMPLE_DOCS]).texts_embedded > 0  # the next index run embeds the sentences
        assert ws.components.query_context.get("sentence_matrix").usable


def _lightrag_dir(path: Path) -> Path:
    """A LightRAG working directory whose chunks are LightRAG's default 1,200 tokens: the sample pages
    joined and cut every ~900 words (graph: one entity per chunk, as the importer needs a graph file)."""
    words = " ".join((SAMPLE_DOCS / name).read_text(encoding="utf-8") for name in sorted(SAMPLE_FILES)).split()
    chunks = {
        f"chunk-{i}": {
            "tokens": 1200,
            "content": " ".join(words[at : at + 900]),
            "chunk_order_index": i,
            "full_doc_id": "doc-sample",
        }
        for i, at in enumerate(range(0, len(words), 900))
    }
    path.mkdir()
    (path / "kv_store_text_chunks.json").write_text(json.dumps(chunks), encoding="utf-8")
    nodes = [
        {"id": f"Topic {i}", "type": "concept", "description": "A topic.", "source_id": cid}
        for i, cid in enumerate(chunks)
    ]
    write_lightrag_graphml(path / "graph_chunk_entity_relation.graphml", nodes, [])
    return path


SAMPLE_FILES = ("team-platform.md", "team-sre.md", "on-call-handbook.md", "product-osprey.md")


def test_auto_decides_from_the_stored_chunks_so_imported_large_chunks_get_sentence_vectors(tmp_path: Path) -> None:
    """The chunking config would make chunks inside the window, but the imported ones are 1,200 tokens:
    indexing embeds their sentences and queries use them (decided the same way at both ends)."""
    fake = {"provider": "fake", "window_tokens": 256}
    with Workspace.init(tmp_path / "ws", embedding=fake, graph={"extractor": "none"}) as ws:
        assert ws.components.chunk_plan()[0].size <= 256 and not ws.components.sentence_vectors_on()  # empty
        ws.graph.import_lightrag(_lightrag_dir(tmp_path / "lightrag"))
        assert ws.store.chunks.token_quantile(0.9) == 1200
        assert ws.components.sentence_vectors_on()
        report = ws.index([DOC])  # embeds the imported chunks, their sentences and the new document's
        assert missing_sentences(ws.store, ws.components.vector_key) == []
        assert report.texts_embedded > ws.store.chunks.count()
    with Workspace.open(tmp_path / "ws", embedding=fake) as ws:
        assert ws.components.rerank_resources().sentence_similarities is not None
        assert ws.components.query_context.get("sentence_matrix").usable


def test_a_few_large_chunks_among_many_small_ones_do_not_turn_it_on(tmp_path: Path) -> None:
    fake = {"provider": "fake", "window_tokens": 64}
    with Workspace.init(tmp_path / "ws", embedding=fake, graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS])  # ~50-token chunks
        small = ws.store.chunks.count()
        assert not ws.components.sentence_vectors_on()
        text = (SAMPLE_DOCS / "team-sre.md").read_text(encoding="utf-8")
        add_document(ws.store, "big", [text] * max(1, small // 20))  # < 10% of the chunks outgrow the window
        assert not ws.components.sentence_vectors_on()
        add_document(ws.store, "bigger", [text + f" Copy {i}." for i in range(small)])  # now half of them do
        assert ws.components.sentence_vectors_on()
