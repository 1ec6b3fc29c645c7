"""A whole workspace on PostgreSQL: the sample corpus indexed there answers like the SQLite workspace, and
``kgrag migrate`` moves a workspace between the two backends with nothing lost."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor
from tests.store.pg_fixture import SchemaUrl
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import load_config

SETTINGS = {"embedding": {"provider": "fake"}, "llm": {"provider": "none"}}
QUESTIONS = (
    "Who leads the Platform team?",
    "Which incident affected the message bus?",
    "What does the ingestion service do with telemetry?",
)

# distinctive keyword queries: a rare name plus a few words of one passage
KEYWORD_QUERIES = (
    "Gatekeeper break-glass accounts",
    "Riffle leak detection",
    "Kestrel release process",
    "post-mortem template",
)


def _top(ws: Workspace, question: str, pipeline: str) -> list[str]:
    return [item.id for item in ws.retrieve(question, pipeline=pipeline, k=5).items]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, pg_schema_url: SchemaUrl) -> Iterator[tuple[Workspace, ...]]:
    """The sample corpus indexed the same way into a SQLite and a PostgreSQL workspace."""
    root = tmp_path_factory.mktemp("pg-e2e")
    lite = Workspace.init(root / "lite", **SETTINGS)
    pg = Workspace.init(root / "pg", store={"backend": "postgresql", "url": pg_schema_url(root / "pg")}, **SETTINGS)
    for ws in (lite, pg):
        index_with_word_extractor(ws, [SAMPLE_DOCS])
    yield lite, pg
    lite.close()
    pg.close()


def test_indexing_stores_the_same_workspace(indexed: tuple[Workspace, Workspace]) -> None:
    lite, pg = indexed
    assert type(pg.store).__name__ == "PostgresStore"
    assert pg.documents.counts() == lite.documents.counts()
    assert pg.status()["chunks"] == lite.status()["chunks"] > 0
    assert pg.graph.counts() == lite.graph.counts()
    assert pg.status()["database_bytes"] > 0


@pytest.mark.parametrize("pipeline", ["dense", "graph-local"])
def test_dense_and_graph_pipelines_answer_identically(indexed: tuple[Workspace, Workspace], pipeline: str) -> None:
    lite, pg = indexed
    for question in QUESTIONS:
        assert _top(pg, question, pipeline) == _top(lite, question, pipeline), question


def test_ppr_walks_the_same_graph(indexed: tuple[Workspace, Workspace]) -> None:
    """PPR fuses its walk with BM25 (whose order differs, and with it which passages and which of their facts
    make the top k); every passage and fact both stores return carries the same walk score."""
    lite, pg = indexed
    for question in QUESTIONS:
        mine, theirs = ({i.id: i.scores for i in ws.retrieve(question, pipeline="ppr", k=5).items} for ws in (pg, lite))
        shared = mine.keys() & theirs.keys()
        assert shared, question
        for item in shared:
            for score in ("ppr", "graph_entity"):
                if score in mine[item] or score in theirs[item]:
                    assert abs(mine[item][score] - theirs[item][score]) < 1e-9, (question, item, score)


@pytest.mark.parametrize("pipeline", ["bm25", "hybrid"])
def test_keyword_pipelines_find_the_distinctive_passage(indexed: tuple[Workspace, Workspace], pipeline: str) -> None:
    """ts_rank_cd is not BM25, so the order may differ; a distinctive query still finds the same passage."""
    lite, pg = indexed
    for query in KEYWORD_QUERIES:
        mine, theirs = _top(pg, query, pipeline), _top(lite, query, pipeline)
        assert mine and mine[0] in theirs[:3] and theirs[0] in mine[:3], query


def test_migrate_round_trip_keeps_counts_and_dense_results(
    indexed: tuple[Workspace, Workspace], pg_schema_url: SchemaUrl, tmp_path: Path
) -> None:
    lite, _ = indexed
    target = pg_schema_url(tmp_path / "migrated")
    result = CliRunner().invoke(app, ["migrate", "--workspace", str(lite.path), "--to", target])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "entity_mentions" in result.output
    with Workspace.open(lite.path, store={"backend": "postgresql", "url": target}, **SETTINGS) as moved:
        assert moved.status()["graph"] == lite.status()["graph"]
        assert moved.documents.counts() == lite.documents.counts()
        for question in QUESTIONS:
            assert _top(moved, question, "dense") == _top(lite, question, "dense")
            assert _top(moved, question, "graph-local") == _top(lite, question, "graph-local")
    back = tmp_path / "back.sqlite3"
    result = CliRunner().invoke(app, ["migrate", "-w", str(lite.path), "--from", target, "--to", f"sqlite:///{back}"])
    assert result.exit_code == 0, result.output
    # the printed settings go into the [store] table kgrag.toml already has, and name the new store
    printed = result.output[result.output.index("\n[store]\n") :].strip()
    toml = (lite.path / "kgrag.toml").read_text(encoding="utf-8")
    assert "\n[store]\n" in toml
    (tmp_path / "switched").mkdir()
    switched = toml.replace("\n[store]\n", f"\n{printed}\n", 1)
    (tmp_path / "switched" / "kgrag.toml").write_text(switched, encoding="utf-8")
    assert load_config(tmp_path / "switched").store.url == str(back)
    with Workspace.open(lite.path, store={"backend": "sqlite", "url": str(back)}, **SETTINGS) as returned:
        assert returned.store.denoise.fingerprint() == lite.store.denoise.fingerprint()
        assert _top(returned, QUESTIONS[0], "bm25") == _top(lite, QUESTIONS[0], "bm25")


def test_migrate_refuses_a_non_empty_target_and_keeps_it(indexed: tuple[Workspace, Workspace]) -> None:
    lite, pg = indexed
    target = pg.config.store.url
    assert target is not None
    result = CliRunner().invoke(app, ["migrate", "-w", str(lite.path), "--to", target])
    assert result.exit_code == 1 and "not empty" in result.output
    assert pg.documents.counts() == lite.documents.counts()
