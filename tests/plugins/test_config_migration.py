"""A kgrag.toml written before settings moved to their entries keeps working: every old key is read in
its new place, with one log line naming the new key, and docs/configuration.md lists it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kgrag.config import load_config
from kgrag.core.errors import ConfigError
from kgrag.retrieval.pipeline_settings import PprSettings

REPO = Path(__file__).resolve().parents[2]

OLD_TOML = """
[retrieval.pipelines.hybrid]
rrf_k = 30
damping = 0.7

[retrieval.pipelines.ppr]
damping = 0.6

[retrieval.pipelines.paths]
options = { max_hops = 3 }

[rerank]
provider = "http"
url = "http://localhost:8080"
model = "bge-reranker"
timeout_s = 5
sentences = 3
max_chars = 800
fused_similarity = 0.4
fused_sentence = 0.1

[evaluation]
accuracy_weight = 0.25
relevance_repeats = 4
"""

MOVED = {
    "rerank.url": "rerank.http.url",
    "rerank.model": "rerank.cross-encoder.model and rerank.http.model",
    "rerank.timeout_s": "rerank.http.timeout_s",
    "rerank.sentences": "rerank.sentence.sentences",
    "rerank.max_chars": "rerank.llm.max_chars",
    "rerank.fused_similarity": "rerank.fused.similarity",
    "rerank.fused_sentence": "rerank.fused.sentence",
    "evaluation.accuracy_weight": "evaluation.metrics.answer-accuracy.weight",
    "evaluation.relevance_repeats": "evaluation.metrics.context-relevance.repeats",
    "retrieval.pipelines.paths.options.max_hops": "retrieval.pipelines.paths.max_hops",
}


def test_an_old_kgrag_toml_loads_into_the_new_places(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "kgrag.toml").write_text(OLD_TOML, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="kgrag.config"):
        config = load_config(tmp_path)
    rerankers = config.rerank.model_dump()
    assert rerankers["http"] == {"url": "http://localhost:8080", "model": "bge-reranker", "timeout_s": 5.0}
    assert rerankers["cross-encoder"] == {"model": "bge-reranker"} and rerankers["llm"] == {"max_chars": 800}
    assert rerankers["sentence"] == {"sentences": 3} and rerankers["fused"] == {"similarity": 0.4, "sentence": 0.1}
    assert config.evaluation.model_dump()["metrics"] == {
        "answer-accuracy": {"weight": 0.25},
        "context-relevance": {"repeats": 4},
    }
    assert config.retrieval.pipeline_settings("ppr", PprSettings).damping == 0.6
    assert (
        config.retrieval.rrf_k_for("hybrid") == 30
        and "damping" not in config.retrieval.model_dump()["pipelines"]["hybrid"]
    )
    assert config.retrieval.model_dump()["pipelines"]["paths"] == {"max_hops": 3}
    notes = [record.getMessage() for record in caplog.records]
    for old, new in MOVED.items():
        assert sum(f"{old} is deprecated; use {new}" in note for note in notes) == 1, old
    assert sum("retrieval.pipelines.hybrid.damping is ignored" in note for note in notes) == 1
    assert all("\n" not in note for note in notes)


def test_old_keys_from_the_environment_move_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_RERANK__FUSED_BM25_RANK", "0.05")
    monkeypatch.setenv("KGRAG_RERANK__FUSED__DENSE_RANK", "0.07")
    fused = load_config(tmp_path).rerank.model_dump()["fused"]
    assert fused == {"bm25_rank": 0.05, "dense_rank": 0.07}


def test_a_moved_key_still_validates_under_its_new_name(tmp_path: Path) -> None:
    (tmp_path / "kgrag.toml").write_text('[rerank]\nfused_similarity = "high"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"rerank\.fused\.similarity: expected float, got 'high'"):
        load_config(tmp_path)


def test_the_migration_table_lists_every_moved_key() -> None:
    documented = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    table = documented.split("## Migrated keys", 1)[1]
    for old in ("rerank.fused_similarity", "rerank.url", "evaluation.accuracy_weight", "options.<key>"):
        assert old in table
