"""Reading user-supplied files with errors that name the file (never a bare traceback, never a hang).

Only regular files are read: a path that names ``/dev/zero`` (or a link to it) would be read until memory
runs out, and a FIFO would wait for a writer forever. JSON nested deeper than Python's recursion limit
is a clear error rather than a ``RecursionError``.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from kgrag.core.errors import KgragError


class NotRegularFileError(KgragError):
    """The path names a device, FIFO, socket or directory, which is never read as a file."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path}: not a regular file (a device, FIFO or socket); give a file")


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for binary reading, checked to be a regular file before anything is read.

    Opened with ``O_NONBLOCK`` so that a FIFO is refused at once instead of waiting for a writer (the
    flag has no effect on regular files). Raises ``OSError`` when it cannot be opened and
    :class:`NotRegularFileError` when it is not a regular file.
    """
    handle = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb")
    try:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise NotRegularFileError(path)
    except BaseException:
        handle.close()
        raise
    return handle


def read_regular_bytes(path: Path, max_bytes: int | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file (of at most ``max_bytes``, when given); anything else
    raises :class:`KgragError` naming it, chained to the ``OSError`` when the file could not be read."""
    try:
        with open_regular(path) as handle:
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    except OSError as exc:
        raise KgragError(f"{path}: cannot read ({exc.strerror})") from exc
    if max_bytes is not None and len(data) > max_bytes:
        raise KgragError(f"{path}: over {max_bytes // 1024} KiB, too large; fix or move it")
    return data


def read_regular_text(path: Path) -> str:
    """:func:`read_regular_bytes` decoded as UTF-8 (a clear error when it is not)."""
    try:
        return read_regular_bytes(path).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KgragError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def parse_json(text: str, origin: str) -> Any:
    """``json.loads`` with errors that name ``origin``, including nesting too deep to parse."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise KgragError(f"{origin}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    except RecursionError as exc:
        raise KgragError(f"{origin}: JSON nested too deeply to read; flatten it") from exc


def read_json(path: Path) -> Any:
    """Parse a whole JSON file; unreadable or malformed files raise :class:`KgragError` naming it."""
    return parse_json(read_regular_text(path), str(path))
