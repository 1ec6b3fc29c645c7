"""``docs/configuration.md``, generated from the field descriptions (a test fails when it is stale)."""

from __future__ import annotations

from pydantic import BaseModel

from kgrag.config.loading import toml_value
from kgrag.config.model import KgragConfig


def configuration_markdown() -> str:
    """Render every config field as markdown; the source of ``docs/configuration.md``."""
    out = [
        "# Configuration",
        "",
        "Generated from `kgrag.config.KgragConfig` by `python -m kgrag.config`; do not edit by hand.",
        "",
        "Values come from defaults < `kgrag.toml` in the workspace < `KGRAG_<SECTION>__<FIELD>` environment "
        "variables < explicit overrides. Example: `KGRAG_RETRIEVAL__K=10`.",
        "",
    ]
    for name, field in KgragConfig.model_fields.items():
        section_cls = field.annotation
        assert isinstance(section_cls, type) and issubclass(section_cls, BaseModel)
        out += [
            f"## `[{name}]`",
            "",
            (section_cls.__doc__ or "").strip(),
            "",
            "| field | default | description |",
            "| --- | --- | --- |",
        ]
        defaults = section_cls().model_dump(mode="json")
        for key, sub in section_cls.model_fields.items():
            default = toml_value(defaults[key]).replace("|", "\\|")
            out.append(f"| `{key}` | `{default}` | {sub.description} |")
        out.append("")
    return "\n".join(out)
