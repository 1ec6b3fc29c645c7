"""The real-model check: kgrag's LLM path end to end against a small local model on this machine's CPU.

Run it through ``make llm-check`` (which builds llama-cpp-python's server into its own cached venv and
assembles the GGUF first), or directly::

    .venv/bin/python bench/llm_check.py --server-python .llm-venv/bin/python --gguf model.gguf

It starts ``llama_cpp.server`` on a free 127.0.0.1 port, makes a workspace with **default settings**
(``json_mode = auto``, no ``context_window``: kgrag finds both out), indexes two sample documents with LLM
extraction, runs a query, then a judged evaluation of the questions those documents answer, prints the
figures, writes them to ``--out`` (markdown) and stops the server by PID. Every exchange is recorded to
``--record`` (JSONL), from which ``tests/fixtures/llm_replies/`` takes the real reply shapes the test
suite replays. Nothing here runs in ``make test``: a CPU model takes minutes per call.

``--medical OFFSET`` (repeatable) indexes passages of the GraphRAG-Bench medical corpus instead of the sample
pair (``--novel OFFSET``: of a book of the Novel subset),
``--n-ctx``/``--context-window`` size the server's and kgrag's window, ``--cli-runs N`` indexes with
``kgrag index`` N times (exit status and calls of each run: does a rerun make progress?), ``--nice`` lowers
this process's priority but not the server's.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample"
DOCS = ("team-security.md", "access-policy-gatekeeper.md")  # the pair whose text answers most sample questions (6)
MEDICAL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
NOVEL = ROOT.parent / "shared" / "datasets" / "graphrag-bench-novel" / "corpus.json"
QUESTIONS = 5
START_TIMEOUT_S = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def llama_server(python: str, gguf: Path, n_ctx: int, threads: int, log: Path) -> Iterator[str]:
    """``llama_cpp.server`` on 127.0.0.1 and a free port; yields its base URL, stops it by PID."""
    port = _free_port()
    command = [python, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1", "--port", str(port),
               "--n_ctx", str(n_ctx), "--n_threads", str(threads)]  # fmt: skip
    with log.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise SystemExit(f"llama server exited with {process.returncode}; see {log}")
            try:
                urllib.request.urlopen(url + "/models", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(f"llama server did not answer in {START_TIMEOUT_S} s; see {log}") from None
                time.sleep(1)
        print(f"llama server pid {process.pid} on {url}", flush=True)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        print(f"llama server pid {process.pid} stopped", flush=True)


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """``--base-url``/``--model`` for a server already running, or ``--server-python``/``--gguf`` to start one."""
    parser.add_argument("--base-url", help="an OpenAI-compatible server already running")
    parser.add_argument("--model", default="local")
    parser.add_argument("--server-python", help="a python with llama_cpp.server (started and stopped here)")
    parser.add_argument("--gguf", type=Path)


def chat_server(args: argparse.Namespace, n_ctx: int) -> AbstractContextManager[str]:
    """The base URL of the server :func:`add_server_options` chose, started (and stopped) here if asked."""
    if args.base_url:
        return nullcontext(args.base_url)
    if args.server_python and args.gguf:
        return llama_server(args.server_python, args.gguf, n_ctx, 2, Path(tempfile.mkdtemp()) / "llama.log")
    raise SystemExit("give --base-url, or --server-python and --gguf")


def _workspace(path: Path, url: str, record: Path, context_window: int | None) -> Path:
    from kgrag import Workspace

    Workspace.init(path).close()
    window = f"context_window = {context_window}\n" if context_window else ""
    (path / "kgrag.toml").write_text(
        '[graph]\nextractor = "llm"\n'
        f'[llm]\nprovider = "openai"\nproviders.openai.base_url = "{url}"\nmodel = "local"\n{window}'
        # one request at a time: a CPU server queues the rest, and a queued request's clock is ticking
        f"max_concurrency = 1\ntimeout_s = 3600\nrecord_file = {json.dumps(str(record))}\n",
        encoding="utf-8",
    )
    return path


def _passages(corpus: Path, offsets: list[int], chars: int, out: Path, book: str = "") -> list[str]:
    """Passages of a GraphRAG-Bench corpus as documents (the medical one, or the Novel subset's ``book``):
    from the sentence that holds each character offset, whole sentences up to ``chars`` characters (text
    no prompt or threshold of kgrag was tuned on)."""
    from kgrag.testing.replay_estimate import cut_passages

    return cut_passages(corpus, offsets, chars, out, book)


def _query(ws: object, figures: dict[str, object]) -> None:
    started = time.perf_counter()
    response = ws.query("Who owns Gatekeeper and what does it control?", pipeline="hybrid")  # type: ignore[attr-defined]
    figures["query"] = {
        "answer": response.answer.text,
        "citations": response.answer.citations,
        "uncited": response.answer.uncited,
        "cost_line": response.answer.cost_line,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(figures["query"], indent=1), flush=True)


def _normalise(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def _questions(out: Path) -> Path:
    """The first questions whose evidence the two documents hold, as a dataset file."""
    corpus = " ".join(_normalise((SAMPLE / "docs" / name).read_text(encoding="utf-8")) for name in DOCS)
    chosen = [
        q for q in json.loads((SAMPLE / "questions.json").read_text(encoding="utf-8"))
        if q.get("evidence") and all(_normalise(e) in corpus for e in q["evidence"])
    ][:QUESTIONS]  # fmt: skip
    out.write_text(json.dumps(chosen, indent=1), encoding="utf-8")
    return out


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _index(ws: object, docs: Path) -> dict[str, object]:
    started, cpu = time.perf_counter(), _cpu()
    report = ws.index([docs])  # type: ignore[attr-defined]
    wall = time.perf_counter() - started
    extractor_stats = report  # the figures come from the report, its extract stage's report and the ledger
    from kgrag.indexing.stages.extract import ExtractReport

    extracted = report.stage("extract", ExtractReport)
    usage = ws.llm_usage()  # type: ignore[attr-defined]
    calls = ws.store.llm_ledger.calls()  # type: ignore[attr-defined]
    extraction = [c for c in calls if c.stage in ("index.extract", "index.glean")]
    model_s = sum(c.latency_ms for c in extraction) / 1000
    completion = sum(c.completion_tokens for c in extraction)
    units = _units(ws)
    return {
        "units": units["units"],
        "units_with_entity": units["with_entity"],
        "chunks_failed": extractor_stats.chunks_extraction_failed,
        "glean_failed": extracted.glean_failed,
        "entities": extractor_stats.entities,
        "relations": extractor_stats.relations,
        "ungrounded_entities": extracted.ungrounded_entities,
        "ungrounded_relations": extracted.ungrounded_relations,
        "clause_entities": extracted.clause_entities,
        "clause_relations": extracted.clause_relations,
        "unsupported_relations": extracted.unsupported_relations,
        "descriptions_filled": extracted.descriptions_filled,
        "descriptions_replaced": extracted.descriptions_replaced,
        "incomplete_lines": report.incomplete,
        "incomplete": extractor_stats.incomplete,
        "calls": {stage: t.calls for stage, t in usage.by_stage.items()},
        "prompt_tokens": {stage: t.prompt_tokens for stage, t in usage.by_stage.items()},
        "completion_tokens": {stage: t.completion_tokens for stage, t in usage.by_stage.items()},
        "wall_s": round(wall, 1),
        "framework_cpu_s": round(_cpu() - cpu, 1),
        "extraction_model_s": round(model_s, 1),
        "completion_tokens_per_s": round(completion / model_s, 2) if model_s else None,
        "warnings": report.warnings,
    }


def _probe_estimate(ws: object, docs: Path) -> dict[str, object]:
    """``kgrag index --estimate --probe`` before any other call: one real extraction of a sample unit, then
    the estimate calibrated by it (compared with the real run by :func:`_estimate_ratios`)."""
    _, estimate = ws.estimate_index([docs], probe=True)  # type: ignore[attr-defined]
    return {
        "calls": estimate.calls,
        "prompt_tokens": estimate.prompt_tokens,
        "completion_tokens": estimate.completion_tokens,
        "lines": [*estimate.predicted, *estimate.assumptions],
        "range": {
            end: {"calls": b.calls, "prompt_tokens": b.prompt_tokens, "completion_tokens": b.completion_tokens}
            for end, b in (("low", estimate.low), ("high", estimate.high))
            if b is not None
        },
    }


def _estimate_ratios(ws: object, estimate: dict[str, object], since: float) -> dict[str, object]:
    """Estimate / actual of the calls sent after ``since`` (the index run; the probe's are cached by then)."""
    calls = ws.store.llm_ledger.calls()  # type: ignore[attr-defined]
    sent = [c for c in calls if c.created_at >= since and not c.cache_hit and not c.estimated]
    measured = {
        "calls": len(sent),
        "prompt_tokens": sum(c.prompt_tokens for c in sent),
        "completion_tokens": sum(c.completion_tokens for c in sent),
    }
    ratios: dict[str, object] = {k: round(float(estimate[k]) / v, 2) if v else None for k, v in measured.items()}  # type: ignore[arg-type]
    ends = estimate.get("range") or {}
    if isinstance(ends, dict) and {"low", "high"} <= set(ends):
        ratios["measured"] = measured
        ratios["in_range"] = {k: ends["low"][k] <= v <= ends["high"][k] for k, v in measured.items()}
    return ratios


def _types(ws: object) -> dict[str, int]:
    """Stored entities per type: how often the model typed something other than ``concept``."""
    from collections import Counter

    return dict(Counter(e.type for e in ws.store.graph.entities()))  # type: ignore[attr-defined]


def _units(ws: object) -> dict[str, int]:
    """Extraction units and how many stored at least one grounded entity (provenance is per chunk)."""
    from kgrag.documents import TokenCounter
    from kgrag.graph.extract.settings import llm_settings
    from kgrag.graph.extract.units import build_units

    store = ws.store  # type: ignore[attr-defined]
    config = ws.config  # type: ignore[attr-defined]
    held = {cid for e in store.graph.entities() for cid in e.chunk_ids}
    units = with_entity = 0
    for doc in store.documents.list():
        chunks = store.chunks.for_document(doc.id)
        for unit in build_units(chunks, llm_settings(config).unit_tokens, TokenCounter.for_encoding()):
            units += 1
            with_entity += any(chunk.id in held for chunk in unit.chunks)
    return {"units": units, "with_entity": with_entity}


def _cli_runs(ws_path: Path, docs: Path, runs: int) -> list[dict[str, object]]:
    """``kgrag index`` as a user runs it, ``runs`` times: exit status, what it said, calls it sent."""
    from kgrag import Workspace

    out: list[dict[str, object]] = []
    for _ in range(runs):
        since, started = time.time(), time.perf_counter()
        command = [sys.executable, "-m", "kgrag.cli", "index", str(docs), "-w", str(ws_path)]
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        with Workspace.open(ws_path) as ws:
            sent = [c for c in ws.store.llm_ledger.calls() if c.created_at >= since and not c.cache_hit]
        out.append({
            "exit": run.returncode,
            "wall_s": round(time.perf_counter() - started, 1),
            "calls_sent": len(sent),
            "prompt_tokens": sum(c.prompt_tokens for c in sent),
            "completion_tokens": sum(c.completion_tokens for c in sent),
            "errors": [c.error for c in sent if c.error],
            "output": (run.stdout[-2500:] + run.stderr[-1500:]),
        })  # fmt: skip
        print(json.dumps(out[-1], indent=1), flush=True)
    return out


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server-python", required=True, help="python of the venv with llama-cpp-python[server]")
    parser.add_argument("--gguf", type=Path, required=True)
    parser.add_argument("--n-ctx", type=int, default=4096)
    # llama.cpp's threads spin while they wait: on a shared machine one thread per spare core is far faster
    parser.add_argument("--threads", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    parser.add_argument("--record", type=Path, default=ROOT / "bench-results" / "llm-check-replies.jsonl")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "llm-check.json")
    parser.add_argument("--questions", type=int, default=QUESTIONS)
    parser.add_argument("--skip-eval", action="store_true")
    parser.add_argument("--skip-query", action="store_true")
    parser.add_argument("--skip-probe", action="store_true", help="no `--estimate --probe` before indexing")
    parser.add_argument("--medical", type=int, action="append", default=[], metavar="OFFSET",
                        help="index passages of the GraphRAG-Bench medical corpus (from the sentence at this "
                        "character offset) instead of the sample pair; repeat for more passages")  # fmt: skip
    parser.add_argument(
        "--novel",
        type=int,
        action="append",
        default=[],
        metavar="OFFSET",
        help="as --medical, from the Novel subset's --novel-book (never the reserved books)",
    )
    parser.add_argument("--novel-book", default="Novel-58553")
    parser.add_argument("--passage-chars", type=int, default=3200)
    parser.add_argument("--context-window", type=int, help="set llm.context_window (default: kgrag finds out)")
    parser.add_argument("--nice", type=int, default=0,
                        help="lower the priority of this process and its `kgrag` runs by this much once "
                        "the server is up (the server keeps its own: a shared machine must not starve it)")  # fmt: skip
    parser.add_argument("--cli-runs", type=int, default=0,
                        help="index with `kgrag index` this many times (exit status, calls per run) "
                        "instead of once through the API")  # fmt: skip
    return parser.parse_args()


def _documents(args: argparse.Namespace, docs: Path) -> list[str]:
    """The documents to index, copied or cut into ``docs``; their names."""
    docs.mkdir()
    if args.medical:
        return _passages(MEDICAL, args.medical, args.passage_chars, docs)
    if args.novel:
        return _passages(NOVEL, args.novel, args.passage_chars, docs, args.novel_book)
    for name in DOCS:
        shutil.copy(SAMPLE / "docs" / name, docs / name)
    return list(DOCS)


def _indexing(args: argparse.Namespace, ws_path: Path, docs: Path, url: str, figures: dict[str, object]) -> None:
    """The probe estimate (unless skipped), the index run(s) and what the graph holds after them."""
    from kgrag import Workspace

    _workspace(ws_path, url, args.record, args.context_window)
    if not args.skip_probe:
        with Workspace.open(ws_path) as ws:
            figures["estimate_probe"] = _probe_estimate(ws, docs)
            print(json.dumps(figures["estimate_probe"], indent=1), flush=True)
    since = time.time()
    if args.cli_runs:
        figures["cli_runs"] = _cli_runs(ws_path, docs, args.cli_runs)
    with Workspace.open(ws_path) as ws:
        if not args.cli_runs:
            figures["index"] = _index(ws, docs)
            print(json.dumps(figures["index"], indent=1), flush=True)
        if "estimate_probe" in figures:
            figures["estimate_ratio"] = _estimate_ratios(ws, figures["estimate_probe"], since)  # type: ignore[arg-type]
        figures["types"] = _types(ws)
        figures["descriptions_empty"] = sum(not e.description for e in ws.store.graph.entities())
        print(json.dumps({k: figures.get(k) for k in ("estimate_ratio", "types")}, indent=1), flush=True)
        args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        if not args.skip_query:
            _query(ws, figures)


def _evaluation(work: Path, figures: dict[str, object]) -> None:
    dataset = _questions(work / "questions.json")
    started = time.perf_counter()
    command = [sys.executable, "-m", "kgrag.cli", "eval", "run", "--dataset", str(dataset),
               "-w", str(work / "ws"), "--pipelines", "hybrid", "--runs", "1",
               "--out", str(work / "reports")]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    figures["eval"] = {
        "questions": len(json.loads(dataset.read_text())),
        "exit": run.returncode,
        "wall_s": round(time.perf_counter() - started, 1),
        "output": run.stdout[-3000:] + run.stderr[-1500:],
    }
    print(figures["eval"]["output"], flush=True)


def main() -> None:
    args = _arguments()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args.record.parent.mkdir(parents=True, exist_ok=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.record.unlink(missing_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kgrag-llm-check-"))
    docs = work / "docs"
    figures: dict[str, object] = {
        "model": args.gguf.name,
        "n_ctx": args.n_ctx,
        "context_window": args.context_window,
        "threads": args.threads,
        "docs": _documents(args, docs),
        "load_average_start": os.getloadavg(),
    }
    with llama_server(args.server_python, args.gguf, args.n_ctx, args.threads, work / "server.log") as url:
        if args.nice:
            os.nice(args.nice)
        _indexing(args, work / "ws", docs, url, figures)
        if not args.skip_eval:
            _evaluation(work, figures)
    figures["load_average_end"] = os.getloadavg()
    args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(f"figures: {args.out}\nreplies: {args.record}\nworkspace: {work / 'ws'}")


if __name__ == "__main__":
    main()
