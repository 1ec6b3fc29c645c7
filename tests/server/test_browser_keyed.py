"""The web app on a server with API keys, in real Chromium: it asks for the key once, before its first
request that needs one, so loading it logs no console error (no refused request); a finished evaluation
job is summarised in the Documents view by its run and size."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.browser_support import QUESTIONS, Page, wait_until
from tests.server.serve_support import serve

KEY = "keyed-webapp-0123456789abcdef"
HEADERS = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def served(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workspace = tmp_path_factory.mktemp("webapp-keyed") / "sample"
    shutil.copytree(sample_dir, workspace)
    keys = workspace.parent / "keys.txt"
    keys.write_text(f"{KEY}\n", encoding="utf-8")
    yield from serve({"sample": workspace}, "--api-key-file", str(keys))


def _answer_with_key(view: Any, asked: list[str]) -> None:
    view.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept(KEY)))


def _finished_eval_job(url: str) -> dict[str, Any]:
    questions = "".join(json.dumps(q) + "\n" for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))[:2])
    started = httpx.post(
        f"{url}/v1/workspaces/sample/eval/retrieval",
        files={"file": ("two.jsonl", questions.encode())},
        data={"pipelines": "bm25"},
        headers=HEADERS,
        timeout=60,
    )
    assert started.status_code == 202, started.text
    for _ in range(600):
        job: dict[str, Any] = httpx.get(
            f"{url}/v1/workspaces/sample/jobs/{started.json()['job_id']}", headers=HEADERS, timeout=30
        ).json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.2)
    raise AssertionError("the evaluation job did not finish")


def test_the_key_is_asked_for_before_any_request_needs_it(page: Page) -> None:
    asked: list[str] = []
    _answer_with_key(page.page, asked)
    view = page.open("ask")
    wait_until(view, "document.querySelector('#workspace').options.length > 0")
    view.wait_for_timeout(500)  # every request the load sends has answered
    assert len(asked) == 1 and "API key" in asked[0]
    assert page.errors == []  # no 401: the page asked first; close() checks again at the end


def test_a_finished_evaluation_job_is_summarised_by_its_run(page: Page) -> None:
    job = _finished_eval_job(page.url)
    assert job["state"] == "succeeded", job
    _answer_with_key(page.page, [])
    view = page.open("documents")
    line = view.locator("#jobs .job", has_text="eval-retrieval").first
    line.wait_for()
    assert f"eval-retrieval succeeded · run {job['result']['run_id']} · 2 questions" in line.inner_text()
    assert "[object Object]" not in view.inner_text("#jobs")
