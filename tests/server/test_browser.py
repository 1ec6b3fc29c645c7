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
from tests.server.conftest import free_port
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
            f"sample={sample_dir}",
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
