"""Reading user-supplied JSON files with errors that name the file (never a bare traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError


def read_json(path: Path) -> Any:
    """Parse a whole JSON file; unreadable or malformed files raise :class:`KgragError` naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise KgragError(f"{path}: cannot read ({exc.strerror})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise KgragError(f"{path}: not valid JSON ({exc})") from exc
