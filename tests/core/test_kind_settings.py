"""Every registry kind owns a settings section, every built-in's settings model documents its knobs, and no
built-in is registered with a settings model that belongs to another kind."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

import pytest
from pydantic import BaseModel

from kgrag.config import KgragConfig
from kgrag.config.docs import entry_kind, flat_tables
from kgrag.core.builtin_query import NO_SETTINGS
from kgrag.core.builtins import KINDS, new_registry
from kgrag.core.registry import Builtin


def _tables_field(section: str) -> tuple[str, bool]:
    """The registry kind a ``[section.<name>]`` path holds tables of, and whether they sit flat in it."""
    model: type[BaseModel] = KgragConfig
    *parents, last = section.split(".")
    for part in parents:
        annotation = model.model_fields[part].annotation
        assert isinstance(annotation, type) and issubclass(annotation, BaseModel), section
        model = annotation
    field = model.model_fields.get(last)
    if field is not None and entry_kind(field) is not None:
        return str(entry_kind(field)), False
    annotation = field.annotation if field is not None else None
    assert isinstance(annotation, type) and issubclass(annotation, BaseModel), f"{section} is not a config path"
    flat = [sub for sub in annotation.model_fields.values() if entry_kind(sub) is not None and flat_tables(sub)]
    assert flat, f"[{section}] has no {{name: settings}} field"
    return str(entry_kind(flat[0])), True


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_has_a_settings_section_in_the_config(kind: str) -> None:
    spec = KINDS[kind]
    assert spec.section, f"kind {kind!r} has no settings section (Kind.section)"
    assert spec.base_settings, f"kind {kind!r} has no base settings model for entries that declare none"
    held, _ = _tables_field(spec.section)
    assert held == kind, f"[{spec.section}.<name>] holds {held} tables, not {kind}"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_builtin_settings_model_documents_every_field(kind: str) -> None:
    registry = new_registry(kind)
    for name in registry.names():
        model = registry.settings_model(name)
        assert model is not None, f"{kind} {name!r} has no settings model"
        assert model.model_config.get("extra") == "forbid", f"{model.__name__}: unknown keys must be errors"
        for key, field in model.model_fields.items():
            assert field.description, f"{kind} {name!r}: {model.__name__}.{key} has no description"
        model()  # every knob has a default: an absent table means the defaults


def test_no_builtin_is_registered_with_another_kinds_settings_model() -> None:
    """A settings model belongs to one kind: the `llm` extractor once carried the `llm` reranker's
    `ListwiseSettings`, so `[graph.extractors.llm]` would have taken `max_chars` and nothing it reads."""
    owners: dict[str, set[str]] = defaultdict(set)
    for kind, spec in KINDS.items():
        for entry in spec.builtins.values():
            if isinstance(entry, Builtin) and entry.settings is not None:
                model = entry.settings
                if model.startswith(":"):
                    model = entry.target.partition(":")[0] + model
                if model not in (NO_SETTINGS, spec.base_settings):
                    owners[model].add(kind)
    shared = {model: sorted(kinds) for model, kinds in owners.items() if len(kinds) > 1}
    assert not shared, f"settings models registered with more than one kind: {shared}"


def test_the_check_catches_a_model_borrowed_from_another_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    extractors = dict(KINDS["extractor"].builtins)
    extractors["llm"] = Builtin(
        "kgrag.graph.extract.choose:llm_extractor", "kgrag.models.rerankers.settings:ListwiseSettings"
    )
    monkeypatch.setitem(KINDS, "extractor", replace(KINDS["extractor"], builtins=extractors))
    with pytest.raises(AssertionError, match="ListwiseSettings"):
        test_no_builtin_is_registered_with_another_kinds_settings_model()
