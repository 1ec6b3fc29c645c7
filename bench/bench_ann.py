"""ANN (faiss HNSW) against exact search, in the same run: recall@10, build, query time and memory.

For each ``--sizes`` count it builds unit vectors with realistic structure (a Gaussian mixture in a
low-dimensional latent space projected to 384 dims plus isotropic noise: sentence embeddings have a low
intrinsic dimension, and uniform random vectors would be a worst case no corpus has), then reports

* exact (``DenseIndex``): query ms (single queries, as a server sees them), matrix MB;
* HNSW (the ``hnsw`` vector index, store defaults unless ``--m/--efc`` say otherwise): build s, saved-file
  MB (vectors + graph links, ≈ its memory), load-from-sidecar s, and for each ``--ef`` query beam: query ms,
  recall@10 against exact, speed-up against exact;
* with ``--medical WS``: the same on a real workspace's chunk + entity vectors.

    python bench/bench_ann.py --sizes 10000,50000,100000 [--ef 32,64,96,128,256] [--medical /tmp/i9/medical-ws]

Queries are held-out points of the same distribution (not indexed), lightly perturbed. Single-threaded
query timing; ratios are against exact measured in the same process, seconds apart.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np

from kgrag.core.dense_index import DenseIndex
from kgrag.core.hnsw_index import HnswIndex, load_faiss
from kgrag.core.vector_index import AnnParams, VectorIndex, build_vector_index

DIM, LATENT, CLUSTERS, NOISE = 384, 32, 400, 0.35  # noise: raise it for a harder set


def synthetic(n: int, seed: int) -> np.ndarray:
    """``n`` unit vectors: cluster centre + spread in a 32-d latent space, projected, plus noise."""
    rng = np.random.default_rng(seed)
    projection = np.random.default_rng(1234).standard_normal((LATENT, DIM)).astype(np.float32)
    centres = np.random.default_rng(5678).standard_normal((CLUSTERS, LATENT)).astype(np.float32)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 50_000):  # in blocks: 500k × 384 floats is 768 MB, its temporaries more
        m = min(50_000, n - start)
        latent = centres[rng.integers(0, CLUSTERS, m)] + 0.6 * rng.standard_normal((m, LATENT)).astype(np.float32)
        block = latent @ projection + NOISE * np.sqrt(LATENT) * rng.standard_normal((m, DIM)).astype(np.float32)
        out[start : start + m] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def timed_queries(index: VectorIndex, queries: np.ndarray, k: int = 10) -> tuple[float, list[set[str]]]:
    started = time.perf_counter()
    hits = [{h.id for h in index.search(q, k)} for q in queries]
    return (time.perf_counter() - started) * 1000 / len(queries), hits


def compare(name: str, ids: list[str], matrix: np.ndarray, queries: np.ndarray, args: argparse.Namespace) -> None:
    """Print exact vs HNSW for one collection."""
    exact_ms, truth = timed_queries(DenseIndex(ids, matrix), queries)
    matrix_mb = matrix.nbytes / 2**20
    print(f"\n{name}: n={len(ids):,} d={matrix.shape[1]}  exact {exact_ms:.3f} ms/query, matrix {matrix_mb:.0f} MB")
    params = AnnParams(index="hnsw", m=args.m, ef_construction=args.efc)
    started = time.perf_counter()
    hnsw = build_vector_index(ids, matrix, params)
    build_s = time.perf_counter() - started
    assert isinstance(hnsw, HnswIndex), "faiss is missing: pip install 'kgrag[ann]'"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.faiss"
        hnsw.write(path)
        size_mb = path.stat().st_size / 2**20
        started = time.perf_counter()
        HnswIndex.read(load_faiss(), path, ids, params)
        load_s = time.perf_counter() - started
    print(f"  hnsw M={args.m} efC={args.efc}: build {build_s:.1f} s, file/memory {size_mb:.0f} MB, load {load_s:.2f} s")
    for ef in args.ef:
        index = HnswIndex(load_faiss(), ids, hnsw.index, AnnParams(index="hnsw", m=args.m, ef_search=ef))
        ms, hits = timed_queries(index, queries)
        recall = float(np.mean([len(h & t) / len(t) for h, t in zip(hits, truth, strict=True)]))
        print(f"  efSearch={ef:<4} {ms:.3f} ms/query  recall@10 {recall:.3f}  speed-up ×{exact_ms / ms:.1f} vs exact")


def medical_vectors(workspace: Path) -> np.ndarray:
    """Every stored vector of a workspace (chunks and entities of its one model), read-only."""
    with sqlite3.connect(f"file:{workspace / 'kgrag.sqlite3'}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT vector FROM embeddings").fetchall()
    return np.frombuffer(b"".join(r[0] for r in rows), dtype=np.float32).reshape(len(rows), -1).copy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--ef", default="32,64,96,128,256", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--m", type=int, default=AnnParams().m)
    parser.add_argument("--efc", type=int, default=AnnParams().ef_construction)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--medical", type=Path, help="A Medical workspace whose vectors to test on too.")
    args = parser.parse_args()
    if load_faiss() is None:
        print("skipped: faiss-cpu is not installed (pip install 'kgrag[ann]')")
        return
    if args.medical and (args.medical / "kgrag.sqlite3").exists():
        real = medical_vectors(args.medical)
        rng = np.random.default_rng(7)
        held = rng.choice(len(real), size=min(args.queries, len(real) // 10), replace=False)
        keep = np.setdiff1d(np.arange(len(real)), held)
        queries = real[held]
        compare("medical (chunk + entity vectors)", [f"r{i}" for i in keep], real[keep], queries, args)
    for n in (int(s) for s in args.sizes.split(",")):
        data = synthetic(n + args.queries, seed=n)
        queries = data[n:] + 0.02 * np.random.default_rng(9).standard_normal((args.queries, DIM)).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        compare("synthetic", [f"v{i}" for i in range(n)], data[:n], queries, args)
        del data


if __name__ == "__main__":
    main()
