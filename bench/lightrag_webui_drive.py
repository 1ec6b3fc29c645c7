"""The browser half of bench_lightrag_webui.py: LightRAG's WebUI (as its 1.5.7 wheel builds it) driven
with Playwright in Debian's chromium, the same actions kgrag's tests/server/test_browser_measure.py times
in kgrag's app. Each action is timed from the click to the page showing its result (wall time), and the
LightRAG server's CPU seconds over the same span are read from /proc (``cpu``), so the figures can be set
next to kgrag's server CPU per request.
"""

from __future__ import annotations

import re
import shutil
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench_open_webui import CHROMIUM_ARGS

Cpu = Callable[[int], float]


class Timer:
    """Wall milliseconds and server CPU seconds of each timed action, summarised per kind."""

    def __init__(self, pid: int, cpu: Cpu) -> None:
        self.pid, self.cpu = pid, cpu
        self.runs: dict[str, list[tuple[float, float]]] = {}

    def time(self, kind: str, action: Callable[[], Any], done: Callable[[], Any]) -> None:
        cpu, started = self.cpu(self.pid), time.perf_counter()
        action()
        done()
        wall = (time.perf_counter() - started) * 1000
        self.runs.setdefault(kind, []).append((wall, self.cpu(self.pid) - cpu))

    def summary(self) -> dict[str, Any]:
        return {kind: spread(runs) for kind, runs in self.runs.items()}


def spread(runs: list[tuple[float, float]]) -> dict[str, Any]:
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    return {
        "n": len(runs),
        "wall_median_ms": round(statistics.median(walls), 1),
        "wall_ms": [round(w, 1) for w in walls],
        "server_cpu_median_s": round(statistics.median(cpus), 3),
        "server_cpu_s": [round(c, 3) for c in cpus],
    }


def changed(page: Any, selector: str, before: str, timeout_s: float = 120, settle_s: float | None = None) -> None:
    """Wait until ``selector``'s text differs from ``before``; with ``settle_s``, an answer that shows the
    same text (a filter keeping the same first page and page count) ends the wait after that long."""
    deadline = time.monotonic() + (settle_s or timeout_s)
    while page.locator(selector).first.inner_text() == before:
        if time.monotonic() > deadline:
            if settle_s is not None:
                return
            raise AssertionError(f"{selector} did not change in {timeout_s} s")
        page.wait_for_timeout(20)


def documents(page: Any, timer: Timer, rounds: int) -> None:
    """The documents table: 50 rows a page, then next page, sort orders and the status filter."""
    rows = "table tbody"
    page.get_by_role("combobox").filter(has_text="10").click()
    before = page.locator(rows).inner_text()
    timer.time("page_size_50", lambda: page.get_by_role("option", name="50", exact=True).click(),
               lambda: changed(page, rows, before))  # fmt: skip
    assert page.locator(f"{rows} tr").count() == 50
    for _ in range(rounds):
        before = page.locator(rows).inner_text()
        nxt = page.locator("button:has(svg.lucide-chevron-right)").first
        timer.time("next_page", nxt.click, lambda shown=before: changed(page, rows, shown))
    for i in range(rounds):
        header = ("Created", "ID", "Updated")[i % 3]
        before = page.locator(rows).inner_text()
        cell = page.locator("table thead th", has_text=header).first
        timer.time("sort", cell.click, lambda shown=before: changed(page, rows, shown))
    for _ in range(rounds):  # the failed documents (none, or those a cancelled run left) and back to all
        for name in (r"^Failed \(\d+\)$", r"^All \(\d+\)$"):
            before = page.locator("main").first.inner_text()
            button = page.get_by_role("button", name=re.compile(name))
            timer.time("status_filter", lambda b=button: answered(page, b.click),
                       lambda shown=before: changed(page, "main", shown, settle_s=2))  # fmt: skip


def answered(page: Any, click: Callable[[], Any]) -> None:
    """``click``, then wait for the table's `POST /documents/paginated` answer."""
    with page.expect_response(lambda r: "/documents/paginated" in r.url, timeout=120_000):
        click()


