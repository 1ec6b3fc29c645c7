"""Does the LLM-free extractive answer state the fact, does it refuse off-topic questions, and what does it
cost? Also the calibration of ``generation.extractive_min_coverage``.

    .venv/bin/python bench/bench_extractive_answer.py --sample-ws DIR --medical-ws DIR \
        [--n 100] [--pipelines hybrid,bm25] [--before]

``--sample-ws``: a workspace indexed from ``examples/sample/docs`` (``make demo`` leaves one in
``demo-workspace``); ``--medical-ws``: GraphRAG-Bench Medical indexed at least with the ``fast`` pipeline
(``--build-medical DIR`` builds one: BM25 only, no model, about a minute). Answerable questions: the
sample questions asked of the sample corpus, a stratified ``--n`` of Medical asked of Medical, each
pipeline retrieving 5 passages. Off-topic questions: each set asked of the other corpus, plus a few
general-knowledge questions written for this benchmark. Per pipeline it prints

* evidence in top 5: the retrieved passages hold an evidence sentence (evaluation's evidence overlap);
* states the fact: the answer itself holds an evidence sentence (same overlap), over the questions
  whose evidence was retrieved;
* answered / refused: answers not "not found", for answerable and off-topic questions;
* CPU ms per answer (the answer step only, ``time.process_time``; the model is loaded beforehand);

and, for the current code, the share of answerable questions answered and of off-topic questions
refused at each coverage threshold, from the best sentence's coverage (answers made with no threshold).
``--before`` runs the code before the coverage answer (its ``auto`` ranking: embedding for pipelines
that search vectors, lexical for ``bm25``). Skips when the Medical dataset is absent.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgrag import Workspace
from kgrag.evaluation import load_dataset
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.generation.extractive import extractive_answer

REPO = Path(__file__).resolve().parents[1]
MEDICAL = Path(os.environ.get("KGRAG_MEDICAL", REPO.parent / "shared" / "datasets" / "graphrag-bench-medical"))
SAMPLE_QUESTIONS = REPO / "examples" / "sample" / "questions.json"
OVERLAP = 0.7
GENERAL = (
    "What is the boiling point of mercury at sea level?",
    "Who wrote the novel Pride and Prejudice?",
    "How many moons does Jupiter have?",
    "When did the Berlin Wall fall?",
    "What is the capital city of Australia?",
    "Which enzyme breaks down starch in human saliva?",
    "How long does light take to travel from the Sun to Earth?",
    "Who painted the ceiling of the Sistine Chapel?",
    "What is the airspeed of an unladen swallow?",
    "Which country won the 1966 football World Cup?",
)
THRESHOLDS = [round(0.05 * i, 2) for i in range(2, 17)]


@dataclass
class Outcome:
    answerable: bool
    evidence_retrieved: bool
    states_fact: bool
    idk: bool
    coverage: float
    cpu_ms: float


def _answer(question: str, result: Any, ws: Workspace, pipeline: str, before: bool) -> tuple[Any, float]:
    embedder = ws.components.embedder()
    n = ws.config.generation.extractive_sentences
    started = time.process_time()
    if before:
        ranking = "lexical" if pipeline == "bm25" else "embedding"
        answer = extractive_answer(question, result, embedder, n, ranking)  # type: ignore[arg-type]
    else:
        answer = extractive_answer(question, result, embedder, n, "lexical", 0.0)
    return answer, 1000 * (time.process_time() - started)


def ask(ws: Workspace, question: str, evidence: list[str], pipeline: str, answerable: bool, before: bool) -> Outcome:
    result = ws.retrieve(question, pipeline, 5)
    texts = [item.text for item in result.items if item.kind == "chunk"]
    answer, cpu_ms = _answer(question, result, ws, pipeline, before)
    retrieved = bool(evidence) and (evidence_recall(evidence, texts, OVERLAP) or 0.0) > 0
    states = bool(evidence) and (evidence_recall(evidence, [answer.text], OVERLAP) or 0.0) > 0
    coverage = float(answer.evidence[0].get("coverage", 1.0)) if answer.evidence else 0.0
    return Outcome(answerable, retrieved, states, answer.idk, coverage, cpu_ms)


def _share(flags: list[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f}%)" if flags else "–"


def report(label: str, outcomes: list[Outcome], before: bool) -> dict[str, Any]:
    answerable = [o for o in outcomes if o.answerable]
    off_topic = [o for o in outcomes if not o.answerable]
    found = [o for o in answerable if o.evidence_retrieved]
    cpu = [o.cpu_ms for o in outcomes]
    print(f"\n{label}")
    print(f"  evidence in top 5:          {_share([o.evidence_retrieved for o in answerable])}")
    print(f"  states the fact (of those): {_share([o.states_fact for o in found])}")
    print(f"  CPU ms per answer:          mean {statistics.fmean(cpu):.2f}, median {statistics.median(cpu):.2f}")
    table = []
    if not before:
        print(f"  {'min coverage':>12} {'answerable answered':>20} {'fact kept':>10} {'off-topic refused':>18}")
        for threshold in THRESHOLDS:
            kept = sum(o.coverage >= threshold for o in answerable) / len(answerable)
            fact = sum(o.states_fact and o.coverage >= threshold for o in found) / max(1, len(found))
            refused = sum(o.coverage < threshold for o in off_topic) / len(off_topic)
            table.append({"threshold": threshold, "answered": kept, "fact_kept": fact, "refused": refused})
            print(f"  {threshold:>12.2f} {kept:>20.3f} {fact:>10.3f} {refused:>18.3f}")
    return {
        "label": label,
        "answerable": len(answerable),
        "off_topic": len(off_topic),
        "evidence_in_top5": sum(o.evidence_retrieved for o in answerable),
        "states_fact": sum(o.states_fact for o in found),
        "cpu_ms_mean": statistics.fmean(cpu),
        "cpu_ms_median": statistics.median(cpu),
        "thresholds": table,
    }


def build_medical(path: Path) -> None:
    """Medical's corpus as one text file, indexed with the ``fast`` pipeline (chunks + BM25, no model)."""
    docs = path.parent / f"{path.name}-docs"
    docs.mkdir(parents=True, exist_ok=True)
    corpus = json.loads((MEDICAL / "corpus.json").read_text(encoding="utf-8"))
    (docs / "medical.txt").write_text("\n\n".join(r["context"] for r in corpus), encoding="utf-8")
    with Workspace.init(path) as ws:
        ws.index([docs], pipeline="fast")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample-ws", type=Path)
    parser.add_argument("--medical-ws", type=Path)
    parser.add_argument("--build-medical", type=Path)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--pipelines", default="hybrid,bm25")
    parser.add_argument("--before", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not (MEDICAL / "questions.json").exists():
        print(f"skipped: {MEDICAL} is absent")
        return 0
    if args.build_medical:
        build_medical(args.build_medical)
        return 0
    before = args.before or "min_coverage" not in inspect.signature(extractive_answer).parameters
    sample = load_dataset(SAMPLE_QUESTIONS)
    medical = stratified_sample(load_dataset(MEDICAL / "questions.json"), args.n, seed=0)
    results = []
    with Workspace.open(args.sample_ws) as sample_ws, Workspace.open(args.medical_ws) as medical_ws:
        sample_ws.components.embedder().embed(["warm-up"])
        for pipeline in args.pipelines.split(","):
            medical_pipeline = "bm25"  # Medical is indexed for BM25 only
            outcomes = [ask(sample_ws, q.question, list(q.evidence), pipeline, True, before) for q in sample]
            outcomes += [ask(sample_ws, q.question, [], pipeline, False, before) for q in medical]
            outcomes += [ask(sample_ws, q, [], pipeline, False, before) for q in GENERAL]
            results.append(report(f"sample corpus, {pipeline} (off-topic: Medical + general)", outcomes, before))
            if pipeline == args.pipelines.split(",")[0]:
                m = medical_ws
                outcomes = [ask(m, q.question, list(q.evidence), medical_pipeline, True, before) for q in medical]
                outcomes += [ask(m, q.question, [], medical_pipeline, False, before) for q in sample]
                outcomes += [ask(m, q, [], medical_pipeline, False, before) for q in GENERAL]
                results.append(report("Medical corpus, bm25 (off-topic: sample + general)", outcomes, before))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
