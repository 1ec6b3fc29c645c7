"""Extraction with and without tuned prompts (``kgrag prompts tune``), on a few units of the sample corpus.

Two set-ups, chosen with ``--model``:

* ``scripted``: the fake OpenAI-compatible server of :mod:`kgrag.testing` answering with
  :class:`kgrag.testing.extraction_responder.ExtractionResponder` (rules over the text; it ignores the entity
  types it is sent, so it shows what tuning changes in the pipeline, not in a model);
* ``gguf``: a small real model behind ``llama_cpp.server`` (the ``make llm-check`` venv and GGUF), slow on
  a CPU, hence only a few documents.

For each condition (``baseline``: shipped prompts; ``tuned-ner``: ``kgrag prompts tune --llm none``;
``tuned-llm``: ``kgrag prompts tune`` with the same model) it makes a fresh workspace, tunes it over the
whole sample corpus when asked, indexes ``--docs`` with LLM extraction and prints entities per unit, the
grounded share of the entities the model named, and the entity types used. Figures go to ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample" / "docs"
DOCS = (  # the shortest sample documents: one extraction unit each
    "team-apps.md",
    "access-policy-gatekeeper.md",
    "product-heron.md",
    "hiring-process.md",
    "onboarding-engineers.md",
    "leave-and-time-off.md",
)
CONDITIONS = ("baseline", "tuned-ner", "tuned-llm", "tuned-ner-shipped-example")
SCRIPTED_PROPOSAL = {
    "entity_types": ["person", "team", "product", "customer", "organization", "incident", "location", "policy"],
    "domain": "Handbooks, product pages, incident reports and customer notes of a water-technology company.",
    "language": "English",
}


@contextmanager
def _endpoint(args: argparse.Namespace, work: Path) -> Iterator[str]:
    if args.model == "scripted":
        from kgrag.testing import FakeOpenAIServer
        from kgrag.testing.extraction_responder import ExtractionResponder

        rules = ExtractionResponder()

        def responder(body: dict[str, object]) -> str:
            messages = body["messages"]
            assert isinstance(messages, list)
            if "set up a knowledge-graph extractor" in str(messages[0]["content"]):
                return json.dumps(SCRIPTED_PROPOSAL)  # the rules know no proposal prompt: a fixed, plausible one
            return rules.for_server(body)

        with FakeOpenAIServer(responder=responder) as server:
            yield server.base_url
        return
    sys.path.insert(0, str(ROOT / "bench"))
    from llm_check import llama_server

    with llama_server(args.server_python, args.gguf, args.n_ctx, args.threads, work / "server.log") as url:
        yield url


def _workspace(path: Path, url: str) -> None:
    from kgrag import Workspace

    Workspace.init(path).close()
    record = json.dumps(str(path / "replies.jsonl"))
    (path / "kgrag.toml").write_text(
        '[graph]\nextractor = "llm"\ngleaning = false\n[communities]\nreports = "extractive"\n'
        f'[llm]\nprovider = "openai"\nproviders.openai.base_url = "{url}"\nmodel = "local"\nmax_concurrency = 1\n'
        "timeout_s = 1800\n"
        f"record_file = {record}\n",
        encoding="utf-8",
    )


def first_passes(record: Path) -> dict[str, object]:
    """Per unit, from the recorded exchanges (so a run cut short still counts the units it finished): the
    first-pass reply's entities, how many of their names occur in the unit text, and their types."""
    from kgrag.graph.extract.parse import ExtractionReply
    from kgrag.models.llm.structured import ReplyInvalid, parse_reply

    units: dict[str, dict[str, object]] = {}
    lines = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    for line in lines:
        entry = json.loads(line)
        messages = entry["messages"]
        if entry.get("prompt") != "extract_graph" or len(messages) != 2:
            continue  # re-asks, other prompts
        text = messages[-1]["content"].split("Text:\n", 1)[-1].casefold()
        if text in units:
            continue  # the retry at another temperature: the first reply is the first pass
        try:
            reply, _ = parse_reply(entry["response"], entry.get("finish_reason"), ExtractionReply)
            entities = [e for e in reply.entities if isinstance(e, dict) and isinstance(e.get("name"), str)]
        except ReplyInvalid:
            entities = None
        units[text] = {
            "valid": entities is not None,
            "named": len(entities or []),
            "grounded": sum(e["name"].strip().casefold() in text for e in entities or []),
            "types": Counter(str(e.get("type", "")).casefold() for e in entities or []),
        }
    named = sum(int(u["named"]) for u in units.values())  # type: ignore[call-overload]
    grounded = sum(int(u["grounded"]) for u in units.values())  # type: ignore[call-overload]
    types: Counter[str] = Counter()
    for u in units.values():
        types.update(u["types"])  # type: ignore[arg-type]
    return {
        "units_answered": len(units),
        "valid_first_replies": sum(bool(u["valid"]) for u in units.values()),
        "named_per_unit": round(named / len(units), 2) if units else None,
        "grounded_per_unit": round(grounded / len(units), 2) if units else None,
        "grounded_share": round(grounded / named, 3) if named else None,
        "types_named": dict(types.most_common()),
    }


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run(
        [sys.executable, "-m", "kgrag.cli", *arguments], capture_output=True, text=True, check=False, env=env
    )


