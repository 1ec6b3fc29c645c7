"""Does kgrag index for real against a held-out estimate server (``--server``: ``heldout2``, the small local
model of :mod:`estimate_heldout2_server`, ``heldout3``, the mid-sized open model of
:mod:`estimate_heldout3_server`, ``heldout4``, the verbose hosted model of :mod:`estimate_heldout4_server`, or
``heldout5``, the reasoning model that thinks aloud of :mod:`estimate_heldout5_server`)?

Indexes the first ``--tokens`` (about 4 characters a token) of the GraphRAG-Bench Medical corpus with the
``standard``, ``graphrag`` and ``denoised`` pipelines (denoising with LLM merge confirmation and LLM triple
reflection), each in a fresh workspace against ``FakeOpenAIServer`` answering as that server (``heldout4`` and
``heldout5`` with ``cut_at_max_tokens=True``: their servers cut replies and say ``length``), and prints per
pipeline: the ledger's calls, attempts and tokens per stage (extraction by call role: first, re-ask, half,
glean, ...), what the server was asked (requests by prompt kind, re-asks, replies cut at ``max_tokens``,
re-asks cut again, answers not JSON after any ``<think>`` block), the graph's size, the run's warnings and
fallbacks, and the errors of failed chunks.
Exits non-zero when a graph is empty or an expected stage made no call. No estimate is run.

``--skip N`` starts the slice after the corpus's first N tokens. ``--description-tokens N`` lowers
``graph.max_description_tokens`` (default 300), so that the summary stage is reached on a small slice too:
merged descriptions must add up to more than that before a summary is asked for.
``--set KEY=VALUE`` adds a kgrag.toml setting (``--set graph.extractors.llm.unit_tokens=2400``: longer units,
which heldout3 leaves under one entity per 100 tokens, so they are gleaned).
``--llama-cpp`` makes the server answer as llama-cpp-python's does (``json_schema`` refused, replies
stopped at ``max_tokens`` words with ``finish_reason: "length"``, a ``--window`` context window).

    PYTHONPATH=src .venv/bin/python bench/check_heldout_server.py --server heldout3 [--tokens 8000] [--llama-cpp]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from kgrag.testing.estimate_check import KEY_ENV, write_workspace
from kgrag.testing.fake_openai_server import FakeOpenAIServer
from kgrag.testing.wire import ChatBody

sys.path.insert(0, str(Path(__file__).resolve().parent))
from estimate_heldout2_server import heldout2_server  # sibling modules of this script
from estimate_heldout3_server import heldout3_server
from estimate_heldout4_server import heldout4_server
from estimate_heldout5_server import heldout5_server
from scripted_requests import cl100k, prompt_kind

ROOT = Path(__file__).resolve().parents[1]
MEDICAL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
SERVERS = {
    "heldout2": heldout2_server,
    "heldout3": heldout3_server,
    "heldout4": heldout4_server,
    "heldout5": heldout5_server,
}
# servers whose replies the transport cuts at max_tokens (finish "length")
CUTTING = frozenset({"heldout4", "heldout5"})
PIPELINES = {
    "standard": {},
    "graphrag": {"indexing.pipeline": '"graphrag"'},
    "denoised": {"indexing.pipeline": '"denoised"', "denoise.llm_confirm": "true", "denoise.reflection": '"llm"'},
}
EXPECTED = {  # stages each pipeline must call (ledger stage names start with these)
    "standard": ("index.extract",),
    "graphrag": ("index.extract", "index.community-reports"),
    "denoised": ("index.extract", "index.resolve", "index.reflect"),
}  # index.glean is not required: kgrag gleans only units whose first pass looks incomplete


class Tally:
    """What the server was asked and answered, by prompt kind (thread-safe: the server is threaded)."""

    def __init__(self, responder: Callable[[dict[str, Any]], str]) -> None:
        self.responder = responder
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def __call__(self, request: ChatBody) -> str:
        body = cast("dict[str, Any]", request)
        messages = body.get("messages", [])
        system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
        kind = prompt_kind(system)
        reply = self.responder(body)
        again = any(m.get("role") == "assistant" for m in messages)
        limit = int(body.get("max_tokens") or 0)
        with self.lock:
            self.counts[kind] += 1
            self.counts[f"{kind} re-ask"] += again
            cut = bool(limit) and cl100k().count(reply) >= limit
            self.counts[f"{kind} cut at max_tokens"] += cut
            self.counts[f"{kind} re-ask cut at max_tokens"] += again and cut
            self.counts[f"{kind} not JSON"] += kind not in ("summarize", "other") and not _is_json(reply)
            self.counts[f"{kind} score out of range"] += kind == "reflect" and _out_of_range(reply)
        return reply


def _answer(reply: str) -> str:
    """The reply after a reasoning model's ``<think>`` block (the whole reply when it has none)."""
    return reply.split("</think>", 1)[-1].strip()


