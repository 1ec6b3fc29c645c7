"""Per-question rows a bench has already measured, kept in a JSON-lines file so a long run can resume."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol


class Identified(Protocol):
    """What a measured item needs: its question id."""

    @property
    def id(self) -> str: ...


def cached_rows(cache: Path) -> dict[str, Any]:
    """The rows of ``cache`` by their ``id`` (empty when the file does not exist yet)."""
    rows: dict[str, Any] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    return rows


def append_rows(
    todo: Sequence[Identified],
    make_row: Callable[[int, Any], Any],
    out: IO[str],
    have: dict[str, Any],
    every: int = 100,
) -> None:
    """Measure each of ``todo`` (``make_row(n, item)``), append its row to ``out`` at once (a long run
    that stops keeps what it measured), keep it in ``have`` by id, and say every ``every`` questions how
    far the run is."""
    for n, item in enumerate(todo):
        row = make_row(n, item)
        out.write(json.dumps(row) + "\n")
        have[item.id] = row
        if (n + 1) % every == 0:
            print(f"  {n + 1}/{len(todo)} questions run", flush=True)
