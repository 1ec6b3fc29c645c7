"""The web app end to end in headless Chromium: `kgrag serve` on a copy of the sample workspace (with one
stored evaluation run); each view loads without console errors and leaves a screenshot in
``build/test-artifacts/``: the graph explorer draws the whole sample graph and expands a neighbourhood,
a question is answered with a citation link that opens the cited passage, a document is uploaded, listed
and deleted, and the evaluation run is shown.

Debian's chromium (``scripts/install-chromium.sh``, run by ``make test``) is driven by Playwright's
Python package through ``executable_path``: no browser download. Without either, the tests skip and say
why (fail under ``KGRAG_REQUIRE_SERVICES=1``, as in CI). One server and one workspace serve the whole
module; the tests that change the workspace (upload, delete) touch only their own document.

``KGRAG_WEBAPP_WORKSPACE=/path/to/a/copy`` adds a run over that workspace (e.g. the Medical one) that
saves a screenshot of every view and prints the first graph paint measured by the page's own
performance marks (never asserted: wall time depends on the machine).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.browser_support import ARTIFACTS, QUESTIONS, Page, cli, first_paint_ms, hold_request, wait_until
from tests.server.serve_support import serve


@pytest.fixture(scope="module")
def served(sample_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A copy of the sample workspace (uploads and deletes change it) with one retrieval evaluation run."""
    workspace = tmp_path_factory.mktemp("webapp") / "sample"
    shutil.copytree(sample_dir, workspace)
    pipelines = "dense,hybrid,graph-local"
    cli("eval", "run", "-w", str(workspace), "--dataset", str(QUESTIONS), "--pipelines", pipelines, "--runs", "1")
    yield from serve({"sample": workspace})


def test_the_graph_explorer_draws_the_whole_sample_graph_and_expands_a_neighbourhood(page: Page) -> None:
    view = page.open("graph")
    first_paint_ms(view)
    drawn = int(view.get_attribute("#graph-canvas", "data-painted"))
    total = httpx.get(f"{page.url}/v1/workspaces/sample/graph/stats", timeout=30).json()["counts"]["entities"]
    assert drawn >= 100 and drawn == min(total, 1000)
    assert "communities detected" in view.inner_text("#graph-info")  # the sample has no stored hierarchy
    assert view.locator("#graph-legend li").count() >= 2
    scale = view.evaluate("window.kgragGraph.scale()")
    view.focus("#graph-canvas .vis-network")  # keyboard: + zooms in
    view.keyboard.down("Equal")
    view.wait_for_timeout(300)
    view.keyboard.up("Equal")
    assert view.evaluate("window.kgragGraph.scale()") > scale
    view.fill("#graph-search", "zzqx-not-an-entity")
    view.press("#graph-search", "Enter")
    view.wait_for_selector("#graph-info[data-kind='nomatch']")
    assert "no entity matches" in view.inner_text("#graph-info")
    view.fill("#graph-search", "Kestrel")
    view.press("#graph-search", "Enter")
    view.wait_for_selector("#graph-panel h2.entity-name")
    assert "Kestrel" in view.inner_text("#graph-panel h2.entity-name")
    view.click("#graph-panel button:text('Expand')")
    view.wait_for_selector("#graph-canvas[data-expanded='1']")
    view.locator("#graph-panel .passage-link").first.click()  # provenance passages open in full
    view.wait_for_selector("#passage-dialog[open] .passage-text")
    assert len(view.inner_text("#passage-dialog .passage-text")) > 50
    view.keyboard.press("Escape")
    page.shot("graph")
    biggest = view.locator("#graph-legend button").first  # the legend limits the view to one community
    size = int(biggest.inner_text().rsplit("·", 1)[1])
    biggest.click()
    view.locator("#graph-info", has_text=f"{size} of {size} matching").wait_for()
    view.locator("#graph-panel", has_text="no report").wait_for()  # detected communities have none
    view.select_option("#graph-community", "")
    view.select_option("#graph-type", "person")
    view.click("#graph-filters button[type='submit']")
    view.locator("#graph-info", has_text="of 10 matching").wait_for()