def paginated_cpu(url: str, timer: Timer, rounds: int) -> None:
    """Server CPU of one `POST /documents/paginated` (a page of 50), without the browser."""
    for page in range(2, 2 + rounds):
        body = {"page": page, "page_size": 50, "sort_field": "updated_at", "sort_direction": "desc"}
        timer.time("api_page_of_50", lambda b=body: httpx.post(f"{url}/documents/paginated", json=b, timeout=120),
                   lambda: None)  # fmt: skip


def open_entity(page: Any, name: str) -> Any:
    """Select ``name`` with the graph view's search box; returns the panel's Name row."""
    page.get_by_text("Knowledge Graph", exact=True).click()
    box = page.get_by_placeholder("Search nodes in page...")
    box.wait_for(timeout=120_000)
    page.wait_for_timeout(3000)  # the graph is laid out
    box.click()
    box.fill(name)
    page.get_by_role("option", name=name, exact=True).click(timeout=60_000)
    row = page.locator("div.flex.items-center.gap-1.overflow-hidden", has=page.locator("span", has_text="Name"))
    row.first.locator("label", has_text=name).wait_for(timeout=60_000)
    return row.first


def edits(page: Any, timer: Timer, rounds: int, hub: str) -> None:
    """Rename ``hub`` through the property edit dialog, alternately to a new name and back; timed from
    Save to the panel's Name row showing the new name."""
    row = open_entity(page, hub)
    for i in range(rounds):
        name = f"{hub} (edited)" if i % 2 == 0 else hub
        page.wait_for_timeout(500)
        row.locator("svg.lucide-pencil").click()
        dialog = page.get_by_role("dialog")
        dialog.locator("textarea").fill(name)
        save = dialog.get_by_role("button", name="Save", exact=True)
        shown = row.locator("label", has_text=re.compile(f"^{re.escape(name)}$"))
        timer.time("rename_save_to_panel", save.click, lambda s=shown: s.wait_for(timeout=120_000))
        dialog.wait_for(state="hidden", timeout=60_000)


@contextmanager
def launch_browser(url: str) -> Iterator[tuple[Any, dict[str, list[str]]]]:
    """Debian's chromium, one 1,400 x 900 page recording uncaught errors, console errors, HTTP errors and
    requests that leave ``url`` (other than the page's own blob: and data: URLs)."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("Debian chromium is not installed: run `sh scripts/install-chromium.sh` as root")
    seen: dict[str, list[str]] = {"errors": [], "console_errors": [], "outside_requests": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("pageerror", lambda e: seen["errors"].append(str(e)))
            page.on("response", lambda r: seen["errors"].append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page.on("console", lambda m: seen["console_errors"].append(m.text) if m.type == "error" else None)
            page.on("request", lambda r: None if r.url.startswith((url, "blob:", "data:"))
                    else seen["outside_requests"].append(r.url))  # fmt: skip
            yield page, seen
        finally:
            browser.close()


def drive(url: str, pid: int, rounds: int, out_dir: Path, tmp: Path, cpu: Cpu) -> dict[str, Any]:
    """Every LightRAG action, timed; screenshots of the table and the renamed entity in ``out_dir``."""
    total = httpx.get(f"{url}/documents/status_counts", timeout=60).json()["status_counts"]["all"]
    hub = httpx.get(f"{url}/graph/label/popular", params={"limit": 1}, timeout=60).json()[0]
    timer = Timer(pid, cpu)
    with launch_browser(url) as (page, seen):
        try:
            timer.time("open_to_first_rows", lambda: page.goto(f"{url}/webui/", timeout=300_000),
                       lambda: page.wait_for_selector("table tbody tr", timeout=300_000))  # fmt: skip
            documents(page, timer, rounds)
            out_dir.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out_dir / "lightrag-webui-documents.png"))
            paginated_cpu(url, timer, rounds)
            edits(page, timer, rounds, hub)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(out_dir / "lightrag-webui-graph-edit.png"))
        except Exception:
            page.screenshot(path=str(tmp / "failure.png"))
            print(f"the page at the failure: {tmp / 'failure.png'}")
            raise
    if rounds % 2:  # the hub keeps its name for the next run
        body = {"entity_name": f"{hub} (edited)", "updated_data": {"entity_name": hub}, "allow_rename": True}
        httpx.post(f"{url}/graph/entity/edit", json=body, timeout=120).raise_for_status()
    return {"documents": total, "hub": hub, "timings": timer.summary(), **seen}
