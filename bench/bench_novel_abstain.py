"""Does the LLM-free answer abstain more often than the evidence is missing? GraphRAG-Bench Novel subset.

Indexes one book of ``../shared/datasets/graphrag-bench-novel`` (default ``Novel-58553``; never
Novel-30752/51410, which the subset leaves out) into a fresh workspace with the ``fast`` indexing pipeline
(BM25 only: nothing but chunking, so it runs on a loaded CPU), asks its questions (``--types``, default
Fact Retrieval; ``--limit`` of them, in file order) with ``bm25`` (5 passages) and counts:

* evidence missing: no retrieved passage holds the question's evidence, read as at least ``--match`` of
  the evidence sentence's content words (light stems) in one passage (the evidence is often a paraphrase);
* abstained: the answer is "not found" (``idk``).

The answer should abstain on no more questions than lack their evidence. ``--tree`` runs another source
tree's code (``PYTHONPATH=TREE/src`` in a subprocess) for the before figure.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/bench_novel_abstain.py [--tree /path/to/tree] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATASET = REPO.parent / "shared" / "datasets" / "graphrag-bench-novel"
RESERVED = {"Novel-30752", "Novel-51410"}


def held(evidence: str, passages: list[str], share: float) -> bool:
    from kgrag.documents.words import ordered_content_words
    from kgrag.generation.extractive import stem

    wanted = {stem(w) for w in ordered_content_words(evidence)}
    if not wanted:
        return False
    return any(len(wanted & {stem(w) for w in ordered_content_words(p)}) >= share * len(wanted) for p in passages)


def measure(workdir: Path, book: str, types: list[str], limit: int, share: float) -> dict[str, Any]:
    from kgrag import Workspace

    if book in RESERVED:
        raise SystemExit(f"{book} is reserved and must not be used")
    corpus = {c["corpus_name"]: c["context"] for c in json.loads((DATASET / "corpus.json").read_text())}
    questions = [q for q in json.loads((DATASET / "questions.json").read_text()) if q["source"] == book]
    questions = [q for q in questions if q["question_type"] in types][:limit]
    ws_dir = workdir / "ws"
    if not (ws_dir / "kgrag.toml").exists():
        docs = workdir / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        (docs / f"{book}.txt").write_text(corpus[book], encoding="utf-8")
        with Workspace.init(ws_dir) as ws:
            ws.index([docs], pipeline="fast")
    rows = []
    with Workspace.open(ws_dir) as ws:
        for q in questions:
            response = ws.query(q["question"], "bm25", 5)
            passages = [item.text for item in response.result.items if item.kind == "chunk"]
            rows.append({
                "id": q["id"],
                "evidence": all(held(e, passages, share) for e in q["evidence"]) if q["evidence"] else False,
                "abstained": bool(response.answer.idk),
                "answer": response.answer.text[:160],
            })  # fmt: skip
    missing = sum(not r["evidence"] for r in rows)
    abstained = sum(r["abstained"] for r in rows)
    both = sum(r["abstained"] and not r["evidence"] for r in rows)
    return {"questions": len(rows), "evidence_missing": missing, "abstained": abstained,
            "abstained_evidence_missing": both, "rows": rows}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--book", default="Novel-58553")
    parser.add_argument("--types", nargs="+", default=["Fact Retrieval"])
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--match", type=float, default=0.6)
    parser.add_argument("--tree", type=Path, help="a source tree (with src/) whose code to run")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.tree is not None:
        env = {**os.environ, "PYTHONPATH": str(args.tree.resolve() / "src")}
        rest = [a for a in sys.argv[1:] if a not in ("--tree", str(args.tree))]
        return subprocess.run([sys.executable, __file__, *rest], env=env, check=False).returncode
    with tempfile.TemporaryDirectory(prefix="kgrag-novel-") as tmp:
        workdir = args.workdir or Path(tmp)
        result = measure(workdir, args.book, args.types, args.limit, args.match)
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
