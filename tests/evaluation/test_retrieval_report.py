"""What `kgrag eval retrieval` reports says what is compared: recall at one context budget, which graph
pipelines fill with more, shorter items than passage pipelines do (the items each handed over stand in
the table and the JSON); a small question type is marked small in every table; and the plot draws each
pipeline's interval on a row labelled with its own name, in its own colour and marker."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from tests.helpers import index_with_word_extractor
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.workspace import Workspace

PIPELINES = ("dense", "graph-local", "ppr")


@pytest.fixture(scope="module")
def graph_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample corpus with the fake embedder and the word-extractor graph (graph pipelines run)."""
    path = tmp_path_factory.mktemp("report") / "ws"
    with Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        index_with_word_extractor(ws, [SAMPLE_DOCS])
    yield path


@pytest.fixture(scope="module")
def written(graph_ws: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, dict[str, Any]]:
    """What `kgrag eval retrieval` printed, its markdown and its JSON."""
    out = tmp_path_factory.mktemp("out")
    args = ["eval", "retrieval", "-w", str(graph_ws), "--dataset", str(SAMPLE_QUESTIONS), "--out", str(out)]
    env = {"COLUMNS": "300", "KGRAG_EMBEDDING__PROVIDER": "fake"}
    result = CliRunner().invoke(app, [*args, "--pipelines", ",".join(PIPELINES)], env=env)
    assert result.exit_code == 0, result.output
    markdown = (out / "retrieval_eval.md").read_text(encoding="utf-8")
    return result.output, markdown, json.loads((out / "retrieval_eval.json").read_text(encoding="utf-8"))


def test_the_title_says_recall_at_the_context_budget_not_at_k_items(written: tuple[str, str, dict[str, Any]]) -> None:
    _, markdown, data = written
    title = markdown.splitlines()[0]
    assert "recall@" not in markdown and "recall@" not in title
    assert title == "# Retrieval evaluation: evidence recall at a 1,000-token context budget"
    assert "the same context budget of 1,000 tokens" in markdown and "up to k = 5 passages" in markdown
    assert data["context_budget"] == dict.fromkeys(PIPELINES, 1000) and data["k"] == 5


def test_the_items_each_pipeline_handed_over_stand_in_the_table_and_the_json(
    written: tuple[str, str, dict[str, Any]],
) -> None:
    _, markdown, data = written
    by_pipeline: dict[str, list[int]] = {p: [] for p in PIPELINES}
    for row in data["outcomes"]:
        by_pipeline[row["pipeline"]].append(len(row["retrieved"]))
        assert 0 < row["passages"] <= len(row["retrieved"])
    heads = [line for line in markdown.splitlines() if line.startswith("| pipeline |")]
    assert " | items | context tokens |" in heads[0] and heads[1].endswith(" | passages |")
    for pipeline, counts in by_pipeline.items():
        spread = data["items_handed_over"][pipeline]
        assert (spread["min"], spread["max"]) == (min(counts), max(counts))
        assert spread["mean"] == pytest.approx(sum(counts) / len(counts))
        cell = f"| {spread['mean']:.1f} ({min(counts)}–{max(counts)}) |"
        assert any(line.startswith(f"| {pipeline} |") and cell in line for line in markdown.splitlines())
    # graph pipelines fill the budget with more items than k: the reason the title says "budget"
    assert data["items_handed_over"]["graph-local"]["max"] > 5 >= data["items_handed_over"]["dense"]["max"]


def test_a_small_question_type_is_marked_small_in_every_table(written: tuple[str, str, dict[str, Any]]) -> None:
    printed, markdown, _ = written
    for text in (markdown, printed):
        heads = [line for line in text.splitlines() if line.startswith("| pipeline |")]
        assert len(heads) == 6  # two recall tables, then two interval and two paired tables
        assert all("Creative Generation (n=8, small)" in head for head in heads), heads
        assert not re.search(r"Creative Generation \(n=8\)", text)


def test_the_plot_draws_each_interval_on_a_row_named_after_its_pipeline(graph_ws: Path) -> None:
    from matplotlib.container import ErrorbarContainer

    from kgrag.evaluation.retrieval_report import figure

    with Workspace.open(graph_ws, embedding={"provider": "fake"}) as ws:
        report = ws.eval.retrieval(SAMPLE_QUESTIONS, list(PIPELINES), 5)
    stats = report.statistics()
    fig = figure(report, stats)
    try:
        rows, latency = fig.axes
        labels = [tick.get_text() for tick in rows.get_yticklabels()]
        assert [label.split("\n")[0] for label in labels] == list(reversed(PIPELINES))  # top to bottom
        legend = {h.get_label(): (h.get_color(), h.get_marker()) for h in fig.legends[0].legend_handles}
        for pipeline in PIPELINES:
            low, high = stats["recall"]["estimates"][pipeline]["All"]["ci95"]
            level = len(PIPELINES) - 1 - PIPELINES.index(pipeline)
            for ax, horizontal in ((rows, True), (latency, False)):
                bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer) and c.get_label() == pipeline]
                point, segments = bars[0].lines[0], bars[0].lines[2][0].get_segments()
                ends = sorted(float(end[0 if horizontal else 1]) for end in segments[0])
                assert ends == pytest.approx([low, high])  # the interval of the report's statistics
                assert (point.get_color(), point.get_marker()) == legend[pipeline]  # its legend entry
                if horizontal:  # on its own labelled row
                    assert abs(float(point.get_ydata()[0]) - level) < 0.5
        assert not rows.texts and not latency.texts  # no free-floating label to mistake for another's
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
