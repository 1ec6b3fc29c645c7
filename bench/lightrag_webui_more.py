"""More of LightRAG's WebUI for bench_lightrag_webui.py: the graph panel's *Expand Node* and *Hide Node*
(its prune) buttons, the documents view's upload dialog, and the *Retrieval* view (the query modes as
prefixes, *Only Need Context*, *Stream Response*), each timed with lightrag_webui_drive's Timer from the
click to the page showing the result. The graph's node count is read from the status line under the
graph ("node: N"); an upload is timed until the *Completed* tab counts the new documents.
"""

from __future__ import annotations

import re
import time
from functools import partial
from pathlib import Path
from typing import Any

from lightrag_notes import CLINICS, note
from lightrag_webui_drive import Timer, open_entity

NODES = re.compile(r"^node: (\d+)$")
PROCESSED = re.compile(r"^Completed \((\d+)\)$")  # the tab of processed documents
QUESTION = "Which clinician saw patients at the {clinic}?"
ASKED = [f"{name} Clinic" for name in CLINICS]  # the questions' clinics, the same on both sides
MODES = ("local", "global", "hybrid", "naive", "mix")


def node_count(page: Any) -> int:
    found = NODES.match(page.get_by_text(NODES).first.inner_text().strip())
    return int(found.group(1)) if found else -1


def count_changed(page: Any, before: int, settle_s: float) -> None:
    """Wait until the status line's node count differs from ``before``, at most ``settle_s``."""
    deadline = time.monotonic() + settle_s
    while node_count(page) == before and time.monotonic() < deadline:
        page.wait_for_timeout(20)


def panel_button(page: Any, index: int) -> Any:
    """The node panel's icon buttons: 0 = *Expand Node*, 1 = *Hide Node*."""
    return page.locator("button.h-7.w-7.border").nth(index)


def expand_and_prune(page: Any, timer: Timer, rounds: int, hubs: list[str]) -> dict[str, list[int]]:
    """For each of ``rounds`` hubs: select it, *Expand Node* until the node count changes, then *Hide
    Node* (the node and its neighbours left with no other link) until it changes again."""
    changes: dict[str, list[int]] = {"expand_added": [], "prune_removed": []}
    for hub in hubs[:rounds]:
        open_entity(page, hub)
        before = node_count(page)
        timer.time("expand_node", panel_button(page, 0).click, partial(count_changed, page, before, 30))
        page.wait_for_timeout(1500)  # the layout settles
        after = node_count(page)
        changes["expand_added"].append(after - before)
        timer.time("prune_node", panel_button(page, 1).click, partial(count_changed, page, after, 10))
        changes["prune_removed"].append(after - node_count(page))
    return changes


def processed(page: Any) -> int:
    button = page.locator("button", has_text=PROCESSED)  # by text: a dialog hides the page from roles
    found = PROCESSED.match(button.first.inner_text().strip()) if button.count() else None
    return int(found.group(1)) if found else -1


