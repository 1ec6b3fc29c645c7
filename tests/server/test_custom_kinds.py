"""Kinds registered on one workspace are what every path of that workspace uses. A loader and a
reranker: indexing, prompt tuning's sampling, an upload through the server, and a query. An answer
strategy and a judge: a query, the server's query and OpenAI-compatible endpoints, and an evaluation run
(its answers and their judging). Each of these once fell back to a registry of the built-ins alone, where
the workspace's entries silently did not exist."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from tests.server.conftest import SERVED_TOML, WRITE
from tests.server.test_api_documents import wait

from kgrag import Workspace
from kgrag.config import CONFIG_FILE_NAME
from kgrag.core.context import ContextItem
from kgrag.core.registries import Registries
from kgrag.documents.records import LoadedDocument
from kgrag.evaluation.aggregate import ALL
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.metrics.base import Measured, Sample
from kgrag.generation.types import Answer
from kgrag.retrieval import Pipeline
from kgrag.retrieval.steps import BM25Search, Hydrate, TakeTop, UseStream
from kgrag.server import create_app
from kgrag.workspace import kinds

GUIDE = "Guide\n=====\nKestrel stores its telemetry in Shale, a columnar archive run by Team Harrier.\n"


def _load_adoc(path: Path, data: bytes, cfg: Any) -> list[LoadedDocument]:
    """AsciiDoc, read as its text without the title underline (the title is the first line)."""
    text = data.decode("utf-8").replace("=====\n", "")
    return [LoadedDocument.from_text(str(path.resolve()), text.splitlines()[0], text, {"format": "adoc"})]


class Recording:
    """Keeps the incoming order, and notes each query it reranked."""

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        self.seen.append(query)
        return list(items)[:k]


def test_a_workspace_loader_and_reranker_are_used_by_index_tuning_upload_and_query(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.adoc").write_text(GUIDE, encoding="utf-8")
    seen: list[str] = []
    registries = Registries()
    kinds.loaders(registries).register(".adoc", _load_adoc)
    kinds.rerankers(registries).register("recording", lambda settings, resources: Recording(seen))
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    toml = SERVED_TOML + '\n[documents]\ninclude = ["*.adoc", "*.md"]\n\n[rerank]\nprovider = "recording"\n'
    (ws_dir / CONFIG_FILE_NAME).write_text(toml, encoding="utf-8")
    with Workspace.open(ws_dir, registries=registries) as ws:
        report = ws.index([docs])  # index
        assert report.documents_new == 1 and not report.problems

        sampled, skipped = ws.prompt_tune.sources([docs])  # prompt tuning's sample of the corpus
        assert not skipped and [s.text.splitlines()[0] for s in sampled] == ["Guide"]

        with TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:  # an upload
            created = c.post(
                "/v1/workspaces/w/documents",
                files=[("files", ("notes.adoc", io.BytesIO(b"Notes\n=====\nShale keeps ninety days.\n")))],
                headers=WRITE,
            )
            assert created.status_code == 201, created.text
            assert [f["status"] for f in created.json()["files"]] == ["accepted"]
            job = wait(c, created.json()["job_id"])
            assert [f["status"] for f in job["result"]["files"]] == ["indexed"]
        assert sorted(d.title for d in ws.store.documents.list()) == ["Guide", "Notes"]

        result = ws.retrieve("Where does Kestrel store telemetry?", pipeline="rerank", k=2)  # a query
        assert seen == ["Where does Kestrel store telemetry?"] and result.items


class StampedAnswer:
    """Answers with the first passage's opening words, stamped, citing it (no LLM call)."""

    def answer(self, question: str, result: Any, llm: Any, embedder: Any, config: Any) -> Answer:
        first = result.items[0]
        return Answer(f"stamped: {' '.join(first.text.split()[:6])}", [first.id], "extractive")


class StampJudge:
    """Scores 1 for a stamped answer, 0 otherwise, and notes every answer it judged."""

    name = "stamp-judge"
    paper = "none"
    prompts: tuple[str, ...] = ()
    scale = (0.0, 1.0)

    def __init__(self, judged: list[str]) -> None:
        self.judged = judged

    def score(self, sample: Sample, setup: Any) -> dict[str, Measured]:
        self.judged.append(sample.answer)
        return {"stamped": Measured(1.0 if sample.answer.startswith("stamped: ") else 0.0)}


def _stamped_pipeline(name: str, config: Any) -> Pipeline:
    steps = (BM25Search(pool=10), UseStream("bm25"), TakeTop(), Hydrate())
    return Pipeline(name, "BM25, answered by the stamped strategy", steps, answer="stamped")


def test_a_workspace_answer_strategy_and_judge_are_used_by_query_server_openai_and_eval(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\n" + GUIDE.split("\n", 2)[2], encoding="utf-8")
    judged: list[str] = []
    registries = Registries()
    kinds.answer_strategies(registries).register("stamped", StampedAnswer())  # type: ignore[arg-type]  # an object
    kinds.pipelines(registries).register("stamped", _stamped_pipeline)
    kinds.judges(registries).register("stamp-judge", lambda: StampJudge(judged))
    ws_dir = tmp_path / "ws"
    ws_dir.mkdir()
    toml = SERVED_TOML + '\n[llm]\nprovider = "scripted"\nmodel = "no-calls"\n'  # a judge needs an LLM set up
    (ws_dir / CONFIG_FILE_NAME).write_text(toml, encoding="utf-8")
    question = "Where does Kestrel store its telemetry?"
    with Workspace.open(ws_dir, registries=registries) as ws:
        assert ws.index([docs]).documents_new == 1
        expected = "stamped: # Guide Kestrel stores its telemetry"
        assert ws.query(question, "stamped", 2).answer.text == expected  # a query

        with TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:  # the server, two ways
            body = {"question": question, "pipeline": "stamped", "k": 2}
            served = c.post("/v1/workspaces/w/query", json=body, headers=WRITE)
            assert served.status_code == 200, served.text
            assert served.json()["answer"] == expected
            models = c.get("/v1/models", headers=WRITE).json()["data"]
            assert "kgrag/w/stamped" in [m["id"] for m in models]
            chat = {"model": "kgrag/w/stamped", "messages": [{"role": "user", "content": question}]}
            completion = c.post("/v1/chat/completions", json=chat, headers=WRITE)
            assert completion.status_code == 200, completion.text
            assert completion.json()["choices"][0]["message"]["content"].startswith(expected)

        items = [QAItem("q1", question, "Shale", "Fact Retrieval", ["Kestrel stores its telemetry in Shale"])]
        run = ws.eval.run(items, ["stamped"], runs=1, metrics=["evidence-recall"], judges=["stamp-judge"])
        assert judged == [expected]  # the eval's answer came from the workspace's strategy, judged by its judge
        assert run.summary["stamped"]["stamped"][ALL]["mean"] == 1.0  # the judge's own score, stored
