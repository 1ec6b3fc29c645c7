"""Every writer takes the workspace's writer lock: ``kgrag graph denoise`` started while ``kgrag index``
runs (two processes) says it waits, runs after the indexer, and leaves a consistent graph (no entity
without a mention, nothing stale)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.reliability.crash import denoise_during_index
from tests.reliability.totals import record

from kgrag import Workspace
from kgrag.core.errors import KgragError
from kgrag.core.progress import SilentProgress
from kgrag.store.index_lock import WAITING, indexing_lock


@pytest.mark.slow
@pytest.mark.parametrize("attempt", range(3 if os.environ.get("KGRAG_SOAK") else 1))
def test_denoise_waits_for_a_running_index(tmp_path: Path, attempt: int) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for path in sorted(SAMPLE_DOCS.glob("*.md"))[:8]:
        shutil.copy(path, docs / path.name)
    run = denoise_during_index(tmp_path, docs)
    print(f"denoise during index: waited={run.waited}, exits {run.index_status}/{run.denoise_status}")
    consistent = run.waited and run.problems == [] and run.index_status == run.denoise_status == 0
    record("writers", tried=1, held=int(consistent))
    assert run.index_status == 0 and run.denoise_status == 0, run.denoise_output[-2000:]
    assert run.waited, f"denoise must wait for the indexer: {run.denoise_output[-2000:]}"
    assert run.problems == []


class _NoteSeen:
    """A progress that records notes and signals the first one."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.seen = threading.Event()

    def start(self, stage: str, total: int | None) -> None:
        return None

    def advance(self, stage: str, amount: int = 1) -> None:
        return None

    def note(self, message: str) -> None:
        self.notes.append(message)
        self.seen.set()

    def finish(self, stage: str) -> None:
        return None


@pytest.mark.parametrize("writer", ["communities", "undo-denoise", "denoise", "remove", "graph-import"])
def test_every_writer_waits_for_the_lock_holder(tmp_path: Path, writer: str) -> None:
    """While another holder (here a thread standing in for ``kgrag index``: an ``flock`` taken on its own
    file descriptor conflicts just as another process's does) holds the lock, the writer notes that it
    waits and does not proceed; once released it runs."""
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}) as ws:
        ws.index([SAMPLE_DOCS / sorted(p.name for p in SAMPLE_DOCS.glob("*.md"))[0]])
        progress = _NoteSeen()
        exported = ws.graph.export("graphml", tmp_path / "graph.graphml").path
        calls: dict[str, Callable[[], object]] = {
            "communities": lambda: ws.communities.build(progress=progress),
            "undo-denoise": lambda: ws.denoise.undo(progress=progress),
            "denoise": lambda: ws.denoise.apply(progress=progress),
            "remove": lambda: ws.indexing.remove(["no-such-document"], progress),
            "graph-import": lambda: ws.graph.import_graphml(exported, progress=progress),
        }
        outcome: list[object] = []
        with indexing_lock(ws.path, ws.store, SilentProgress()):
            worker = threading.Thread(target=lambda: outcome.append(_attempt(calls[writer])), daemon=True)
            worker.start()
            assert progress.seen.wait(60), "the writer did not say it waits"
            assert worker.is_alive() and outcome == []  # still held: it cannot have run
        worker.join(120)
        assert not worker.is_alive() and outcome, "the writer did not run after the lock was released"
        assert progress.notes[0] == WAITING
    record("writers", tried=1, held=1)


def _attempt(call: Callable[[], object]) -> object:
    try:
        return call()
    except KgragError as exc:  # e.g. nothing to undo: still ran after the lock
        return exc
