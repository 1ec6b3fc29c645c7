"""Opening the configured store backend by name through the ``store`` registry.

Backends are entries of :data:`kgrag.core.builtins.KINDS` (``sqlite``) or plug-ins in the
``kgrag.stores`` entry-point group; each entry is a factory ``(StoreConfig, workspace_dir) -> Store``,
imported only when that backend is opened, so a plain install never imports a database driver it does
not use.
"""

from __future__ import annotations

from pathlib import Path

from kgrag.config.store import StoreConfig
from kgrag.core.builtins import new_registry
from kgrag.store.base import Store


def open_store(config: StoreConfig, workspace: Path) -> Store:
    """Open (creating if needed) the store ``config`` names, for the workspace at ``workspace``."""
    store: Store = new_registry("store").create(config.backend, config, workspace)
    return store
