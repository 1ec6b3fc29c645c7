"""What an evaluation run keeps and shows about itself: every answer's context items and judge calls
(with reasoning) are stored and exported, each run writes its own answers unless told to replay them,
the report says what the spread over runs covers, and the CLI prints mean, 95% CI and n for every
metric (LLM-free and with a scripted LLM judge)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.errors import KgragError
from kgrag.evaluation import load_dataset
from kgrag.evaluation.aggregate import ALL
from kgrag.evaluation.runner import RunOptions

RULES = [
    {"match": "one judge on a panel", "response": '{"reasoning": "names the owning team", "score": 4}'},
    {"match": "Question:", "response": "Shale is owned by the Platform team."},
]


@pytest.fixture
def scripted_ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "ws"
    with Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS])
    script = tmp_path / "rules.jsonl"
    script.write_text("\n".join(json.dumps(r) for r in RULES) + "\n")
    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    monkeypatch.setenv("KGRAG_LLM__PROVIDER", "scripted")
    monkeypatch.setenv("KGRAG_LLM__MODEL", "judge-s")
    monkeypatch.setenv("KGRAG_LLM__PROVIDERS__SCRIPTED__FILE", str(script))
    return path


def _answer_calls(ws: Workspace, run_prefix: str = "") -> tuple[int, int]:
    calls = [c for c in ws.store.llm_ledger.calls() if c.stage == "query.generate"]
    return sum(1 for c in calls if not c.cache_hit), sum(1 for c in calls if c.cache_hit)


def test_runs_regenerate_answers_store_traces_and_replay_on_request(scripted_ws: Path) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)[:3]
    with Workspace.open(scripted_ws) as ws:
        options = RunOptions(judge_temperature=0.7)
        run = ws.eval.run(items, ["bm25", "dense"], runs=2, metrics=["coverage"], judges=["panel"], options=options)
        sent, replayed = _answer_calls(ws)
        assert (sent, replayed) == (12, 0)  # 2 runs x 3 questions x 2 pipelines, none from the cache
        payload = run.record.payload
        assert "generation" in payload["variation"] and "judging (temperature 0.7" in payload["variation"]
        assert payload["judge"]["temperature"] == 0.7 and payload["answers"]["replayed_from_cache"] == 0
        traces = ws.eval.traces(run.record.id)
        assert len(traces) == 12 and {t.run_index for t in traces} == {0, 1}
        one = ws.eval.traces(run.record.id, items[0].id)
        assert len(one) == 4 and one[0].record["answer"] == "Shale is owned by the Platform team."
        assert one[0].record["contexts"] and all(c["id"] and c["text"] for c in one[0].record["contexts"])
        calls = one[0].record["judge_calls"]
        panel = [c for c in calls if c["prompt"] == "eval_reference_judge"]
        assert panel and panel[0]["reply"]["reasoning"] == "names the owning team" and panel[0]["temperature"] == 0.7
        assert {c["seed"] for t in one for c in t.record["judge_calls"]} == {0, 1}
        row = run.summary["bm25"]
        assert row["cost.prompt_tokens"][ALL]["mean"] > 0 and row["cost.completion_tokens"][ALL]["mean"] > 0
        assert row["cost.judge_prompt_tokens"][ALL]["mean"] > 0 and row["judge.panel"][ALL]["ci95"] == [4.0, 4.0]

        again = ws.eval.run(items, ["bm25"], runs=2, metrics=["rouge-l"], options=RunOptions(reuse_answers=True))
        assert _answer_calls(ws) == (12, 6)  # every answer of this run came from the cache
        assert again.record.payload["answers"] == {"answers": 6, "llm_answers": 6, "replayed_from_cache": 6}
        assert again.record.payload["variation"].startswith("nothing varies")
        assert again.summary["bm25"]["cost.generation_tokens"][ALL]["mean"] > 0  # what the answer cost, replayed


def test_cli_prints_intervals_shows_a_question_and_exports(scripted_ws: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["--dataset", str(SAMPLE_QUESTIONS), "--sample", "6", "-w", str(scripted_ws), "--out", str(tmp_path / "r")]
    result = runner.invoke(
        app, ["eval", "run", *args, "--pipelines", "bm25,dense", "--runs", "2", "--metrics", "rouge-l",
              "--judge", "panel", "--judge-temperature", "0.3", "--baseline", "dense"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.output
    assert "baseline dense" in out and "Paired difference against the baseline dense" in out.replace("**", "")
    assert "it covers: generation (each run writes its own answers) and judging (temperature 0.3" in out
    for metric in ("rouge-l", "judge.panel"):
        section = out.split(f"## {metric}\n")[1].split("\n- ")[0]  # the table, before the verdicts
        rows = [line for line in section.splitlines() if line.startswith("| bm25 ") or line.startswith("| dense ")]
        assert len(rows) == 2 and all(" n=6 sd " in r and "[" in r for r in rows), section
    export = tmp_path / "out" / "run.jsonl"
    exported = runner.invoke(app, ["eval", "export", "latest", "--jsonl", str(export), "-w", str(scripted_ws)])
    assert exported.exit_code == 0, exported.output
    rows = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["kind"] == "run" and rows[0]["plan"]["pipelines"] == ["bm25", "dense"]
    lines = rows[1:]
    assert len(lines) == 24 and {"answer", "contexts", "judge_calls", "question_id", "run", "scores"} <= set(lines[0])
    assert lines[0]["judge_calls"][0]["reply"]["reasoning"] == "names the owning team"
    question, run_id = lines[0]["question_id"], lines[0]["run_id"]
    shown = runner.invoke(app, ["eval", "report", run_id, "--question", question, "-w", str(scripted_ws)])
    assert shown.exit_code == 0, shown.output
    assert "reasoning: names the owning team" in shown.output and "Context:" in shown.output
    assert "judge.panel 4.000" in shown.output and "## dense, run 2" in shown.output
    bad = runner.invoke(app, ["eval", "run", *args, "--pipelines", "bm25", "--baseline", "graph-local"])
    assert bad.exit_code != 0 and "--baseline 'graph-local' is not one of --pipelines" in bad.output
    missing = runner.invoke(app, ["eval", "report", run_id, "--question", "nope", "-w", str(scripted_ws)])
    assert missing.exit_code != 0 and "no stored answers for question 'nope'" in missing.output
    assert question in missing.output  # names questions that are there


def test_llm_free_cli_run_says_nothing_varies(
    sample_ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    runner = CliRunner()
    result = runner.invoke(
        app, ["eval", "run", "--dataset", str(SAMPLE_QUESTIONS), "--pipelines", "bm25,hybrid", "--runs", "2",
              "--metrics", "evidence-recall", "-w", str(sample_ws.path), "--out", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "it covers: nothing varies: runs are identical" in result.output
    assert " n=68 " in result.output and " sd 0.000" not in result.output  # a spread that cannot vary is not shown
    assert "latency cold ms | latency warm ms" in result.output and "| bm25 | " in result.output
    report = json.loads(next(tmp_path.glob("eval_run-*.json")).read_text())
    assert report["summary"]["hybrid"]["evidence-recall"]["Fact Retrieval"]["ci95"] is not None
    assert report["paired"]["evidence-recall"]["hybrid"]["All"]["baseline"] == "bm25"


def test_comparing_stored_runs_pairs_on_shared_questions(sample_ws: Workspace, tmp_path: Path) -> None:
    items = load_dataset(SAMPLE_QUESTIONS)[:8]
    first = sample_ws.eval.run(items, ["bm25", "dense"], runs=1, metrics=["evidence-recall"])
    second = sample_ws.eval.run(items[:6], ["hybrid"], runs=1, metrics=["evidence-recall"])
    ids = [first.record.id, second.record.id]
    paths = sample_ws.eval.report(ids, tmp_path, baseline="dense")
    report = json.loads(paths["json"].read_text())
    assert report["baseline"] == f"dense @{first.record.id}"
    paired = report["paired"]["evidence-recall"]
    assert paired[f"hybrid @{second.record.id}"]["All"]["n"] == 6  # the questions both runs answered
    assert paired[f"bm25 @{first.record.id}"]["All"]["n"] == 8
    with pytest.raises(KgragError, match="baseline 'graph-local' is not a pipeline of these runs"):
        sample_ws.eval.report(ids, tmp_path, baseline="graph-local")
