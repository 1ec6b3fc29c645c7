"""A cross-encoder reranker trained in-domain, alone and fused with `fused`, against the shipped `rerank`.

Two steps on this machine, with the training between them on an accelerator
(`bench/cross_encoder_train.py`):

- ``dump``: every labelled question through the shipped `rerank` pipeline (its evidence recall, context
  tokens and CPU seconds: the paired baseline), and through the same first stage up to the reranker, to
  keep the pool the reranker reorders: its chunk ids in first-stage order, the `fused` features and score
  of each candidate, and its label (how many of the question's evidence sentences it holds on its own,
  the rule of `kgrag tune reranker`). Also the evidence folds (`kgrag.tuning.evidence_folds`: questions
  with the same main evidence passage share a fold) and the chunk texts once, id → text.
- ``eval``: each arm's scores (question id → chunk id → score) reorder the same pool in a pipeline
  registered on the workspace for the run only (hybrid first stage, top 50, the arm's order cut to k, then
  the shipped budget step with its excerpts), so the context is filled exactly as `rerank` fills it.
  Arms: `fused` from the dump (must reproduce `rerank` question by question); per score set, the
  cross-encoder alone, fused + w · cross-encoder (both z-scored per pool) with w fitted on the training
  folds only (or set with ``--fixed-weight``), and a logistic regression over the `fused` features and
  the cross-encoder score, fitted on the training folds; and the same regression without the
  cross-encoder (the control for the refit). Prints recall per question type with 95% t intervals, the
  paired difference to `rerank` and the context tokens.

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python bench/bench_cross_encoder.py dump --workspace WS \
        --dataset questions.json --out DIR/medical [--source BOOK ...]
    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python bench/bench_cross_encoder.py eval --workspace WS \
        --dataset questions.json --pools DIR/medical.pools.json --scores ce.json [--scores-name NAME ...] \
        [--fixed-weight NAME=W --only "w fixed"] [--fit-weight] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgrag import Workspace
from kgrag.config import KgragConfig
from kgrag.documents import TokenCounter
from kgrag.documents.words import content_words
from kgrag.evaluation import load_dataset
from kgrag.evaluation.ceiling import ChunkWords
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_hit, evidence_recall
from kgrag.models.rerankers.base import reorder
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.recipes.parts import EMBEDDINGS, finish, hybrid_search
from kgrag.retrieval.resources.reranker import RERANKER
from kgrag.retrieval.steps.basic import Hydrate, QueryState, TakeTop
from kgrag.tuning.evidence_folds import evidence_folds
from recall_cells import cell


@dataclass(frozen=True)
class CapturePool:
    """Keeps the hydrated pool the `Rerank` step would reorder, with the `fused` features and scores."""

    sink: list[Any]
    name: str = "capture_pool"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        reranker = env.get(RERANKER)
        passages = [item for item in state.items if item.kind == "chunk"]
        features = reranker.features(state.query, passages)
        self.sink.append((passages, features, features @ reranker.weights.vector()))
        state.record(self.name, {}, len(state.items), started)


@dataclass(frozen=True)
class ScoresRerank:
    """Reorders the pool by the scores in ``table[question id]`` and cuts it to k (like `Rerank`)."""

    table: dict[str, dict[str, float]]
    current: dict[str, str] = field(default_factory=dict)
    name: str = "rerank"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        scores = self.table[self.current["id"]]
        passages = [item for item in state.items if item.kind == "chunk"]
        facts = [item for item in state.items if item.kind != "chunk"]
        state.items = reorder(passages, [scores[p.id] for p in passages], state.k) + facts
        state.record(self.name, {"k": state.k}, len(state.items), started)


def capture_pipeline(sink: list[Any]):
    def factory(name: str, config: KgragConfig) -> Pipeline:
        pool = config.retrieval.pool_for("rerank")
        return Pipeline(
            name,
            "bench: the rerank pool",
            (*hybrid_search("rerank", config, keep=pool), TakeTop(limit=pool), Hydrate(), CapturePool(sink)),
            requires=EMBEDDINGS,
        )

    return factory


def scored_pipeline(step: ScoresRerank):
    def factory(name: str, config: KgragConfig) -> Pipeline:
        pool = config.retrieval.pool_for("rerank")
        return Pipeline(
            name,
            "bench: the rerank pool in a given order",
            (
                *hybrid_search("rerank", config, keep=pool),
                TakeTop(limit=pool),
                Hydrate(),
                step,
                *finish("rerank", config),
            ),
            requires=EMBEDDINGS,
        )

    return factory


def load_items(dataset: Path, sources: list[str] | None) -> list[QAItem]:
    raw = json.loads(dataset.read_text(encoding="utf-8"))
    keep = {str(q["id"]) for q in raw if not sources or q.get("source") in sources}
    return [i for i in load_dataset(dataset) if i.evidence and i.id in keep]


def measure(ws: Workspace, item: QAItem, pipeline: str, count: TokenCounter, overlap: float) -> dict[str, Any]:
    cpu = time.process_time()
    result = ws.retrieve(item.question, pipeline)
    cpu = time.process_time() - cpu
    texts = [i.text for i in result.items]
    recall = evidence_recall(item.evidence, texts, overlap) or 0.0
    return {"recall": recall, "tokens": sum(count.count(t) for t in texts), "cpu": cpu}


def held_counts(item: QAItem, texts: list[str], overlap: float) -> list[int]:
    """How many of the question's evidence sentences each text holds on its own."""
    words = [content_words(t) for t in texts]
    return [sum(evidence_hit(s, [w], overlap) for s in item.evidence) for w in words]


