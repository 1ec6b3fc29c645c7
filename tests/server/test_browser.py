"""End to end in headless Chromium: `kgrag serve` on the sample workspace, the page asks a question
through two pipelines side by side and opens an entity's neighbourhood; a screenshot is saved to
``build/test-artifacts/server-page.png``.

Debian's chromium (``scripts/install-chromium.sh``, run by ``make test``) is driven by Playwright's
Python package through ``executable_path``: no browser download. Without either, the test skips and
says why (fails under ``KGRAG_REQUIRE_SERVICES=1``, as in CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.conftest import REPO
from tests.server.conftest import build_workspace, free_port
from tests.services import import_service, unavailable

sync_api = import_service("playwright.sync_api", "Chromium", "playwright is not installed (pip install 'kgrag[dev]')")

ARTIFACTS = REPO / "build" / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        unavailable("Chromium", "Debian chromium is not installed (run scripts/install-chromium.sh as root)")
    return found


@pytest.fixture
def served(sample_dir: Path) -> Iterator[str]:
    """`kgrag serve` over the sample workspace (read-only here)."""
    yield from _serve("sample", sample_dir)


@pytest.fixture
def served_empty(tmp_path: Path) -> Iterator[str]:
    """`kgrag serve` over an empty workspace of this test's own (uploads change it)."""
    yield from _serve("fresh", build_workspace(tmp_path / "fresh", [], graph=False))


def _serve(name: str, directory: Path) -> Iterator[str]:
    """`kgrag serve` as a real subprocess on a free loopback port; terminated afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kgrag.cli",
            "serve",
            "-w",
            f"{name}={directory}",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if process.poll() is not None:
                raise RuntimeError(f"kgrag serve exited: {process.stdout.read().decode() if process.stdout else ''}")
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(30)


def test_page_asks_compares_and_opens_an_entity(served: str) -> None:
    executable = _chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            outside: list[str] = []
            page.on("request", lambda r: None if r.url.startswith(served) else outside.append(r.url))
            page.goto(served)
            page.wait_for_selector("#pipelines input[data-pipeline='graph-local']")
            for name in ("dense", "graph-local"):
                box = page.locator(f"#pipelines input[data-pipeline='{name}']")
                if not box.is_checked():
                    box.check()
            page.fill("#question", "Who leads the Platform team?")
            page.click("#ask-button")
            page.wait_for_selector(".answer[data-pipeline='graph-local'] .text")
            columns = page.locator(".answer")
            assert columns.count() >= 2
            assert page.locator(".answer[data-pipeline='dense'] .passage.cited").count() >= 1
            assert "no LLM call" in page.locator(".answer[data-pipeline='dense'] .cost").inner_text()
            chip = page.locator(".answer[data-pipeline='graph-local'] .chip.entity").first
            name = chip.inner_text()
            chip.click()
            page.wait_for_selector("#graph circle.center")
            assert page.locator("#graph circle").count() >= 2
            assert name in page.locator("#graph-title").inner_text()
            page.screenshot(path=str(ARTIFACTS / "server-page.png"), full_page=True)
            assert outside == []  # nothing left the machine
        finally:
            browser.close()
    assert (ARTIFACTS / "server-page.png").stat().st_size > 10_000


def test_the_page_uploads_through_the_cross_site_guard(served_empty: str, tmp_path: Path) -> None:
    """The page's own upload (multipart, which the guard refuses from a foreign form) still works: its
    script sends the header, and the indexing job it starts finishes."""
    executable = _chromium()
    note = tmp_path / "herons.md"
    note.write_text("# Herons\n\nGrey herons nest in colonies called heronries.\n", encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(served_empty)
            page.wait_for_selector("#workspace option[value='fresh']", state="attached")
            page.set_input_files("#files", str(note))
            with page.expect_response(lambda r: r.url.endswith("/documents") and r.request.method == "POST") as sent:
                page.click("#upload button[type='submit']")
            assert sent.value.status == 201, sent.value.text()
            page.wait_for_function("document.querySelector('#status').textContent.includes('uploaded 1 file')")
        finally:
            browser.close()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # the job the upload started indexes the file
        documents = httpx.get(f"{served_empty}/v1/workspaces/fresh/documents", timeout=30).json()
        if documents["chunks"] >= 1:
            break
        time.sleep(0.5)
    assert documents["chunks"] >= 1, documents
