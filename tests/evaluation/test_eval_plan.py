"""The planner: the questions needed to separate two pipelines follow the paired t-test's power (checked
against the normal-approximation formula and by simulation), and `kgrag eval plan` reads a pilot
retrieval report and says how many questions each comparison needs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from kgrag.cli.app import app
from kgrag.evaluation.stats.planner import plan, power_at, questions_needed


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
    assert b_needed == questions_needed(0.05, plans["b"].paired_sd, 0.8, 0.025)  # alpha / (k − 1)


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
    assert row["questions"] == questions_needed(0.05, row["paired_sd"], 0.8, 0.05)
    bad = runner.invoke(app, ["eval", "plan", str(pilot), "--metric", "rouge-l"])
    assert bad.exit_code != 0 and "--metric 'rouge-l' is not in the pilot" in bad.output
