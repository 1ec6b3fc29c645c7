"""Warnings that parsing libraries log while reading a file name the file.

pypdf logs problems of damaged PDFs ("incorrect startxref pointer") to stderr through ``logging``,
without saying which of the thousand files being indexed it means. While a loader reads a file (inside
:func:`naming`), records from those libraries' loggers get the file's path in front. The current file is
a context variable, so loaders running in several threads each name their own file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

LIBRARY_LOGGERS = ("pypdf",)

_current: ContextVar[str | None] = ContextVar("kgrag_loading_file", default=None)
_installed: list[bool] = []


def _install() -> None:
    """Wrap the log record factory once per process (records are made by whatever factory is current)."""
    if _installed:
        return
    _installed.append(True)
    base = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = base(*args, **kwargs)
        name = _current.get()
        if name is not None and record.name.split(".", 1)[0] in LIBRARY_LOGGERS:
            record.msg = f"{name}: {record.getMessage()}"
            record.args = ()
        return record

    logging.setLogRecordFactory(factory)


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """Within the block, the libraries' log records of this thread start with ``path``."""
    _install()
    token = _current.set(str(path))
    try:
        yield
    finally:
        _current.reset(token)
