"""Evidence recall of the reports ``global`` reads, with its relevance cut off and on, paired per question.

Runs on a workspace that already holds a corpus with communities and report vectors (e.g. the Medical
corpus, MiniLM, the spaCy graph, ``kgrag graph communities`` for extractive reports). The same questions
(the first ``--limit`` of the dataset, as ``kgrag eval retrieval --limit``) go through ``global`` at
``--k 1`` (the pipeline hands over exactly the reports its map calls read) once per value of
``report_spreads`` of ``[retrieval.pipelines.global]``: 0 (off, the baseline) first, then each value
given, the workspace reopened with it, all in this process (``--budget`` sets ``max_prompt_tokens`` for
every run, to see what the cut costs where the budget leaves more room). Prints, per setting: recall of the reports
read per question type with n, the paired difference against off (t intervals over questions, cut to
[−1, 1]), report tokens and reports read per query, and the CPU seconds of the setting's queries.

    KGRAG_EMBEDDING__PROVIDERS__ONNX__THREADS=1 .venv/bin/python bench/bench_global_relevance.py WORKSPACE \\
        --dataset questions.json [--limit 300] [--spreads 2,3]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.retrieval_eval import RetrievalEvalReport
from kgrag.evaluation.stats.intervals import ALL, Bootstrap, Estimate, estimates, paired

PIPELINE = "global"
Values = dict[str, tuple[str, float]]


def _run(path: Path, items: list[QAItem], spreads: float, budget: int | None) -> tuple[RetrievalEvalReport, float]:
    table: dict[str, float | int] = {"report_spreads": spreads}
    if budget is not None:
        table["max_prompt_tokens"] = budget
    overrides = {"retrieval": {"pipelines": {PIPELINE: table}}}
    with Workspace.open(path, **overrides) as ws:
        started = time.process_time()
        report = ws.eval.retrieval(items, [PIPELINE], 1)
        return report, time.process_time() - started


def _values(report: RetrievalEvalReport) -> Values:
    return {o.id: (o.question_type, o.recall) for o in report.outcomes if o.recall is not None}


def _cell(found: Estimate, signed: bool = False) -> str:
    if found.mean is None:
        return "–"
    form = "{:+.3f}" if signed else "{:.3f}"
    if found.ci95 is None:
        return form.format(found.mean)
    low, high = found.ci95
    return f"{form.format(found.mean)} [{form.format(low)}, {form.format(high)}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--dataset", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--spreads", default="2", help="comma-separated report_spreads values (0 = off runs first)")
    parser.add_argument("--budget", type=int, default=None, help="max_prompt_tokens of global (default: the default)")
    args = parser.parse_args()
    items = load_dataset(args.dataset)[: args.limit]
    settings = Bootstrap()
    runs = {
        value: _run(args.workspace, items, value, args.budget) for value in [0.0, *map(float, args.spreads.split(","))]
    }
    base = _values(runs[0.0][0])
    types = sorted({t for t, _ in base.values()})
    counts = {t: sum(1 for q in base.values() if q[0] == t) for t in types} | {ALL: len(base)}
    budget = "default" if args.budget is None else f"{args.budget:,}"
    print(f"{args.dataset} ({args.workspace}, budget {budget}): {len(base)} questions with evidence of {len(items)}")
    head = " | ".join(f"{t} (n={counts[t]})" for t in [*types, ALL])
    print(f"| report_spreads | figure | {head} | report tokens / query | reports / query | CPU s |")
    print("| ---: | --- | " + " | ".join("---:" for _ in [*types, ALL]) + " | ---: | ---: | ---: |")
    for value, (report, cpu) in runs.items():
        values = _values(report)
        level = estimates(values, settings, (0.0, 1.0))
        tokens = statistics.fmean(o.context_tokens for o in report.outcomes)
        reads = statistics.fmean(len(o.retrieved) for o in report.outcomes)
        cells = " | ".join(_cell(level[t]) for t in [*types, ALL])
        print(f"| {value:g} | recall | {cells} | {tokens:,.0f} | {reads:.1f} | {cpu:.0f} |")
        if value:
            diff = paired(values, base, settings, (0.0, 1.0))
            cells = " | ".join(_cell(diff[t], signed=True) for t in [*types, ALL])
            print(f"| {value:g} | − off, paired | {cells} | | | |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
