"""`kgrag index --estimate --probe` and the run after it, replayed on every recorded real-model run.

Each recorded run (``tests/fixtures/llm_replies/``, written by ``bench/llm_check.py --record``) is
replayed by :mod:`kgrag.testing.replay_estimate`: the same passages, a stand-in server answering with the
recorded replies, the current code. It prints estimate ÷ actual per figure, whether the actual falls in
the printed range, and how many requests the recording did not hold (0: a faithful replay).

    .venv/bin/python bench/replay_estimate.py                 # every recorded run with a probe
    .venv/bin/python bench/replay_estimate.py Novel-26183 --lines
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "llm_replies"
QWEN = "qwen2.5-coder-0.5b-q4km-"
DATASETS = ROOT.parent / "shared" / "datasets"
RUNS = {  # recorded run: (replies, corpus, passage offsets) as bench/llm_check.py was given them
    "Novel-58553": (QWEN + "novel-4096-run2.jsonl", "Novel-58553", (119122, 44017)),
    "Novel-10762-fresh": (QWEN + "novel10762-fresh-4096.jsonl", "Novel-10762", (40000, 170000, 300000)),
    "Novel-26183": (QWEN + "novel26183-4096.jsonl", "Novel-26183", (60000, 200000, 380000)),
    "medical": (QWEN + "medical-4096.jsonl", "medical", (112300, 131700, 962300)),
    "Novel-58553-fresh": (QWEN + "novel58553-fresh-4096.jsonl", "Novel-58553", (10000, 80000, 160000)),
    "medical-fresh": (QWEN + "medical-fresh-4096.jsonl", "medical", (200000, 420000, 680000)),
    "medical-loop": (QWEN + "medical-loop-4096.jsonl", "medical", (300000, 550000, 800000)),
    "medical-12": (QWEN + "medical12-4096.jsonl", "medical",
                   (60000, 145000, 230000, 315000, 400000, 485000, 570000, 655000, 740000, 825000, 910000, 995000)),
    "Novel-26183-12": (QWEN + "novel26183-12-4096.jsonl", "Novel-26183",
                       (30000, 66000, 102000, 138000, 174000, 210000, 246000, 282000, 318000, 354000, 390000, 426000)),
    "Novel-10762-12": (QWEN + "novel10762-12-4096.jsonl", "Novel-10762",
                       (19000, 48000, 77000, 106000, 135000, 164000, 193000, 222000, 251000, 280000, 309000, 338000)),
    "Novel-58553-12": (QWEN + "novel58553-12-4096.jsonl", "Novel-58553",
                       (21000, 32000, 54000, 64000, 87000, 97000, 107000, 130000, 140000, 151000, 173000, 183000)),
}  # fmt: skip


def main() -> None:
    from kgrag.testing.replay_estimate import FIGURES, Recorded, replay

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", default=[name for name, run in RUNS.items() if (FIXTURES / run[0]).exists()])
    parser.add_argument("--lines", action="store_true", help="print the estimate's lines too")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = Path(tempfile.mkdtemp(prefix="kgrag-replay-"))
    for name in args.runs:
        recording, corpus, offsets = RUNS[name]
        subset = "graphrag-bench-medical" if corpus == "medical" else "graphrag-bench-novel"
        corpus_file = DATASETS / subset / "corpus.json"
        done = replay(Recorded(FIXTURES / recording, corpus, offsets), corpus_file, work / name)
        row = {
            "run": name,
            "ratio": {f: round(done.ratio(f), 2) for f in FIGURES},
            # None: the probe covered every unit, so nothing was left to estimate
            "inside_50": all(0.5 <= done.ratio(f) <= 1.5 for f in FIGURES) if any(done.actual.values()) else None,
            "estimate": done.estimate,
            "actual": done.actual,
            "in_range": {f: done.low.get(f, 0) <= done.actual[f] <= done.high.get(f, 0) for f in FIGURES},
            "unrecorded": done.unrecorded,
            "run_gleaning": done.gleaning,
            "predicted_gleaning": next((x for x in done.lines if "predicted: gleaning" in x), ""),
            "graph": done.graph,
            "loop_stops": done.loops,
            "probe": done.probe,
        }
        print(json.dumps(row), flush=True)
        if args.lines:
            print("\n".join(f"    {line}" for line in done.lines))


if __name__ == "__main__":
    main()