def test_a_question_is_answered_with_a_citation_that_opens_the_cited_sentence(page: Page) -> None:
    view = page.open("ask")
    view.wait_for_selector("#pipelines input[data-pipeline='graph-local']")
    defaults = [b.get_attribute("data-pipeline") for b in view.locator("#pipelines input:checked").all()]
    settings = httpx.get(f"{page.url}/v1/workspaces/sample/settings", timeout=30).json()
    assert defaults == settings["compare_pipelines"]  # the workspace's, not the first ones in the list
    default = settings["default_pipeline"]
    assert "(default)" in view.inner_text(f"#pipelines label:has(input[data-pipeline='{default}'])")
    for box in view.locator("#pipelines input").all():
        box.set_checked(False)
    for name in ("dense", "graph-local", "auto", "bm25", "hybrid"):
        view.check(f"#pipelines input[data-pipeline='{name}']")
    view.fill("#question", "Who leads the Platform team?")
    view.click("#ask-button")
    view.wait_for_selector(".answer[data-pipeline='graph-local'] .text")
    assert view.locator(".answer").count() == 5
    answer = view.locator(".answer[data-pipeline='graph-local']")
    assert "no LLM call" in answer.locator(".cost").inner_text()
    route = view.inner_text(".answer[data-pipeline='auto'] .route")  # the router's decision and its reason
    assert "→" in route and "heuristics" in route
    boxes = [view.locator(".answer").nth(i).bounding_box() for i in range(5)]
    assert all(box and box["x"] + box["width"] <= 1400 for box in boxes)  # columns wrap, none clipped
    link = answer.locator("a.citation").first
    cited = link.get_attribute("data-chunk")
    link.click()
    view.wait_for_selector("#passage-dialog[open] .sentence.hl")
    assert "Rui Carvalho" in view.inner_text("#passage-dialog .sentence.hl")
    assert cited in view.inner_text("#passage-dialog")
    page.shot("passage")
    view.keyboard.press("Escape")
    answer.locator("details.trace summary").click()
    assert answer.locator("details.trace tbody tr").count() >= 2
    page.shot("ask")
    answer.locator("button.show-in-graph").click()
    view.locator("#graph-info", has_text="the answer used").wait_for()
    assert view.evaluate("window.kgragGraph.count()") >= 100


def test_answer_markdown_becomes_elements_and_never_markup(page: Page) -> None:
    """The page's renderer builds nodes: emphasis, lists and known citations become elements; tags a
    document or a model wrote stay text, and a bracketed id that is not a citation stays as written."""
    view = page.open("ask")
    found = view.evaluate(
        """async () => {
          const m = await import('/static/js/markdown.js');
          const box = document.createElement('div');
          const cite = (id) => Object.assign(document.createElement('a'), {textContent: id, className: 'citation'});
          const text = '**bold** <img src=x onerror=alert(1)> [c123] [nope99]\\n\\n- one <script>x()</script>\\n- two';
          box.append(m.renderMarkdown(text, {cite, known: new Set(['c123'])}));
          return {html: box.innerHTML, tags: box.querySelectorAll('img, script').length,
                  strong: box.querySelectorAll('strong').length, cites: box.querySelectorAll('a.citation').length,
                  items: box.querySelectorAll('li').length, text: box.textContent};
        }"""
    )
    assert found["tags"] == 0 and "&lt;img" in found["html"] and "&lt;script&gt;" in found["html"]
    assert (found["strong"], found["cites"], found["items"]) == (1, 1, 2)
    assert "[nope99]" in found["text"]


def test_a_document_is_uploaded_listed_and_deleted(page: Page, tmp_path: Path) -> None:
    note = tmp_path / "herons.md"
    note.write_text("# Herons\n\nGrey herons nest in colonies called heronries.\n", encoding="utf-8")
    bad = tmp_path / "tool.exe"
    bad.write_bytes(b"MZ\x00\x00binary")
    view = page.open("documents")
    view.wait_for_selector("#documents tbody tr[data-doc]")
    view.set_input_files("#files", [str(note), str(bad)])
    with view.expect_response(lambda r: r.url.endswith("/documents") and r.request.method == "POST") as sent:
        view.click("#upload-button")
    assert sent.value.ok, sent.value.text()
    view.locator("#upload-result", has_text="uploaded").wait_for()  # the page renders the reply after it arrives
    assert "tool.exe" in view.inner_text("#upload-result")  # a refused file is named, with why
    row = view.locator("#documents tbody tr", has_text="herons.md")
    row.locator(".badge", has_text="indexed").wait_for(timeout=120_000)  # the job's progress refreshes the table
    page.shot("documents")
    row.locator("button.delete").click()
    view.wait_for_selector("#confirm-dialog[open]")
    assert "herons.md" in view.inner_text("#confirm-body")
    view.click("#confirm-ok")
    row.wait_for(state="detached")
    listed = httpx.get(f"{page.url}/v1/workspaces/sample/documents", timeout=30).json()["documents"]
    assert not [d for d in listed if "herons" in json.dumps(d)]