def dump(args: argparse.Namespace) -> int:
    items = load_items(args.dataset, args.source)[: args.limit]
    count = TokenCounter.for_encoding()
    sink: list[Any] = []
    rows = []
    with Workspace.open(args.workspace) as ws:
        from kgrag.workspace import kinds

        kinds.pipelines(ws).register("ce-capture", capture_pipeline(sink), summary="bench")
        overlap = ws.config.evaluation.evidence_overlap
        chunks = {c.id: c.text for c in ws.store.chunks.iter_all()}
        split = evidence_folds(items, ChunkWords(chunks.values()), 5, 0, overlap)
        print(f"{len(items)} questions, 5 folds: {split.groups} groups, largest {split.largest_group}", flush=True)
        for n, (item, fold) in enumerate(zip(items, split.fold, strict=True)):
            base = measure(ws, item, "rerank", count, overlap)
            ws.retrieve(item.question, "ce-capture")
            passages, features, fused = sink.pop()
            rows.append(
                {
                    "id": item.id,
                    "type": item.question_type,
                    "question": item.question,
                    "fold": fold,
                    "pool": [p.id for p in passages],
                    "fused": [round(float(s), 6) for s in fused],
                    "features": np.round(features, 6).tolist(),
                    "label": held_counts(item, [p.text for p in passages], overlap),
                    "rerank": base,
                }
            )
            if (n + 1) % 100 == 0:
                print(f"  {n + 1}/{len(items)}", flush=True)
    used = {c for r in rows for c in r["pool"]}
    Path(f"{args.out}.chunks.json").write_text(json.dumps({c: chunks[c] for c in sorted(used)}), encoding="utf-8")
    Path(f"{args.out}.pools.json").write_text(json.dumps(rows), encoding="utf-8")
    print(
        f"pools: {len(rows)}, chunks used: {len(used)}; rerank All {np.mean([r['rerank']['recall'] for r in rows]):.4f}"
    )
    return 0


def zscore(values: np.ndarray) -> np.ndarray:
    sd = values.std()
    return (values - values.mean()) / sd if sd > 0 else values - values.mean()


