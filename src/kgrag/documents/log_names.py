"""Warnings that parsing libraries log while reading a file name the file.

pypdf logs problems of damaged PDFs ("incorrect startxref pointer") to stderr through ``logging``,
without saying which of the thousand files being indexed it means. While a loader reads a file (inside
:func:`naming`), records from those libraries' loggers get the file's path in front. The current file is
a context variable, so loaders running in several threads each name their own file.

The records are held until the file is read: a file that loads has them logged (pypdf recovered from
damage worth knowing about), a file that fails has them dropped, since its one "skipped" line already
says what is wrong ("invalid pdf header" and "EOF marker not found" beside it would be two more lines about
the same file).
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
_held: ContextVar[list[logging.LogRecord] | None] = ContextVar("kgrag_held_records", default=None)
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
            logger = logging.getLogger(record.name)  # a parent's filter never sees a child's records, so
            if _hold not in logger.filters:  # each library logger gets it, before it handles this record
                logger.addFilter(_hold)
        return record

    logging.setLogRecordFactory(factory)


def _hold(record: logging.LogRecord) -> bool:
    """Keep a library's record back while this thread reads a file (see the module docstring)."""
    held = _held.get()
    if held is None:
        return True
    held.append(record)
    return False


@contextmanager
def naming(path: Path) -> Iterator[None]:
    """Within the block, the libraries' log records of this thread start with ``path``."""
    _install()
    token, holding = _current.set(str(path)), _held.set([])
    try:
        yield
    except BaseException:
        _held.reset(holding)
        raise
    else:
        records = _held.get() or []
        _held.reset(holding)
        for record in records:
            logging.getLogger(record.name).handle(record)
    finally:
        _current.reset(token)
