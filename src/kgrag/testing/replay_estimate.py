"""``kgrag index --estimate --probe`` and the index run after it, on a recorded real-model run.

The documents are cut from the shared GraphRAG-Bench corpora as ``bench/llm_check.py`` cut them for the
recording; the model is a :class:`~kgrag.testing.replay_server.ReplayServer` of its replies. The
workspace is ``llm_check``'s (default settings, ``max_concurrency = 1``) with hashed embeddings, which no
LLM request depends on. Estimate ÷ actual is then the current code's on the recorded replies.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.core.llm_usage import CallRecord

FIGURES = ("calls", "prompt_tokens", "completion_tokens")


@dataclass(frozen=True)
class Recorded:
    """A recorded run: its replies and the passages it indexed (``corpus``: ``medical`` or a Novel book)."""

    recording: Path
    corpus: str
    offsets: tuple[int, ...]
    passage_chars: int = 3200


@dataclass(frozen=True)
class Replayed:
    """The estimate and the run that followed it, figure by figure; the estimate's lines; the replay's
    faithfulness (``unrecorded`` requests: 0 when every request was a recorded one)."""

    estimate: dict[str, int]
    actual: dict[str, int]
    low: dict[str, int]
    high: dict[str, int]
    lines: tuple[str, ...]
    unrecorded: int
    gleaning: tuple[int, int] = (0, 0)  # the run's gleaning calls and their prompt tokens
    graph: dict[str, int] | None = None  # the graph the run built: its entity and relation counts
    loops: int = 0  # the run's replies stopped in a repetition loop
    probe: dict[str, int] | None = None  # the estimate's probe: what it sent (its replies are cached for the run)

    def ratio(self, figure: str) -> float:
        """Estimate ÷ actual; 1 when both are 0 (nothing was left to predict, and nothing was predicted)."""
        if not self.actual[figure]:
            return 1.0 if not self.estimate[figure] else float("inf")
        return self.estimate[figure] / self.actual[figure]


def cut_passages(corpus_file: Path, offsets: Sequence[int], chars: int, out: Path, book: str = "") -> list[str]:
    """Passages of a GraphRAG-Bench corpus as documents in ``out`` (the medical one, or the Novel subset's
    ``book``): from the sentence that holds each character offset, whole sentences up to ``chars``
    characters; their file names. ``bench/llm_check.py`` cuts its documents with this too."""
    records = json.loads(corpus_file.read_text(encoding="utf-8"))
    text = next(r["context"] for r in records if not book or r["corpus_name"] == book)
    names = []
    for offset in offsets:
        start = text.rfind(". ", 0, offset) + 2
        end = text.rfind(". ", start, start + chars) + 1
        name = f"{book.lower() or 'medical'}-{offset}.md"
        (out / name).write_text(text[start:end] + "\n", encoding="utf-8")
        names.append(name)
    return names


def passages(corpus_file: Path, run: Recorded, out: Path) -> None:
    """The recorded run's documents, cut as ``bench/llm_check.py`` cut them for the recording."""
    cut_passages(corpus_file, run.offsets, run.passage_chars, out, "" if run.corpus == "medical" else run.corpus)


def _figures(calls: list[CallRecord]) -> dict[str, int]:
    return {
        "calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
    }


def replay(run: Recorded, corpus_file: Path, work: Path) -> Replayed:
    """Probe, estimate and index ``run``'s passages (cut from ``corpus_file``) in a fresh workspace under
    ``work`` against its recorded replies."""
    from kgrag import Workspace
    from kgrag.core.llm_usage import LOOP_SOURCE
    from kgrag.testing.replay_server import ReplayServer
    from kgrag.testing.workspace_toml import write_workspace_toml

    docs = work / "docs"
    docs.mkdir(parents=True)
    passages(corpus_file, run, docs)
    server = ReplayServer(run.recording)
    with server:
        path = work / "ws"
        Workspace.init(path, embedding={"provider": "fake"}).close()
        write_workspace_toml(path, {
            "embedding.provider": '"fake"', "graph.extractor": '"llm"', "llm.provider": '"openai"',
            "llm.providers.openai.base_url": json.dumps(server.base_url), "llm.model": '"local"',
            "llm.max_concurrency": "1",
        })  # fmt: skip
        with Workspace.open(path) as ws:
            _, estimate = ws.estimate_index([docs], probe=True)
            since = time.time()
            ws.index([docs])
            every = [c for c in ws.store.llm_ledger.calls() if not c.cache_hit and not c.estimated]
            sent = [c for c in every if c.created_at >= since]
            probed = [c for c in every if c.created_at < since]
            graph = ws.graph.counts()
        glean = [c for c in sent if c.stage == "index.glean"]
        ends = [{f: getattr(b, f) for f in FIGURES} if b is not None else {} for b in (estimate.low, estimate.high)]
        return Replayed(
            {f: getattr(estimate, f) for f in FIGURES},
            _figures(sent),
            ends[0],
            ends[1],
            (*estimate.predicted, *estimate.assumptions),
            server.unrecorded,
            (len(glean), sum(c.prompt_tokens for c in glean)),
            {name: graph.get(name, 0) for name in ("entities", "relations")},
            sum(1 for c in every if c.usage_source == LOOP_SOURCE),
            _figures(probed),
        )
