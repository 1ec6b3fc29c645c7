"""Metric profiles: which registry entry a plain metric name means."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS

from kgrag.config import KgragConfig
from kgrag.core.errors import KgragError
from kgrag.evaluation.metrics.base import metric_registry
from kgrag.evaluation.metrics.profiles import profile_names

ALL = ["evidence-recall", "context-relevance", "rouge-l", "answer-accuracy", "coverage", "faithfulness"]


def test_kgrag_profile_keeps_names() -> None:
    assert profile_names(ALL, "kgrag", metric_registry()) == ALL


def test_graphrag_bench_profile_maps_every_metric() -> None:
    names = profile_names(ALL, "graphrag-bench", metric_registry())
    assert names == [f"{n}@graphrag-bench" for n in ALL]


def test_explicit_variants_win_over_the_profile() -> None:
    registry = metric_registry()
    names = ["coverage@kgrag", "coverage@graphrag-bench", "rouge-l"]
    assert profile_names(names, "graphrag-bench", registry) == [
        "coverage",
        "coverage@graphrag-bench",
        "rouge-l@graphrag-bench",
    ]
    assert profile_names(names, "kgrag", registry) == ["coverage", "coverage@graphrag-bench", "rouge-l"]


def test_a_name_without_a_variant_stays() -> None:
    registry = metric_registry()
    assert profile_names(["my-plugin-metric"], "graphrag-bench", registry) == ["my-plugin-metric"]


def test_unknown_profile_is_one_clear_error() -> None:
    with pytest.raises(KgragError, match="metric_profile"):
        profile_names(ALL, "ragas", metric_registry())


def test_config_field() -> None:
    assert KgragConfig().evaluation.metric_profile == "kgrag"
    config = KgragConfig.model_validate({"evaluation": {"metric_profile": "graphrag-bench"}})
    assert config.evaluation.metric_profile == "graphrag-bench"


def test_a_run_with_the_graphrag_bench_profile_stores_its_variants(tmp_path: Path) -> None:
    """With ``evaluation.metric_profile = "graphrag-bench"`` the default metric list runs the benchmark's
    variants, stored under their own names; faithfulness is scored on Creative Generation questions only."""
    from kgrag import Workspace
    from kgrag.evaluation import load_dataset
    from kgrag.evaluation.sampling import stratified_sample

    overrides = {"embedding": {"provider": "fake"}, "graph": {"extractor": "none"}, "llm": {"provider": "none"}}
    with Workspace.init(tmp_path / "ws", evaluation={"metric_profile": "graphrag-bench"}, **overrides) as ws:
        ws.index([SAMPLE_DOCS])
        items = stratified_sample(load_dataset(SAMPLE_QUESTIONS), 8, 0)
        run = ws.eval.run(items, ["bm25"], runs=1)
    names = {s.metric for s in run.scores if not s.metric.startswith("cost.")}
    assert names == {f"{m}@graphrag-bench" for m in ALL}
    assert run.record.payload["plan"]["metrics"] == [f"{m}@graphrag-bench" for m in ALL]
    faithfulness = [s for s in run.scores if s.metric == "faithfulness@graphrag-bench"]
    assert {s.question_type for s in faithfulness if s.value is not None} == {"Creative Generation"}
    assert all("does not score" in s.note for s in faithfulness if s.question_type != "Creative Generation")
