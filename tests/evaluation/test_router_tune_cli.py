"""`kgrag tune --router` (the older spelling of `kgrag tune router`) end to end on the sample corpus and its
questions: the cross-validated table, the stored policy ``auto`` then routes by, the resumable cache,
--dry-run, and one-line errors."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.retrieval.steps.router_policy import POLICY_KEY, RouterPolicy

DOCS = ("team-platform.md", "product-kestrel.md", "incident-inc-2024-031.md", "on-call-handbook.md")
PIPES = "rerank,bm25,dense"
PROGRESS_LINE = re.compile(r"^[\w-]+: (started|running, |done, |\d+/\d+)")


@pytest.fixture(scope="module")
def ws_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("router-cli")
    docs = root / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    ws = Workspace.init(root / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    ws.index([docs])
    ws.close()
    yield root / "ws"


def _tune(ws_path: Path, *extra: str) -> tuple[int, str]:
    args = ["tune", "-w", str(ws_path), "--dataset", str(SAMPLE_QUESTIONS), "--router", "--folds", "2", *extra]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "220", "KGRAG_EMBEDDING__PROVIDER": "fake"})
    return result.exit_code, result.output


def _report(out: str) -> str:
    """The output without its progress lines, which carry elapsed times (and, on a loaded machine, extra
    heartbeat lines)."""
    return "\n".join(line for line in out.splitlines() if not PROGRESS_LINE.match(line))


def _labelled() -> int:
    return sum(1 for q in json.loads(SAMPLE_QUESTIONS.read_text(encoding="utf-8")) if q.get("evidence"))


def test_dry_run_reports_and_stores_nothing(ws_path: Path, tmp_path: Path) -> None:
    code, out = _tune(ws_path, "--pipelines", PIPES, "--dry-run", "--cache", str(tmp_path / "cache"))
    assert code == 0, out
    assert "2-fold cross-validation" in out and "auto (learned)" in out and "would store the policy" in out
    assert "Folds: questions sharing a main evidence passage kept in one fold" in out
    for stage in ("rerank", "bm25", "dense", "features"):  # each pipeline's progress ends, none runs on
        done = out.index(f"{stage}: done, {_labelled()}/{_labelled()}")
        assert f"{stage}: running" not in out[done:]
    for name in ("rerank", "bm25", "dense", "Fact Retrieval", "All", "95% interval", "→"):
        assert name in out
    with Workspace.open(ws_path, embedding={"provider": "fake"}) as ws:
        assert not ws.store.meta.get(POLICY_KEY)
    lines = {p.stem: len(p.read_text(encoding="utf-8").splitlines()) for p in (tmp_path / "cache").glob("*.jsonl")}
    assert lines == dict.fromkeys(("rerank", "bm25", "dense", "features"), _labelled())


def test_the_stored_policy_is_what_auto_routes_by(ws_path: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    code, first = _tune(ws_path, "--pipelines", PIPES, "--cache", str(cache))
    assert code == 0, first
    assert "stored the policy; `auto` now routes by it" in first
    sizes = {p.name: p.stat().st_size for p in cache.glob("*.jsonl")}
    code, again = _tune(ws_path, "--pipelines", PIPES, "--cache", str(cache), "--dry-run")
    assert code == 0 and {p.name: p.stat().st_size for p in cache.glob("*.jsonl")} == sizes  # all from the cache
    assert again.split("auto (learned)")[1][:60] == first.split("auto (learned)")[1][:60]
    grouped = ["tune", "router", "-w", str(ws_path), "--dataset", str(SAMPLE_QUESTIONS), "--folds", "2"]
    grouped += ["--pipelines", PIPES, "--cache", str(cache), "--dry-run"]  # the group's spelling, same outcome
    result = CliRunner().invoke(app, grouped, env={"COLUMNS": "220", "KGRAG_EMBEDDING__PROVIDER": "fake"})
    assert result.exit_code == 0 and _report(result.output) == _report(again)
    with Workspace.open(ws_path, embedding={"provider": "fake"}) as ws:
        policy = RouterPolicy.from_json(ws.store.meta.get(POLICY_KEY) or "")
        assert set(policy.pipelines) == {"rerank", "bm25", "dense"} and policy.fitted_on == _labelled()
        route = ws.retrieve("Who owns the Kestrel rollout?", "auto", 5).trace[0]
    assert route.params["decided_by"] == "policy" and route.params["reason"].startswith("rule: ")
    assert route.params["pipeline"] in policy.pipelines
    with Workspace.open(ws_path, embedding={"provider": "fake"}) as ws:
        assert ws.eval.forget_router_policy() is True and ws.eval.forget_router_policy() is False
        assert ws.retrieve("Who owns the Kestrel rollout?", "auto", 5).trace[0].params["decided_by"] == "heuristics"


def test_a_torn_cache_line_is_scored_again(ws_path: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _tune(ws_path, "--pipelines", "rerank,bm25", "--cache", str(cache), "--dry-run")[0] == 0
    bm25 = cache / "bm25.jsonl"
    text = bm25.read_text(encoding="utf-8")
    bm25.write_text(text[: len(text) - 40], encoding="utf-8")  # an interrupted write
    code, out = _tune(ws_path, "--pipelines", "rerank,bm25", "--cache", str(cache), "--dry-run")
    assert code == 0, out
    lines = bm25.read_text(encoding="utf-8").splitlines()
    assert len(lines) == _labelled() + 1  # the torn line stays, skipped; its question was scored again
    records = [json.loads(line) for line in lines if line != lines[-2]]
    assert len({r["id"] for r in records}) == _labelled() and all("recall" in r for r in records)


@pytest.mark.parametrize(
    ("pipelines", "message"),
    [
        ("auto,rerank", "'auto' is the router being fitted"),
        ("rerank", "at least two pipelines"),
        ("rerank,no-such-pipeline", "no-such-pipeline"),
        (" , ", "--pipelines is empty"),
    ],
)
def test_bad_pipelines_fail_with_one_line(ws_path: Path, pipelines: str, message: str) -> None:
    code, out = _tune(ws_path, "--pipelines", pipelines, "--dry-run")
    assert code != 0 and message in out and "Traceback" not in out
    assert len(out.strip().splitlines()) <= 2


def test_too_many_folds_fail_with_one_line(ws_path: Path) -> None:
    code, out = _tune(ws_path, "--pipelines", "rerank,bm25", "--folds", "500", "--dry-run")
    assert code != 0 and "lower --folds" in out and "Traceback" not in out


def test_router_options_without_router_are_refused(ws_path: Path) -> None:
    args = ["tune", "-w", str(ws_path), "--dataset", str(SAMPLE_QUESTIONS), "--folds", "3", "--dry-run"]
    result = CliRunner().invoke(app, args, env={"KGRAG_EMBEDDING__PROVIDER": "fake"})
    assert result.exit_code != 0 and "belong to --router" in result.output and "Traceback" not in result.output


def test_lambda_options_with_router_are_refused(ws_path: Path) -> None:
    code, out = _tune(ws_path, "--holdout", "0.3", "--dry-run")
    assert code != 0 and "--router uses --pipelines and --folds" in out and "Traceback" not in out
