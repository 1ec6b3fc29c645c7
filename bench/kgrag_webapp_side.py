"""kgrag's half of bench_lightrag_webui.py: the same generated notes indexed into a kgrag workspace (spaCy
graph, hashing embedder, no LLM), `kgrag serve` on a free loopback port, and the same actions in kgrag's web
app as in LightRAG's WebUI (the selectors of tests/server/test_browser_measure.py), timed with the same
Timer: wall time from the click to the page showing the result, the server's CPU from /proc.
"""

from __future__ import annotations

import os
import re
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from bench_open_webui import free_port, process, wait_until_up
from lightrag_notes import notes
from lightrag_webui_drive import Cpu, Timer, launch_browser

NAME = "notes"


def build_workspace(path: Path, count: int) -> dict[str, Any]:
    """One Markdown file per note, indexed with kgrag's spaCy graph and the hashing embedder."""
    from kgrag import Workspace
    from kgrag.testing.workspace_toml import write_workspace_toml

    docs = path.parent / "kgrag-notes"
    docs.mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(notes(count)):
        (docs / f"note-{i:04d}.md").write_text(text + "\n", encoding="utf-8")
    Workspace.init(path).close()
    write_workspace_toml(path, {"embedding.provider": '"fake"', "graph.extractor": '"nlp"'})
    started = time.process_time()
    with Workspace.open(path) as ws:
        ws.index([docs])
    return {"index_cpu_s": round(time.process_time() - started, 1)}


def changed(page: Any, selector: str, before: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while page.inner_text(selector) == before:
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} did not change in {timeout_s} s")
        page.wait_for_timeout(20)


def documents(page: Any, url: str, timer: Timer, rounds: int) -> None:
    timer.time("open_to_first_rows", lambda: page.goto(f"{url}/#documents"),
               lambda: page.wait_for_selector("#documents tbody tr[data-doc]", timeout=300_000))  # fmt: skip
    for _ in range(rounds):
        before = page.inner_text("#doc-page")
        timer.time("next_page", lambda: page.click("#doc-next"), lambda b=before: changed(page, "#doc-page", b))
    for i in range(rounds):
        order = ("entities", "name")[i % 2]  # notes were indexed in name order: "order", "updated" agree
        before = page.inner_text("#documents tbody")
        timer.time("sort", lambda o=order: page.select_option("#doc-sort", o),
                   lambda b=before: changed(page, "#documents tbody", b))  # fmt: skip
    for _ in range(rounds):
        for state in ("failed", ""):
            before = page.inner_text("#doc-page")
            timer.time("status_filter", lambda s=state: page.select_option("#doc-state", s),
                       lambda b=before: changed(page, "#doc-page", b))  # fmt: skip


def api_pages(api: str, timer: Timer, rounds: int) -> None:
    for i in range(rounds):
        params = {"offset": 50 * (i + 1), "limit": 50}
        timer.time("api_page_of_50", lambda p=params: httpx.get(f"{api}/documents", params=p, timeout=120),
                   lambda: None)  # fmt: skip


def edits(page: Any, url: str, timer: Timer, rounds: int, hub: str) -> None:
    page.goto(f"{url}/#graph")
    page.wait_for_selector("#graph-canvas[data-painted]", timeout=300_000)
    page.fill("#graph-search", hub)
    page.press("#graph-search", "Enter")
    page.locator("#graph-panel h2.entity-name", has_text=hub).wait_for(timeout=60_000)
    for i in range(rounds):
        name = f"{hub} (edited)" if i % 2 == 0 else hub
        page.wait_for_timeout(500)
        page.locator("#graph-panel details.edit").evaluate("(d) => { d.open = true; }")
        page.fill("#graph-panel input.edit-name", name)
        shown = page.locator("#graph-panel h2.entity-name", has_text=re.compile(f"^{re.escape(name)}$"))
        timer.time("rename_save_to_panel", lambda: page.click("#graph-panel button:text('Rename')"),
                   lambda s=shown: s.wait_for(timeout=120_000))  # fmt: skip


def measure(tmp: Path, count: int, rounds: int, cpu: Cpu, part: str = "all") -> dict[str, Any]:
    """Build, serve and drive kgrag over the same ``count`` notes; ``part`` as bench_lightrag_webui's
    --part. The workspace's LLM is kgrag's fake OpenAI server with the stand-in that answers from the
    context it is sent (kgrag.testing.answer_responder), used by the Ask view only."""
    from kgrag.testing import FakeOpenAIServer
    from kgrag.testing.answer_responder import answer_responder
    from kgrag.testing.workspace_toml import write_workspace_toml
    from kgrag_webapp_more import measure_more

    workspace = tmp / "kgrag-ws"
    found: dict[str, Any] = build_workspace(workspace, count)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1"}
    port = free_port()
    command = [sys.executable, "-m", "kgrag.cli", "serve", "-w", f"{NAME}={workspace}", "--host", "127.0.0.1",
               "--port", str(port)]  # fmt: skip
    with ExitStack() as stack:
        llm = stack.enter_context(FakeOpenAIServer(answer_responder))
        write_workspace_toml(workspace, {"embedding.provider": '"fake"', "graph.extractor": '"nlp"',
                                         "llm.provider": '"openai"', "llm.model": '"stand-in"',
                                         "llm.providers.openai.base_url": f'"{llm.base_url}"',
                                         "llm.cache_enabled": "false"})  # fmt: skip
        proc = stack.enter_context(process(command, env, tmp / "kgrag.log"))
        url = f"http://127.0.0.1:{port}"
        wait_until_up(f"{url}/v1/health", proc, tmp / "kgrag.log", 600)
        api = f"{url}/v1/workspaces/{NAME}"
        found["entities"] = httpx.get(f"{api}/graph/stats", timeout=60).json()["counts"]["entities"]
        timer = Timer(proc.pid, cpu)
        with launch_browser(url) as (page, seen):
            if part in ("all", "table"):
                found["hub"] = table_and_edits(page, url, timer, rounds)
            if part in ("all", "more"):
                found["more"] = measure_more(page, url, timer, rounds, tmp, tmp)
        found.update(timings=timer.summary(), **seen)
    return found


def table_and_edits(page: Any, url: str, timer: Timer, rounds: int) -> str:
    """The documents table and the rename of the best-connected entity; returns its name."""
    api = f"{url}/v1/workspaces/{NAME}"
    nodes = httpx.get(f"{api}/graph/overview", timeout=300).json()["nodes"]
    hub = str(max(nodes, key=lambda n: n["degree"])["name"])
    documents(page, url, timer, rounds)
    api_pages(api, timer, rounds)
    edits(page, url, timer, rounds, hub)
    return hub
