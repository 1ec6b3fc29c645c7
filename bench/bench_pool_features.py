"""Would more lexical signals order `rerank`'s pool better? IDF-weighted word coverage, the best single
sentence's coverage (plain and IDF-weighted) and the share of the question's word pairs found as adjacent
content words, each added to the six ``fused`` features in a logistic regression of "this passage holds an
evidence sentence", fitted on the other evidence folds (no evidence passage in two folds) and scored on the
held-out one.

Reads the pools ``bench/bench_cross_encoder.py dump`` writes (per question its 50 hydrated candidates in
first-stage order with their ``fused`` features, score and label, and its evidence fold) and the chunk texts
beside them. Prints, against the shipped ``fused`` order of the same pools, the paired difference per arm in
two proxies of evidence recall: a top-5 holding any evidence-bearing passage, and the share of the top 5
that hold one (mean over questions, 95 % interval of the paired difference, :mod:`kgrag.evaluation.stats`).
The proxies ignore the budget's excerpts; an arm that moved them would need the real pipeline next.

    .venv/bin/python bench/bench_pool_features.py /tmp/DIR/medical     # reads medical.pools.json, medical.chunks.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from kgrag.documents.words import content_words, ordered_content_words
from recall_cells import cell

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TOKEN = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")
FUSED = 6
ARMS = {
    "LR, the six fused features": [],
    "+ IDF-weighted coverage": [0],
    "+ best sentence's coverage": [1],
    "+ best sentence's IDF coverage": [2],
    "+ question word pairs adjacent": [3],
    "+ all four": [0, 1, 2, 3],
}


def lexical(question: str, text: str, idf: Callable[[str], float]) -> list[float]:
    """The four added signals of one candidate (module docstring)."""
    ordered = ordered_content_words(question)
    wanted, held = set(ordered), content_words(text)
    total = sum(idf(w) for w in wanted) or 1.0
    best = best_idf = 0.0
    for sentence in _SENTENCE_END.split(text):
        found = content_words(sentence) & wanted
        best = max(best, len(found) / max(1, len(wanted)))
        best_idf = max(best_idf, sum(idf(w) for w in found) / total)
    pairs = set(itertools.pairwise(ordered))
    kept = [t for t in _TOKEN.findall(text.lower()) if t in held]
    adjacent = len(pairs & set(itertools.pairwise(kept))) / max(1, len(pairs))
    return [sum(idf(w) for w in wanted & held) / total, best, best_idf, adjacent]


def top5(scores: np.ndarray, labels: np.ndarray, groups: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per question: whether its top 5 by ``scores`` hold an evidence-bearing passage, and what share does."""
    hit, share = [], []
    for rows in groups:
        top = rows[np.argsort(-scores[rows], kind="stable")[:5]]
        hit.append(float((labels[top] > 0).any()))
        share.append(float((labels[top] > 0).mean()))
    return np.array(hit), np.array(share)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", help="PATH/NAME of NAME.pools.json and NAME.chunks.json")
    args = parser.parse_args()
    pools = json.loads(Path(f"{args.prefix}.pools.json").read_text(encoding="utf-8"))
    chunks = json.loads(Path(f"{args.prefix}.chunks.json").read_text(encoding="utf-8"))
    df = Counter(w for text in chunks.values() for w in content_words(text))

    def idf(word: str) -> float:
        return math.log((len(chunks) + 1) / (df.get(word, 0) + 1)) + 1

    rows: list[list[float]] = []
    labels: list[int] = []
    shipped: list[float] = []
    folds: list[int] = []
    groups: list[np.ndarray] = []
    for pool in pools:
        start = len(rows)
        for chunk, features, label, score in zip(
            pool["pool"], pool["features"], pool["label"], pool["fused"], strict=True
        ):
            rows.append(list(features) + lexical(pool["question"], chunks[chunk], idf))
            labels.append(label)
            shipped.append(score)
            folds.append(int(pool["fold"]))
        groups.append(np.arange(start, len(rows)))
    x, y, fold = np.array(rows), np.array(labels), np.array(folds)
    base_hit, base_share = top5(np.array(shipped), y, groups)
    print(f"{len(pools)} questions; shipped fused: any in top 5 {base_hit.mean():.4f}, share {base_share.mean():.4f}")
    for arm, extra in ARMS.items():
        columns = list(range(FUSED)) + [FUSED + i for i in extra]
        scores = np.zeros(len(y))
        for held in sorted(set(folds)):
            model = LogisticRegression(C=1.0, max_iter=2000).fit(x[fold != held][:, columns], y[fold != held] > 0)
            scores[fold == held] = model.decision_function(x[fold == held][:, columns])
        hit, share = top5(scores, y, groups)
        cells = [
            f"{value.mean():.4f} ({cell(value - base, signed=True, digits=4)})"
            for value, base in ((hit, base_hit), (share, base_share))
        ]
        print(f"{arm:32s} any in top 5 {cells[0]}   share {cells[1]}")


if __name__ == "__main__":
    main()