def test_an_evaluation_run_is_shown_and_one_is_started_from_a_question_file(page: Page, tmp_path: Path) -> None:
    view = page.open("eval")
    view.wait_for_selector("#eval-runs button.run")
    assert view.locator("#eval-runs button.run").count() == 1
    view.locator("#eval-runs button.run").click()
    view.wait_for_selector("#eval-detail svg.plot .point")
    assert view.locator("#eval-detail svg.plot .point").count() == 3
    table = view.locator("details.metric", has_text="evidence-recall").first
    assert "Fact Retrieval" in table.inner_text() and "hybrid" in table.inner_text()
    view.locator("#eval-detail svg.plot .point").first.focus()
    assert "at cost.context_tokens" in (view.text_content("#eval-detail svg.plot .readout") or "")
    view.locator("#eval-detail .questions button").first.click()  # per-question drill-down
    detail = view.locator("#eval-detail .question-detail")
    detail.locator(".answer[data-pipeline='hybrid']").wait_for()
    assert "reference:" in detail.inner_text() and detail.locator(".answer").count() == 3
    scores = detail.locator(".scores").first.inner_text()  # token counts are whole numbers, shown as such
    assert re.search(r"cost\.context_tokens \d+(?: ·|$)", scores), scores
    page.shot("eval")
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))[:4]
    for q in questions[:2]:  # marked as `kgrag eval qgen --llm none` marks what it writes
        q["question_type"] = "known-item"
    upload = tmp_path / "four.jsonl"
    upload.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    view.set_input_files("#eval-file", str(upload))
    view.fill("#eval-pipelines", "dense,bm25")
    view.click("#eval-start button[type='submit']")
    view.locator("#eval-runs button.run").nth(1).wait_for(timeout=120_000)
    view.locator("#eval-detail", has_text="four.jsonl").wait_for(timeout=60_000)  # the new run is opened
    view.locator("#eval-detail svg.plot .point").nth(1).wait_for()  # evidence recall against context tokens
    assert view.locator("#eval-detail svg.plot .point").count() == 2
    assert "bm25" in view.locator("details.metric", has_text="evidence-recall").first.inner_text()
    caveat = view.locator("#eval-detail .caveat").first  # the server's caveat on generated questions, shown
    assert caveat.inner_text().startswith("2 of 4 questions were generated without an LLM")


def _two_runs(url: str) -> list[str]:
    """The ids of the stored runs, newest first, after adding a small retrieval run when there is only one."""
    runs = httpx.get(f"{url}/v1/workspaces/sample/eval/runs", timeout=30).json()
    if len(runs) < 2:
        questions = "".join(json.dumps(q) + "\n" for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))[:2])
        started = httpx.post(
            f"{url}/v1/workspaces/sample/eval/retrieval",
            files={"file": ("two.jsonl", questions.encode())},
            data={"pipelines": "bm25"},
            headers={"X-Kgrag-Request": "1"},
            timeout=60,
        )
        assert started.status_code == 202, started.text
        job = f"{url}/v1/workspaces/sample/jobs/{started.json()['job_id']}"
        for _ in range(600):
            if httpx.get(job, timeout=30).json()["state"] not in ("queued", "running"):
                break
            time.sleep(0.2)
        runs = httpx.get(f"{url}/v1/workspaces/sample/eval/runs", timeout=30).json()
    return [r["id"] for r in runs]


def test_a_run_clicked_before_the_last_one_answered_does_not_replace_it(page: Page) -> None:
    """Click run A, then run B before A's detail arrives: when A's answer comes last, B stays shown."""
    newest, older = _two_runs(page.url)[:2]
    view = page.open("eval")
    heading = "#eval-detail h2"
    view.locator(heading, has_text=newest).wait_for()  # the newest run opens on load
    button = "#eval-runs button.run[data-run='{}']"
    held = hold_request(view, f"**/eval/runs/{older}", lambda: view.click(button.format(older)))
    view.click(button.format(newest))
    view.locator(f"{heading}:text-is('{newest}')").wait_for()
    wait_until(view, "document.querySelector('#eval-detail .questions') !== null")
    with view.expect_response(lambda r: r.url.endswith(f"/eval/runs/{older}")) as late:
        held.continue_()
    late.value.finished()
    view.wait_for_timeout(500)  # the page has had the late answer
    assert view.inner_text(heading) == newest
    assert view.get_attribute(button.format(newest), "aria-current") == "true"