def fit_weight(rows: list[dict], ce: dict[str, dict[str, float]], k: int) -> float:
    """The w of z(fused) + w · z(ce) whose top k hold most evidence-bearing candidates (a proxy of recall
    that needs no retrieval) on ``rows``."""
    grid = [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 1e6]
    best, best_hits = 0.0, -1.0
    for w in grid:
        hits = 0.0
        for r in rows:
            s = combined(r, ce[r["id"]], w)
            top = np.argsort(-s, kind="stable")[:k]
            label = np.array(r["label"])
            hits += (label[top] > 0).sum() / max(1, (label > 0).sum())
        if hits > best_hits:
            best, best_hits = w, hits
    return best


def combined(row: dict, ce: dict[str, float], w: float) -> np.ndarray:
    f = zscore(np.array(row["fused"]))
    c = zscore(np.array([ce[cid] for cid in row["pool"]]))
    return c if w >= 1e6 else f + w * c


def arms(
    rows: list[dict], ces: dict[str, dict[str, dict[str, float]]], k: int, fixed: dict[str, float]
) -> dict[str, dict[str, dict]]:
    """Arm name → question id → chunk id → score (``fixed``: a w set from elsewhere, per score set)."""
    out: dict[str, dict[str, dict]] = {
        "fused (shipped)": {r["id"]: dict(zip(r["pool"], r["fused"], strict=True)) for r in rows}
    }
    for name, ce in ces.items():
        out[f"{name} alone"] = {r["id"]: {c: ce[r["id"]][c] for c in r["pool"]} for r in rows}
        folds = sorted({r["fold"] for r in rows})
        fused: dict[str, dict] = {}
        ws = []
        for f in folds:
            w = fit_weight([r for r in rows if r["fold"] != f], ce, k)
            ws.append(w)
            for r in rows:
                if r["fold"] == f:
                    fused[r["id"]] = dict(zip(r["pool"], combined(r, ce[r["id"]], w).tolist(), strict=True))
        print(f"{name}: fused + w·ce, w per fold: {ws}")
        out[f"fused + w·{name}"] = fused
        out[f"LR(fused features + {name})"] = logistic(rows, ce)
        if name in fixed:
            w = fixed[name]
            out[f"fused + {w:g}·{name} (w fixed)"] = {
                r["id"]: dict(zip(r["pool"], combined(r, ce[r["id"]], w).tolist(), strict=True)) for r in rows
            }
    out["LR(fused features), refitted"] = logistic(rows, None)
    return out


def _design(row: dict, ce: dict[str, dict[str, float]] | None) -> np.ndarray:
    x = np.array(row["features"], dtype=float)
    if ce is None:
        return x
    return np.column_stack([x, zscore(np.array([ce[row["id"]][c] for c in row["pool"]]))])


def logistic(rows: list[dict], ce: dict[str, dict[str, float]] | None) -> dict[str, dict]:
    """Scores of a logistic regression (does the candidate hold an evidence sentence?) over the `fused`
    features, plus the z-scored cross-encoder score when given, fitted on the other folds."""
    from sklearn.linear_model import LogisticRegression

    out: dict[str, dict] = {}
    for f in sorted({r["fold"] for r in rows}):
        train = [r for r in rows if r["fold"] != f]
        x = np.vstack([_design(r, ce) for r in train])
        y = np.concatenate([np.array(r["label"]) > 0 for r in train])
        model = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
        for r in rows:
            if r["fold"] == f:
                out[r["id"]] = dict(zip(r["pool"], (_design(r, ce) @ model.coef_[0]).tolist(), strict=True))
    return out


