"""Is ``kgrag index --estimate`` right for a model it was not tuned on? Estimate ÷ measured on two servers.

Indexes a small slice of the GraphRAG-Bench Medical corpus (``../shared/datasets/graphrag-bench-medical/
corpus.json``) with the ``standard``, ``graphrag`` and ``denoised`` pipelines (denoising with LLM merge
confirmation and LLM triple reflection) against two scripted OpenAI-compatible servers with different
reply distributions: the realistic extraction responder (:mod:`kgrag.testing.extraction_responder`) and
the terse one (:mod:`kgrag.testing.terse_responder`, fewer entities, different relations, gleaning and
reply sizes). Each cell estimates with ``--probe`` (one unit extracted for real first, calibrating reply
sizes from the ledger), then indexes the same files for real in the same workspace and divides.
``--ledger`` instead lets the workspace index an earlier slice for real first (a workspace with history:
every stage's reply size calibrated from its ledger). Prints a markdown table (``--out`` writes it too).

    PYTHONPATH=src .venv/bin/python bench/bench_estimate_servers.py [--tokens 6000] [--ledger] [--out F]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from kgrag.testing.estimate_check import Comparison, compare
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.terse_responder import TerseResponder

ROOT = Path(__file__).resolve().parents[1]
MEDICAL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
PIPELINES = {
    "standard": {},
    "graphrag": {"indexing.pipeline": '"graphrag"'},
    "denoised": {"indexing.pipeline": '"denoised"', "denoise.llm_confirm": "true", "denoise.reflection": '"llm"'},
}
SERVERS = {"realistic": lambda: ExtractionResponder().for_server, "terse": lambda: TerseResponder().for_server}
FIGURES = ("calls", "prompt_tokens", "completion_tokens")
TOLERANCE = 0.25


def slices(out: Path, tokens: int, count: int) -> list[Path]:
    """``count`` consecutive slices of about ``tokens`` (4 characters a token) of the Medical corpus."""
    records = json.loads(MEDICAL.read_text(encoding="utf-8"))
    text = "\n\n".join(str(r.get("context", "")) for r in records)
    out.mkdir(parents=True, exist_ok=True)
    paths, size, start = [], tokens * 4, 0
    for number in range(count):
        end = text.find("\n", start + size)
        path = out / f"medical-{number}.txt"
        path.write_text(text[start:end] + "\n", encoding="utf-8")
        paths.append(path)
        start = end + 1
    return paths


def row(server: str, pipeline: str, result: Comparison) -> str:
    cells = []
    for figure in FIGURES:
        ratio = result.ratio(figure)
        mark = "ok" if abs(ratio - 1) <= TOLERANCE else "**off**"
        cells.append(f"{result.estimate[figure]:.0f} / {result.measured[figure]:.0f} = {ratio:.2f} {mark}")
    return f"| {server} | {pipeline} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=6000, help="size of the Medical slice")
    parser.add_argument("--ledger", action="store_true", help="calibrate from a real run of an earlier slice")
    parser.add_argument("--servers", default=",".join(SERVERS))
    parser.add_argument("--pipelines", default=",".join(PIPELINES))
    parser.add_argument("--verbose", action="store_true", help="print each cell's assumptions and stages")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if not MEDICAL.exists():
        sys.exit(f"Medical corpus not found at {MEDICAL}")
    mode = "ledger of an earlier slice" if args.ledger else "--probe"
    lines = ["| server | pipeline | calls (estimate / measured) | prompt tokens | completion tokens |",
             "|---|---|---|---|---|"]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="kgrag-estimate-") as tmp:
        history, target = slices(Path(tmp) / "docs", args.tokens, 2)
        for server in args.servers.split(","):
            for pipeline in args.pipelines.split(","):
                result = compare([target], Path(tmp) / f"{server}-{pipeline}", PIPELINES[pipeline],
                                 responder=SERVERS[server](), probe=not args.ledger,
                                 history=[history] if args.ledger else ())  # fmt: skip
                if args.verbose:
                    print("\n".join(result.assumptions), file=sys.stderr)
                    print(json.dumps(result.measured_by_stage, indent=1), file=sys.stderr)
                lines.append(row(server, pipeline, result))
                print(lines[-1], flush=True)
    table = f"Medical slice of ~{args.tokens} tokens, calibration: {mode}\n\n" + "\n".join(lines) + "\n"
    print("\n" + table)
    if args.out:
        args.out.write_text(table, encoding="utf-8")


if __name__ == "__main__":
    main()
