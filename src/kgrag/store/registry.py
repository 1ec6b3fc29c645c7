"""Opening the configured store backend by name through the ``store`` registry.

Backends are entries of :data:`kgrag.core.builtins.KINDS` (``sqlite``) or plug-ins in the
``kgrag.stores`` entry-point group; each entry is a factory ``(StoreConfig, workspace_dir) -> Store``,
imported only when that backend is opened, so a plain install never imports a database driver it does
not use. A workspace's ``vector_index`` registry reaches the backend inside the config it is handed
(:meth:`StoreConfig.with_vector_indexes`; ``config.ann_params()`` carries it), so the factory signature
stays the same for plug-in backends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgrag.config.store import StoreConfig
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.core.vector_index import VectorIndexFactory
from kgrag.store.base import Store

StoreFactory = Callable[[StoreConfig, Path], Store]
STORES: RegistryKind[StoreFactory] = RegistryKind("store")


def open_store(
    config: StoreConfig,
    workspace: Path,
    registry: Registry[StoreFactory] | None = None,
    vector_indexes: Registry[VectorIndexFactory] | None = None,
) -> Store:
    """Open (creating if needed) the store ``config`` names, for the workspace at ``workspace``, from
    ``registry`` (a workspace's; default: built-ins and plug-ins); its in-memory vector indexes come from
    ``vector_indexes`` (a workspace's; default: what ``config`` carries, else built-ins and plug-ins)."""
    if vector_indexes is not None:
        config = config.with_vector_indexes(vector_indexes)
    store: Store = (registry or STORES.new()).create(config.backend, config, workspace)
    return store
