"""Settings tables of registry entries: every kind's ``[<section>.<name>]`` (``[retrieval.pipelines.<name>]``,
``[rerank.<name>]``, ``[graph.extractors.<name>]``, ``[denoise.blockers.<name>]``... ``Kind.section`` names it).

A section holds ``{entry name: its settings}``; each table is validated against the settings model the
entry declares in its registry (:meth:`kgrag.core.registry.Registry.settings_model`), so a plug-in gets a
typed, validated, documented table without a change to the section. Entries registered only in code on
one workspace after it opened are not known when the file loads: their tables are refused here as typos
would be. Entries registered on a :class:`~kgrag.core.registries.Registries` passed to
``Workspace.open(registries=...)`` are known (:func:`validating_with`).

Old keys (the flat fields these tables replace) are moved to their new place with a one-line note naming
the new key (:func:`move_keys`, :func:`deprecated`); ``docs/configuration.md`` lists them in its migration
table. A new ``{name: settings}`` field is ``Annotated[Tables, EntryTables(kind, where)] = tables_field(...)``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, GetCoreSchemaHandler, JsonValue, SerializeAsAny
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from kgrag.core.builtins import KINDS, new_registry
from kgrag.core.errors import ConfigError
from kgrag.core.registries import Registries
from kgrag.core.registry import Registry

log = logging.getLogger("kgrag.config")

ENTRY_SETTINGS_ERROR = "entry_settings"
"""pydantic error type whose message already names the full key (``retrieval.pipelines.x.depth``)."""

MIGRATIONS: list[tuple[str, str]] = []
"""(old key, new key) of every migrated key, for the migration table of ``docs/configuration.md``;
filled by the modules that migrate, at import."""


_BARE = re.compile(r"[A-Za-z0-9_-]+")

Tables = dict[str, SerializeAsAny[BaseModel]]
"""A ``{entry name: settings}`` field's type (annotated with :class:`EntryTables`)."""

_SCOPE: ContextVar[Registries | None] = ContextVar("kgrag_config_registries", default=None)


@contextmanager
def validating_with(registries: Registries | None) -> Iterator[None]:
    """Validate names and tables against ``registries`` (a workspace's, with what code registered on it
    before opening) instead of the built-ins and plug-ins alone."""
    token = _SCOPE.set(registries)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def known_registry(kind: str) -> Registry[Any]:
    """The registry names of ``kind`` are checked against while a config validates."""
    scope = _SCOPE.get()
    return scope.by_key(kind) if scope is not None else new_registry(kind)


def migration(old: str, new: str) -> None:
    """Declare that ``old`` now lives at ``new`` (listed in ``docs/configuration.md``)."""
    MIGRATIONS.append((old, new))


def deprecated(old: str, new: str) -> None:
    """The one-line note a migrated key gets when a config still uses it."""
    log.warning("kgrag config: %s is deprecated; use %s (read as that for now)", old, new)


def ignored(old: str, why: str) -> None:
    """The one-line note a former key that never had an effect gets; it is dropped."""
    log.warning("kgrag config: %s is ignored: %s; delete it", old, why)


def check_tables(kind: str, value: Any, where: str) -> dict[str, BaseModel]:
    """``{name: table}`` validated entry by entry; an unknown name or a bad key is one error naming it."""
    if not isinstance(value, Mapping):
        raise PydanticCustomError(ENTRY_SETTINGS_ERROR, "{where}: expected a table of {noun} names", _ctx(kind, where))
    if not value:
        return {}
    registry = known_registry(kind)
    out: dict[str, BaseModel] = {}
    for name, table in value.items():
        path = f"{where}.{name}"
        if not isinstance(table, Mapping | BaseModel):
            raise PydanticCustomError(
                ENTRY_SETTINGS_ERROR, "{where}: expected a table, got {got}", {"where": path, "got": repr(table)}
            )
        try:
            if name not in registry:
                known = ", ".join(registry.names())
                raise ConfigError(f"{path}: unknown {registry.kind} {name!r}; available: {known}")
            settings = registry.settings(name, table, path)
        except ConfigError as exc:
            raise PydanticCustomError(ENTRY_SETTINGS_ERROR, "{detail}", {"detail": str(exc)}) from exc
        if settings is not None:
            out[name] = settings
    return out


def _ctx(kind: str, where: str) -> dict[str, str]:
    return {"where": where, "noun": KINDS[kind].noun}


