"""Scale benchmark: NLP-mode indexing time per stage, peak RSS, index size and query p50/p95 against
corpus size, with the fitted growth exponents (goal: time ∝ size¹, peak memory ∝ size⁰).

Corpora are ``--sizes`` multiples of the GraphRAG-Bench Medical corpus (~1 MB, ~1,265 chunks), made by
``scale_corpus.py`` (perturbed copies, streamed to disk). For every store × engine combination and size:
a fresh workspace, ``kgrag index`` in a child process (``llm.provider = none``, spaCy graph) whose RSS
tree is polled, then a query child. Stage times are the runner's own (``report.seconds``); *model* time is
every ``<stage>.model`` part (embedding, spaCy), *framework* the rest of the wall time; *outside stages*
is process start-up, model loading and exit. Query latency
excludes the query-embedding model (warmed first) and the first, index-loading query (printed apart).

    KGRAG_EMBEDDING__THREADS=1 python bench/bench_scale.py --sizes 0.0625,0.125,0.25
    python bench/bench_scale.py --sizes 1,4,16                      # 1x, 4x, 16x (hours on 2 cores)
    python bench/bench_scale.py --sizes 40 --questions 20           # ≈ 10M tokens (cl100k), separate run
    python bench/bench_scale.py --report                            # tables of every size measured so far
    python bench/bench_scale.py --engines local,ray \\
        --stores sqlite,postgresql://127.0.0.1:5432/kgrag_{run}     # all four combinations

A store other than ``sqlite`` is a URL handed to kgrag as ``store.url`` (``store.backend`` from its
scheme); ``{run}`` in it becomes a per-run tag so each size starts from an empty database. An engine
other than ``local`` is passed as ``kgrag index --engine``. A combination kgrag cannot run (backend or
engine not installed) is skipped with kgrag's own error as the reason. Skips (exit 0) without the data.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

from scale_child import IndexRun, kgrag_cmd, run_index, run_queries
from scale_corpus import write_corpus

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
PIPELINES = "dense,bm25,hybrid,graph-local"
STAGES = ("ingest", "embed", "extract", "embed-graph", "finalize")


def child_env(store: str, run_tag: str) -> dict[str, str]:
    """The environment of the kgrag children: this tree's sources, NLP mode, the store under test."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), env.get("PYTHONPATH", "")]))
    env.update({"HF_HUB_OFFLINE": "1", "KGRAG_LLM__PROVIDER": "none", "KGRAG_GRAPH__EXTRACTOR": "nlp"})
    env.setdefault("KGRAG_EMBEDDING__THREADS", "1")
    if store != "sqlite":
        scheme = store.split(":", 1)[0].split("+", 1)[0]
        env["KGRAG_STORE__BACKEND"] = {"postgres": "postgresql"}.get(scheme, scheme)
        env["KGRAG_STORE__URL"] = store.replace("{run}", run_tag)
    return env


