"""One registry type for everything kgrag picks by name: stores, vector indexes, embedders, LLM providers,
extractors, summarisers, loaders, prompt schemas, retrieval pipelines, rerankers, indexing stages,
pipelines and engines, community builders, denoising strategies, metrics and judges.

Why one type: a plug-in author learns one mechanism, the CLI lists every kind the same way, and config
fields validate against the same names the code will create. Why lazy: an entry is a callable *or* a
``"module:attr"`` string, imported on first use, so ``kgrag --help`` or a BM25 query never imports
torch, spaCy or a database driver it does not need.

There is no module-level mutable registry. Built-in entries are a constant table per kind
(:mod:`kgrag.core.builtins`); a :class:`Registry` instance is made from that table, from installed
plug-ins (Python entry points in the kind's group, e.g. ``kgrag.pipelines``) and from whatever the owner
of that instance registers on it (a workspace's ``ws.pipelines.register(...)``). Two workspaces in one
process therefore never see each other's registrations.

A plug-in package declares, in its ``pyproject.toml``::

    [project.entry-points."kgrag.pipelines"]
    my-pipeline = "my_package.recipes:my_pipeline"

and ``kgrag pipelines`` lists it; nothing in kgrag changes.

An entry may declare a pydantic settings model (:meth:`Registry.settings_model`): its table in the
config (``[retrieval.pipelines.<name>]``, ``[rerank.<name>]``…) is validated against it
(:meth:`Registry.settings`) and handed to the entry typed (:func:`settings_of`). pydantic is imported
only then, so ``kgrag --help`` does not load it.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from kgrag.core.errors import ConfigError

if TYPE_CHECKING:  # pydantic loads only when settings are validated: `kgrag --help` imports this module
    from pydantic import BaseModel, ValidationError

T = TypeVar("T")
S = TypeVar("S", bound="BaseModel")

Target = Callable[..., Any] | str

SETTINGS_ATTRIBUTE = "settings_model"
"""A plug-in target (class or factory) declares its settings model under this attribute."""

DEFAULT_SET_ATTRIBUTE = "default_set"
"""A plug-in target that sets this attribute to True joins its kind's default selection (metrics)."""

_TYPE_WORDS = {
    "int_parsing": "int",
    "int_type": "int",
    "int_from_float": "int",
    "float_parsing": "float",
    "float_type": "float",
    "bool_parsing": "bool",
    "bool_type": "bool",
    "string_type": "str",
    "dict_type": "table",
    "list_type": "list",
}


@dataclass(frozen=True)
class Builtin:
    """A built-in entry with more than a target: its settings model (``"module:Class"``, or ``":Class"``
    for a class in the target's module) and whether it is in the kind's default selection, all on the
    one line that registers it."""

    target: str
    settings: str | None = None
    default_set: bool = False


@dataclass(frozen=True)
class Kind:
    """A registry kind: its message noun, its entry-point group, its built-in entries (a ``Builtin`` names
    an entry's settings model, ``"module:Class"``, imported only to validate or document its table, and
    whether it is in the default selection) and ``base_settings`` for an entry that declares none."""

    noun: str
    group: str
    builtins: dict[str, Target | Builtin] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)
    base_settings: str | None = None
    section: str = ""
    """The config path of the entries' settings tables (``rerank`` → ``[rerank.<name>]``); empty: none."""


@dataclass(frozen=True)
class Entry:
    """One registered name: where it comes from (``builtin``, ``plugin:<dist>`` or ``local``)."""

    name: str
    target: Target
    origin: str
    summary: str = ""
    settings: type[BaseModel] | str | None = None
    default_set: bool = False

    @property
    def location(self) -> str:
        """``module:attr`` of the target, for listings and error messages."""
        if isinstance(self.target, str):
            return self.target
        module = getattr(self.target, "__module__", "?")
        return f"{module}:{getattr(self.target, '__qualname__', repr(self.target))}"


def load_target(target: Target, what: str) -> Any:
    """Import ``"module:attr"`` (dotted attributes allowed) or return a callable as it is."""
    if not isinstance(target, str):
        return target
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"{what}: {target!r} is not of the form 'module:attribute'")
    try:
        value: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            value = getattr(value, part)
    except ImportError as exc:
        raise ConfigError(
            f"{what}: cannot import {module_name!r} ({exc}); is the package that provides it installed?"
        ) from exc
    except AttributeError as exc:
        raise ConfigError(f"{what}: {module_name!r} has no attribute {attr!r}") from exc
    return value


