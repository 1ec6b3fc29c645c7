"""Quality of the LLM-free extractive answer with embedding vs lexical (BM25) sentence ranking, on the same
retrieved context, in the same run.

    .venv/bin/python bench/bench_extractive_ranking.py --workspace DIR [--n 200] [--pipelines bm25,hybrid]

The workspace must hold GraphRAG-Bench Medical (chunks, MiniLM vectors). For a stratified sample of the
questions, each pipeline retrieves once; both rankings then answer from that one result, and the
evaluation harness's LLM-free answer metrics (ROUGE-L, answer accuracy, coverage) score each answer
against the reference. Prints the mean per ranking, the paired difference (lexical - embedding) with
its standard error, and the ranking's own CPU milliseconds per answer (the embedding column includes
no model load: the model is loaded before timing). Skips when the dataset is absent.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.metrics.answer import AnswerAccuracy, Coverage, RougeL
from kgrag.evaluation.metrics.base import MetricTools, Sample
from kgrag.evaluation.sampling import stratified_sample
from kgrag.generation.extractive import Ranking, extractive_answer

REPO = Path(__file__).resolve().parents[1]
MEDICAL = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"
RANKINGS: tuple[Ranking, ...] = ("embedding", "lexical")
METRICS = (RougeL(), AnswerAccuracy(), Coverage())


def _mean_se(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0
    return mean, se


def run(ws: Workspace, pipeline: str, n: int) -> None:
    items = stratified_sample(load_dataset(MEDICAL / "questions.json"), n, seed=0)
    embedder = ws.components.embedder()
    tools = MetricTools(similarity=lambda a, b: float((lambda v: v[0] @ v[1])(embedder.embed([a, b]))))
    sentences = ws.config.generation.extractive_sentences
    scores: dict[tuple[str, str], list[float]] = {}
    cpu: dict[str, float] = dict.fromkeys(RANKINGS, 0.0)
    embedder.embed(["warm-up"])  # model load is not part of the ranking's cost here
    for item in items:
        result = ws.retrieve(item.question, pipeline, 5)
        for ranking in RANKINGS:
            started = time.process_time()
            answer = extractive_answer(item.question, result, embedder, sentences, ranking)
            cpu[ranking] += time.process_time() - started
            sample = Sample(item.question, item.answer, answer.text, [i.text for i in result.items], item.evidence)
            for metric in METRICS:
                value = metric.llm_free(sample, tools).value
                scores.setdefault((ranking, metric.name), []).append(value if value is not None else 0.0)
    print(f"\n{pipeline}: {len(items)} questions (stratified, seed 0), {sentences} sentences per answer")
    print(f"{'metric':<16} {'embedding':>10} {'lexical':>10} {'lex - emb':>16}")
    for metric in METRICS:
        emb, lex = scores[("embedding", metric.name)], scores[("lexical", metric.name)]
        diff, se = _mean_se([b - a for a, b in zip(emb, lex, strict=True)])
        print(f"{metric.name:<16} {statistics.fmean(emb):10.4f} {statistics.fmean(lex):10.4f} {diff:+9.4f} ± {se:.4f}")
    per = {r: 1000 * cpu[r] / len(items) for r in RANKINGS}
    print(f"{'cpu ms/answer':<16} {per['embedding']:10.2f} {per['lexical']:10.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--pipelines", default="bm25,hybrid")
    args = parser.parse_args()
    if not (MEDICAL / "questions.json").exists():
        print(f"skipped: {MEDICAL} is absent")
        return 0
    with Workspace.open(args.workspace) as ws:
        for pipeline in args.pipelines.split(","):
            run(ws, pipeline, args.n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