def fit_exponent(xs: list[float], ys: list[float]) -> float | None:
    """Least-squares slope of log y against log x: 1 = linear, 0 = flat."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx, my = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
    var = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / var if var else None


def model_seconds(seconds: dict[str, float]) -> float:
    return sum(v for k, v in seconds.items() if k.endswith(".model"))


def measure(work: Path, size: float, store: str, engine: str, questions: int) -> dict[str, object] | str:
    """One size of one combination: a row dict, or the reason it could not run."""
    corpus = work / f"corpus-{size:g}x"
    n_docs, chars = write_corpus(CORPUS, size, corpus)
    tag = f"s{size:g}_{engine}".replace(".", "_")
    label = "sqlite" if store == "sqlite" else store.split(":", 1)[0]
    workspace = work / f"ws-{label}-{engine}-{size:g}x"
    shutil.rmtree(workspace, ignore_errors=True)
    env = child_env(store, tag)
    init = subprocess.run(kgrag_cmd("init", str(workspace)), capture_output=True, text=True, env=env, check=False)
    if init.returncode != 0:
        return (init.stdout + init.stderr).strip().splitlines()[-1]
    run: IndexRun = run_index(workspace, corpus, engine, env)
    if run.rc != 0:
        return run.error
    queries = run_queries(workspace, questions, PIPELINES, env)
    load = round(os.getloadavg()[0], 1)  # model time swings with the machine's load: keep it next to the row
    return {"size": size, "docs": n_docs, "chars": chars, "load": load, "run": run.__dict__, "queries": queries}


def _stage_cell(seconds: dict[str, float], stage: str) -> str:
    value = seconds.get(stage, 0.0)
    model = seconds.get(f"{stage}.model")
    return f"{value:.1f}" + (f" ({model:.1f})" if model else "")


def table(rows: list[dict[str, object]]) -> list[str]:
    """Markdown rows: size, wall, per-stage seconds (model part), model/framework split, RSS, queries."""
    head = ["size", "chars", "load", "wall s", "CPU s", *(f"{s} s" for s in STAGES), "outside stages s", "model s"]
    head += ["framework s"]
    head += ["peak RSS MB", "index MB", *(f"{p} p50/p95 ms" for p in PIPELINES.split(","))]
    out = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        run, q = row["run"], row["queries"]
        assert isinstance(run, dict) and isinstance(q, dict)
        model = model_seconds(run["seconds"])
        cells = [f"{row['size']:g}×", f"{row['chars']:,}", str(row.get("load", "?")), f"{run['wall_s']:.1f}"]
        cells.append(f"{run['cpu_s']:.1f}" if run.get("cpu_s") else "n/a")
        cells += [_stage_cell(run["seconds"], s) for s in STAGES]
        cells.append(f"{run['wall_s'] - sum(v for k, v in run['seconds'].items() if '.' not in k):.1f}")
        cells += [f"{model:.1f}", f"{run['wall_s'] - model:.1f}", f"{run['peak_rss_mb']:.0f}"]
        cells.append(f"{q.get('index_bytes', 0) / 2**20:.1f}" if "index_bytes" in q else "n/a")
        for p in PIPELINES.split(","):
            cell = q.get(p)
            cells.append(f"{cell['p50_ms']:.1f}/{cell['p95_ms']:.1f}" if isinstance(cell, dict) else "n/a")
        out.append("| " + " | ".join(cells) + " |")
    return out


def exponents(rows: list[dict[str, object]]) -> str:
    xs = [float(r["chars"]) for r in rows]  # type: ignore[arg-type]
    runs = [r["run"] for r in rows]
    fits = {
        "wall time": fit_exponent(xs, [r["wall_s"] for r in runs]),  # type: ignore[index]
        "CPU time": fit_exponent(xs, [r.get("cpu_s", 0.0) for r in runs]),  # type: ignore[attr-defined]
        "framework time": fit_exponent(xs, [r["wall_s"] - model_seconds(r["seconds"]) for r in runs]),  # type: ignore[index]
        "peak RSS": fit_exponent(xs, [r["peak_rss_mb"] for r in runs]),  # type: ignore[index]
    }
    for stage in STAGES:
        fits[stage] = fit_exponent(xs, [r["seconds"].get(stage, 0.0) for r in runs])  # type: ignore[index]
    return "growth exponents (log y / log size; 1 = linear, 0 = flat): " + ", ".join(
        f"{k} {v:.2f}" for k, v in fits.items() if v is not None
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="0.0625,0.25,1", help="Multiples of the Medical corpus.")
    parser.add_argument("--engines", default="local", help="Comma-separated: local, ray, …")
    parser.add_argument("--stores", default="sqlite", help="Comma-separated: sqlite or store URLs.")
    parser.add_argument("--questions", type=int, default=50, help="Questions timed per pipeline.")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kgrag-scale"), help="Corpora, workspaces, JSON.")
    parser.add_argument("--report", action="store_true", help="Only print the tables of <work>/results.jsonl.")
    args = parser.parse_args()
    if args.report:
        report(args.work / "results.jsonl")
        return
    if not CORPUS.exists():
        print(f"skipped: {CORPUS} is absent")
        return
    sizes = sorted(float(s) for s in args.sizes.split(","))
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()}; sizes {sizes}", flush=True)
    for store in args.stores.split(","):
        for engine in args.engines.split(","):
            run_combination(args.work, sizes, store, engine, args.questions)


def report(results: Path) -> None:
    """Tables and exponents from every row measured so far (sizes may come from separate runs)."""
    combos: dict[str, dict[float, dict[str, object]]] = {}
    for line in results.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        combos.setdefault(row.pop("combo"), {})[row["size"]] = row  # a re-run of a size replaces it
    for name, by_size in combos.items():
        rows = [by_size[k] for k in sorted(by_size)]
        print(f"\n{name} (stage cells: seconds (model part))")
        print("\n".join(table(rows)))
        print(exponents(rows))


def run_combination(work: Path, sizes: list[float], store: str, engine: str, questions: int) -> None:
    name = f"store={store.split('://')[0]} engine={engine}"
    if store != "sqlite" and len(sizes) > 1 and "{run}" not in store:
        print(f"skipped {name}: the URL has no {{run}} placeholder, so sizes would share one database")
        return
    rows: list[dict[str, object]] = []
    for size in sizes:
        row = measure(work, size, store, engine, questions)
        if isinstance(row, str):
            print(f"skipped {name} at {size:g}×: {row}", flush=True)
            break
        rows.append(row)
        print(f"{name} {size:g}×: {json.dumps(row)}", flush=True)
        (work / "results.jsonl").open("a", encoding="utf-8").write(json.dumps({"combo": name, **row}) + "\n")
    if rows:
        print(f"\n{name} (stage cells: seconds (model part); load average now {os.getloadavg()})")
        print("\n".join(table(rows)))
        print(exponents(rows), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
