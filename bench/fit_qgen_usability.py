"""Fit the usability model of LLM-free questions on the blind reads, and say what it gains held out.

Each question of ``bench/data/qgen_blind_verdicts.jsonl.gz`` (every blind read, its reader's verdict) becomes a
feature row (:mod:`kgrag.evaluation.qgen.usability`). Held out two ways, the model ranks each read's
questions and the top half (and top 70%) are kept, as a generator with a deep pool would keep them:

- **leave one read out**: fitted on every other read;
- **later reads**: fitted only on the reads before a cut, scored on the reads from it.

The baseline is the same reads' questions as the generator of their time kept them, all of them (the
reader's verdicts; 95% Wilson intervals); the gain (kept minus all) has a 95% interval from a bootstrap over
reads. ``--write`` refits on every read and writes the weights into
``src/kgrag/evaluation/qgen/usability.py``, which ``tests/evaluation/test_qgen_usability.py`` repeats.

    python bench/fit_qgen_usability.py [--write]
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np

from bench_qgen_shapes import wilson
from kgrag.evaluation.qgen.usability import FEATURES
from kgrag.tuning.qgen_usability import (
    auc,
    fit_usability,
    gain_interval,
    kept_by_read,
    load_verdicts,
    scores,
    verdict_rows,
)

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ROOT / "bench" / "data" / "qgen_blind_verdicts.jsonl.gz"
MODULE = ROOT / "src" / "kgrag" / "evaluation" / "qgen" / "usability.py"


def share(usable: int, n: int) -> str:
    low, high = wilson(usable, n)
    return f"{usable}/{n} {usable / n:.0%} [{low:.0%}, {high:.0%}]"


def held_out(data, first: int, label: str, train) -> None:  # type: ignore[no-untyped-def]
    tested = np.array(sorted({int(r) for r in data.reads if r >= first}))
    here = np.isin(data.reads, tested)
    cells = [f"{share(int(data.y[here].sum()), int(here.sum()))}"]
    for part in (0.7, 0.5):
        reads = kept_by_read(data, train, tested, part)
        gain, low, high = gain_interval(reads)
        usable, kept = sum(r.usable_kept for r in reads), sum(r.kept for r in reads)
        cells.append(f"{share(usable, kept)}, {gain:+.1%} [{low:+.1%}, {high:+.1%}]")
    pooled = np.zeros(len(data.y))
    for read in tested:
        rows = data.reads == read
        model = fit_usability(data.x[train(read)], data.y[train(read)])
        pooled[rows] = scores(model, data.x[rows])
    cells.append(f"AUC {auc(pooled[here], data.y[here]):.3f}")
    print(f"| {label} | reads {first}–{int(tested.max())} | " + " | ".join(cells) + " |")


def write(model_text: str) -> None:
    text = MODULE.read_text()
    text = re.sub(r"WEIGHTS: Final.*?\n\)\n", model_text, text, count=1, flags=re.S)
    MODULE.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="refit on every read and write the weights")
    args = parser.parse_args()
    rows = load_verdicts(VERDICTS)
    data = verdict_rows(rows)
    print(f"{len(rows)} questions of {len(set(data.reads))} blind reads, {int(data.y.sum())} usable")
    print("| held out | tested | all, as generated | model's top 70%, gain | model's top 50%, gain | AUC |")
    print("|---|---|---|---|---|---|")
    for first in (1, 18, 30):
        held_out(data, first, "leave one read out", lambda read: data.reads != read)
    for cut in (18, 30):
        held_out(data, cut, f"fitted on reads before {cut}", lambda read, cut=cut: data.reads < cut)
    last = int(data.reads.max())
    model = fit_usability(data.x, data.y, f"blind reads 1–{last}")
    for name in sorted(FEATURES, key=lambda n: model.weights[n]):
        print(f"  {name:32s} {model.weights[name]:+.3f}")
    if args.write:
        lines = "".join(f'        "{n}": {model.weights[n]:.6f},\n' for n in FEATURES)
        write(f"WEIGHTS: Final[Mapping[str, float]] = MappingProxyType(\n    {{\n{lines}    }}\n)\n")
        text = MODULE.read_text()
        text = re.sub(
            r"^INTERCEPT: Final = .*$", f"INTERCEPT: Final = {model.intercept:.6f}", text, count=1, flags=re.M
        )
        text = re.sub(
            r"^TRAINED_ON: Final = .*$", f'TRAINED_ON: Final = "{model.trained_on}"', text, count=1, flags=re.M
        )
        MODULE.write_text(text)
        print(f"weights written to {MODULE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