def wait_processed(page: Any, target: int, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while processed(page) < target:
        if time.monotonic() > deadline:
            raise AssertionError(f"LightRAG's Completed tab did not reach {target} in {timeout_s} s")
        page.wait_for_timeout(100)


def upload_files(tmp: Path, round_: int, per_round: int) -> list[Path]:
    """``per_round`` new notes (past the 1,201 of the corpus) as text files named upload-NNNN.txt."""
    folder = tmp / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(1201 + round_ * per_round, 1201 + (round_ + 1) * per_round):
        path = folder / f"upload-{i:04d}.txt"
        path.write_text(note(i) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def uploads(page: Any, timer: Timer, rounds: int, tmp: Path, per_round: int) -> None:
    """Upload ``per_round`` new notes through the *Upload* dialog, timed until the *Completed* tab has
    counted them (the WebUI polls the pipeline while it is busy)."""
    page.get_by_text("Documents", exact=True).first.click()
    page.wait_for_selector("table tbody tr", timeout=120_000)
    for r in range(rounds):
        files = [str(p) for p in upload_files(tmp, r, per_round)]
        target = processed(page) + per_round
        page.get_by_role("button", name="Upload").first.click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=60_000)
        chooser = dialog.locator("input[type=file]")
        choose = partial(chooser.set_input_files, files)
        timer.time("upload_to_processed", choose, partial(wait_processed, page, target))
        page.keyboard.press("Escape")
        dialog.wait_for(state="hidden", timeout=60_000)


def ask(page: Any, timer: Timer, kind: str, text: str, marker: str) -> str:
    """Send ``text`` from the Retrieval view and wait for its reply to finish streaming; returns it."""
    box = page.locator("#query-input")
    seen = page.get_by_text(marker).count()
    box.fill(text)

    def done() -> None:
        deadline = time.monotonic() + 180
        while page.get_by_text(marker).count() <= seen or page.get_by_role("button", name="Stop").count():
            if time.monotonic() > deadline:
                raise AssertionError(f"no reply with {marker!r} to {text!r}")
            page.wait_for_timeout(20)

    timer.time(kind, lambda: page.get_by_role("button", name="Send").click(), done)
    return str(page.get_by_text(marker).last.inner_text())


def retrieval(page: Any, timer: Timer, rounds: int, clinics: list[str] = ASKED) -> dict[str, str]:
    """Streamed answers in the default mode (mix), each other mode once by its prefix, then the same
    question with *Only Need Context* ticked (the retrieved context as the reply, no answer call)."""
    page.get_by_text("Retrieval", exact=True).first.click()
    page.locator("#query-input").wait_for(timeout=60_000)
    replies: dict[str, str] = {}
    for i in range(rounds):
        question = QUESTION.format(clinic=clinics[i % len(clinics)])
        replies["streamed"] = ask(page, timer, "query_streamed", question, "From the retrieved context")
    for mode in MODES[:4]:
        question = f"/{mode} " + QUESTION.format(clinic=clinics[0])
        replies[mode] = ask(page, timer, f"query_{mode}", question, "From the retrieved context")
    page.click("#only_need_context")
    for i in range(rounds):
        question = QUESTION.format(clinic=clinics[i % len(clinics)])
        replies["context_only"] = ask(page, timer, "query_context_only", question, "Document Chunks")
    page.click("#only_need_context")
    page.click("#stream")  # Stream Response off: the answer arrives in one piece
    question = QUESTION.format(clinic=clinics[1])
    replies["unstreamed"] = ask(page, timer, "query_unstreamed", question, "From the retrieved context")
    page.click("#stream")
    return {k: v[:300] for k, v in replies.items()}


def drive_more(url: str, pid: int, rounds: int, out_dir: Path, tmp: Path, cpu: Any) -> dict[str, Any]:
    """Expand and prune, the Retrieval view, then uploads; screenshots of each in ``out_dir``."""
    import httpx

    from lightrag_webui_drive import launch_browser

    popular = httpx.get(f"{url}/graph/label/popular", params={"limit": 40}, timeout=60).json()
    clinics = [name for name in popular if name.endswith("Clinic")]
    timer = Timer(pid, cpu)
    found: dict[str, Any] = {"clinics": clinics}
    out_dir.mkdir(parents=True, exist_ok=True)
    with launch_browser(url) as (page, seen):
        try:
            page.goto(f"{url}/webui/", timeout=300_000)
            page.wait_for_selector("table tbody tr", timeout=300_000)
            found["graph_changes"] = expand_and_prune(page, timer, rounds, clinics[1:])
            open_entity(page, clinics[0])
            panel_button(page, 0).click()
            page.wait_for_timeout(3000)
            page.screenshot(path=str(out_dir / "lightrag-webui-expand.png"))
            found["replies"] = retrieval(page, timer, rounds)
            page.screenshot(path=str(out_dir / "lightrag-webui-retrieval.png"))
            uploads(page, timer, rounds, tmp, 2)
            page.screenshot(path=str(out_dir / "lightrag-webui-upload.png"))
        except Exception:
            page.screenshot(path=str(tmp / "failure-more.png"))
            print(f"the page at the failure: {tmp / 'failure-more.png'}", flush=True)
            raise
    return {**found, "timings": timer.summary(), **seen}
