"""Timings of the graph edits and the documents table over a large workspace in real Chromium (printed
and written to ``build/test-artifacts/webapp-large-edit-docs.json``, never asserted: wall time depends on
the machine). Runs on a throwaway copy: it renames an entity there and back.

    KGRAG_WEBAPP_WORKSPACE=/tmp/medical-copy python -m pytest -s tests/server/test_browser_measure.py
"""

from __future__ import annotations

import json
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.browser_support import ARTIFACTS, Page
from tests.server.serve_support import serve

pytestmark = pytest.mark.skipif(not os.environ.get("KGRAG_WEBAPP_WORKSPACE"), reason="set KGRAG_WEBAPP_WORKSPACE")
ROUNDS = 5


def _spread(values: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values), 1),
        "min_ms": round(min(values), 1),
        "max_ms": round(max(values), 1),
    }


def _timed(action: Any, done: Any) -> float:
    started = time.perf_counter()
    action()
    done()
    return (time.perf_counter() - started) * 1000


def _edits(view: Any, url: str, entity: dict[str, Any]) -> dict[str, Any]:
    view.fill("#graph-search", entity["name"])
    view.press("#graph-search", "Enter")
    view.locator("#graph-panel h2.entity-name", has_text=entity["name"]).wait_for(timeout=60_000)
    rounds = []
    for i in range(ROUNDS):
        name = entity["name"] if i % 2 else f"{entity['name']} (edited)"
        view.wait_for_timeout(300)  # the panel settles (a search opens it once more)
        view.locator("#graph-panel details.edit").evaluate("(d) => { d.open = true; }")
        view.fill("#graph-panel input.edit-name", name)
        rounds.append(
            _timed(
                lambda: view.click("#graph-panel button:text('Rename')"),
                lambda n=name: view.locator(
                    "#graph-panel h2.entity-name", has_text=re.compile(f"^{re.escape(n)}$")
                ).wait_for(timeout=60_000),
            )
        )
    log = httpx.get(f"{url}/graph/edits", timeout=60).json()
    return {"rename_click_to_panel": _spread(rounds), "edits_logged": len(log)}


def _documents(opened: Page) -> dict[str, Any]:
    view = opened.open("documents")
    first = _timed(lambda: None, lambda: view.wait_for_selector("#documents tbody tr[data-doc]", timeout=60_000))
    pages, sorts, filters = [], [], []
    for _ in range(ROUNDS):
        label = view.inner_text("#doc-page")
        pages.append(_timed(lambda: view.click("#doc-next"), lambda shown=label: _changed(view, shown)))
    for order in ("name", "entities", "updated", "status", "order"):
        label = view.inner_text("#documents tbody")
        sorts.append(
            _timed(
                lambda o=order: view.select_option("#doc-sort", o),
                lambda shown=label: _changed(view, shown, "#documents tbody"),
            )
        )
    for state in ("failed", "", "failed", ""):
        label = view.inner_text("#doc-page")
        filters.append(
            _timed(lambda s=state: view.select_option("#doc-state", s), lambda shown=label: _changed(view, shown))
        )
    opened.shot("large-documents-table")
    return {
        "first_rows_after_open_ms": round(first, 1),
        "next_page": _spread(pages),
        "sort": _spread(sorts),
        "status_filter": _spread(filters),
        "rows": view.inner_text("#doc-page"),
    }


def _changed(view: Any, before: str, selector: str = "#doc-page") -> None:
    for _ in range(600):
        if view.inner_text(selector) != before:
            return
        view.wait_for_timeout(20)


def test_measure_edits_and_the_documents_table(browser: Any) -> None:
    directory = Path(os.environ["KGRAG_WEBAPP_WORKSPACE"])
    name = os.environ.get("KGRAG_WEBAPP_NAME", "large")
    for url in serve({name: directory}):
        api = f"{url}/v1/workspaces/{name}"
        hub = max(httpx.get(f"{api}/graph/overview", timeout=300).json()["nodes"], key=lambda n: n["degree"])
        opened = Page(browser, url)
        view = opened.open("graph")
        view.wait_for_selector("#graph-canvas[data-painted]", timeout=300_000)
        found = {"entities": httpx.get(f"{api}/graph/stats", timeout=60).json()["counts"]["entities"]}
        found.update(_edits(view, api, hub))
        opened.shot("large-graph-edit")
        found.update(_documents(opened))
        opened.close()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "webapp-large-edit-docs.json").write_text(json.dumps(found, indent=2), encoding="utf-8")
        print(json.dumps(found, indent=2))
