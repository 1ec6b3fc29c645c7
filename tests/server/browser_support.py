"""What the browser tests share: Debian's chromium driven by Playwright, a page that records console
errors, failed responses and requests leaving the server, and the page's own first-paint marks.

The fixtures ``browser`` (one headless chromium per test module) and ``page`` (a fresh recording page per
test, on the module's own ``served`` URL) are registered for ``tests/server`` by its conftest. Playwright
is imported only when ``browser`` is set up, so the conftest and the tests without a browser load without
it; a browser test without it skips (fails where services are required)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.conftest import REPO
from tests.services import import_service, unavailable

ARTIFACTS = REPO / "build" / "test-artifacts"
QUESTIONS = REPO / "examples" / "sample" / "questions.json"
NO_PLAYWRIGHT = "playwright is not installed (pip install 'kgrag[dev]')"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        unavailable("Chromium", "Debian chromium is not installed (run scripts/install-chromium.sh as root)")
    return found


def cli(*args: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "kgrag.cli", *args], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=chromium(), headless=True, args=CHROMIUM_ARGS)


def first_paint_ms(page: Any) -> float:
    page.wait_for_selector("#graph-canvas[data-painted]", timeout=60_000)
    measures = page.evaluate("performance.getEntriesByName('kgrag:graph-first-paint').map((m) => m.duration)")
    painted = page.evaluate("performance.getEntriesByName('kgrag:graph-painted').map((m) => m.startTime)")
    received = page.evaluate("performance.getEntriesByName('kgrag:graph-received').map((m) => m.startTime)")
    assert measures and painted and received
    timings = {
        "since_request_ms": round(measures[0], 1),
        "since_navigation_ms": round(painted[0], 1),
        "drawing_ms": round(painted[0] - received[0], 1),
    }
    print(f"first graph paint: {timings}")
    return float(timings["since_navigation_ms"])


class Page:
    """A page that records console errors, uncaught exceptions and requests leaving this server."""

    def __init__(self, browser: Any, url: str, width: int = 1400) -> None:
        self.url = url
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("response", lambda r: self.errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: None if r.url.startswith(url) else self.outside.append(r.url))

    def open(self, view: str) -> Any:
        self.page.goto(f"{self.url}/#{view}")
        self.page.wait_for_selector(f"#view-{view}:not([hidden])")
        return self.page

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"webapp-{name}.png"))
        assert (ARTIFACTS / f"webapp-{name}.png").stat().st_size > 5_000

    def close(self) -> None:
        self.page.close()
        assert self.errors == [], self.errors
        assert self.outside == []  # every asset comes from kgrag itself


def wait_until(page: Any, expression: str, timeout_s: float = 60) -> None:
    """Poll a JavaScript expression until it is true (the page's CSP forbids the eval behind
    ``wait_for_function``)."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_s} s: {expression}")
        page.wait_for_timeout(100)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian chromium for a whole test module."""
    sync_api = import_service("playwright.sync_api", "Chromium", NO_PLAYWRIGHT)
    with sync_api.sync_playwright() as playwright:
        launched = launch(playwright)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any, served: str) -> Iterator[Page]:
    """A recording page on the module's ``served`` URL; on close it asserts no errors and no outside request."""
    opened = Page(browser, served)
    yield opened
    opened.close()


def hold_request(page: Any, pattern: str, send: Callable[[], None], timeout_s: float = 30) -> Any:
    """Run ``send`` (the action that makes the page ask) and hold the request matching ``pattern`` on its
    way; returns the held route, which the caller passes on unchanged with ``continue_()`` when it likes
    (how a test makes the server's own answer arrive late)."""
    held: list[Any] = []
    page.route(pattern, lambda route: held.append(route))
    send()
    deadline = time.monotonic() + timeout_s
    while not held:
        if time.monotonic() > deadline:
            raise AssertionError(f"the page sent no request matching {pattern}")
        page.wait_for_timeout(50)
    return held[0]
