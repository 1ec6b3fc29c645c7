"""kgrag's half of lightrag_webui_more.py: the same actions in kgrag's web app, with the selectors of
tests/server/test_browser_graph.py (*Expand*, *Prune*), test_browser.py (upload) and
test_browser_chat.py (Ask as a conversation, *context only*), timed with the same Timer: from the click
to the page showing the result, the server's CPU from /proc.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path
from typing import Any

from lightrag_webui_drive import Timer
from lightrag_webui_more import ASKED, QUESTION, upload_files

OTHER_PIPELINES = ("dense", "bm25", "graph-local", "graph-global")


def info_changed(page: Any, before: str, word: str, timeout_s: float = 120) -> None:
    """Wait until ``#graph-info`` says something new with ``word`` in it."""
    deadline = time.monotonic() + timeout_s
    while True:
        text = page.inner_text("#graph-info")
        if text != before and word in text:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"#graph-info did not say {word!r} in {timeout_s} s: {text!r}")
        page.wait_for_timeout(20)


def open_hub(page: Any, hub: str) -> None:
    page.fill("#graph-search", hub)
    page.press("#graph-search", "Enter")
    page.locator("#graph-panel h2.entity-name", has_text=hub).wait_for(timeout=60_000)


def expand_and_prune(page: Any, url: str, timer: Timer, hubs: list[str]) -> dict[str, list[int]]:
    """For each hub: *Expand* (one page of neighbours) until the info line says how many were added, then
    *Prune* (its leaf neighbours) until it says what was pruned."""
    page.goto(f"{url}/#graph")
    page.wait_for_selector("#graph-canvas[data-painted]", timeout=300_000)
    changes: dict[str, list[int]] = {"expand_added": [], "prune_removed": []}
    count = "window.kgragGraph.count()"
    for hub in hubs:
        open_hub(page, hub)
        before, info = page.evaluate(count), page.inner_text("#graph-info")
        expand = partial(page.click, "#graph-panel button:text('Expand')")
        timer.time("expand_node", expand, partial(info_changed, page, info, "added"))
        after, info = page.evaluate(count), page.inner_text("#graph-info")
        changes["expand_added"].append(after - before)
        prune = partial(page.click, "#graph-panel button.prune")
        timer.time("prune_node", prune, partial(info_changed, page, info, "pruned"))
        changes["prune_removed"].append(after - page.evaluate(count))
    return changes


def uploads(page: Any, url: str, timer: Timer, rounds: int, tmp: Path, per_round: int) -> None:
    """The same new notes as LightRAG's uploads, through *Upload & index*, timed until every one of them
    shows *indexed* in the table (filtered to their names)."""
    page.goto(f"{url}/#documents")
    page.wait_for_selector("#documents tbody tr[data-doc]", timeout=300_000)
    page.fill("#doc-q", "upload-")
    for r in range(rounds):
        files = upload_files(tmp / "kgrag", r, per_round)
        page.set_input_files("#files", [str(f) for f in files])
        rows = [page.locator("#documents tbody tr", has_text=f.name) for f in files]

        def done(rows: list[Any] = rows) -> None:
            for row in rows:
                row.locator(".badge", has_text="indexed").wait_for(timeout=600_000)

        timer.time("upload_to_processed", lambda: page.click("#upload-button"), done)


def ask(page: Any, timer: Timer, kind: str, question: str) -> str:
    """``question`` in a new conversation (LightRAG's WebUI sends no history by default: 0 history turns),
    timed from Enter to the answer's cost line, the stream finished."""
    page.click("#new-conversation")
    turns = page.locator(".turn").count()
    page.fill("#question", question)
    turn = page.locator(".turn").nth(turns)
    answered = turn.locator(".answer:not(.streaming) .cost, .error").first
    timer.time(kind, lambda: page.press("#question", "Enter"), lambda: answered.wait_for(timeout=180_000))
    return str(turn.inner_text())


def tick(page: Any, pipeline: str) -> bool:
    """Only ``pipeline`` ticked in the Ask view; False when the workspace does not offer it."""
    box = page.locator(f"#pipelines input[data-pipeline='{pipeline}']")
    if not box.count():
        return False
    for other in page.locator("#pipelines input").all():
        other.set_checked(False)
    box.check()
    return True


def conversation(page: Any, url: str, timer: Timer, rounds: int, clinics: list[str] = ASKED) -> dict[str, str]:
    """Streamed answers from ``hybrid`` in one conversation, each other pipeline once, then *context only*
    (passages, no LLM call)."""
    page.goto(f"{url}/#ask")
    page.wait_for_selector("#view-ask:not([hidden]) #pipelines input[data-pipeline='hybrid']", timeout=120_000)
    tick(page, "hybrid")
    replies: dict[str, str] = {}
    for i in range(rounds):
        replies["streamed"] = ask(page, timer, "query_streamed", QUESTION.format(clinic=clinics[i % len(clinics)]))
    for pipeline in OTHER_PIPELINES:
        if tick(page, pipeline):
            replies[pipeline] = ask(page, timer, f"query_{pipeline}", QUESTION.format(clinic=clinics[0]))
    tick(page, "hybrid")
    page.check("#context-only")
    for i in range(rounds):
        question = QUESTION.format(clinic=clinics[i % len(clinics)])
        replies["context_only"] = ask(page, timer, "query_context_only", question)
    page.uncheck("#context-only")
    return {k: v[:300] for k, v in replies.items()}


def measure_more(page: Any, url: str, timer: Timer, rounds: int, tmp: Path, out: Path) -> dict[str, Any]:
    """Expand and prune, Ask, uploads; screenshots in ``out`` (the bench's temporary folder)."""
    import httpx

    api = f"{url}/v1/workspaces/notes"
    nodes = httpx.get(f"{api}/graph/overview", timeout=300).json()["nodes"]
    hubs = [n["name"] for n in sorted(nodes, key=lambda n: -n["degree"])[: rounds + 1]]
    found: dict[str, Any] = {"hubs": hubs}
    found["graph_changes"] = expand_and_prune(page, url, timer, hubs[1:])
    page.screenshot(path=str(out / "kgrag-expand.png"))
    found["replies"] = conversation(page, url, timer, rounds)
    page.screenshot(path=str(out / "kgrag-ask.png"))
    uploads(page, url, timer, rounds, tmp, 2)
    page.screenshot(path=str(out / "kgrag-upload.png"))
    return found
