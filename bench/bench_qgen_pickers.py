"""Blind reads where two pickers chose from the same candidates: the usability model against the preferences.

Reads 38 and later asked each corpus's questions twice from one set of candidates, picked by the usability
model (:mod:`kgrag.evaluation.qgen.usability`) and in the order of preferences, the library's default
(``--before-model``), and read the union once, shuffled, blind to which picker chose what. Each row of
``bench/data/qgen_blind_verdicts.jsonl.gz`` from such a read says which picked it (``picked_by``). This prints, per
corpus and over all those reads, each picker's usable share (95% Wilson intervals), the difference (model minus
before, per question each picker asked, the two asking as many; its 95% interval from a bootstrap of the
questions only one picker chose, each side resampled on its own and the questions taken as independent, not
clustered by corpus: the shared ones cancel), and how well a model fitted only on the reads before them ranks
their questions (AUC; usable share of each read's top half against all).

    python bench/bench_qgen_pickers.py
"""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import numpy as np

from bench_qgen_shapes import wilson
from kgrag.tuning.qgen_usability import auc, fit_usability, load_verdicts, scores, verdict_rows

VERDICTS = Path(__file__).parent / "data" / "qgen_blind_verdicts.jsonl.gz"
PICKERS = ("model", "before")


def share(usable: int, n: int) -> str:
    if not n:
        return "—"
    low, high = wilson(usable, n)
    return f"{usable} of {n} ({usable / n:.0%} [{low:.0%}, {high:.0%}])"


def difference(rows: list[dict], draws: int = 4000) -> str:
    """Model minus before per question asked, with a bootstrap interval over the one-picker questions."""
    asked = {p: sum(p in r["picked_by"] for r in rows) for p in PICKERS}
    if not all(asked.values()):
        return "—"
    if asked["model"] != asked["before"]:
        return "(the pickers asked different numbers of questions)"
    only = {p: [r["usable"] for r in rows if r["picked_by"] == [p]] for p in PICKERS}
    rng = random.Random(0)

    def once(model: list[bool], before: list[bool]) -> float:
        return (sum(model) - sum(before)) / asked["model"]

    def resampled(values: list[bool]) -> list[bool]:
        return [rng.choice(values) for _ in values]

    boot = sorted(once(resampled(only["model"]), resampled(only["before"])) for _ in range(draws))
    point = once(only["model"], only["before"])
    return f"{point:+.1%} [{boot[int(0.025 * draws)]:+.1%}, {boot[int(0.975 * draws) - 1]:+.1%}]"


def main() -> None:
    rows = load_verdicts(VERDICTS)
    paired = [r for r in rows if r.get("picked_by")]
    first = min(r["read"] for r in paired)
    by_corpus: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for r in paired:
        by_corpus[(r["read"], r["corpus"])].append(r)
    print("| read | corpus | picked by the model | picked by the preferences | difference |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for (read, corpus), these in sorted(by_corpus.items()):
        cells = [
            share(sum(r["usable"] for r in these if p in r["picked_by"]), sum(p in r["picked_by"] for r in these))
            for p in PICKERS
        ]
        print(f"| {read} | {corpus} | {cells[0]} | {cells[1]} | {difference(these)} |")
    cells = [
        share(sum(r["usable"] for r in paired if p in r["picked_by"]), sum(p in r["picked_by"] for r in paired))
        for p in PICKERS
    ]
    print(f"| {first}–{max(r['read'] for r in paired)} | all | {cells[0]} | {cells[1]} | {difference(paired)} |")
    data, fresh = verdict_rows(rows), verdict_rows(paired)
    model = fit_usability(data.x[data.reads < first], data.y[data.reads < first])
    chance = scores(model, fresh.x)
    kept = usable = 0
    for read in sorted(set(fresh.reads.tolist())):
        here = np.where(fresh.reads == read)[0]
        top = here[np.argsort(-chance[here], kind="stable")[: max(1, len(here) // 2)]]
        kept, usable = kept + len(top), usable + int(fresh.y[top].sum())
    print(
        f"\nfitted on reads 1–{first - 1}, on the {len(paired)} questions of reads {first}–: AUC "
        f"{auc(chance, fresh.y):.3f}; each read's top half {share(usable, kept)} against all "
        f"{share(int(fresh.y.sum()), len(paired))}"
    )


if __name__ == "__main__":
    main()
