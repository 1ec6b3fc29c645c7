"""`kgrag eval retrieval` stores its run like a server's job: it prints the run id, `kgrag eval list`
lists the run, and `kgrag eval report <id>` prints the same intervals, paired differences against the
same baseline and the same items handed over as the evaluation printed; `--out` still gets the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_QUESTIONS
from tests.evaluation.test_retrieval_verdict_cli import _workspace
from typer.testing import CliRunner

from kgrag.cli.app import app

WIDE = {"COLUMNS": "300"}


def test_a_cli_retrieval_run_is_stored_listed_and_reported_with_the_same_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, out = _workspace(tmp_path, monkeypatch), tmp_path / "reports"
    args = ["eval", "retrieval", "-w", str(ws), "--dataset", str(SAMPLE_QUESTIONS), "--pipelines", "dense,bm25"]
    printed = CliRunner().invoke(app, [*args, "--baseline", "bm25", "--out", str(out)], env=WIDE)
    assert printed.exit_code == 0, printed.output
    assert (out / "retrieval_eval.json").is_file() and (out / "retrieval_eval.md").is_file()
    found = re.search(r"stored as run (run-\S+)", printed.output)
    assert found is not None, printed.output
    run_id = found.group(1)

    listed = CliRunner().invoke(app, ["eval", "list", "-w", str(ws)], env=WIDE)
    assert listed.exit_code == 0 and run_id in listed.output and "retrieval" in listed.output

    reported = CliRunner().invoke(
        app, ["eval", "report", run_id, "-w", str(ws), "--out", str(tmp_path / "r")], env=WIDE
    )
    assert reported.exit_code == 0, reported.output
    stats = json.loads((out / "retrieval_eval.json").read_text())
    text = reported.output
    assert "against the baseline **bm25**" in text
    for measure in ("recall", "chunk_recall"):
        block = stats["statistics"][measure]
        for pipeline in ("dense", "bm25"):
            cell = block["estimates"][pipeline]["All"]
            low, high = cell["ci95"]
            assert f"{cell['mean']:.3f} [{low:.3f}, {high:.3f}] n=68" in text
        diff = block["paired"]["dense"]["All"]
        assert f"{diff['mean']:+.3f} [{diff['ci95'][0]:+.3f}, {diff['ci95'][1]:+.3f}] n=68" in text
    for pipeline in ("dense", "bm25"):
        items = stats["items_handed_over"][pipeline]
        spread = f"{items['mean']:.1f} ({items['min']:.0f}–{items['max']:.0f})"
        assert spread in printed.output and spread in text
        assert f"{stats['mean_context_tokens'][pipeline]:.0f} | {stats['latency_ms'][pipeline]['p50']:.1f}" in text
