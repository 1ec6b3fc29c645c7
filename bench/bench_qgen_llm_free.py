"""Does an LLM-free generated question set rank retrieval pipelines as the hand-written one does?

Generates known-item questions from a workspace with ``ws.eval.qgen(llm="none")``, runs LLM-free
evidence recall@k (``ws.eval.retrieval``) with each pipeline on the generated and on the hand-written
questions, and prints a markdown comparison: mean recall per pipeline with a percentile bootstrap 95 %
interval over questions, passages-only recall, context tokens, the two rankings side by side, and their
rank correlation (Kendall τ, Spearman ρ) with a bootstrap interval (both question sets resampled).

    HF_HUB_OFFLINE=1 python bench/bench_qgen_llm_free.py WORKSPACE examples/sample/questions.json --seed 0
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from scipy.stats import kendalltau, spearmanr

from bench_qgen_filters import tau_ci
from kgrag import Workspace
from kgrag.evaluation.datasets import load_dataset
from kgrag.evaluation.qgen.output import cited_chunks, write_questions
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.stats.rank_agreement import Scores

PIPELINES = "dense,bm25,hybrid,rerank,graph-local,graph-hybrid,graph-mix,ppr,paths,auto"


def per_question(report: RetrievalEvalReport, metric: str = "recall", qtype: str | None = None) -> Scores:
    """pipeline → recall of each question with evidence (of ``qtype`` only when given), in question order
    (the same order for every pipeline)."""
    scores: Scores = defaultdict(list)
    for o in sorted(report.outcomes, key=lambda o: o.id):
        value = getattr(o, metric)
        if value is not None and qtype in (None, o.question_type):
            scores[o.pipeline].append(value)
    return dict(scores)


def bootstrap_ci(values: Sequence[float], rng: random.Random, samples: int = 2000) -> tuple[float, float]:
    n = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(samples))
    return means[int(0.025 * samples)], means[int(0.975 * samples) - 1]


def ranking(means: dict[str, float]) -> list[str]:
    return sorted(means, key=lambda p: (-means[p], p))


def correlations(a: dict[str, float], b: dict[str, float]) -> tuple[float, float]:
    names = sorted(a)
    tau = kendalltau([a[p] for p in names], [b[p] for p in names]).statistic
    rho = spearmanr([a[p] for p in names], [b[p] for p in names]).statistic
    return float(tau), float(rho)


def table(
    name: str, report: RetrievalEvalReport, rng: random.Random, qtype: str | None = None
) -> tuple[list[str], dict[str, float]]:
    scores, chunk = per_question(report, qtype=qtype), per_question(report, "chunk_recall", qtype)
    tokens = report.mean_context_tokens()
    means = {p: statistics.fmean(v) for p, v in scores.items()}
    lines = [
        f"| {name}: pipeline | recall@k | 95 % CI | passages-only recall | context tokens | n |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for p in ranking(means):
        lo, hi = bootstrap_ci(scores[p], rng)
        lines.append(
            f"| {p} | {means[p]:.3f} | [{lo:.3f}, {hi:.3f}] | {statistics.fmean(chunk[p]):.3f} | "
            f"{tokens[p]:.0f} | {len(scores[p])} |"
        )
    return lines, means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--second-seed", type=int, default=1, help="A second generated set, for stability.")
    parser.add_argument("--per-kind", type=int, default=60)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--pipelines", default=PIPELINES)
    parser.add_argument("--out", type=Path, default=Path("/tmp/qgen-llm-free.json"))
    args = parser.parse_args()
    pipelines = args.pipelines.split(",")
    rng = random.Random(args.seed)
    with Workspace.open(args.workspace) as ws:
        started = time.perf_counter()
        generated = ws.eval.qgen(None, args.per_kind, seed=args.seed, llm="none")
        qgen_s = time.perf_counter() - started
        again = ws.eval.qgen(None, args.per_kind, seed=args.seed, llm="none")
        documents = {cid: ref.source for cid, ref in ws.documents.sources(cited_chunks(generated)).items()}
        write_questions(args.out, generated, documents)
        gen_report = ws.eval.retrieval(generated.items, pipelines, args.k)
        hand_report = ws.eval.retrieval(load_dataset(args.questions), pipelines, args.k)
        second = ws.eval.qgen(None, args.per_kind, seed=args.second_seed, llm="none")
        second_report = ws.eval.retrieval(second.items, pipelines, args.k)
    kinds = defaultdict(int)
    for item in generated.items:
        kinds[item.question_type] += 1
    print(f"generated {len(generated.items)} questions ({dict(kinds)}) in {qgen_s:.1f}s; seed {args.seed}; ")
    print(f"same seed again gives the same questions: {[i.id for i in again.items] == [i.id for i in generated.items]}")
    print(f"rejected: {dict(generated.rejected.most_common())}\n")
    gen_lines, gen_means = table("generated", gen_report, rng)
    hand_lines, hand_means = table("hand-written", hand_report, rng)
    print("\n".join(gen_lines) + "\n\n" + "\n".join(hand_lines) + "\n")
    g_rank, h_rank = ranking(gen_means), ranking(hand_means)
    print("| rank | generated | hand-written |\n| ---: | --- | --- |")
    for i, (g, h) in enumerate(zip(g_rank, h_rank, strict=True), start=1):
        print(f"| {i} | {g} ({gen_means[g]:.3f}) | {h} ({hand_means[h]:.3f}) |")
    tau, rho = correlations(gen_means, hand_means)
    lo, hi = tau_ci(per_question(gen_report), per_question(hand_report), rng)
    print(f"\nKendall τ = {tau:.3f} (95 % bootstrap CI [{lo:.3f}, {hi:.3f}]), Spearman ρ = {rho:.3f}")
    for qtype in sorted(kinds):
        sub = {p: v[qtype] for p, v in gen_report.table().items() if qtype in v}
        print(f"{qtype}: " + ", ".join(f"{p} {sub[p]:.3f}" for p in ranking(sub)))
    fact_lines, fact_means = table("hand-written Fact Retrieval only", hand_report, rng, "Fact Retrieval")
    print("\n" + "\n".join(fact_lines))
    tau_f, rho_f = correlations(gen_means, fact_means)
    lo_f, hi_f = tau_ci(per_question(gen_report), per_question(hand_report, qtype="Fact Retrieval"), rng)
    print(
        f"\nvs hand-written Fact Retrieval: Kendall τ = {tau_f:.3f} (95 % CI [{lo_f:.3f}, {hi_f:.3f}]), ρ = {rho_f:.3f}"
    )
    second_means = {p: statistics.fmean(v) for p, v in per_question(second_report).items()}
    overlap = len({i.id for i in second.items} & {i.id for i in generated.items})
    tau_s, rho_s = correlations(gen_means, second_means)
    tau_sh = correlations(second_means, hand_means)[0]
    print(
        f"seed {args.second_seed}: {len(second.items)} questions ({overlap} shared with seed {args.seed}); "
        f"ranking: {', '.join(f'{p} {second_means[p]:.3f}' for p in ranking(second_means))}; "
        f"τ with seed {args.seed} = {tau_s:.3f} (ρ {rho_s:.3f}); τ with hand-written = {tau_sh:.3f}"
    )


if __name__ == "__main__":
    main()
