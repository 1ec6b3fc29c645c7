"""Saved HNSW indexes next to the SQLite file, so a cold process does not rebuild one per query.

Building HNSW over 10⁵–10⁶ vectors takes tens of seconds to minutes, and every ``kgrag query`` is a new
process; rebuilding there would cost more than the exact search it replaces. So the first process that
needs an index saves it under ``<db>.ann/`` and the next one loads it:

* **Keyed by content, not by the write generation.** The generation counts this process's writes plus
  SQLite's per-connection ``data_version``, neither of which survives a restart. A BLAKE2 hash of the
  build parameters, the chunk ids in row order and the vector bytes does (hashing costs a small fraction of
  a build: docs/results/design-measurements.md), and any write that changes chunk vectors changes it.
* **Appends extend, anything else rebuilds.** Chunk rows come in rowid order, so a run that only added
  documents leaves the saved rows as a prefix: the saved index is loaded and the new rows inserted
  (HNSW supports inserts), then saved again. Deletions or re-chunking fail the prefix check and rebuild.
* **Written atomically** (temporary file + rename, then a small JSON manifest naming it), so a reader
  never loads half a file; a failed save (read-only directory) only costs the next process a rebuild.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgrag.core.hnsw_index import HnswIndex, hnsw_index, load_faiss
from kgrag.core.vector_index import AnnParams, VectorIndex, build_vector_index, chosen_index

log = logging.getLogger(__name__)


def fingerprint(ids: list[str], matrix: np.ndarray, params: AnnParams) -> str:
    """Hash of what the saved graph depends on (``ef_search`` is a query setting, so not included)."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"hnsw|m={params.m}|efc={params.ef_construction}|d={matrix.shape[1]}|".encode())
    digest.update("\n".join(ids).encode())
    digest.update(np.ascontiguousarray(matrix, dtype=np.float32).tobytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Manifest:
    """What ``<model>.json`` records about the saved index: its file, content hash and row count."""

    file: str = ""
    fingerprint: str = ""
    rows: int = 0


class AnnSidecar:
    """Loads, extends or builds-and-saves the HNSW index of one model's chunk vectors."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        # The last index per model with its content hash: a write that left the chunk vectors alone (graph,
        # documents' status) bumps the generation but then costs a hash, not a file read.
        self._current: dict[str, tuple[str, HnswIndex]] = {}

    def index(self, model: str, ids: list[str], matrix: np.ndarray, params: AnnParams) -> VectorIndex:
        """The index ``params`` selects for these vectors, from disk when a saved one matches."""
        faiss = load_faiss() if chosen_index(params, len(ids)) == "hnsw" and ids else None
        if faiss is None or self.directory is None or not params.persist:
            self._current.pop(model, None)
            return build_vector_index(ids, matrix, params)  # exact, a plug-in, or nothing to save to
        manifest_path = self.directory / f"{_slug(model)}.json"
        saved = _read_manifest(manifest_path)
        key = fingerprint(ids, matrix, params)
        current = self._current.get(model)
        if current is not None and current[0] == key:
            return current[1]
        if saved.file and saved.fingerprint == key and (self.directory / saved.file).exists():
            index = HnswIndex.read(faiss, self.directory / saved.file, ids, params)
        else:
            index = self._extended(faiss, saved, ids, matrix, params) or self._built(ids, matrix, params)
            self._save(index, model, key, manifest_path, saved)
        self._current[model] = (key, index)
        return index

    @staticmethod
    def _built(ids: list[str], matrix: np.ndarray, params: AnnParams) -> HnswIndex:
        built = hnsw_index(ids, matrix, params)
        assert isinstance(built, HnswIndex)  # the caller checked that faiss is there
        return built

    def _extended(
        self, faiss: Any, saved: Manifest, ids: list[str], matrix: np.ndarray, params: AnnParams
    ) -> HnswIndex | None:
        """The saved index plus the rows appended since, when the saved rows are still a prefix."""
        assert self.directory is not None
        n = saved.rows
        if not saved.file or not 0 < n < len(ids) or not (self.directory / saved.file).exists():
            return None
        if fingerprint(ids[:n], matrix[:n], params) != saved.fingerprint:
            return None
        index = HnswIndex.read(faiss, self.directory / saved.file, ids[:n], params)
        index.extend(ids[n:], matrix[n:])
        return index

    def forget(self, model: str) -> None:
        """Delete the index saved for ``model`` (its vectors were deleted); the next search builds anew."""
        self._current.pop(model, None)
        if self.directory is None:
            return
        manifest_path = self.directory / f"{_slug(model)}.json"
        saved = _read_manifest(manifest_path)
        if saved.file:
            (self.directory / saved.file).unlink(missing_ok=True)
        manifest_path.unlink(missing_ok=True)

    def _save(self, index: HnswIndex, model: str, key: str, manifest_path: Path, old: Manifest) -> None:
        assert self.directory is not None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            file = f"{_slug(model)}-{key}.faiss"
            index.write(self.directory / file)
            tmp = manifest_path.with_suffix(".json.tmp")
            tmp.write_text(json.dumps({"model": model, "fingerprint": key, "rows": len(index), "file": file}))
            tmp.replace(manifest_path)
            if old.file and old.file != file:
                (self.directory / old.file).unlink(missing_ok=True)
        except OSError as exc:
            log.warning("could not save the HNSW index in %s (%s); the next process rebuilds it", self.directory, exc)


def _slug(model: str) -> str:
    """A file-name-safe, collision-free name for a model key such as ``onnx:all-MiniLM-L6-v2``."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", model)[:60]
    return f"{readable}-{hashlib.blake2b(model.encode(), digest_size=4).hexdigest()}"


def _read_manifest(path: Path) -> Manifest:
    """The saved manifest, or an empty one when absent or unreadable (then the index is rebuilt)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Manifest(str(data["file"]), str(data["fingerprint"]), int(data["rows"]))
    except (OSError, ValueError, KeyError, TypeError):
        return Manifest()