def test_intervals_and_paired_differences_of_a_real_run_are_shown(page: Page) -> None:
    """The stored run's own statistics, as the server returns them (nothing added to the response): the
    paired differences against the baseline, each with its interval, and the summary's intervals as
    error bars and table cells."""
    runs = httpx.get(f"{page.url}/v1/workspaces/sample/eval/runs", timeout=30).json()
    run_id = next(r["id"] for r in runs if "questions.json" in (r["dataset"] or ""))  # dense, hybrid, graph-local
    run = httpx.get(f"{page.url}/v1/workspaces/sample/eval/runs/{run_id}", timeout=30).json()
    paired = run["stats"]["paired"]
    cell = paired["evidence-recall"]["hybrid"]["All"]
    view = page.open("eval")
    view.locator(f"#eval-runs button.run[data-run='{run_id}']").click()
    view.wait_for_selector(f"#eval-detail[data-run='{run_id}'] .paired")
    shown = view.inner_text("#eval-detail .paired")
    assert f"Paired differences against {run['stats']['baseline']}" in shown
    assert f"{cell['mean']:+.3f}" in shown and f"[{cell['ci95'][0]:.3f}, {cell['ci95'][1]:.3f}]" in shown
    assert sum(len(rows) for rows in paired.values()) == view.locator("#eval-detail .paired tbody tr").count()
    points = view.locator("#eval-detail svg.plot .point").count()
    assert points >= 2 and view.locator("#eval-detail svg.plot .bar").count() == points  # error bars on the plot
    assert view.locator("details.metric", has_text="evidence-recall").first.locator(".ci").count() >= points
    labels = view.evaluate(
        """() => [...document.querySelectorAll('#eval-detail svg.plot .label')].map((t) => {
             const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; })"""
    )
    overlapping = [
        (a, b)
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
    ]
    assert len(labels) == points and overlapping == []  # every pipeline's label legible


@pytest.mark.parametrize("width", [800, 1920])
def test_every_view_fits_narrow_and_wide_windows(browser: Any, served: str, width: int) -> None:
    opened = Page(browser, served, width)
    for view in ("graph", "ask", "documents", "eval"):
        page = opened.open(view)
        page.wait_for_load_state("networkidle")
        if view == "graph":
            page.wait_for_selector("#graph-canvas[data-painted]")
            opened.shot(f"graph-{width}")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{view} overflows by {overflow}px at {width}px"
    opened.close()


@pytest.mark.skipif(not os.environ.get("KGRAG_WEBAPP_WORKSPACE"), reason="set KGRAG_WEBAPP_WORKSPACE to measure")
def test_measure_a_large_workspace(browser: Any) -> None:
    """Screenshots of every view over a large workspace and its first graph paint (printed, not asserted)."""
    directory = Path(os.environ["KGRAG_WEBAPP_WORKSPACE"])
    for url in serve({os.environ.get("KGRAG_WEBAPP_NAME", "large"): directory}):
        opened = Page(browser, url)
        view = opened.open("graph")
        first = first_paint_ms(view)  # right after start: waits for the server's warm-up
        # a first visit (empty browser cache) once the server is warm
        fresh = browser.new_context(viewport={"width": 1400, "height": 900})
        visit = fresh.new_page()
        visit.goto(f"{url}/#graph")
        warm = first_paint_ms(visit)
        fresh.close()
        view.reload()
        again = first_paint_ms(view)  # a reload: scripts cached by the browser too
        timings = {"right_after_start_ms": first, "first_visit_warm_server_ms": warm, "reload_ms": again}
        (ARTIFACTS / "webapp-large-timings.json").write_text(json.dumps(timings), encoding="utf-8")
        view.fill("#graph-search", os.environ.get("KGRAG_WEBAPP_ENTITY", "lymphoma"))
        view.press("#graph-search", "Enter")
        view.wait_for_selector("#graph-panel h2.entity-name")
        if view.locator("#graph-panel details summary").count():
            view.locator("#graph-panel details summary").first.click()
        opened.shot("large-graph")
        opened.open("documents").wait_for_selector("#documents tbody tr")
        opened.shot("large-documents")
        runs = opened.open("eval")
        runs.wait_for_selector("#eval-runs li")
        if runs.locator("#eval-runs button.run").count():
            runs.wait_for_selector("#eval-detail details.metric")
            runs.locator("#eval-detail .questions button").first.click()
            runs.wait_for_selector("#eval-detail .question-detail .answer")
            runs.evaluate("window.scrollTo(0, 0)")
        opened.shot("large-eval")
        ask = opened.open("ask")
        ask.wait_for_selector("#pipelines input:checked")
        ask.fill("#question", os.environ.get("KGRAG_WEBAPP_QUESTION", "What are the symptoms of asthma?"))
        ask.click("#ask-button")
        ask.wait_for_selector(".answer .text, .answer .error", timeout=120_000)
        opened.shot("large-ask")
        opened.close()