def evaluate(args: argparse.Namespace) -> int:
    rows = json.loads(args.pools.read_text(encoding="utf-8"))
    byid = {r["id"]: r for r in rows}
    items = {i.id: i for i in load_dataset(args.dataset) if i.id in byid}
    ces = {}
    for path, name in zip(args.scores, args.scores_name or [p.stem for p in args.scores], strict=True):
        raw = json.loads(path.read_text(encoding="utf-8"))
        ces[name] = {q: dict(zip(byid[q]["pool"], s, strict=True)) for q, s in raw.items() if q in byid}
        rows = [r for r in rows if r["id"] in ces[name]]
    if args.fit_weight:
        for name, ce in ces.items():
            print(f"{name}: w fitted on all {len(rows)} questions = {fit_weight(rows, ce, 5)}")
        return 0
    count = TokenCounter.for_encoding()
    with Workspace.open(args.workspace) as ws:
        from kgrag.workspace import kinds

        k = ws.config.retrieval.k
        fixed = {n: float(w) for n, w in (f.split("=") for f in args.fixed_weight)}
        table_arms = arms(rows, ces, k, fixed)
        if args.only:
            table_arms = {
                a: t for a, t in table_arms.items() if a == "fused (shipped)" or any(o in a for o in args.only)
            }
        step = ScoresRerank({})
        kinds.pipelines(ws).register("ce-scored", scored_pipeline(step), summary="bench")
        overlap = ws.config.evaluation.evidence_overlap
        results: dict[str, list[dict]] = {}
        for arm, table in table_arms.items():
            step.table.clear()
            step.table.update(table)
            results[arm] = []
            for r in rows:
                step.current["id"] = r["id"]
                results[arm].append(measure(ws, items[r["id"]], "ce-scored", count, overlap))
            print(f"  {arm}: done", flush=True)
    same = sum(
        abs(a["recall"] - r["rerank"]["recall"]) < 1e-12 for a, r in zip(results["fused (shipped)"], rows, strict=True)
    )
    print(f"fused arm reproduces rerank on {same}/{len(rows)} questions")
    report(rows, results)
    if args.json:
        args.json.write_text(json.dumps({"ids": [r["id"] for r in rows], "arms": results}), encoding="utf-8")
    return 0


def report(rows: list[dict], results: dict[str, list[dict]]) -> None:
    types = sorted({r["type"] for r in rows})
    index = {t: [i for i, r in enumerate(rows) if r["type"] == t] for t in types} | {"All": list(range(len(rows)))}
    print("| arm | " + " | ".join(f"{t} ({len(g)})" for t, g in index.items()) + " | tokens |")
    print("|---|" + "---:|" * (len(index) + 1))
    base = [r["rerank"]["recall"] for r in rows]
    arm_rows = {"rerank": [r["rerank"] for r in rows]} | results
    for arm, res in arm_rows.items():
        cells = []
        for g in index.values():
            mine = [res[i]["recall"] for i in g]
            diff = [res[i]["recall"] - base[i] for i in g]
            cells.append(cell(mine) + ("" if arm == "rerank" else f"<br>Δ {cell(diff, signed=True)}"))
        tokens = np.mean([x["tokens"] for x in res])
        print(f"| {arm} | " + " | ".join(cells) + f" | {tokens:.0f} |")
    print(f"rerank CPU ms/query: {1000 * np.mean([r['rerank']['cpu'] for r in rows]):.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--workspace", type=Path, required=True)
    d.add_argument("--dataset", type=Path, required=True)
    d.add_argument("--out", required=True)
    d.add_argument("--source", nargs="*", default=None)
    d.add_argument("--limit", type=int, default=None, help="only the first N questions (a smoke test)")
    e = sub.add_parser("eval")
    e.add_argument("--workspace", type=Path, required=True)
    e.add_argument("--dataset", type=Path, required=True)
    e.add_argument("--pools", type=Path, required=True)
    e.add_argument("--scores", type=Path, nargs="+", required=True)
    e.add_argument("--scores-name", nargs="*", default=None)
    e.add_argument("--json", type=Path, default=None)
    e.add_argument("--fixed-weight", nargs="*", default=[], help="NAME=W: also fuse that score set at this w")
    e.add_argument("--only", nargs="*", default=[], help="evaluate only the arms whose name holds one of these")
    e.add_argument("--fit-weight", action="store_true", help="only print the w fitted on all questions")
    args = parser.parse_args()
    return dump(args) if args.cmd == "dump" else evaluate(args)


if __name__ == "__main__":
    raise SystemExit(main())
