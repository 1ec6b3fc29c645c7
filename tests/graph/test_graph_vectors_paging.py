"""Entity (and relation) vectors are computed page by page, so the embed-graph stage's memory follows the
page, not the graph: the same vectors whatever the page size, never a read of the whole graph at once,
duplicate texts embedded once, and a resumed run embeds only what is missing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS
from tests.graph.graph_fakes import WordExtractor

from kgrag import Workspace
from kgrag.core.graph_records import EntityRecord
from kgrag.graph.build import vectors
from kgrag.graph.build.builder import build_graph
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.graph.texts import entity_text
from kgrag.indexing import SilentProgress
from kgrag.models.embed_blocks import embed_inline
from kgrag.models.embeddings import Embedder, FakeEmbedder


@pytest.fixture(scope="module")
def graph_ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """The sample corpus with a word-extractor graph and no graph vectors yet."""
    path = tmp_path_factory.mktemp("paging") / "ws"
    ws = Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"})
    ws.index([SAMPLE_DOCS])
    build_graph(ws.store, WordExtractor(), ExtractiveSummarizer(60), SilentProgress())
    return ws


def _fake(name: str) -> FakeEmbedder:
    """A hashing embedder under its own model name, so each test starts with no vectors."""
    embedder = FakeEmbedder(dimension=8)
    embedder.name = name
    return embedder


def _vectors(ws: Workspace, model: str) -> dict[str, np.ndarray]:
    from kgrag.documents import content_hash

    texts = [entity_text(e) for e in ws.store.graph.entities()]
    return ws.store.vectors.get(model, [content_hash(t) for t in texts])


@pytest.mark.parametrize("page", [1, 7, 100_000])
def test_page_size_changes_no_vector(graph_ws: Workspace, page: int, monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = _fake(f"fake-page-{page}")
    whole = _fake(f"fake-page-reference-{page}")
    distinct = len({entity_text(e) for e in graph_ws.store.graph.entities()})
    assert vectors.embed_graph(graph_ws.store, whole) == distinct  # the reference, default pages
    monkeypatch.setattr(vectors, "PAGE", page)
    assert vectors.embed_graph(graph_ws.store, embedder) == distinct
    got, reference = _vectors(graph_ws, embedder.name), _vectors(graph_ws, whole.name)
    assert got.keys() == reference.keys() and len(got) == distinct
    assert all(np.array_equal(got[h], reference[h]) for h in got)
    assert vectors.embed_graph(graph_ws.store, embedder) == 0  # nothing missing: nothing embedded


def test_the_whole_graph_is_never_read_at_once(graph_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "PAGE", 5)
    reads: list[int | None] = []
    original = graph_ws.store.graph.entities

    def counting(ids: Sequence[str] | None = None) -> list[EntityRecord]:
        reads.append(None if ids is None else len(ids))
        return original(ids)

    monkeypatch.setattr(graph_ws.store.graph, "entities", counting)
    embedded = vectors.embed_graph(graph_ws.store, _fake("fake-reads"), with_relations=True)
    assert embedded > 0 and reads
    assert None not in reads  # no unbounded read
    assert max(n for n in reads if n is not None) <= 2 * 5  # a page of relations reads at most both endpoints


def test_an_interrupted_run_embeds_only_the_rest(graph_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "PAGE", 4)
    embedder = _fake("fake-resume")
    calls = 0

    def dying(inner: Embedder, texts: Sequence[str], batch_size: int) -> Iterator[np.ndarray]:
        nonlocal calls
        for block in embed_inline(inner, texts, batch_size):
            calls += 1
            if calls > 3:
                raise KeyboardInterrupt
            yield block

    with pytest.raises(KeyboardInterrupt):
        vectors.embed_graph(graph_ws.store, embedder, batch_size=2, embed=dying)
    total = len({entity_text(e) for e in graph_ws.store.graph.entities()})
    assert vectors.embed_graph(graph_ws.store, embedder) == total - 3 * 2  # three committed blocks of two
