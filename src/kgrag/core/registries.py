"""Typed handles on the registry kinds and the set of registries one workspace owns.

A kind is declared once, beside the protocol it produces (``RERANKERS: RegistryKind[RerankerFactory] =
RegistryKind("reranker")``), so code that creates entries gets a ``Registry[RerankerFactory]``, never a
``Registry[Any]`` made from a string. A workspace holds one :class:`Registries`: one registry per kind,
made on first use, so every kind can be registered on one workspace without another seeing it.
"""

from __future__ import annotations

import threading
from typing import Any, Generic, TypeVar, cast

from kgrag.core.builtins import KINDS, new_registry
from kgrag.core.registry import Builtin, Kind, Registry

T = TypeVar("T")


def builtin_defaults(kind: str) -> list[str]:
    """The built-in entries of ``kind`` in its default selection, in declared order (no plug-in is read:
    for help texts, which must not scan installed packages)."""
    return [name for name, spec in KINDS[kind].builtins.items() if isinstance(spec, Builtin) and spec.default_set]


class RegistryKind(Generic[T]):
    """A typed handle on one kind of :data:`KINDS`: ``T`` is what its entries load as (a factory, a class).

    Declared once, beside the protocol the kind produces (``STORES: RegistryKind[StoreFactory] =
    RegistryKind("store")``); :meth:`new` makes a fresh ``Registry[T]``, and a workspace's
    :class:`Registries` keeps one per kind."""

    def __init__(self, key: str) -> None:
        if key not in KINDS:
            raise KeyError(f"unknown registry kind {key!r}; kinds: {', '.join(KINDS)}")
        self.key = key

    @property
    def spec(self) -> Kind:
        return KINDS[self.key]

    def new(self) -> Registry[T]:
        """A fresh registry of this kind: built-ins, and plug-ins read on first listing."""
        return cast(Registry[T], new_registry(self.key))

    def __repr__(self) -> str:
        return f"RegistryKind({self.key!r})"


class Registries:
    """One registry per kind for one owner (a workspace): made on first use, then kept, so what code
    registers on it (``registries.get(RERANKERS).register(...)``) is seen by everything that owner builds
    and by no other owner."""

    def __init__(self) -> None:
        self._made: dict[str, Registry[Any]] = {}
        self._lock = threading.Lock()

    def get(self, kind: RegistryKind[T]) -> Registry[T]:
        """This owner's registry of ``kind``."""
        with self._lock:
            if kind.key not in self._made:
                self._made[kind.key] = kind.new()
            return cast(Registry[T], self._made[kind.key])

    def adopt(self, kind: RegistryKind[T], registry: Registry[T]) -> None:
        """Use ``registry`` (made elsewhere, e.g. passed in by a caller) as this owner's ``kind``."""
        with self._lock:
            self._made[kind.key] = registry

    def by_key(self, key: str) -> Registry[Any]:
        """This owner's registry of the kind named ``key`` (untyped: config validation checks names only)."""
        return self.get(RegistryKind[Any](key))
