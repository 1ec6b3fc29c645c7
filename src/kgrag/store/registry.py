"""Backends register by name and import lazily, so a plain install never imports a database driver."""

from __future__ import annotations

import importlib
from pathlib import Path

from kgrag.core.errors import ConfigError
from kgrag.store.base import Store

# name -> "module:attribute"; modules are imported only when the backend is opened.
_BACKENDS: dict[str, str] = {
    "sqlite": "kgrag.store.sqlite.store:SQLiteStore",
}


def available_backends() -> list[str]:
    return sorted(_BACKENDS)


def open_store(location: Path | str, backend: str = "sqlite") -> Store:
    """Open (creating if needed) a store of the named backend at ``location``."""
    target = _BACKENDS.get(backend)
    if target is None:
        raise ConfigError(f"store backend {backend!r} is unknown; choose one of {available_backends()}")
    module_name, attr = target.split(":")
    factory = getattr(importlib.import_module(module_name), attr)
    store: Store = factory(location)
    return store