def _is_json(reply: str) -> bool:
    try:
        json.loads(_answer(reply))
    except ValueError:
        return False
    return True


def _out_of_range(reply: str) -> bool:
    try:
        scores = json.loads(_answer(reply)).get("scores", [])
    except (ValueError, AttributeError):
        return False
    return any(isinstance(s, dict) and not 0 <= float(s.get("score", 0)) <= 1 for s in scores)


def medical_slice(out: Path, tokens: int, skip: int = 0) -> Path:
    """About ``tokens`` (4 characters a token) of the Medical corpus after the first ``skip``, cut at lines."""
    records = json.loads(MEDICAL.read_text(encoding="utf-8"))
    text = "\n\n".join(str(r.get("context", "")) for r in records)
    start = text.find("\n", skip * 4) + 1 if skip else 0
    end = text.find("\n", start + tokens * 4)
    path = out / "medical.txt"
    path.write_text(text[start : end if end > 0 else start + tokens * 4] + "\n", encoding="utf-8")
    return path


def run_pipeline(name: str, doc: Path, workdir: Path, args: argparse.Namespace) -> list[str]:
    """Index ``doc`` with pipeline ``name``; the problems found (empty graph, stage without calls)."""
    from kgrag import Workspace

    tally = Tally(SERVERS[args.server])
    server_kwargs: dict[str, Any] = {"include_usage": False}
    if args.server in CUTTING:
        server_kwargs.update(cut_at_max_tokens=True)
    if args.llama_cpp:
        server_kwargs.update(behaviour="llama-cpp-python", context_window=args.window)
    with FakeOpenAIServer(tally, **server_kwargs) as server:
        settings = dict(PIPELINES[name])
        if args.description_tokens:
            settings["graph.max_description_tokens"] = str(args.description_tokens)
        settings.update(item.split("=", 1) for item in args.set)
        with Workspace.open(write_workspace(workdir / name, server.base_url, settings)) as ws:
            report = ws.indexing.run([doc])
            calls = ws.store.llm_ledger.calls()
            graph = ws.store.graph.counts()
            communities = ws.store.communities.counts()
            # the failed chunks of every extractor (the LLM extractor's name carries its model and prompt versions)
            rows = ws.store.graph._db.query("SELECT DISTINCT extractor FROM chunk_extractions WHERE error IS NOT NULL")
            errors = [e for (name,) in rows for e in ws.store.graph.extraction_errors(str(name), limit=5)]
    stages: dict[str, Counter[str]] = defaultdict(Counter)
    for call in calls:
        stage = stages[call.stage if call.stage != "index.extract" else f"index.extract {call.call_role or 'call'}"]
        stage.update(calls=1, attempts=call.attempts, prompt=call.prompt_tokens, completion=call.completion_tokens)
    print(f"\n## {name}: graph {graph}, communities {communities}")
    for stage_name, figures in sorted(stages.items()):
        print(f"  {stage_name:<28} " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    print("  server: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.counts.items()) if v))
    failed = [f"failed chunk {chunk}: {error}" for chunk, error in errors]
    for line in [*report.warnings, *(f"fallback {k}: {v}" for k, v in report.fallbacks.items()), *failed]:
        print(f"  warning: {line}")
    expected = [*EXPECTED[name], *(["index.summarize"] if args.description_tokens else [])]
    problems = [f"{name}: no call in {s}" for s in expected if not any(k.startswith(s) for k in stages)]
    if not any(graph.get(k) for k in graph if "entit" in k):
        problems.append(f"{name}: empty graph {graph}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", choices=sorted(SERVERS), default="heldout3")
    parser.add_argument("--tokens", type=int, default=8000)
    parser.add_argument("--skip", type=int, default=0, help="tokens of the corpus to skip before the slice")
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    parser.add_argument("--description-tokens", type=int, help="graph.max_description_tokens (summaries)")
    parser.add_argument("--set", action="append", default=[], help="KEY=TOML value for kgrag.toml (repeatable)")
    parser.add_argument("--llama-cpp", action="store_true", help="answer as llama-cpp-python's server does")
    parser.add_argument("--window", type=int, default=8192, help="context window with --llama-cpp (words)")
    args = parser.parse_args()
    os.environ.setdefault(KEY_ENV, "sk-heldout-check")
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix=f"kgrag-{args.server}-") as tmp:
        doc = medical_slice(Path(tmp), args.tokens, args.skip)
        for name in args.pipelines.split(","):
            problems += run_pipeline(name, doc, Path(tmp), args)
    print("\n" + ("\n".join(problems) if problems else "all pipelines indexed, every expected stage called"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
