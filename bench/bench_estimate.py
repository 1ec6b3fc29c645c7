"""How honest is ``kgrag index --estimate``? Estimate vs a real run, figure by figure.

Indexes a ~25k-token slice of the GraphRAG-Bench Medical corpus (``../shared/datasets/
graphrag-bench-medical/corpus.json``; skipped when absent) and the sample corpus twice against
``kgrag.testing.FakeOpenAIServer`` answering with the realistic scripted extraction responder: once with
the estimate (0 requests), once for real. Prints the estimate's assumptions, then estimate, measured and
the ratio for calls, prompt tokens, completion tokens and money, and the measured figures per stage
(what the default assumptions in ``[estimate]`` were calibrated on).

    PYTHONPATH=src .venv/bin/python bench/bench_estimate.py [--tokens 25000]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from kgrag.testing.estimate_check import Comparison, compare, medical_slice

ROOT = Path(__file__).resolve().parents[1]
MEDICAL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
SAMPLE = ROOT / "examples" / "sample" / "docs"


def _print(name: str, result: Comparison) -> None:
    print(f"\n== {name} ({result.requests} requests sent by the estimate)")
    for line in result.assumptions:
        print(f"  {line}")
    print(result.table())
    for stage, figures in result.measured_by_stage.items():
        calls, prompt, completion = (figures[k] for k in ("calls", "prompt_tokens", "completion_tokens"))
        print(f"  measured {stage:<16} {calls:>5.0f} calls {prompt:>8.0f} prompt {completion:>8.0f} completion")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=25_000, help="size of the Medical slice")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kgrag-estimate-") as tmp:
        work = Path(tmp)
        _print("sample corpus", compare(sorted(SAMPLE.iterdir()), work / "sample"))
        if MEDICAL.exists():
            corpus = medical_slice(MEDICAL, work / "medical-docs", args.tokens)
            _print(f"Medical slice ({args.tokens} tokens)", compare([corpus], work / "medical"))
        else:
            print(f"\n(Medical corpus not found at {MEDICAL}: skipped)")


if __name__ == "__main__":
    main()
