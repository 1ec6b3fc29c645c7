"""Do LLM-generated questions rank retrieval pipelines as hand-written ones do?

The LLM-free known-item questions rank the Medical pipelines unlike the hand-written ones
(``docs/results/qgen-llm-free.md``), and ``docs/evaluation.md`` sends users to hand-written or
LLM-generated questions for the choice between pipelines. This bench measures the second: it generates
questions with a chat model through ``kgrag eval qgen --llm config`` (kinds, count and seed as given; each
question checked against its cited passages by the same model, the default), writes them to ``--save``,
then runs LLM-free evidence recall@k with each pipeline on the hand-written set and the generated one
(with no LLM configured, so no pipeline calls the model) and prints both rankings with 95% intervals and
Kendall τ between them with a bootstrap interval (both sets resampled together, 1,000 times).

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_qgen_llm_tau.py WS QUESTIONS --kinds single-fact --per-kind 50 \\
        --server-python .llm-venv/bin/python --gguf .llm-models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --save gen.json

``--base-url URL --model NAME`` uses a server already running; ``--generated FILE`` skips generation and
evaluates a set written before; ``--compare FILE`` evaluates another generated set too (the LLM-free one
of ``kgrag eval qgen --llm none``, say) and prints τ(generated) − τ(FILE) with a bootstrap interval (the
three sets resampled together), the τ of both generated sets as one, and an equal-size check of whether
mixing or size gives it (:func:`print_mix`); ``--no-check`` keeps what the model wrote without its answerability check
(``kgrag eval qgen --no-check``; the checks that need no model, a cited passage holding the answer, still
apply), since a small model rejects most of its own questions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from bench_qgen_filters import PIPELINES, Scores, per_question, print_recall_table, tau, tau_ci
from kgrag import Workspace
from kgrag.evaluation.datasets import load_dataset
from kgrag.evaluation.qgen.output import write_questions
from kgrag.evaluation.stats.rank_agreement import means, resampled_rows, size
from llm_check import add_server_options, chat_server


def llm_settings(url: str, model: str) -> dict[str, object]:
    """The workspace's LLM pointed at ``url``, for the generation only (an override: nothing is written)."""
    return {
        "provider": "openai",
        "providers": {"openai": {"base_url": url}},
        "model": model,
        "max_concurrency": 1,
        "timeout_s": 3600,
    }


def generate(args: argparse.Namespace) -> Path:
    cpu, wall = time.process_time(), time.monotonic()
    with chat_server(args, 4096) as url, Workspace.open(args.workspace, llm=llm_settings(url, args.model)) as ws:
        kinds = args.kinds.split(",")
        result = ws.eval.qgen(kinds, args.per_kind, seed=args.seed, llm="config", llm_check=not args.no_check)
    print(f"kept {len(result.items)} of {result.generated} generated; rejected {dict(result.rejected.most_common())}")
    print(f"generation: {time.monotonic() - wall:.0f} s wall, {time.process_time() - cpu:.0f} s CPU here")
    write_questions(args.save, result, "generated")
    return Path(args.save)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("questions", type=Path)
    parser.add_argument("--kinds", default="single-fact")
    parser.add_argument("--per-kind", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--pipelines", default=PIPELINES)
    add_server_options(parser)
    parser.add_argument("--save", type=Path, default=Path("/tmp/qgen-llm.json"))
    parser.add_argument("--no-check", action="store_true", help="keep questions the model's own check would refuse")
    parser.add_argument("--generated", type=Path, help="a set written before: evaluate it, generate nothing")
    parser.add_argument("--compare", type=Path, help="another generated set: τ difference with its interval")
    args = parser.parse_args()
    path = args.generated or generate(args)
    sets = {"hand-written": load_dataset(args.questions), "generated": load_dataset(path)}
    if args.compare:
        sets["compared"] = load_dataset(args.compare)
    if not sets["generated"]:
        raise SystemExit(f"{path}: no generated question to evaluate")
    pipelines = args.pipelines.split(",")
    with Workspace.open(args.workspace) as ws:
        scores = {name: per_question(ws.eval.retrieval(items, pipelines, args.k)) for name, items in sets.items()}
    rng = random.Random(args.seed)
    averages = {name: means(s) for name, s in scores.items()}
    print()
    print_recall_table(scores, pipelines, rng)
    lo, hi = tau_ci(scores["generated"], scores["hand-written"], rng)
    agreement = tau(averages["generated"], averages["hand-written"])
    print(f"\nKendall τ generated vs hand-written: {agreement:.3f} [{lo:.3f}, {hi:.3f}]")
    if args.compare:
        other = tau(averages["compared"], averages["hand-written"])
        dlo, dhi = tau_difference(scores, rng)
        print(f"Kendall τ {args.compare.name} vs hand-written: {other:.3f}; generated − it: {agreement - other:+.3f} "
              f"[{dlo:+.3f}, {dhi:+.3f}]")  # fmt: skip
        print_mix(scores, rng)


def print_mix(scores: dict[str, Scores], rng: random.Random, draws: int = 500) -> None:
    """τ of the generated and compared sets as one set (what ``kgrag eval qgen`` writes when both kinds are
    asked), with its interval; then, at equal size, half of the questions from each set against the same
    number from one set alone (``draws`` random subsets each, median and 2.5–97.5 % of the draws), so a
    gain from mixing is told apart from a gain from having more questions."""
    hand = means(scores["hand-written"])
    gen, other = scores["generated"], scores["compared"]
    mix = {p: v + other[p] for p, v in gen.items()}
    lo, hi = tau_ci(mix, scores["hand-written"], rng)
    n_gen, n_other = size(gen), size(other)
    print(f"Kendall τ both sets as one (n = {n_gen + n_other}): {tau(means(mix), hand):.3f} [{lo:.3f}, {hi:.3f}]")
    half = min(n_gen, n_other)

    def halves() -> dict[str, float]:
        rows = rng.sample(range(n_gen), half) + [n_gen + i for i in rng.sample(range(n_other), half)]
        return means(mix, rows)

    arms = {f"{half} + {half}, half from each": halves}
    if n_gen >= 2 * half:
        arms[f"{2 * half} generated alone"] = lambda: means(gen, rng.sample(range(n_gen), 2 * half))
    if n_other >= 2 * half:
        arms[f"{2 * half} compared alone"] = lambda: means(other, rng.sample(range(n_other), 2 * half))
    for label, draw in arms.items():
        taus = sorted(tau(draw(), hand) for _ in range(draws))
        low, high = taus[int(0.025 * draws)], taus[int(0.975 * draws) - 1]
        print(f"  equal size, {label}: median τ {statistics.median(taus):.3f} [{low:.3f}, {high:.3f}] of {draws} draws")


def tau_difference(scores: dict[str, Scores], rng: random.Random, samples: int = 1000) -> tuple[float, float]:
    """Percentile interval of τ(generated) − τ(compared), each against the hand-written ranking; the three
    sets resampled together."""

    def draw(s: Scores) -> dict[str, float]:
        return means(s, resampled_rows(size(s), rng))

    diffs = []
    for _ in range(samples):
        hand = draw(scores["hand-written"])
        diffs.append(tau(draw(scores["generated"]), hand) - tau(draw(scores["compared"]), hand))
    diffs.sort()
    return diffs[int(0.025 * samples)], diffs[int(0.975 * samples) - 1]


if __name__ == "__main__":
    main()
