"""Writing a file the user reads whole or not at all, with the mode the user's other files get."""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it and a rename, so a reader (or a crash)
    sees the old file or the new one, never half of one. The new file gets the mode of the file it replaces,
    or, for a new one, what the user's umask gives any file they create (``tempfile.mkstemp`` would make it
    readable by its owner only, and replacing a ``kgrag.toml`` with it would change the file's mode).
    Raises ``OSError`` as writing does."""
    temporary = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
    try:
        with open(temporary, "x", encoding="utf-8") as sink:
            sink.write(text)
        if path.exists():
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
