"""Prompt tokens with worked examples (``llm.prompt_examples = "always"``) and sized to the model (``auto``).

Indexes a ~25k-token slice of the GraphRAG-Bench Medical corpus with the ``graphrag`` pipeline (LLM
extraction, gleaning, summaries, communities, LLM community reports) against
:class:`kgrag.testing.FakeOpenAIServer` answering with the scripted extraction responder, which follows
the schema without examples, so ``auto``'s probe gives it compact prompts; then asks ``--n`` Medical
questions with the ``global`` pipeline (map replies: one valid point). Both runs in this process, one
after the other, same corpus, same questions. The server sends no usage block, so the ledger holds
kgrag's own cl100k count of what was sent.

Prints, per mode: index prompt tokens per corpus token without the community-report stage (what the
``standard`` pipeline's stages spend) and with it, the extraction calls' own ratio, and ``global`` prompt
tokens per query. The table's ``global`` figure is at the default settings;
``--report-spreads`` also measures ``global`` at other relevance cuts (``report_spreads`` of
``[retrieval.pipelines.global]``, 0 = off), on the same index and questions;
``--embedder onnx`` indexes with the local MiniLM model instead of the fake hashing embedder (64
hashed word buckets: its cosines are word overlap, a weak stand-in for what a relevance cut reads).

    PYTHONPATH=src .venv/bin/python bench/bench_prompt_size.py [--tokens 25000] [--n 20] \
        [--embedder onnx] [--modes auto] [--report-spreads 1.5,2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any

from kgrag import Workspace
from kgrag.models.llm.examples_probe import PROBE_STAGE
from kgrag.models.llm.tokens import default_token_counter
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.estimate_check import medical_slice
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.workspace_toml import write_workspace_toml

ROOT = Path(__file__).resolve().parents[1]
MEDICAL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-medical"
KEY_ENV = "KGRAG_BENCH_PROMPT_SIZE_KEY"
MAP_SYSTEM = "You help answer a broad question"
REPORT_STAGE = "index.community-reports"


def _responder() -> Any:
    extraction = ExtractionResponder()

    def answer(body: dict[str, Any]) -> str:
        system = str(body["messages"][0].get("content", ""))
        if system.startswith(MAP_SYSTEM):
            point = {"point": "The summaries name the treatments the question asks about.", "score": 60}
            return json.dumps({"points": [{**point, "reports": ["R1"]}]})
        return extraction.for_server(body)

    return answer


def _lines(base_url: str, mode: str, embedder: str) -> dict[str, str]:
    return {
        "embedding.provider": json.dumps(embedder),
        "graph.extractor": '"llm"',
        "indexing.pipeline": '"graphrag"',
        "communities.reports": '"llm"',
        "llm.provider": '"openai"',
        "llm.providers.openai.base_url": json.dumps(base_url),
        "llm.model": '"bench-model"',
        "llm.providers.openai.api_key_env": json.dumps(KEY_ENV),
        "llm.prompt_examples": json.dumps(mode),
    }


def _workspace(path: Path, base_url: str, mode: str, embedder: str) -> Path:
    Workspace.init(path, embedding={"provider": embedder}).close()
    return write_workspace_toml(path, _lines(base_url, mode, embedder))


def _global_per_query(
    path: Path, lines: dict[str, str], budget: int, questions: list[str], spreads: float | None = None
) -> tuple[float, float]:
    """Mean prompt tokens and reports read of one ``global`` query under ``budget`` and relevance cut
    ``spreads`` (None: the default), the workspace reopened with them."""
    table = "retrieval.pipelines.global"
    cut = {} if spreads is None else {f"{table}.report_spreads": repr(spreads)}
    write_workspace_toml(path, {**lines, f"{table}.max_prompt_tokens": str(budget), **cut})
    with Workspace.open(path) as ws:
        before = _prompt_tokens(ws, "query.")
        reports = sum(len(ws.query(question, "global").result.items) for question in questions)
        return (_prompt_tokens(ws, "query.") - before) / len(questions), reports / len(questions)


def _prompt_tokens(ws: Workspace, prefix: str, skip: tuple[str, ...] = ()) -> int:
    stages = ws.usage.summary().by_stage
    return sum(t.prompt_tokens for s, t in stages.items() if s.startswith(prefix) and s not in skip)


def run(
    mode: str, corpus: Path, questions: list[str], work: Path, budgets: list[int], embedder: str, spreads: list[float]
) -> dict[str, float]:
    corpus_tokens = default_token_counter().count(corpus.read_text(encoding="utf-8"))
    with FakeOpenAIServer(_responder(), include_usage=False) as server:
        path = _workspace(work / mode, server.base_url, mode, embedder)
        with Workspace.open(path) as ws:
            ws.indexing.run([corpus])
            stages = ws.usage.summary().by_stage
            index_all = _prompt_tokens(ws, "index.")
            reports = stages[REPORT_STAGE].prompt_tokens if REPORT_STAGE in stages else 0
            extract = sum(stages[s].prompt_tokens for s in ("index.extract", "index.glean") if s in stages)
            probe = stages[PROBE_STAGE].prompt_tokens if PROBE_STAGE in stages else 0
            reports_stored = len(ws.store.communities.reports())
        lines = _lines(server.base_url, mode, embedder)
        spent = {f"global@{b}": _global_per_query(path, lines, b, questions) for b in budgets}
        spent |= {f"spreads@{z:g}": _global_per_query(path, lines, budgets[0], questions, z) for z in spreads}
    return {
        "corpus": corpus_tokens,
        "standard": (index_all - reports) / corpus_tokens,
        "with_reports": index_all / corpus_tokens,
        "extraction": extract / corpus_tokens,
        "global": spent[f"global@{budgets[0]}"][0],
        "probe": probe,
        "reports": reports_stored,
        **{key: tokens for key, (tokens, _) in spent.items()},
        **{f"read:{key}": read for key, (_, read) in spent.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=25_000, help="size of the Medical slice")
    parser.add_argument("--n", type=int, default=20, help="global questions")
    parser.add_argument(
        "--global-budgets", default="6000", help="comma-separated max_prompt_tokens of global (first: the table's)"
    )
    parser.add_argument("--embedder", default="fake", help="embedding provider: fake (hashing) or onnx (MiniLM)")
    parser.add_argument("--modes", default="always,auto", help="comma-separated llm.prompt_examples values")
    parser.add_argument(
        "--report-spreads", default="0", help="comma-separated report_spreads of global to measure too (0 = off)"
    )
    args = parser.parse_args()
    budgets = [int(b) for b in args.global_budgets.split(",")]
    spreads = [float(z) for z in args.report_spreads.split(",") if z]
    if not (MEDICAL / "corpus.json").exists():
        print(f"Medical corpus not found under {MEDICAL}: skipped")
        return 0
    os.environ.setdefault(KEY_ENV, "sk-bench")
    records = json.loads((MEDICAL / "questions.json").read_text(encoding="utf-8"))
    questions = [r["question"] for r in random.Random(5).sample(records, args.n)]
    with tempfile.TemporaryDirectory(prefix="kgrag-prompt-size-") as tmp:
        work = Path(tmp)
        corpus = medical_slice(MEDICAL / "corpus.json", work / "docs", args.tokens)
        modes = args.modes.split(",")
        rows = {mode: run(mode, corpus, questions, work, budgets, args.embedder, spreads) for mode in modes}
    first = rows[modes[0]]
    print(
        f"Medical slice: {first['corpus']:,.0f} corpus tokens, {first['reports']:.0f} community reports; "
        f"{args.n} global questions; embedder {args.embedder}"
    )
    print("| prompts | index prompt / corpus token (standard stages) | with community reports | extraction calls "
          "| global prompt tokens / query |")  # fmt: skip
    print("| --- | ---: | ---: | ---: | ---: |")
    for mode, row in rows.items():
        label = "with examples (always)" if mode == "always" else "sized to the model (auto: compact)"
        print(
            f"| {label} | {row['standard']:.2f} | {row['with_reports']:.2f} | {row['extraction']:.2f} "
            f"| {row['global']:,.0f} |"
        )
    if "auto" in rows:
        print(f"probe call (auto, once per server and model): {rows['auto']['probe']:.0f} prompt tokens, included")
    _global_lines(rows, [f"global@{b}" for b in budgets] + [f"spreads@{z:g}" for z in spreads])
    return 0


def _global_lines(rows: dict[str, dict[str, float]], keys: list[str]) -> None:
    """``global`` prompt tokens and reports read per query, per budget (``global@B``, default cut) and
    per relevance cut (``spreads@Z``, first budget)."""
    for key in keys:
        setting = key.replace("global@", "max_prompt_tokens = ").replace("spreads@", "report_spreads = ")
        per_query = ", ".join(
            f"{mode} {row[key]:,.0f} ({row['read:' + key]:.1f} reports)" for mode, row in rows.items()
        )
        print(f"global prompt tokens / query with {setting}: {per_query}")


if __name__ == "__main__":
    raise SystemExit(main())
