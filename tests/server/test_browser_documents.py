"""The Documents view at scale in real Chromium: 1,200 small generated documents paged 50 at a time,
filtered by status and name, sorted, several deleted at once after a dry run; an answer to filters changed
since does not draw the table; a job where one file failed is shown as partial; a refusal (409) is said in
the view; the k box shows the workspace's default. Every check reads the page or the server's own answers;
nothing is injected (one answer is held back on its way, unchanged)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.server.browser_support import Page, cli, hold_request, wait_until
from tests.server.conftest import SERVED_TOML
from tests.server.serve_support import serve

from kgrag.config import CONFIG_FILE_NAME

DOCS = 1200
D = "/v1/workspaces/many/documents"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("webapp-docs")
    docs = root / "docs"
    docs.mkdir()
    for i in range(DOCS):
        (docs / f"note-{i:04d}.md").write_text(f"# Note {i}\n\nNote number {i} is about topic {i % 37}.\n", "utf-8")
    (docs / "broken.docx").write_bytes(b"not a zip at all")  # cannot be read: a failed document
    path = root / "many"
    path.mkdir()
    (path / CONFIG_FILE_NAME).write_text(SERVED_TOML, encoding="utf-8")
    cli("index", "-w", str(path), str(docs))
    return path


@pytest.fixture(scope="module")
def served(workspace: Path) -> Iterator[str]:
    yield from serve({"many": workspace})


def _rows(view: Any) -> list[str]:
    return [r.get_attribute("data-doc") or "" for r in view.locator("#documents tbody tr[data-doc]").all()]


def test_an_answer_to_filters_changed_since_does_not_draw_the_table(page: Page) -> None:
    """Filters changed quickly send several requests, and the answer to an earlier one can come last: here
    the request for "failed only" is held on its way (then passed on unchanged) until the filter is back to
    every status and that answer is drawn. The table shows what the filters shown ask for."""
    listed = httpx.get(f"{page.url}{D}", timeout=60).json()
    view = page.open("documents")
    view.wait_for_selector("#documents tbody tr[data-doc]")
    held = hold_request(view, "**/documents?*state=failed*", lambda: view.select_option("#doc-state", "failed"))
    with view.expect_response(lambda response: "/documents?" in response.url and "state=" not in response.url) as newer:
        view.select_option("#doc-state", "")
    newer.value.finished()
    view.wait_for_timeout(300)  # the newer answer is drawn
    with view.expect_response(lambda response: "state=failed" in response.url) as late:
        held.continue_()
    late.value.finished()
    view.wait_for_timeout(500)  # the page has had the late answer
    assert view.inner_text("#doc-page") == f"1–50 of {listed['total']}"
    assert _rows(view) == [d["id"] for d in listed["documents"][:50]]


def test_a_thousand_documents_are_paged_filtered_sorted_and_deleted_together(page: Page) -> None:
    listed = httpx.get(f"{page.url}{D}", timeout=60).json()
    total = listed["total"]
    assert total == DOCS + 1 and listed["counts"] == {"indexed": DOCS, "failed": 1}
    view = page.open("documents")
    view.wait_for_selector("#documents tbody tr[data-doc]")
    assert len(_rows(view)) == 50 and view.inner_text("#doc-page") == f"1–50 of {total}"
    view.click("#doc-next")
    view.locator("#doc-page", has_text=f"51–100 of {total}").wait_for()
    assert _rows(view) == [d["id"] for d in listed["documents"][50:100]]
    page.shot("documents-page-2")
    view.select_option("#doc-state", "failed")
    view.locator("#doc-page", has_text="1–1 of 1").wait_for()
    assert "broken.docx" in view.inner_text("#documents tbody")
    view.select_option("#doc-state", "")
    view.select_option("#doc-sort", "name")
    view.check("#doc-desc")
    view.locator("#doc-page", has_text=f"1–50 of {total}").wait_for()
    wait_until(view, "document.querySelector('#documents tbody tr[data-doc]').innerText.includes('note-1199.md')")
    view.fill("#doc-q", "note-00")
    view.press("#doc-q", "Enter")
    view.locator("#doc-page", has_text="1–50 of 100").wait_for()
    rows = view.locator("#documents tbody tr[data-doc]")
    picked = [rows.nth(i).get_attribute("data-doc") for i in range(3)]
    for i in range(3):
        rows.nth(i).locator("input.pick").check()
    view.click("#doc-delete-selected")
    view.wait_for_selector("#confirm-dialog[open]")
    assert "3 documents" in view.inner_text("#confirm-body") and "3 chunks" in view.inner_text("#confirm-body")
    assert httpx.get(f"{page.url}{D}", timeout=60).json()["total"] == total  # the preview removed nothing
    view.click("#confirm-ok")
    view.locator("#doc-page", has_text="1–50 of 97").wait_for()
    left = {d["id"] for d in httpx.get(f"{page.url}{D}", timeout=60).json()["documents"]}
    assert len(left) == total - 3 and not left.intersection(picked)


def test_a_partial_job_a_refusal_and_the_default_k_are_shown(page: Page, workspace: Path, tmp_path: Path) -> None:
    good, bad = tmp_path / "heron.md", tmp_path / "broken-too.docx"
    good.write_text("# Herons\n\nGrey herons nest in heronries.\n", encoding="utf-8")
    bad.write_bytes(b"still not a zip")
    view = page.open("documents")
    view.wait_for_selector("#documents tbody tr[data-doc]")
    view.set_input_files("#files", [str(good), str(bad)])
    view.click("#upload-button")
    job = view.locator("#jobs .job").first
    job.locator(".badge", has_text="partial").wait_for(timeout=120_000)
    job_id = job.get_attribute("data-job")
    served = httpx.get(f"{page.url}/v1/workspaces/many/jobs/{job_id}", timeout=30).json()
    assert served["state"] == "succeeded" and served["result"]["outcome"] == "partial"
    assert "broken-too.docx" in job.inner_text()
    # the uploaded file disappears from disk: re-indexing it is refused (409), said in the view
    view.fill("#doc-q", "heron")
    view.press("#doc-q", "Enter")
    view.locator("#doc-page", has_text="1–1 of 1").wait_for()
    for upload in [p for p in (workspace / "uploads").rglob("*") if p.suffix == ".md"]:
        upload.unlink()
    with view.expect_response(lambda r: r.url.endswith("/reindex")) as answered:
        view.click("#documents tbody tr[data-doc] button.reindex")
    assert answered.value.status == 409
    view.locator("#doc-error [role='alert']", has_text="gone").wait_for()
    page.errors[:] = [e for e in page.errors if "409" not in e]  # the refusal this test provoked, nothing else
    page.shot("documents-refusal")
    k = httpx.get(f"{page.url}/v1/workspaces/many/settings", timeout=30).json()["k"]
    view.click("#tab-ask")
    wait_until(view, f"document.querySelector('#k').placeholder === 'default {k}'")
