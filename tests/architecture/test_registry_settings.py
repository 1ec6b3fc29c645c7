"""Every built-in entry that declares a settings model declares one its implementation reads: the table
is validated against that model, so a model borrowed from another part (another kind's knobs) would
accept the wrong keys and document them under the wrong entry, with no type error anywhere."""

from __future__ import annotations

import inspect
import sys
import typing
from types import ModuleType
from typing import Any

import pytest
from pydantic import BaseModel

from kgrag.core.builtins import KINDS
from kgrag.core.registry import Builtin, load_target

DECLARED = [
    (kind, name, spec)
    for kind, spec_of_kind in KINDS.items()
    for name, spec in spec_of_kind.builtins.items()
    if isinstance(spec, Builtin) and spec.settings is not None
]


def _settings_path(spec: Builtin) -> str:
    own = spec.settings or ""
    return spec.target.partition(":")[0] + own if own.startswith(":") else own


def _annotated_models(target: Any) -> list[type[BaseModel]]:
    """The model the factory's ``settings`` parameter is annotated with (a reranker's), if it has one."""
    if not inspect.isfunction(target):
        return []
    hint = typing.get_type_hints(target).get("settings")
    return [hint] if isinstance(hint, type) and issubclass(hint, BaseModel) else []


def _reaches(module: ModuleType, model: type[BaseModel]) -> bool:
    """Whether ``module`` uses ``model``: it names it, or a kgrag module it imports a part from does."""
    if any(value is model for value in vars(module).values()):
        return True
    homes = {sys.modules.get(getattr(value, "__module__", "") or "") for value in vars(module).values()}
    return any(
        home is not None and home.__name__.startswith("kgrag.") and any(v is model for v in vars(home).values())
        for home in homes
    )


def test_some_entries_declare_settings() -> None:
    assert {kind for kind, _, _ in DECLARED} >= {"pipeline", "reranker", "metric"}


@pytest.mark.parametrize(("kind", "name", "spec"), DECLARED, ids=[f"{k}:{n}" for k, n, _ in DECLARED])
def test_a_declared_settings_model_is_the_one_its_part_reads(kind: str, name: str, spec: Builtin) -> None:
    assert KINDS[kind].section, f"{kind} {name!r} declares settings, but {kind} has no settings section to read"
    target = load_target(spec.target, f"{kind} {name!r}")
    model = load_target(_settings_path(spec), f"settings of {kind} {name!r}")
    assert isinstance(model, type) and issubclass(model, BaseModel)
    target_package = spec.target.partition(":")[0].split(".")[:2]
    assert model.__module__.split(".")[:2] == target_package, (
        f"{kind} {name!r} ({spec.target}) declares {model.__module__}.{model.__name__}, from another package"
    )
    for annotated in _annotated_models(target):
        assert issubclass(model, annotated), f"{kind} {name!r} is built with {annotated.__name__}, not {model}"
    own = getattr(target, "settings_model", None)
    assert own is None or own is model
    module = sys.modules[spec.target.partition(":")[0]]
    assert _reaches(module, model), f"{spec.target} never uses {model.__name__}"
