"""``ws.eval.tune`` and ``kgrag tune`` with a held-out split on the sample corpus and its labelled
questions (fake embedder, word-extractor graph)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from tests.helpers import index_with_word_extractor
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.evaluation import load_dataset
from kgrag.retrieval.steps.paths import lambda_key
from kgrag.testing.workspace_toml import write_workspace_toml

TYPES = {"Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation", "All"}


def test_held_out_recall_at_the_fitted_and_current_lambda(graph_ws: Workspace) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)
    report = graph_ws.eval.tune(items, "paths", 5, save=False, holdout=0.3, seed=0)
    held = report.holdout
    assert held is not None and (held.questions, report.questions) == (20, len(items) - 20)
    assert held.current_lambda == 0.7 and set(held.recall) == {"fitted", "current", "dense"}
    assert all(set(row) == TYPES and all(0 <= v <= 1 for v in row.values()) for row in held.recall.values())
    assert graph_ws.store.meta.get(lambda_key("paths")) is None
    again = graph_ws.eval.tune(items, "paths", 5, save=False, holdout=0.3, seed=0)
    assert again.best == report.best and again.holdout == held  # the split is reproducible from its seed
    tuned = graph_ws.tune.fusion_lambda(items, "paths", 5, save=False, holdout=0.3, seed=0)  # the newer spelling
    assert tuned.best == report.best and tuned.holdout == held


def test_cli_prints_the_held_out_table(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    Workspace.init(root).close()
    write_workspace_toml(root, {"embedding.provider": '"fake"', "graph.extractor": '"none"'})
    with Workspace.open(root) as ws:  # the CLI reads the file: the fake embedder, the word-extractor graph
        index_with_word_extractor(ws, [SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"])
    args = ["tune", "-w", str(root), "--dataset", str(SAMPLE_QUESTIONS), "--holdout", "0.3", "--dry-run"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "held out: 20 questions (30%, seed 0)" in result.output
    assert "current λ 0.7" in result.output and "dense (λ 1.0)" in result.output and "would store" in result.output
    bad = CliRunner().invoke(app, [*args[:-2], "1.5", "--dry-run"], env={"COLUMNS": "200"})
    assert bad.exit_code != 0 and "--holdout must be between 0 and 1" in bad.output
    grouped = CliRunner().invoke(app, ["tune", "lambda", *args[1:]], env={"COLUMNS": "200"})  # the group's spelling
    assert grouped.exit_code == 0 and grouped.output == result.output


def test_reranker_weights_are_fitted_on_the_sample_questions(graph_ws: Workspace) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)
    report = graph_ws.eval.tune_reranker(items, holdout=0.3, seed=0)
    assert (report.holdout_questions, report.questions) == (20, len(items) - 20)
    assert report.recall_fitted >= report.recall_current  # the ascent starts at the weights in use
    assert set(report.holdout) == {"fitted", "current", "coverage"}
    assert all(set(row) == TYPES and all(0 <= v <= 1 for v in row.values()) for row in report.holdout.values())


def test_cli_tune_reranker_prints_weights_and_toml(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    Workspace.init(root).close()
    write_workspace_toml(root, {"embedding.provider": '"fake"', "graph.extractor": '"none"'})
    with Workspace.open(root) as ws:
        ws.index([SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"])
    args = ["tune-reranker", "-w", str(root), "--dataset", str(SAMPLE_QUESTIONS), "--holdout", "0.3"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "held out: 20 questions" in result.output and "coverage alone" in result.output
    assert '[rerank]\nprovider = "fused"\n\n[rerank.fused]\nsimilarity = ' in result.output
    grouped = CliRunner().invoke(app, ["tune", "reranker", *args[1:]], env={"COLUMNS": "200"})  # the group's spelling
    assert grouped.exit_code == 0 and grouped.output == result.output
    missing = CliRunner().invoke(app, [*args[:3], "--dataset", str(tmp_path / "nope.json")], env={"COLUMNS": "200"})
    assert missing.exit_code != 0 and "nope.json" in missing.output and "Traceback" not in missing.output
