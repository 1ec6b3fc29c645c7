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


SEED = "1"  # a seed whose sampled passages include one naming Kestrel, the scripted answer (the answer must be in them)
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
    base = ["eval", "qgen", "-w", str(ws), "--kinds", "single-fact", "--per-kind", "3", "--seed", SEED]
    checked = runner.invoke(app, [*base, "--out", str(tmp_path / "checked.json")])
    assert checked.exit_code == 0, checked.output
    assert json.loads((tmp_path / "checked.json").read_text()) == []
    assert "judged unanswerable from the cited passages" in checked.output
    unchecked = runner.invoke(app, [*base, "--no-check", "--out", str(tmp_path / "unchecked.json")])
    assert unchecked.exit_code == 0, unchecked.output
    kept = json.loads((tmp_path / "unchecked.json").read_text())
    assert [q["answer"] for q in kept] == ["Kestrel"] and "judged unanswerable" not in unchecked.output
    # a model's question names the document of the passage it cites, and its generator apart
    assert kept[0]["source"].endswith(".md") and Path(kept[0]["source"]).is_file()
    assert kept[0]["generator"] == "kgrag-qgen" and kept[0]["chunk_ids"]
    free = runner.invoke(app, [*base[:4], "--llm", "none", "--no-check", "--out", str(tmp_path / "free.json")])
    assert free.exit_code != 0 and "--no-check: only LLM-generated questions" in free.output
    assert "Traceback" not in free.output


def test_llm_and_llm_free_kinds_write_one_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With an LLM the LLM-free kinds may be named too: both generators' questions land in one file, each
    as its generator alone writes it, and the summary counts both."""
    ws = scripted_workspace(tmp_path, monkeypatch, REFUSING)
    runner = CliRunner()
    base = ["eval", "qgen", "-w", str(ws), "--per-kind", "3", "--seed", SEED]
    paths = {name: tmp_path / f"{name}.json" for name in ("mixed", "model", "free")}
    mixed = runner.invoke(app, [*base, "--kinds", "single-fact,known-item", "--no-check", "--out", str(paths["mixed"])])
    assert mixed.exit_code == 0, mixed.output
    model = runner.invoke(app, [*base, "--kinds", "single-fact", "--no-check", "--out", str(paths["model"])])
    free = runner.invoke(app, [*base, "--kinds", "known-item", "--llm", "none", "--out", str(paths["free"])])
    assert model.exit_code == 0 and free.exit_code == 0, model.output + free.output
    sets = {name: json.loads(path.read_text()) for name, path in paths.items()}
    assert [q["question_type"] for q in sets["mixed"]] == ["single-fact"] + ["known-item"] * 3
    assert sets["mixed"] == sets["model"] + sets["free"]
    assert "generated questions (3 known-item, 1 single-fact) →" in " ".join(mixed.output.split())
    counts = [re.search(r"kept (\d+) of (\d+) generated", out.output) for out in (mixed, model, free)]
    assert all(counts), mixed.output
    kept, generated = (sum(int(m.group(i)) for m in counts[1:] if m) for i in (1, 2))
    assert counts[0] and (int(counts[0].group(1)), int(counts[0].group(2))) == (kept, generated)
    # --no-check needs a kind the model writes; only LLM-free kinds have no model check to leave out
    alone = runner.invoke(app, [*base, "--kinds", "known-item", "--no-check", "--out", str(tmp_path / "x.json")])
    assert alone.exit_code != 0 and "--no-check: only LLM-generated questions" in alone.output
    assert "Traceback" not in alone.output and not (tmp_path / "x.json").exists()


def test_a_kind_takes_its_own_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--kinds single-fact:2,known-item``: two attempts for the model's kind, ``--per-kind`` (or the
    default) for the other; a malformed count is one clear line and nothing is written."""
    ws = scripted_workspace(tmp_path, monkeypatch, REFUSING)
    runner = CliRunner()
    base = ["eval", "qgen", "-w", str(ws), "--no-check", "--seed", SEED]
    out = tmp_path / "own.json"
    own = runner.invoke(app, [*base, "--kinds", "single-fact:2, known-item", "--per-kind", "4", "--out", str(out)])
    assert own.exit_code == 0, own.output
    kinds = [q["question_type"] for q in json.loads(out.read_text())]
    # two attempts at the same scripted question keep it once (a duplicate the second time); four known-items
    assert kinds == ["single-fact"] + ["known-item"] * 4 and "model tries: done, 2/2 (100%)" in own.output
    unknown = runner.invoke(app, [*base, "--kinds", "known-item,facts", "--out", str(tmp_path / "bad.json")])
    assert unknown.exit_code != 0 and "unknown question kind(s) facts; choose from node, " in unknown.output
    assert "multi-fact, known-item, two-chunk" in unknown.output and not (tmp_path / "bad.json").exists()
    for bad in ("single-fact:0", "single-fact:x", ":3", "single-fact:²"):
        result = runner.invoke(app, [*base, "--kinds", bad, "--out", str(tmp_path / "bad.json")])
        assert result.exit_code != 0 and "write a kind, then after ':' a whole number" in result.output
        assert "Traceback" not in result.output and not (tmp_path / "bad.json").exists()
