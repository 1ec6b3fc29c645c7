"""Estimate vs measured: index the same files twice against the fake OpenAI server, once with
``--estimate`` and once for real, and compare calls, tokens and money figure by figure.

Used by ``bench/bench_estimate.py`` (a Medical slice) and the CI test on the sample corpus, so the
estimate's default assumptions are checked against what the realistic scripted extraction responder
(:mod:`kgrag.testing.extraction_responder`) makes a real run do: first passes, gleaning, re-asks and
description summaries.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.fake_openai_server import FakeOpenAIServer, Responder
from kgrag.testing.workspace_toml import write_workspace_toml

if TYPE_CHECKING:
    from kgrag import Workspace
    from kgrag.core.llm_usage import Totals
    from kgrag.models.llm import Estimate

FIGURES = ("calls", "prompt_tokens", "completion_tokens", "cost_usd")
KEY_ENV = "KGRAG_ESTIMATE_CHECK_KEY"
PRICES = {"llm.price_prompt_per_1m": "0.15", "llm.price_completion_per_1m": "0.6"}


@dataclass(frozen=True)
class Comparison:
    """The estimate's four figures next to the measured run's, with the estimate's assumption lines."""

    estimate: dict[str, float]
    measured: dict[str, float]
    measured_by_stage: dict[str, dict[str, float]]
    assumptions: list[str]
    requests: int
    low: dict[str, float] | None = None  # the estimate's range (re-asks and retries at its ends)
    high: dict[str, float] | None = None

    def in_range(self, figure: str) -> bool | None:
        """Whether the measured figure lies in the estimate's range (None: no range)."""
        if self.low is None or self.high is None:
            return None
        return self.low[figure] <= self.measured[figure] <= self.high[figure]

    def ratio(self, figure: str) -> float:
        measured = self.measured[figure]
        return self.estimate[figure] / measured if measured else float("inf")

    def table(self) -> str:
        rows = [f"{'figure':<18} {'estimate':>12} {'measured':>12} {'ratio':>7}"]
        for figure in FIGURES:
            rows.append(
                f"{figure:<18} {self.estimate[figure]:>12.4g} {self.measured[figure]:>12.4g} {self.ratio(figure):>7.2f}"
            )
        return "\n".join(rows)


def write_workspace(path: Path, base_url: str, settings: dict[str, str] | None = None) -> Path:
    """An LLM-extraction workspace (fake embedder, OpenAI provider at ``base_url``) with prices set."""
    from kgrag import Workspace

    Workspace.init(path, embedding={"provider": "fake"}).close()
    lines = {
        "embedding.provider": '"fake"',
        "graph.extractor": '"llm"',
        "llm.provider": '"openai"',
        "llm.providers.openai.base_url": json.dumps(base_url),
        "llm.model": '"test-model"',
        "llm.providers.openai.api_key_env": json.dumps(KEY_ENV),
        **PRICES,
        **(settings or {}),
    }
    return write_workspace_toml(path, lines)


def compare(
    files: Sequence[Path],
    workdir: Path,
    settings: dict[str, str] | None = None,
    *,
    responder: Responder | None = None,
    probe: bool = False,
    history: Sequence[Path] = (),
    cut_at_max_tokens: bool = False,
) -> Comparison:
    """Estimate, then index for real, ``files`` in two fresh workspaces under ``workdir``, against a fake
    server answering with ``responder`` (default: the realistic scripted extraction responder). ``probe``:
    estimate with ``--probe``; ``history``: files the estimate's workspace indexes for real first, so its
    ledger calibrates the estimate; ``cut_at_max_tokens``: the server stops replies at ``max_tokens`` with
    ``length`` (:class:`FakeOpenAIServer`). ``requests`` counts only what the estimate itself sent."""
    from kgrag import Workspace

    os.environ.setdefault(KEY_ENV, "sk-estimate-check")
    answer = responder or ExtractionResponder().for_server
    # no usage block: kgrag counts with cl100k, as real APIs do
    with FakeOpenAIServer(answer, include_usage=False, cut_at_max_tokens=cut_at_max_tokens) as server:
        with Workspace.open(write_workspace(workdir / "estimate", server.base_url, settings)) as ws:
            if history:
                ws.indexing.run(list(history))
            before = server.stats.requests
            _, estimate = ws.indexing.estimate(list(files), probe=probe)
            requests = server.stats.requests - before
            if probe or history:  # the run this estimate was for: the same workspace, its cache and ledger
                return _measured(ws, files, estimate, requests)
        with Workspace.open(write_workspace(workdir / "real", server.base_url, settings)) as ws:
            return _measured(ws, files, estimate, requests)


def _figures(totals: Totals) -> dict[str, float]:
    """What was paid: calls the cache did not answer, billed tokens, money."""
    return {
        "calls": float(totals.calls - totals.cache_hits),
        "prompt_tokens": float(totals.billed_prompt_tokens),
        "completion_tokens": float(totals.billed_completion_tokens),
        "cost_usd": float(totals.cost_usd),
    }


def _measured(ws: Workspace, files: Sequence[Path], estimate: Estimate, requests: int) -> Comparison:
    """Index ``files`` for real in ``ws``; the comparison with ``estimate`` of the calls that run made
    (ledger rows written after it started: a probe's calls are the estimate's own, not the run's)."""
    from kgrag.core.llm_usage import Totals, build_summary

    ledger = ws.store.llm_ledger
    seen = len(ledger.calls())
    ws.indexing.run(list(files))
    groups = [(record.run_id, record.stage, Totals.of(record)) for record in ledger.calls()[seen:]]
    usage = build_summary(groups, ws.components.prices())
    ends = [
        {f: float(getattr(end, f)) for f in FIGURES} if end is not None else None
        for end in (estimate.low, estimate.high)
    ]
    return Comparison(
        {f: float(getattr(estimate, f)) for f in FIGURES},
        _figures(usage.total),
        {stage: _figures(t) for stage, t in sorted(usage.by_stage.items())},
        [*estimate.assumptions, *estimate.predicted],
        requests,
        *ends,
    )


def _medical_text(corpus: Path) -> str:
    records = json.loads(corpus.read_text(encoding="utf-8"))
    return "\n\n".join(str(r.get("context", "")) for r in records)


def medical_slices(corpus: Path, out_dir: Path, count: int = 1, characters: int = 32_000) -> list[Path]:
    """``count`` consecutive slices of the GraphRAG-Bench Medical corpus of about ``characters`` each, each
    cut at a line, as ``medical-<n>.txt`` files."""
    text = _medical_text(corpus)
    paths, start = [], 0
    for number in range(count):
        end = text.find("\n", start + characters)
        path = out_dir / f"medical-{number}.txt"
        path.write_text(text[start:end] + "\n", encoding="utf-8")
        paths.append(path)
        start = end + 1
    return paths


def medical_slice(corpus: Path, out_dir: Path, tokens: int = 25_000) -> Path:
    """The first ``tokens`` (cl100k) of the GraphRAG-Bench Medical corpus as one text file, cut at a line."""
    from kgrag.models.llm.tokens import default_token_counter

    text = _medical_text(corpus)
    counter = default_token_counter()
    lines, used = [], 0
    for line in text.splitlines():
        used += counter.count(line) + 1
        if used > tokens:
            break
        lines.append(line)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "medical-slice.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
