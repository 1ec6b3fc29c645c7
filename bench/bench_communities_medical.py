"""Communities on GraphRAG-Bench Medical: hierarchy, report cost, global query cost, evidence recall.

Runs on a workspace that already holds the Medical corpus indexed with the standard pipeline (MiniLM +
the spaCy graph), e.g. ``kgrag index corpus.json`` with ``[documents.loaders.".json"] text_field = "context"``:

1. builds communities and extractive reports (``ws.communities.build()``) and prints levels, counts,
   sizes and modularity per level, with the time of each builder on the same graph (leiden is the
   baseline, ratios against it);
2. measures what LLM reports would cost: the report stage runs inside a store dry run with a scripted
   model (replies of realistic size), so its calls and prompt tokens are counted and nothing stays;
   printed next to the naive count (one call per community of every level) and per corpus token;
3. runs ``global`` queries with a scripted model and prints prompt tokens and calls per query;
4. evidence recall@5 on the Contextual Summarize questions for dense, hybrid, graph-local, community
   and global (retrieval only; context tokens shown, since pipelines hand over different amounts).

    KGRAG_EMBEDDING__THREADS=1 .venv/bin/python bench/bench_communities_medical.py WORKSPACE [--questions N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from kgrag import Workspace
from kgrag.communities.detect import create_builder, detect_communities
from kgrag.communities.extractive import ExtractiveWriter
from kgrag.communities.generate import generate_reports
from kgrag.communities.hierarchy import level_stats
from kgrag.communities.llm_writer import LLMWriter
from kgrag.config import LLMConfig, load_config
from kgrag.core.llm_types import ChatRequest
from kgrag.documents import TokenCounter
from kgrag.evaluation import evaluate_retrieval, load_dataset
from kgrag.graph.analysis.igraph_view import to_igraph
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule
from kgrag.retrieval.pipeline_settings import GlobalSettings
from kgrag.store import open_store
from kgrag.workspace.components import Components

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "graphrag-bench-medical"
FILLER = " ".join(["finding"] * 40)


def report_reply(_: ChatRequest) -> str:
    finding = {"summary": "A key finding about the group.", "explanation": FILLER, "refs": ["E1", "R1"]}
    return json.dumps({"title": "Group title", "summary": FILLER, "findings": [finding] * 4, "rating": 6})


def map_reply(_: ChatRequest) -> str:
    return json.dumps({"points": [{"point": "A theme. " + FILLER[:120], "score": 70, "reports": ["R1"]}] * 3})


def provider() -> ScriptedProvider:
    return ScriptedProvider(
        [
            ScriptRule("briefing note on one group", report_reply),
            ScriptRule("broad question about a document collection", map_reply),
            ScriptRule("analysts extracted", "The main themes are ... [R1, R2]. " + FILLER),
        ]
    )


def hierarchy_section(ws: Workspace) -> None:
    started = time.perf_counter()
    result = ws.communities.build(rebuild=True)
    print(f"build (detection + extractive reports + report vectors): {time.perf_counter() - started:.1f} s")
    print(json.dumps(result.report.communities))
    for level in result.overview.levels:
        print(
            f"  level {level.level}: {level.communities} communities, modularity {level.modularity:.3f}, sizes "
            f"min {level.min_size} median {level.median_size:g} mean {level.mean_size} max {level.max_size}, "
            f"{level.below_min} below the size floor"
        )
    graph, _ = to_igraph(ws.store)
    base = None
    for name in ("leiden", "graspologic", "leiden-multires", "components"):
        config = ws.config.communities.model_copy(update={"builder": name})
        started = time.perf_counter()
        hierarchy = create_builder(config).build(graph)
        seconds = time.perf_counter() - started
        base = base or seconds
        stats = level_stats(graph, hierarchy)
        print(
            f"  builder {name}: {seconds:.2f} s ({seconds / base:.2f}× leiden), levels "
            f"{[s.communities for s in stats]}, modularity {[round(s.modularity, 3) for s in stats]}"
        )


def report_cost_section(ws: Workspace, corpus_tokens: int) -> None:
    store, config = ws.store, ws.config.communities
    client = create_llm_client(LLMConfig(provider="scripted", max_concurrency=4), provider=provider())
    with store.dry_run():
        store.communities.replace([], [])
        detect_communities(store, config, force=True)
        writer = LLMWriter(client, config, ExtractiveWriter(store, config.report_findings), "index.community-reports")
        stats = generate_reports(store, config, writer)
    totals = client.ledger.summary(client.run_id).total
    per_call = totals.prompt_tokens / max(1, totals.calls)
    print(
        f"LLM reports: {totals.calls} calls, {totals.prompt_tokens} prompt + {totals.completion_tokens} "
        f"completion tokens ({per_call:.0f} prompt tokens per call); {stats.inherited} inherited, "
        f"{stats.trivial} below the size floor; naive one call per community: {stats.naive_calls} calls "
        f"(~{stats.naive_calls * per_call:.0f} prompt tokens at the same size) = "
        f"{totals.calls / max(1, stats.naive_calls):.2f}× the calls"
    )
    print(
        f"corpus tokens {corpus_tokens}: reports add {totals.prompt_tokens / corpus_tokens:.3f} prompt tokens "
        "per corpus token"
    )


def global_section(path: Path, questions: list[str]) -> None:
    config = load_config(path, llm={"provider": "scripted"})
    store = open_store(config.store, path)
    scripted = provider()
    ws = Workspace(
        Components(path, config, store, llm_factory=lambda: create_llm_client(config.llm, None, provider=scripted))
    )
    prompt, calls, reports = [], [], []
    for question in questions:
        answer = ws.query(question, pipeline="global").answer
        prompt.append(answer.usage["prompt_tokens"])
        calls.append(answer.usage["llm_calls"])
    reports = [len(ws.retrieve(q, pipeline="global").items) for q in questions[:5]]
    budget = config.retrieval.pipeline_settings("global", GlobalSettings).max_prompt_tokens
    print(
        f"global over {len(questions)} questions: prompt tokens per query mean {statistics.fmean(prompt):.0f}, "
        f"max {max(prompt)} (budget {budget}); calls per query "
        f"{statistics.fmean(calls):.1f}; reports read per query {statistics.fmean(reports):.1f}"
    )
    ws.close()


def recall_section(ws: Workspace, limit: int) -> None:
    items = [i for i in load_dataset(DATA / "questions.json") if i.question_type == "Contextual Summarize"][:limit]
    pipelines = ["dense", "hybrid", "graph-local", "community", "global"]
    report = evaluate_retrieval(items, pipelines, 5, ws.config.evaluation.evidence_overlap, ws.retrieve)
    table, tokens, latency = report.table(), report.mean_context_tokens(), report.latency()
    print(f"evidence recall@5, Contextual Summarize ({len(items)} questions):")
    for name in pipelines:
        print(
            f"  {name:12s} recall {table[name]['All']:.3f}  context tokens {tokens[name]:.0f}  "
            f"p50 {latency[name]['p50']:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--global-questions", type=int, default=20)
    args = parser.parse_args()
    corpus = json.loads((DATA / "corpus.json").read_text(encoding="utf-8"))
    texts = [r["context"] for r in corpus] if isinstance(corpus, list) else [corpus["context"]]
    corpus_tokens = sum(TokenCounter.for_encoding().count(t) for t in texts)
    with Workspace.open(args.workspace) as ws:
        hierarchy_section(ws)
        report_cost_section(ws, corpus_tokens)
        recall_section(ws, args.questions)
    summarize = [i.question for i in load_dataset(DATA / "questions.json") if i.question_type == "Contextual Summarize"]
    global_section(args.workspace, summarize[: args.global_questions])


if __name__ == "__main__":
    main()
