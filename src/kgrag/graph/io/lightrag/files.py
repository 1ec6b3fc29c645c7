"""Finding and reading the files of a LightRAG working directory.

LightRAG keeps its graph in ``graph_chunk_entity_relation.graphml`` and its chunks in
``kv_store_text_chunks.json`` (``{chunk_id: {content, tokens, chunk_order_index, full_doc_id, ...}}``).
Renamed copies are common when graphs are shared (e.g. ``lightrag-text-chunks.json`` in our datasets),
so a directory with exactly one ``*.graphml`` also works, and both paths can be given explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.fileio import read_json

DEFAULT_GRAPHML = "graph_chunk_entity_relation.graphml"
CHUNK_FILE_NAMES = ("kv_store_text_chunks.json", "lightrag-text-chunks.json")


@dataclass(frozen=True)
class LightRagChunk:
    """One LightRAG text chunk; ``doc_id`` is LightRAG's ``full_doc_id`` ("" when the file has none)."""

    id: str
    doc_id: str
    order: int
    text: str
    tokens: int


def locate_graphml(directory: Path, explicit: Path | None = None) -> Path:
    """The explicit file, else LightRAG's default name, else the only ``*.graphml`` in ``directory``."""
    if explicit is not None:
        if not explicit.is_file():
            raise KgragError(f"{explicit}: GraphML file not found")
        return explicit
    if not directory.is_dir():
        raise KgragError(f"{directory}: not a directory (pass a LightRAG working directory)")
    default = directory / DEFAULT_GRAPHML
    if default.is_file():
        return default
    candidates = sorted(directory.glob("*.graphml"))
    if len(candidates) == 1:
        return candidates[0]
    found = ", ".join(p.name for p in candidates) or "none"
    raise KgragError(
        f"{directory}: expected {DEFAULT_GRAPHML} or exactly one *.graphml (found: {found}); "
        "name the file with --graphml"
    )


def locate_chunks(directory: Path, explicit: Path | None = None) -> Path:
    """The explicit file, else the first of :data:`CHUNK_FILE_NAMES` present in ``directory``."""
    if explicit is not None:
        if not explicit.is_file():
            raise KgragError(f"{explicit}: chunks file not found")
        return explicit
    for name in CHUNK_FILE_NAMES:
        if (directory / name).is_file():
            return directory / name
    raise KgragError(
        f"{directory}: no LightRAG chunks file ({' or '.join(CHUNK_FILE_NAMES)}); provenance "
        "needs the chunk texts, name the file with --chunks"
    )


def _as_int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _chunk(chunk_id: str, entry: Any, path: Path) -> LightRagChunk:
    if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
        raise KgragError(f"{path}: chunk {chunk_id!r} has no text 'content'; is this kv_store_text_chunks.json?")
    return LightRagChunk(
        id=chunk_id,
        doc_id=str(entry.get("full_doc_id") or ""),
        order=_as_int(entry.get("chunk_order_index"), 0),
        text=entry["content"],
        tokens=_as_int(entry.get("tokens"), 0),
    )


def read_chunks(path: Path) -> list[LightRagChunk]:
    """All chunks of a LightRAG chunk store, in file order."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise KgragError(f"{path}: expected a JSON object of chunk id -> chunk")
    return [_chunk(str(chunk_id), entry, path) for chunk_id, entry in data.items()]