def dump_tables(tables: Mapping[str, BaseModel]) -> dict[str, dict[str, JsonValue]]:
    """The tables as TOML-ready data (only what was set), for ``model_dump`` and ``kgrag.toml`` output."""
    return {name: table.model_dump(mode="json", exclude_unset=True) for name, table in tables.items()}


@dataclass(frozen=True)
class EntryTables:
    """Annotation of a ``{entry name: settings}`` field: its tables are validated against the settings model
    each entry of ``kind`` declares (:func:`check_tables`, errors naming ``where.<name>.<key>``) and dumped
    as set. ``Annotated[Tables, EntryTables("extractor", "graph.extractors")] = tables_field(...)``."""

    kind: str
    where: str

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_before_validator_function(
            lambda value: check_tables(self.kind, value, self.where),
            handler(source),
            serialization=core_schema.plain_serializer_function_ser_schema(dump_tables),
        )


def tables_field(kind: str, description: str) -> Any:
    """The ``Field`` of an :class:`EntryTables` field: empty by default, marked with its kind for the
    generated docs and ``kgrag init``'s kgrag.toml."""
    return Field(default_factory=dict, description=description, json_schema_extra={"entry_kind": kind})


def move_keys(data: Any, section: str, moves: Mapping[str, tuple[str, ...]]) -> Any:
    """Flat former keys of ``[section]`` moved into entry tables, with the one-line note each.

    ``moves`` maps an old key to the ``"<field>.<entry>.<key>"`` places it is read as (a key two entries
    read goes to both); a value the new table sets itself wins."""
    if not isinstance(data, dict) or not moves.keys() & data.keys():
        return data
    data = dict(data)
    for old in [key for key in data if key in moves]:
        value = data.pop(old)
        for place in moves[old]:
            field, entry, key = _split_place(place)
            tables = data.get(field)
            tables = dict(tables) if isinstance(tables, Mapping) else {}
            own = tables.get(entry)
            table = own.model_dump(exclude_unset=True) if isinstance(own, BaseModel) else dict(own or {})
            tables[entry] = {key: value, **table}
            data[field] = tables
        deprecated(f"{section}.{old}", _places(section, moves[old]))
    return data


def move_across(data: Any, old: str, new: str, moves: Mapping[str, str]) -> Any:
    """Flat keys of section ``old`` that now live in entry tables of section ``new``: ``moves`` maps a key
    to its ``"<field>.<entry>.<key>"`` place in ``new`` (run on the whole config, before the sections)."""
    if not isinstance(data, dict) or not isinstance(data.get(old), Mapping) or not moves.keys() & data[old].keys():
        return data
    data = dict(data)
    section = dict(data[old])
    target = data.get(new)
    target = target.model_dump(exclude_unset=True) if isinstance(target, BaseModel) else dict(target or {})
    for key in [k for k in section if k in moves]:
        field, entry, inner = _split_place(moves[key])
        tables = dict(target.get(field) or {})
        own = tables.get(entry)
        table = own.model_dump(exclude_unset=True) if isinstance(own, BaseModel) else dict(own or {})
        tables[entry] = {inner: section.pop(key), **table}
        target[field] = tables
        deprecated(f"{old}.{key}", _places(new, (moves[key],)))
    data[old], data[new] = section, target
    return data


def declare_moves(section: str, moves: Mapping[str, tuple[str, ...]]) -> None:
    """List every move of :func:`move_keys` in the migration table of ``docs/configuration.md``."""
    for old, places in moves.items():
        migration(f"{section}.{old}", _places(section, places))


def toml_key(name: str) -> str:
    """``name`` as a TOML key: bare when it may be, else quoted (``".json"``, ``"ego+neighbour"``)."""
    return name if _BARE.fullmatch(name) else f'"{name}"'


def _places(section: str, places: tuple[str, ...]) -> str:
    """The new keys as written in kgrag.toml: an entry name holding a dot is quoted (``loaders.".json"``)."""
    shown = []
    for place in places:
        field, entry, key = _split_place(place)
        shown.append(f"{section}.{field}.{toml_key(entry)}.{key}")
    return " and ".join(shown)


def _split_place(place: str) -> tuple[str, str, str]:
    """``"extractors.nlp.spacy_model"`` → field, entry, key; an entry name may hold dots (``".json"``)."""
    field, _, rest = place.partition(".")
    entry, _, key = rest.rpartition(".")
    return field, entry, key
