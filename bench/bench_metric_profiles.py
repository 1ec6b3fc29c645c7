"""How far kgrag's own metric variants land from the ``graphrag-bench`` profile (GraphRAG-Bench's formulas).

    PYTHONPATH=src .venv/bin/python bench/bench_metric_profiles.py [--workspace DIR] [--pipelines dense,bm25]

Two parts, printed as markdown tables for docs/evaluation.md:

1. **Fixed examples**, one per difference, scored by both variants with a scripted judge whose replies
   are fixed (so the gap is the procedure's, not a judge's mood).
2. **The sample corpus** (``examples/sample``, 68 questions), indexed without a graph, every question
   through each pipeline once; all twelve metrics in their LLM-free versions (kgrag's sentence split and
   word-overlap support stand in for the judge in both profiles). It prints how many questions each
   variant scored (the benchmark's question-type rule leaves some out), and the two means and their
   difference on the questions both scored: what the formulas and edge cases change on real output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from kgrag import Workspace
from kgrag.config import LLMConfig
from kgrag.core.eval_records import EvalScore
from kgrag.core.llm_types import ChatRequest
from kgrag.evaluation import load_dataset
from kgrag.evaluation.metrics.answer import AnswerAccuracy, Coverage, Faithfulness, RougeL
from kgrag.evaluation.metrics.base import Measured, MetricTools, Sample
from kgrag.evaluation.metrics.graphrag_bench import (
    BenchAnswerAccuracy,
    BenchContextRelevance,
    BenchCoverage,
    BenchFaithfulness,
    BenchRougeL,
)
from kgrag.evaluation.metrics.retrieval import ContextRelevance
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client

REPO = Path(__file__).resolve().parents[1]
METRICS = ["rouge-l", "answer-accuracy", "coverage", "faithfulness", "evidence-recall", "context-relevance"]


def _judge(replies: dict[str, list[str]], cosine: float) -> MetricTools:
    queues = {k: list(v) for k, v in replies.items()}

    def reply(request: ChatRequest) -> str:
        assert request.prompt is not None
        return queues[request.prompt.name].pop(0)

    client = create_llm_client(
        LLMConfig(provider="scripted", model="judge"), provider=ScriptedProvider([ScriptRule(".", reply)])
    )
    return MetricTools(similarity=lambda a, b: cosine, judge=client)


def _j(**fields: object) -> str:
    return json.dumps({"reasoning": "scripted", **fields})


def _verdicts(*flags: bool) -> str:
    return _j(verdicts=[{"statement": f"s{i}", "supported": f} for i, f in enumerate(flags)])


def _fmt(m: Measured) -> str:
    return "unmeasured" if m.value is None else f"{m.value:.4g}"


def fixed_examples() -> list[tuple[str, str, str]]:
    """(difference, kgrag's variant, graphrag-bench) on one worked example each."""
    q = "Which drug class is first-line for hypertension?"
    wrong = Sample(q, "Thiazide diuretics are first-line.", "Beta blockers are first-line.", ["Beta blockers."])
    rows: list[tuple[str, Callable[[], Measured], Callable[[], Measured]]] = [
        (
            "answer accuracy, wrong answer on the right topic (TP 0, FP 1, FN 1, cos 0.7)",
            lambda: AnswerAccuracy().judged(
                wrong,
                _judge(
                    {"eval_answer_accuracy": [_j(true_positives=[], false_positives=["a"], false_negatives=["r"])]}, 0.7
                ),
            ),
            lambda: BenchAnswerAccuracy().judged(
                wrong,
                _judge(
                    {
                        "eval_gb_statements": [_j(statements=["a"]), _j(statements=["r"])],
                        "eval_gb_classify": [_j(true_positives=[], false_positives=["a"], false_negatives=["r"])],
                    },
                    0.7,
                ),
            ),
        ),
        (
            "answer accuracy, classification reply unusable (cos 0.7)",
            lambda: AnswerAccuracy().judged(wrong, _judge({"eval_answer_accuracy": ["no", "no"]}, 0.7)),
            lambda: BenchAnswerAccuracy().judged(
                wrong,
                _judge(
                    {
                        "eval_gb_statements": [_j(statements=["a"]), _j(statements=["r"])],
                        "eval_gb_classify": ["no", "no"],
                    },
                    0.7,
                ),
            ),
        ),
    ]
    four = Sample(q, "r", "a", ["Thiazides are first-line.", "Parking.", "Menu.", "Hours."])
    rows.append(
        (
            "context relevance, 4 items of which 1 partly relevant (grades 1,0,0,0; whole context 1)",
            lambda: ContextRelevance().judged(
                four, _judge({"eval_context_relevance": [_j(scores=[1, 0, 0, 0])] * 2}, 0)
            ),
            lambda: BenchContextRelevance().judged(four, _judge({"eval_gb_context_relevance": [_j(score=1)] * 2}, 0)),
        )
    )
    metformin = Sample(
        "What does metformin do?",
        "Metformin lowers hepatic glucose output and improves insulin sensitivity.",
        "Metformin lowers hepatic glucose output.",
    )
    rows.append(
        (
            "coverage, one reference sentence holding two facts, answer has one (judge: sentence covered; facts 1, 0)",
            lambda: Coverage().judged(metformin, _judge({"eval_coverage": [_verdicts(True)]}, 0)),
            lambda: BenchCoverage().judged(
                metformin,
                _judge(
                    {
                        "eval_gb_statements": [_j(statements=["f1", "f2"])],
                        "eval_gb_attribution": [_verdicts(True, False)],
                    },
                    0,
                ),
            ),
        )
    )
    free = MetricTools(similarity=lambda a, b: 0.0)
    nothing = Sample(q, "Thiazide diuretics.", "Thiazide diuretics are first-line.", [])
    empty = Sample(q, "Thiazide diuretics.", "", ["Thiazides."])
    no_ref = Sample(q, "", "Thiazide diuretics.", ["Thiazides."])
    rows += [
        (
            "context relevance, nothing retrieved",
            lambda: ContextRelevance().llm_free(nothing, free),
            lambda: BenchContextRelevance().llm_free(nothing, free),
        ),
        (
            "faithfulness, nothing retrieved",
            lambda: Faithfulness().llm_free(nothing, free),
            lambda: BenchFaithfulness().llm_free(nothing, free),
        ),
        (
            "faithfulness, empty answer",
            lambda: Faithfulness().llm_free(empty, free),
            lambda: BenchFaithfulness().llm_free(empty, free),
        ),
        (
            "ROUGE-L, empty reference",
            lambda: RougeL().llm_free(no_ref, free),
            lambda: BenchRougeL().llm_free(no_ref, free),
        ),
        (
            "coverage, empty reference",
            lambda: Coverage().llm_free(no_ref, free),
            lambda: BenchCoverage().llm_free(no_ref, free),
        ),
    ]
    return [(name, _fmt(ours()), _fmt(theirs())) for name, ours, theirs in rows]


def _paired(scores: list[EvalScore], pipeline: str, metric: str) -> tuple[list[float], list[float], int, int]:
    """Values of the two variants on the questions both measured, and how many each measured at all."""
    ours = {s.question_id: s.value for s in scores if s.pipeline == pipeline and s.metric == metric}
    theirs = {
        s.question_id: s.value for s in scores if s.pipeline == pipeline and s.metric == f"{metric}@graphrag-bench"
    }
    both = sorted(q for q in ours if ours[q] is not None and theirs.get(q) is not None)
    n_ours = sum(v is not None for v in ours.values())
    n_theirs = sum(v is not None for v in theirs.values())
    return [float(ours[q]) for q in both], [float(theirs[q]) for q in both], n_ours, n_theirs  # type: ignore[arg-type]


def sample_corpus(workspace: Path | None, pipelines: list[str]) -> list[tuple[str, ...]]:
    """Per pipeline and metric, LLM-free: questions each variant scored, and on the questions both scored
    the two means and their difference."""
    items = load_dataset(REPO / "examples" / "sample" / "questions.json")
    names = METRICS + [f"{m}@graphrag-bench" for m in METRICS]
    with tempfile.TemporaryDirectory() as tmp:
        path = workspace or Path(tmp) / "ws"
        fresh = workspace is None or not (workspace / "kgrag.toml").exists()
        with Workspace.init(path, graph={"extractor": "none"}, llm={"provider": "none"}) as ws:
            if fresh:
                ws.index([REPO / "examples" / "sample" / "docs"])
            run = ws.eval.run(items, pipelines, metrics=names, runs=1, mode="llm-free", label="metric profiles")
    rows: list[tuple[str, ...]] = []
    for pipeline in pipelines:
        for metric in METRICS:
            ours, theirs, n_ours, n_theirs = _paired(run.scores, pipeline, metric)
            if not ours:
                rows.append((pipeline, metric, str(n_ours), str(n_theirs), "–", "–", "–"))
                continue
            a, b = statistics.fmean(ours), statistics.fmean(theirs)
            rows.append((pipeline, metric, str(n_ours), str(n_theirs), f"{a:.3f}", f"{b:.3f}", f"{b - a:+.3f}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workspace", type=Path, default=None, help="an indexed sample workspace to reuse")
    parser.add_argument("--pipelines", default="dense,bm25")
    args = parser.parse_args()
    print("| difference (example) | kgrag | graphrag-bench |\n| --- | --- | --- |")
    for name, ours, theirs in fixed_examples():
        print(f"| {name} | {ours} | {theirs} |")
    print(
        "\n| pipeline | metric | scored: kgrag | scored: graphrag-bench | kgrag mean | graphrag-bench mean | Δ |"
        "\n| --- | --- | --- | --- | --- | --- | --- |"
    )
    for row in sample_corpus(args.workspace, args.pipelines.split(",")):
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
