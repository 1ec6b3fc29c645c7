"""Per-question rows a bench has already measured, kept in a JSON-lines file so a long run can resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def cached_rows(cache: Path) -> dict[str, Any]:
    """The rows of ``cache`` by their ``id`` (empty when the file does not exist yet)."""
    rows: dict[str, Any] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    return rows
