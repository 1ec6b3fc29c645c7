"""``graph-local`` end to end (NLP extractor on part of the sample corpus, and the stand-in extractor),
query keywords, the empty-graph error, and how a workspace picks its extractor."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor

from kgrag import Workspace
from kgrag.config import load_config
from kgrag.core.errors import KgragError
from kgrag.core.records import DocumentStatus
from kgrag.graph.extract.choose import extractor_mode
from kgrag.indexing import SilentProgress
from kgrag.retrieval import build_pipeline
from kgrag.retrieval.steps.graph_local import query_keywords

DOCS = (
    "team-platform.md",
    "leadership-and-org-chart.md",
    "shale-storage-layer.md",
    "product-kestrel.md",
    "incident-inc-2024-031.md",
    "team-sre.md",
)


@pytest.fixture(scope="module")
def nlp_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    pytest.importorskip("spacy")
    root = tmp_path_factory.mktemp("graph-local")
    docs = root / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    # A budget no result reaches: these tests look at the search itself (tests/retrieval cover the budget).
    ws = Workspace.init(
        root / "ws", embedding={"provider": "fake"}, graph={"extractor": "nlp"}, retrieval={"context_tokens": 100_000}
    )
    progress = SilentProgress()
    report = ws.index([docs], progress)
    assert report.chunks_extracted == ws.store.chunks.count() > 0, progress.notes
    yield ws
    ws.close()


def test_nlp_graph_is_built_during_indexing(nlp_ws: Workspace) -> None:
    counts = nlp_ws.store.graph.counts()
    assert counts["entities"] > 100 and counts["relations"] > 100 and counts["chunks_failed"] == 0
    assert nlp_ws.store.documents.count_by_status() == {DocumentStatus.INDEXED.value: len(DOCS)}
    rui = nlp_ws.store.graph.entity_by_key("rui carvalho")
    assert rui is not None and rui.type == "person" and rui.description
    assert nlp_ws.status()["graph"]["entities"] == counts["entities"]


def test_graph_local_returns_chunks_entities_and_relations(nlp_ws: Workspace) -> None:
    result = nlp_ws.retrieve("Who leads the Platform team?", pipeline="graph-local", k=4)
    kinds = [item.kind for item in result.items]
    assert kinds.count("chunk") == 4 and "entity" in kinds and "relation" in kinds
    chunks = [item for item in result.items if item.kind == "chunk"]
    assert all(item.text and item.doc_id for item in chunks)  # hydrated
    assert any("Platform" in item.text for item in chunks)
    assert chunks[0].score >= chunks[-1].score  # ranked by provenance count
    names = {item.metadata["name"] for item in result.items if item.kind == "entity"}
    assert "Platform team" in names or "Platform Team" in names
    known = {c.id for c in nlp_ws.store.chunks.iter_all()}
    for item in result.items:
        assert item.chunk_ids and set(item.chunk_ids) <= known
        assert item.text
    step = result.trace[0]
    assert step.step == "graph_local" and "Platform team" in step.params["keywords"]


def test_graph_local_after_reindex_and_removal(nlp_ws: Workspace) -> None:
    again = nlp_ws.index([Path(nlp_ws.store.documents.list()[0].source).parent])
    assert not again.did_work
    before = nlp_ws.store.graph.counts()["entities"]
    source = next(d.source for d in nlp_ws.store.documents.list() if d.source.endswith("team-sre.md"))
    nlp_ws.remove([source])
    assert 0 < nlp_ws.store.graph.counts()["entities"] < before
    result = nlp_ws.retrieve("Who leads the Platform team?", pipeline="graph-local")
    assert all(not item.doc_id or item.doc_id != source for item in result.items)


def test_graph_local_with_another_extractor(fake_ws: Workspace, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, docs, ignore=lambda d, names: [n for n in names if n not in DOCS])
    index_with_word_extractor(fake_ws, [docs])
    fake_ws.config.retrieval.context_tokens = 100_000  # the search itself, not the budget
    result = fake_ws.retrieve("What does Shale store for Kestrel?", pipeline="graph-local", k=3)
    assert [i.kind for i in result.items].count("chunk") == 3
    entities = [item.metadata["name"] for item in result.items if item.kind == "entity"]
    assert "Shale" in entities[:3] and "Kestrel" in entities[:3]  # names typed in the query come first


def test_empty_graph_says_what_to_do(fake_ws: Workspace) -> None:
    with pytest.raises(KgragError, match="kgrag index"):
        fake_ws.retrieve("anything", pipeline="graph-local")
    pipeline = build_pipeline(fake_ws.pipelines, "graph-local", fake_ws.config)
    assert pipeline.requires == frozenset({"graph"})


def test_query_keywords() -> None:
    keywords = query_keywords("Who leads the Platform team at Tessellate Systems?")
    assert keywords[0] in {"Platform team", "Tessellate Systems"}
    assert {"leads", "Platform", "team", "Tessellate"} <= set(keywords)
    assert "Who" not in keywords and "the" not in keywords
    assert query_keywords("") == []


@pytest.mark.parametrize(
    ("graph", "provider", "expected"),
    [
        ("auto", "none", "nlp"),
        ("auto", "scripted", "llm"),
        ("llm", "none", "nlp"),
        ("llm", "scripted", "llm"),
        ("nlp", "scripted", "nlp"),
        ("none", "scripted", "none"),
    ],
)
def test_extractor_choice(graph: str, provider: str, expected: str) -> None:
    progress = SilentProgress()
    config = load_config(None, graph={"extractor": graph}, llm={"provider": provider})
    assert extractor_mode(config, progress) == expected
    assert bool(progress.notes) == (graph == "llm" and provider == "none")


def test_workspace_extractor(tmp_path: Path) -> None:
    with Workspace.init(tmp_path / "a", embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        assert ws.components.extractor() is None
    with Workspace.init(tmp_path / "b", embedding={"provider": "fake"}, graph={"extractor": "llm"}) as ws:
        progress = SilentProgress()
        extractor = ws.components.extractor(progress)
        assert extractor is not None and extractor.name.startswith("nlp:") and progress.notes


def test_eval_separates_graph_context_from_chunks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """graph-local returns descriptions on top of its chunks: the report shows both recalls and the size."""
    from kgrag.core.context import ContextItem, RetrievalResult
    from kgrag.evaluation import evaluate_retrieval
    from kgrag.evaluation.datasets import QAItem

    def retrieve(question: str, pipeline: str, k: int) -> RetrievalResult:
        items = [ContextItem("chunk", "c1", "Osprey sensors report every fifteen minutes.", 1.0, ["c1"])]
        if pipeline == "graph":
            items.append(ContextItem("entity", "e1", "Kestrel (product): Kestrel ingests telemetry.", 0.5, ["c2"]))
        return RetrievalResult(pipeline, question, items)

    item = QAItem(
        "q",
        "What does Kestrel ingest?",
        "telemetry",
        "Fact Retrieval",
        ["Kestrel ingests telemetry.", "Osprey sensors report every fifteen minutes."],
    )
    report = evaluate_retrieval([item], ["plain", "graph"], 5, 0.7, retrieve)
    assert report.table()["graph"]["All"] == 1.0 and report.table("chunk_recall")["graph"]["All"] == 0.5
    tokens = report.mean_context_tokens()
    assert tokens["graph"] > tokens["plain"]