class Registry(Generic[T]):
    """Named factories of one kind.

    ``T`` is what :meth:`load` returns: for most kinds a factory callable (``create`` calls it), for
    prompt schemas a pydantic model class. ``kind`` is a singular noun used in messages ("pipeline"),
    ``group`` the entry-point group plug-ins register under (None: no plug-ins for this kind).
    """

    def __init__(
        self,
        kind: str,
        builtins: Mapping[str, Target | Builtin] | None = None,
        *,
        group: str | None = None,
        summaries: Mapping[str, str] | None = None,
        base_settings: type[BaseModel] | str | None = None,
    ) -> None:
        self.kind = kind
        self.group = group
        self.base_settings = base_settings
        """Settings model of an entry that declares none (pipelines: the knobs every pipeline has)."""
        self._entries: dict[str, Entry] = {}
        self._plugins_loaded = group is None
        self._loaded: dict[str, T] = {}
        self._lock = threading.RLock()  # concurrent queries may be the first to list plug-ins
        for name, spec in (builtins or {}).items():
            summary = (summaries or {}).get(name, "")
            if isinstance(spec, Builtin):
                own = spec.settings
                if own is not None and own.startswith(":"):  # ":Class": in the target's own module
                    own = spec.target.partition(":")[0] + own
                self._entries[name] = Entry(name, spec.target, "builtin", summary, own, spec.default_set)
            else:
                self._entries[name] = Entry(name, spec, "builtin", summary)

    # -- registration ------------------------------------------------------------------------------

    def __copy__(self) -> Registry[T]:
        """A registry is an identity (what a workspace registered), not a value: copies share it."""
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Registry[T]:
        """Deep copies of what holds a registry (a config copied with ``model_copy(deep=True)``) share it
        too: its entries and lock are not copied."""
        return self

    def __getstate__(self) -> dict[str, Any]:
        """What a copy in another process needs (a Ray worker reading files with a workspace's loaders): the
        entries, without the lock or the imported targets (the copy imports each again on first use)."""
        state = dict(self.__dict__)
        del state["_lock"]
        state["_loaded"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def register(
        self,
        name: str,
        target: Target,
        *,
        summary: str = "",
        replace: bool = False,
        settings: type[BaseModel] | str | None = None,
        default_set: bool = False,
    ) -> None:
        """Add ``name`` on this instance; replacing an existing name must be asked for explicitly.

        ``settings`` is the entry's settings model (else the target's ``settings_model`` attribute, else
        the kind's base model); ``default_set`` puts it in the kind's default selection (metrics)."""
        self._load_plugins()
        if not name or not name.strip():
            raise ConfigError(f"{self.kind} names must not be empty")
        with self._lock:
            if name in self._entries and not replace:
                raise ConfigError(
                    f"{self.kind} {name!r} is already registered ({self._entries[name].origin}); "
                    "pass replace=True to override it"
                )
            self._entries[name] = Entry(name, target, "local", summary, settings, default_set)
            self._loaded.pop(name, None)

    def _load_plugins(self) -> None:
        """Read the entry-point group once, on first need (it scans installed distributions)."""
        if self._plugins_loaded:
            return
        with self._lock:  # the flag is set only once every plug-in is in, so no thread sees half a list
            if self._plugins_loaded:
                return
            for point in metadata.entry_points(group=cast(str, self.group)):
                if point.name in self._entries:
                    continue  # a plug-in never silently replaces a built-in
                dist = point.dist.name if point.dist is not None else "?"
                self._entries[point.name] = Entry(point.name, point.value, f"plugin:{dist}")
            self._plugins_loaded = True

    # -- lookup ------------------------------------------------------------------------------------
    def names(self) -> list[str]:
        """Every registered name, built-ins first in their declared order."""
        self._load_plugins()
        return list(self._entries)

    def entries(self) -> list[Entry]:
        self._load_plugins()
        return list(self._entries.values())

    def __contains__(self, name: object) -> bool:
        if name in self._entries:
            return True
        self._load_plugins()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def entry(self, name: str) -> Entry:
        """The entry for ``name``; unknown names fail with the list of known ones."""
        if name not in self:
            raise ConfigError(f"unknown {self.kind} {name!r}; available: {', '.join(self.names()) or 'none'}")
        return self._entries[name]

    def load(self, name: str) -> T:
        """The registered object, imported on first use and kept for this instance."""
        if name not in self._loaded:
            self._loaded[name] = cast(T, load_target(self.entry(name).target, f"{self.kind} {name!r}"))
        return self._loaded[name]

    def create(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the registered factory with ``args``; what it returns is the kind's product."""
        factory = self.load(name)
        if not callable(factory):
            raise ConfigError(f"{self.kind} {name!r} ({self.entry(name).location}) is not callable")
        return factory(*args, **kwargs)

    def check(self, name: str, field: str) -> str:
        """Validate a config value naming an entry; the error names the config field."""
        if name not in self:
            raise ValueError(f"{field}: unknown {self.kind} {name!r}; available: {', '.join(self.names())}")
        return name

    # -- settings ----------------------------------------------------------------------------------
    def settings_model(self, name: str) -> type[BaseModel] | None:
        """The pydantic model of ``name``'s settings: declared on the entry, else the target's
        ``settings_model`` attribute (built-ins are not imported for it), else the kind's base model."""
        from pydantic import BaseModel

        entry = self.entry(name)
        declared: Any = entry.settings
        if declared is None and entry.origin != "builtin":
            declared = getattr(self.load(name), SETTINGS_ATTRIBUTE, None)
        if declared is None:
            declared = self.base_settings
        if declared is None:
            return None
        model = load_target(declared, f"settings of {self.kind} {name!r}")
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ConfigError(f"settings of {self.kind} {name!r}: {model!r} is not a pydantic model class")
        return model

    def settings(self, name: str, table: Mapping[str, Any] | BaseModel | None, where: str) -> BaseModel | None:
        """``table`` validated against ``name``'s settings model; ``where`` (the config path, e.g.
        ``retrieval.pipelines.my-pipe``) prefixes every error, one ``where.key: problem`` per key."""
        from pydantic import BaseModel, ValidationError

        model = self.settings_model(name)
        data = table.model_dump(exclude_unset=True) if isinstance(table, BaseModel) else dict(table or {})
        if model is None:
            if data:
                raise ConfigError(f"{where}: {self.kind} {name!r} takes no settings (got {', '.join(data)})")
            return None
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(settings_problems(exc, where, list(model.model_fields))) from exc

    def in_default_set(self, name: str) -> bool:
        """Whether ``name`` belongs to the kind's default selection (declared, or the target's attribute)."""
        entry = self.entry(name)
        if entry.default_set or entry.origin == "builtin":
            return entry.default_set
        return bool(getattr(self.load(name), DEFAULT_SET_ATTRIBUTE, False))

    def default_names(self) -> list[str]:
        """The names in the default selection, in registration order."""
        return [name for name in self.names() if self.in_default_set(name)]


def settings_problems(exc: ValidationError, where: str, known: list[str] | None = None) -> str:
    """One ``where.key: expected int, got 'deep'`` per problem, joined by ``; ``; an unknown key lists
    the ``known`` ones."""
    lines = []
    for problem in exc.errors():
        key = ".".join(str(part) for part in (where, *problem["loc"]))
        word = _TYPE_WORDS.get(problem["type"])
        if word is not None:
            lines.append(f"{key}: expected {word}, got {problem['input']!r}")
        elif problem["type"] == "extra_forbidden":
            lines.append(f"{key}: unknown setting (settings: {', '.join(known or []) or 'none'})")
        else:
            lines.append(f"{key}: {problem['msg']}")
    return "; ".join(lines)


def settings_of(tables: Mapping[str, Any], name: str, model: type[S]) -> S:
    """``name``'s settings as ``model``, typed for its reader: the validated table when it is one, the
    table re-read as ``model`` when the entry declared another model, else ``model``'s defaults."""
    from pydantic import BaseModel

    value = tables.get(name)
    if isinstance(value, model):
        return value
    if value is None:
        return model()
    data = value.model_dump(exclude_unset=True) if isinstance(value, BaseModel) else dict(value)
    return model.model_validate(data)
