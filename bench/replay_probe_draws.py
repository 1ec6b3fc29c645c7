"""How much `kgrag index --estimate --probe` depends on which units it probes, on a recorded real-model run.

Replays a recording of ``bench/replay_estimate.py`` once per draw of the probe's first units: every set of
``--size`` of its candidate units (the units of the first documents, ranked by names), the rest as the
current code does it (``--no-growth``: without the units added while a unit's cost is unsure,
:mod:`kgrag.indexing.estimate_probe_size`). One JSON line per draw: estimate ÷ actual of the units left,
whether each actual falls inside the printed range, the probe's calls, unrecorded requests. Then a
summary: draws with all three figures inside ±50%, and the mean |log(estimate ÷ actual)| per figure.

    .venv/bin/python bench/replay_probe_draws.py medical-12 > before-or-after.jsonl
    .venv/bin/python bench/replay_probe_draws.py Novel-26183-12 --no-growth
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import replay_estimate as recorded  # bench/replay_estimate.py: the recordings

CANDIDATES = 8  # the probe's candidates: the units of its first eight documents (one unit per passage)


def main() -> None:
    from kgrag.indexing import estimate_probe, estimate_probe_size
    from kgrag.testing.replay_estimate import FIGURES, Recorded, replay

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", choices=sorted(recorded.RUNS))
    parser.add_argument("--size", type=int, default=2, help="units in each draw of the probe's first units")
    parser.add_argument("--no-growth", action="store_true", help="no units added while a unit's cost is unsure")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    drawn: list[int] = []

    def first_units(ranked: Sequence[Any]) -> list[Any]:
        return [ranked[i] for i in drawn]

    estimate_probe._quartiles = first_units  # type: ignore[assignment]  # the draw instead of the quartiles
    if args.no_growth:
        estimate_probe_size.unit_limit = lambda corpus_units: 0  # type: ignore[assignment]
    recording, corpus, offsets = recorded.RUNS[args.run]
    subset = "graphrag-bench-medical" if corpus == "medical" else "graphrag-bench-novel"
    work = Path(tempfile.mkdtemp(prefix="kgrag-draws-"))
    rows = []
    for number, draw in enumerate(combinations(range(CANDIDATES), args.size)):
        drawn[:] = draw
        run = Recorded(recorded.FIXTURES / recording, corpus, offsets)
        done = replay(run, recorded.DATASETS / subset / "corpus.json", work / str(number))
        row = {
            "draw": draw,
            "ratio": {f: round(done.ratio(f), 3) for f in FIGURES},
            "in_range": [done.low.get(f, 0) <= done.actual[f] <= done.high.get(f, 0) for f in FIGURES],
            "probe_calls": (done.probe or {}).get("calls", 0),
            "unrecorded": done.unrecorded,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    inside = sum(all(0.5 <= r["ratio"][f] <= 1.5 for f in FIGURES) for r in rows)
    error = {f: round(sum(abs(math.log(r["ratio"][f])) for r in rows) / len(rows), 3) for f in FIGURES}
    print(json.dumps({"draws": len(rows), "all_three_inside_50": inside, "mean_abs_log": error}))


if __name__ == "__main__":
    main()
