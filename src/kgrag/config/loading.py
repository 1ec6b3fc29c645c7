"""Loading the config (defaults < kgrag.toml < KGRAG_* environment < overrides) and writing the
commented kgrag.toml that ``kgrag init`` creates."""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from kgrag.config.entry_settings import ENTRY_SETTINGS_ERROR, validating_with
from kgrag.config.model import KgragConfig
from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.registries import Registries
from kgrag.fileio import read_regular_bytes

CONFIG_FILE_NAME = "kgrag.toml"
MAX_CONFIG_BYTES = 1024 * 1024  # a config is a few KB; more is a mistake (a log, a device), not settings
ENV_PREFIX = "KGRAG_"


def _format_validation_error(err: ValidationError, origin: str) -> str:
    lines = []
    for problem in err.errors():
        if problem["type"] == ENTRY_SETTINGS_ERROR:  # the message names the entry and the key itself
            lines.append(problem["msg"])
            continue
        field = ".".join(str(part) for part in problem["loc"])
        if problem["type"] == "extra_forbidden":
            lines.append(f"{field}: unknown key{_did_you_mean(problem['loc'])}")
        else:
            lines.append(f"{field}: {problem['msg']}")
    return f"invalid configuration ({origin}): " + "; ".join(lines)


def _did_you_mean(loc: tuple[int | str, ...]) -> str:
    """ "; did you mean 'default_pipeline'?" for a misspelt key whose section is a settings model."""
    model: type[BaseModel] = KgragConfig
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return ""
        model = annotation
    close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1, cutoff=0.75)
    return f"; did you mean {close[0]!r}?" if close else ""


def _check_env_sections() -> None:
    """A ``KGRAG_SECTION__KEY`` variable must name a real section: a misspelt one (``KGRAG_EMBEDING__...``)
    would otherwise be ignored without a word, unlike an unknown key inside a known section."""
    sections = set(KgragConfig.model_fields)
    for name in sorted(os.environ):
        head, sep, _ = name.partition("__")
        if not sep or not head.upper().startswith(ENV_PREFIX):
            continue
        section = head[len(ENV_PREFIX) :].lower()
        if section not in sections:
            raise ConfigError(
                f"environment variable {name}: unknown config section {section!r} "
                f"(sections: {', '.join(sorted(sections))}); fix or unset it"
            )


def load_config(
    workspace_dir: Path | None = None, *, registries: Registries | None = None, **overrides: Any
) -> KgragConfig:
    """Load the config for a workspace: defaults < kgrag.toml < KGRAG_* env < ``overrides``.

    Names and ``[<section>.<name>]`` tables are checked against ``registries`` when given (a workspace's,
    holding what code registered before opening it), else against the built-ins and installed plug-ins.
    Raises :class:`ConfigError` naming the field and the allowed values when anything is invalid.
    """
    toml_path = workspace_dir / CONFIG_FILE_NAME if workspace_dir is not None else None
    settings_cls: type[KgragConfig] = KgragConfig
    origin = "defaults and KGRAG_* environment"
    _check_env_sections()
    if toml_path is not None and toml_path.exists():
        try:
            # bytes, not read_text: universal newlines would turn a stray "\r" into a line break and pass
            # a file that the settings loader (which reads bytes) then fails on
            # a regular file of bounded size: a link to /dev/zero or a FIFO would otherwise be read forever
            tomllib.loads(read_regular_bytes(toml_path, max_bytes=MAX_CONFIG_BYTES).decode("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
            hint = key_and_table_clash(toml_path) if isinstance(exc, tomllib.TOMLDecodeError) else None
            raise ConfigError(f"{toml_path}: {hint or f'not valid TOML ({exc}); fix the file or delete it'}") from exc
        except KgragError as exc:
            cause = exc.__cause__
            if isinstance(cause, OSError):  # a directory of that name, no read permission, a dangling link, ...
                raise ConfigError(
                    f"{toml_path}: cannot read the config file ({cause.strerror or cause}); it must be a readable "
                    "TOML file: fix its permissions, or move it away to use the defaults"
                ) from cause
            raise ConfigError(f"{exc} (kgrag.toml must be a TOML text file)") from exc
        settings_cls = type(
            "KgragConfigFromFile",
            (KgragConfig,),
            {"model_config": {**KgragConfig.model_config, "toml_file": toml_path}},
        )
        origin = f"{toml_path} and KGRAG_* environment"
    try:
        with validating_with(registries):
            return settings_cls(**overrides)
    except ValidationError as exc:
        raise ConfigError(_format_validation_error(exc, origin)) from exc


def default_toml() -> str:
    """The commented kgrag.toml that ``kgrag init`` writes: every section, values left at defaults."""
    lines = ["# kgrag workspace configuration. Uncomment and edit; see docs/configuration.md.", ""]
    for name, field in KgragConfig.model_fields.items():
        section_cls = field.annotation
        assert isinstance(section_cls, type) and issubclass(section_cls, BaseModel)
        lines.append(f"[{name}]")
        defaults = section_cls().model_dump(mode="json")
        for key, sub in section_cls.model_fields.items():
            lines.append(f"# {sub.description}")
            extra = sub.json_schema_extra
            if isinstance(extra, dict) and "entry_kind" in extra:  # {name: settings} tables, written as tables
                where = f"{name}.<name>" if extra.get("flat") else f"{name}.{key}.<name>"
                lines.append(f"# one [{where}] table per entry (see docs/configuration.md, Entry settings)")
                continue
            lines.append(f"# {key} = {toml_value(defaults[key])}")
        lines.append("")
    return "\n".join(lines)


def toml_value(value: Any) -> str:
    if value is None:
        return '""  # empty = automatic'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return str(value)


_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*[.\]]")
_TOP_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def key_and_table_clash(path: Path) -> str | None:
    """The message for a file that sets a name both as a top-level key and as a table, which TOML refuses
    (``store = "postgresql://…"`` above the ``[store]`` table a generated kgrag.toml holds); None for any
    other error. Names both lines, so the fix is plain."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    first_table = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    keys: dict[str, int] = {}
    for number, line in enumerate(lines[:first_table], 1):
        found = _TOP_KEY.match(line)
        if found:
            keys.setdefault(found.group(1), number)
    for number, line in enumerate(lines[first_table:], first_table + 1):
        header = _HEADER.match(line)
        if header and header.group(1) in keys:
            name = header.group(1)
            return (
                f"`{name}` is set twice: as `{name} = …` on line {keys[name]} and as the [{name}] table on line "
                f"{number}; keep one (put the settings in the table, e.g. `url = …` under [{name}], or delete "
                "that table's header)"
            )
    return None
