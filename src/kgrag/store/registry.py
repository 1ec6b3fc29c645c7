"""Opening the configured store backend by name through the ``store`` registry.

Backends are entries of :data:`kgrag.core.builtins.KINDS` (``sqlite``) or plug-ins in the
``kgrag.stores`` entry-point group; each entry is a factory ``(StoreConfig, workspace_dir) -> Store``,
imported only when that backend is opened, so a plain install never imports a database driver it does
not use.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgrag.config.store import StoreConfig
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.store.base import Store

StoreFactory = Callable[[StoreConfig, Path], Store]
STORES: RegistryKind[StoreFactory] = RegistryKind("store")


def open_store(config: StoreConfig, workspace: Path, registry: Registry[StoreFactory] | None = None) -> Store:
    """Open (creating if needed) the store ``config`` names, for the workspace at ``workspace``, from
    ``registry`` (a workspace's; default: built-ins and plug-ins)."""
    store: Store = (registry or STORES.new()).create(config.backend, config, workspace)
    return store
