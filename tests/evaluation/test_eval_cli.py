"""The eval commands through the CLI with a scripted LLM (a JSONL rule file): pairwise, qgen, list and
report parse, call ``ws.eval``, store the runs and write their reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_QUESTIONS
from tests.helpers import scripted_workspace
from typer.testing import CliRunner

from kgrag.cli.app import app

ASPECTS = {"comprehensiveness": 3, "relevance": 4, "empowerment": 3, "directness": 4}
RULES = [
    {
        "match": "You score two answers",
        "response": json.dumps({"reasoning": "alike", "answer_1": ASPECTS, "answer_2": ASPECTS}),
    },
    {
        "match": "You check generated evaluation questions",
        "response": '{"reasoning": "in the text", "answerable": true}',
    },
    {
        "match": "You write evaluation questions",
        "response": json.dumps(
            {
                "reasoning": "r",
                "questions": [
                    {"question": "Who leads the Platform team at the company?", "answer": "The Platform team lead."}
                ],
            }
        ),
    },
    {"match": "Question:", "response": "The Platform team owns Shale."},
]


def test_pairwise_qgen_list_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = scripted_workspace(tmp_path, monkeypatch, RULES)
    runner = CliRunner()
    args = [
        "--dataset",
        str(SAMPLE_QUESTIONS),
        "--sample",
        "4",
        "--trials",
        "3",
        "--out",
        str(tmp_path / "rep"),
        "-w",
        str(ws),
    ]
    result = runner.invoke(app, ["eval", "pairwise", "bm25", "dense", *args])
    assert result.exit_code == 0, result.output
    assert "tie within the confidence interval" in result.output and "judge-m" in result.output
    assert list((tmp_path / "rep").glob("*relative.png")) and list((tmp_path / "rep").glob("*trials.png"))
    listing = runner.invoke(app, ["eval", "list", "-w", str(ws)])
    assert listing.exit_code == 0 and "pairwise" in listing.output and "bm25 vs dense" in listing.output
    run_id = listing.output.split()[0]
    again = runner.invoke(app, ["eval", "report", run_id, "-w", str(ws), "--out", str(tmp_path / "rep2")])
    assert again.exit_code == 0 and "relative win rate" in again.output
    out = tmp_path / "gen.jsonl"
    gen = runner.invoke(
        app, ["eval", "qgen", "-w", str(ws), "--kinds", "single-fact,multi-fact", "--per-kind", "2", "--out", str(out)]
    )
    assert gen.exit_code == 0, gen.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(line["question_type"] == "single-fact" for line in lines), gen.output
    # the same question four times: kept at most once (when its sampled passage holds the answer), and
    # multi-fact attempts that are not duplicates are rejected for citing fewer than two passages
    assert len(lines) <= 1
    expected = "duplicate: 3" if lines else "multi-fact: cites fewer than two passages: 2"
    assert expected in gen.output, gen.output
    assert re.search(r"shown to the generator: \d+/\d+ passages", gen.output), gen.output


REFUSING = [
    {"match": "You check generated evaluation questions", "response": '{"reasoning": "unclear", "answerable": false}'},
    {
        "match": "You write evaluation questions",
        "response": json.dumps(
            {
                "reasoning": "r",
                "questions": [{"question": "Which product is Shale the storage layer of?", "answer": "Kestrel"}],
            }
        ),
    },
]


def test_no_check_keeps_what_the_models_own_check_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = scripted_workspace(tmp_path, monkeypatch, REFUSING)
    runner = CliRunner()
    base = ["eval", "qgen", "-w", str(ws), "--kinds", "single-fact", "--per-kind", "3"]
    checked = runner.invoke(app, [*base, "--out", str(tmp_path / "checked.json")])
    assert checked.exit_code == 0, checked.output
    assert json.loads((tmp_path / "checked.json").read_text()) == []
    assert "judged unanswerable from the cited passages" in checked.output
    unchecked = runner.invoke(app, [*base, "--no-check", "--out", str(tmp_path / "unchecked.json")])
    assert unchecked.exit_code == 0, unchecked.output
    kept = json.loads((tmp_path / "unchecked.json").read_text())
    assert [q["answer"] for q in kept] == ["Kestrel"] and "judged unanswerable" not in unchecked.output
    free = runner.invoke(app, [*base[:4], "--llm", "none", "--no-check", "--out", str(tmp_path / "free.json")])
    assert free.exit_code != 0 and "--no-check: only LLM-generated questions" in free.output
    assert "Traceback" not in free.output
