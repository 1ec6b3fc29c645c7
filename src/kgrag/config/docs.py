"""``docs/configuration.md``, generated from the field descriptions (a test fails when it is stale).

Besides every section's fields it documents every registry entry's settings table the same way —
built-ins and installed plug-ins alike, read from the settings model each entry declares — and the
migration table of keys that moved."""

from __future__ import annotations

import inspect

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from kgrag.config.entry_settings import MIGRATIONS, toml_key
from kgrag.config.loading import toml_value
from kgrag.config.model import KgragConfig
from kgrag.core.builtins import KINDS, new_registry
from kgrag.core.errors import ConfigError
from kgrag.core.registry import load_target

_HEADER = [
    "# Configuration",
    "",
    "Generated from `kgrag.config.KgragConfig` and the registries by `python -m kgrag.config`; do not edit by hand.",
    "",
    "Values come from defaults < `kgrag.toml` in the workspace < `KGRAG_<SECTION>__<FIELD>` environment "
    "variables < explicit overrides. Example: `KGRAG_RETRIEVAL__K=10`. An unknown key or section is an error "
    "that names it, and the name meant when one is close (`retrieval.default_pipline: unknown key; did you mean "
    "'default_pipeline'?`).",
    "",
]


def entry_kind(field: FieldInfo) -> str | None:
    """The registry kind whose entries a ``{name: settings}`` field holds (None: an ordinary field)."""
    extra = field.json_schema_extra
    return str(extra["entry_kind"]) if isinstance(extra, dict) and "entry_kind" in extra else None


def flat_tables(field: FieldInfo) -> bool:
    """Whether the field's tables sit in the section itself (``[rerank.<name>]``), not under its key."""
    extra = field.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("flat"))


def _rows(model: type[BaseModel]) -> list[str]:
    out = ["| key | default | description |", "| --- | --- | --- |"]
    for key, sub in model.model_fields.items():
        default = sub.get_default(call_default_factory=True)
        shown = toml_value(default.model_dump(mode="json") if isinstance(default, BaseModel) else default)
        out.append(f"| `{key}` | `{shown.replace('|', chr(92) + '|')}` | {sub.description or ''} |")
    return out


def _section(name: str, section_cls: type[BaseModel]) -> list[str]:
    out = [f"## `[{name}]`", "", (section_cls.__doc__ or "").strip(), "", "| field | default | description |"]
    out.append("| --- | --- | --- |")
    defaults = section_cls().model_dump(mode="json")
    for key, sub in section_cls.model_fields.items():
        if entry_kind(sub) is not None:
            where = f"{name}.<name>" if flat_tables(sub) else f"{name}.{key}.<name>"
            out.append(f"| `[{where}]` | — | {sub.description} |")
            continue
        default = toml_value(defaults[key]).replace("|", "\\|")
        out.append(f"| `{key}` | `{default}` | {sub.description} |")
    out.append("")
    return out


def _entry_settings() -> list[str]:
    out = [
        "## Entry settings",
        "",
        "Every registry entry may declare a settings model; its `[<section>.<name>]` table in kgrag.toml is "
        "validated against it (a wrong type names the entry and the key: `retrieval.pipelines.ppr.damping: "
        "expected float, got 'high'`). Plug-ins (entry points, or `register(..., settings=Model)` in code) "
        "are documented here the same way once installed.",
        "",
    ]
    for key, kind in KINDS.items():
        if kind.section:
            out += _kind_settings(key, kind.section)
    return out


def _kind_settings(key: str, section: str) -> list[str]:
    """The kind's shared base model once, then each entry's own keys (entries with none are left out)."""
    registry = new_registry(key)
    base = _base_model(key)
    out: list[str] = []
    if base is not None and base.model_fields:
        out += [f"### Every `[{section}.<name>]`", "", inspect.cleandoc(base.__doc__ or ""), "", *_rows(base), ""]
    for name in registry.names():
        try:
            model = registry.settings_model(name)
        except ConfigError as exc:  # a broken plug-in is shown, not allowed to break the docs
            out += [f"### `[{section}.{toml_key(name)}]`", "", f"Settings model unavailable: {exc}", ""]
            continue
        if model is None or model is base:
            continue
        keys = _own_fields(model, base)
        if not keys:
            continue
        entry = registry.entry(name)
        origin = "" if entry.origin == "builtin" else f" ({entry.origin})"
        out += [f"### `[{section}.{toml_key(name)}]`{origin}", "", inspect.cleandoc(model.__doc__ or ""), ""]
        rows = _rows(model)
        out += rows[:2] + [row for row in rows[2:] if row.split("`")[1] in keys]
        out.append("")
    return out


def _base_model(key: str) -> type[BaseModel] | None:
    target = KINDS[key].base_settings
    if target is None:
        return None
    model = load_target(target, f"base settings of {key}")
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _own_fields(model: type[BaseModel], base: type[BaseModel] | None) -> list[str]:
    inherited = set(base.model_fields) if base is not None and issubclass(model, base) else set()
    return [key for key in model.model_fields if key not in inherited]


def _migrations() -> list[str]:
    out = [
        "## Migrated keys",
        "",
        "Keys that moved: a kgrag.toml that still uses one keeps working, and loading it prints one line "
        "naming the new key.",
        "",
        "| old key | new key |",
        "| --- | --- |",
    ]
    out += [f"| {_code(old)} | {_code(new)} |" for old, new in MIGRATIONS]
    out.append("")
    return out


def _code(text: str) -> str:
    """Keys in code spans; a sentence (a removed key's reason) as it is."""
    parts = text.split(" and ")
    return " and ".join(f"`{part}`" for part in parts) if all(" " not in part for part in parts) else text


def configuration_markdown() -> str:
    """Render every config field and every entry's settings as markdown; the source of
    ``docs/configuration.md``."""
    out = list(_HEADER)
    for name, field in KgragConfig.model_fields.items():
        section_cls = field.annotation
        assert isinstance(section_cls, type) and issubclass(section_cls, BaseModel)
        out += _section(name, section_cls)
    out += _entry_settings()
    out += _migrations()
    return "\n".join(out)