def _units(ws: object) -> dict[str, int]:
    sys.path.insert(0, str(ROOT / "bench"))
    from llm_check import _units as count_units

    return count_units(ws)


def _measure(ws_path: Path, docs: Path) -> dict[str, object]:
    from kgrag import Workspace

    with Workspace.open(ws_path) as ws:
        report = ws.index([docs])
        types = Counter(e.type for e in ws.store.graph.entities())
        calls = [c for c in ws.store.llm_ledger.calls() if c.stage == "index.extract"]
        units = _units(ws)["units"]
        named = report.entities + report.ungrounded_entities
        return {
            "units": units,
            "chunks_failed": report.chunks_extraction_failed,
            "entities": report.entities,
            "entities_per_unit": round(report.entities / units, 2) if units else None,
            "ungrounded_entities": report.ungrounded_entities,
            "grounded_share": round(report.entities / named, 3) if named else None,
            "relations": report.relations,
            "types_used": dict(types.most_common()),
            "prompt_version": sorted({f"{c.prompt_name}@{c.prompt_version}" for c in calls}),
            "entity_types_config": ws.config.graph.entity_types,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("scripted", "gguf"), default="scripted")
    parser.add_argument("--server-python", default=".llm-venv/bin/python")
    parser.add_argument("--gguf", type=Path, default=Path(".llm-models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"))
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--conditions", nargs="+", choices=CONDITIONS, default=list(CONDITIONS))
    parser.add_argument("--docs", type=int, default=len(DOCS), help="how many of the fixed documents to index")
    parser.add_argument("--sample-tokens", type=int, default=6000, help="`kgrag prompts tune --sample-tokens`")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "prompt-tune.json")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = Path(tempfile.mkdtemp(prefix="kgrag-ptune-"))
    docs = work / "docs"
    docs.mkdir()
    for name in DOCS[: args.docs]:
        shutil.copy(SAMPLE / name, docs / name)
    figures: dict[str, object] = {"model": args.model, "docs": list(DOCS[: args.docs])}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with _endpoint(args, work) as url:
        for condition in args.conditions:
            ws = work / condition
            _workspace(ws, url)
            if condition != "baseline":
                llm = "auto" if condition == "tuned-llm" else "none"
                example = "shipped" if condition.endswith("shipped-example") else "corpus"
                tokens = str(args.sample_tokens)
                run = _cli(
                    "prompts", "tune", str(SAMPLE), "--llm", llm, "--sample-tokens", tokens, "--example", example,
                    "-w", str(ws),
                )  # fmt: skip
                figures[f"{condition}-tune"] = (run.stdout + run.stderr)[-3000:]
                if (ws / "replies.jsonl").exists():  # the tuner's own calls are not extraction of the documents
                    (ws / "replies.jsonl").rename(ws / "tune-replies.jsonl")
                print(run.stdout, run.stderr, flush=True)
                if run.returncode != 0:
                    continue
            try:
                figures[condition] = _measure(ws, docs)
            finally:
                figures[f"{condition}-first-passes"] = first_passes(ws / "replies.jsonl")
            print(condition, json.dumps(figures[condition], indent=1), flush=True)
            args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(f"figures: {args.out}; workspaces: {work}")


if __name__ == "__main__":
    main()
