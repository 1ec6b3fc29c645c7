"""`bm25`'s description names the keyword ranking of the workspace's store: FTS5's BM25 on SQLite,
``ts_rank_cd`` on PostgreSQL (not BM25); `kgrag pipelines` names it."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.config import KgragConfig
from kgrag.retrieval.recipes.bm25 import bm25_pipeline


def _description(backend: str) -> str:
    return bm25_pipeline("bm25", KgragConfig.model_validate({"store": {"backend": backend}})).description


def test_bm25_names_the_ranking_of_its_store() -> None:
    assert "SQLite FTS5" in _description("sqlite") and "ts_rank_cd" not in _description("sqlite")
    postgres = _description("postgresql")
    assert "ts_rank_cd" in postgres and "FTS5" not in postgres and "not BM25" in postgres


def test_kgrag_pipelines_names_the_store_s_keyword_ranking(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(ws)]).exit_code == 0
    (ws / "kgrag.toml").write_text('[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n')
    result = runner.invoke(app, ["pipelines", "-w", str(ws)], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "Keyword search (`bm25` and every pipeline that fuses BM25) on this workspace's store: BM25 of SQLite" in (
        result.output
    )
