"""The planner: the questions needed to separate two pipelines follow the paired t-test's power (checked
against the normal-approximation formula and by simulation), and `kgrag eval plan` reads a pilot
retrieval report and says how many questions each comparison needs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.evaluation import load_dataset
from kgrag.evaluation.stats.planner import plan, power_at, questions_needed
from kgrag.workspace import Workspace


def test_questions_needed_matches_the_textbook_formula_and_grows_as_the_difference_shrinks() -> None:
    sd, difference = 0.2, 0.05
    approx = ((1.959964 + 0.841621) * sd / difference) ** 2  # normal approximation: about 126
    needed = questions_needed(difference, sd, power=0.8)
    assert needed is not None and approx <= needed <= approx + 4  # the t-test needs a few more
    assert power_at(needed, difference, sd) >= 0.8 > power_at(needed - 1, difference, sd)
    smaller = questions_needed(0.025, sd)
    assert smaller is not None and smaller > 3.5 * needed
    assert questions_needed(0.0, sd) is None and questions_needed(0.1, 0.0) == 2


def test_the_planned_size_finds_the_difference_with_the_asked_power_in_simulation() -> None:
    sd, difference = 0.25, 0.08
    n = questions_needed(difference, sd, power=0.8)
    assert n is not None
    diffs = np.random.default_rng(5).normal(difference, sd, (4000, n))
    t = diffs.mean(axis=1) / (diffs.std(axis=1, ddof=1) / np.sqrt(n))
    from scipy import stats

    found = np.mean(t > stats.t.ppf(0.975, n - 1))
    assert found == pytest.approx(0.8, abs=0.03)


def test_plan_uses_the_paired_sd_and_a_holm_safe_level() -> None:
    rng = np.random.default_rng(1)
    base = rng.uniform(0, 1, 40)
    pilot = {
        "a": {f"q{i}": float(v) for i, v in enumerate(base)},
        "b": {f"q{i}": float(v + 0.05 + rng.normal(0, 0.1)) for i, v in enumerate(base)},
        "c": {f"q{i}": float(v + rng.normal(0, 0.3)) for i, v in enumerate(base)},
    }
    plans = {p.pipeline: p for p in plan(pilot, "a", 0.05)}
    assert set(plans) == {"b", "c"} and plans["b"].pilot_questions == 40
    assert plans["b"].paired_sd < plans["c"].paired_sd  # b tracks the baseline question by question
    b_needed, c_needed = plans["b"].questions, plans["c"].questions
    assert b_needed is not None and c_needed is not None and b_needed < c_needed
    assert b_needed == questions_needed(0.05, plans["b"].paired_sd, 0.8, 0.025, plans["b"].pseudo_difference)


def _pilot(tmp_path: Path) -> Path:
    rng = np.random.default_rng(2)
    outcomes = []
    for i in range(30):
        base = float(rng.uniform(0, 1))
        for pipeline, shift in (("dense", 0.0), ("bm25", 0.05)):
            recall = min(1.0, max(0.0, base + shift + float(rng.normal(0, 0.1))))
            outcomes.append({"id": f"q{i}", "question_type": "Fact", "pipeline": pipeline, "recall": recall})
    path = tmp_path / "retrieval_eval.json"
    path.write_text(json.dumps({"outcomes": outcomes}))
    return path


def test_eval_plan_prints_the_questions_needed(tmp_path: Path) -> None:
    pilot = _pilot(tmp_path)
    runner = CliRunner()
    result = runner.invoke(app, ["eval", "plan", str(pilot), "--difference", "0.05"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "bm25 − dense" in result.output and "n for Δ=0.05" in result.output
    data = json.loads(runner.invoke(app, ["eval", "plan", str(pilot), "--json"]).output)
    (row,) = data["plans"]
    assert row["baseline"] == "dense" and row["pilot_questions"] == 30 and row["questions"] > 2
    assert row["questions"] == questions_needed(0.05, row["paired_sd"], 0.8, 0.05, row["pseudo_difference"])
    bad = runner.invoke(app, ["eval", "plan", str(pilot), "--metric", "rouge-l"])
    assert bad.exit_code != 0 and "--metric 'rouge-l' is not in the pilot" in bad.output


def test_the_paired_sd_is_the_sd_of_the_per_question_differences(tmp_path: Path) -> None:
    """The column and the JSON field say the paired SD: the plain SD of the per-question differences, as
    the docs define it (the verdict's pseudo pair enters the power, not this figure); the power column
    says which difference it is the power for."""
    pilot = _pilot(tmp_path)
    outcomes = json.loads(pilot.read_text())["outcomes"]
    scores = {(o["pipeline"], o["id"]): o["recall"] for o in outcomes}
    diffs = [scores["bm25", q] - scores["dense", q] for p, q in scores if p == "dense"]
    runner = CliRunner()
    (row,) = json.loads(runner.invoke(app, ["eval", "plan", str(pilot), "--json"]).output)["plans"]
    assert row["paired_sd"] == pytest.approx(float(np.std(diffs, ddof=1)))
    assert row["power_now"] == pytest.approx(power_at(30, 0.05, row["paired_sd"], 0.05, row["pseudo_difference"]))
    shown = runner.invoke(app, ["eval", "plan", str(pilot), "--difference", "0.04"], env={"COLUMNS": "200"})
    assert f"{row['paired_sd']:.3f}" in shown.output and "power at Δ=0.04 now" in shown.output


def test_the_plan_delivers_its_power_for_the_verdicts_own_test_where_few_questions_differ() -> None:
    """One question in five differs (the shape of two pipelines that mostly agree): at the planned size
    the verdict's test, two pseudo-differences in its spread, finds the difference about as often as
    asked. Planning with the pilot's pseudo spread as the questions' own would ask for more."""
    from kgrag.evaluation.stats.simulate import DifferenceShape
    from kgrag.evaluation.stats.spreads import difference_stats, pseudo_size, pseudo_variance

    shape = DifferenceShape(0.2, 0.2)
    rng = np.random.default_rng(9)
    pilot = shape.draw(rng, (60,))
    sd, pseudo = float(pilot.std(ddof=1)), float(pseudo_size(pilot, 1.0))
    n = questions_needed(shape.mean, sd, 0.8, 0.05, pseudo)
    assert n is not None
    values = shape.draw(rng, (4000, n))
    mean, se, df = difference_stats(values, 1.0)
    found = np.mean((2 * stats_t_sf(np.abs(mean) / se, df) <= 0.05) & (mean > 0))
    assert found == pytest.approx(0.8, abs=0.05), (n, found)
    inflated = questions_needed(shape.mean, float(np.sqrt(pseudo_variance(pilot, 1.0))), 0.8, 0.05)
    assert inflated is not None and inflated > n


def stats_t_sf(t: np.ndarray, df: float) -> np.ndarray:
    from scipy import stats

    return np.asarray(stats.t.sf(t, df))


def test_a_stored_run_is_planned_on_its_headline_metric(tmp_path: Path) -> None:
    """A stored `eval run` has no plain ``recall``: without ``--metric`` the plan is on the run's headline
    metric, evidence recall (the one its verdict line is on), not on the first name alphabetically."""
    path = tmp_path / "ws"
    with Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS])
        ws.eval.run(load_dataset(SAMPLE_QUESTIONS)[:8], ["dense", "bm25"], runs=1, dataset="sample")
    runner = CliRunner()
    found = runner.invoke(app, ["eval", "plan", "latest", "-w", str(path), "--json"])
    assert found.exit_code == 0, found.output
    data = json.loads(found.output)
    assert data["metric"] == "evidence-recall" and data["plans"][0]["baseline"] == "dense"
    chosen = runner.invoke(app, ["eval", "plan", "latest", "-w", str(path), "--json", "--metric", "rouge-l"])
    assert json.loads(chosen.output)["metric"] == "rouge-l"
    shown = runner.invoke(app, ["eval", "plan", "--help"], env={"COLUMNS": "300"}).output
    assert "default: recall; for a stored run, its headline metric" in shown
