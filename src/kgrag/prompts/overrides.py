"""Writing prompt override files: reviewable TOML with a header saying what made them and their own version.

An override written by a tool starts with :data:`TUNED_MARKER`; its version is the shipped prompt's
version plus ``+tuned.N``, and writing it again bumps N, so replies cached for the previous text are not
reused (the version is part of the LLM cache key). A file without the marker was written by hand and is
never replaced unless the caller says so. Files are checked by parsing them back before anything is
written, and each is replaced atomically.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kgrag.core.atomic_write import write_text_atomic
from kgrag.core.errors import ConfigError, KgragError
from kgrag.prompts.loader import Prompt, parse_prompt

TUNED_MARKER = "# Written by `kgrag prompts tune`"
_TUNED_VERSION = re.compile(r"^(?P<base>.+)\+tuned\.(?P<n>\d+)$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def toml_string(text: str) -> str:
    """``text`` as a TOML string: a multi-line literal string when it can be one (readable), else a basic one."""
    if ("\n" in text or '"' in text) and "'''" not in text and not _CONTROL.search(text) and not text.endswith("'"):
        return f"'''\n{text}'''"
    escaped = json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")
    return escaped


def is_tuned(path: Path) -> bool:
    """Whether ``path`` was written by the tuner (its first line is the marker)."""
    try:
        with path.open(encoding="utf-8") as handle:
            return handle.readline().startswith(TUNED_MARKER)
    except OSError:
        return False


def next_version(base: str, existing: Path) -> str:
    """``<base>+tuned.N``: N one more than the existing tuned file's (same base), else 1."""
    n = 0
    if existing.is_file():
        try:
            match = _TUNED_VERSION.match(
                parse_prompt(existing.read_text(encoding="utf-8"), str(existing), existing.stem).version
            )
        except (ConfigError, OSError, UnicodeDecodeError):
            match = None
        if match and match.group("base") == base:
            n = int(match.group("n"))
    return f"{base}+tuned.{n + 1}"


@dataclass(frozen=True)
class Override:
    """A prompt to write: what changes against the shipped prompt ``base``."""

    base: Prompt
    system: str
    example_variables: Mapping[str, str]
    example_reply: str
    example_invented: bool = False  # True: the shipped prompt's invented example is kept


def render_override(override: Override, version: str, header: Sequence[str]) -> str:
    """The override file's text: marker and header comments, then the prompt's fields."""
    base = override.base
    if not isinstance(base.output_schema, str):
        raise ConfigError(f"prompt {base.name!r}: only prompts with a named output schema can be tuned")
    lines = [TUNED_MARKER, *(f"# {line}" for line in header), ""]
    lines += [
        f"name = {toml_string(base.name)}",
        f"version = {toml_string(version)}",
        f"description = {toml_string(base.description)}",
        f"output_schema = {toml_string(base.output_schema)}",
        f"system = {toml_string(override.system)}",
        f"user = {toml_string(base.user)}",
        "",
        "[example]",
        f"invented = {'true' if override.example_invented else 'false'}",
        f"reply = {toml_string(override.example_reply)}",
        "",
        "[example.variables]",
        *(f"{key} = {toml_string(value)}" for key, value in override.example_variables.items()),
        "",
    ]
    return "\n".join(lines)


def write_overrides(
    directory: Path, overrides: Sequence[Override], header: Sequence[str], *, force: bool = False
) -> list[tuple[Path, str]]:
    """Write every override into ``directory`` (all or none pass the checks); returns (path, version)."""
    planned: list[tuple[Path, str, str]] = []
    for override in overrides:
        target = directory / f"{override.base.name}.toml"
        if target.exists() and not force and not is_tuned(target):
            raise KgragError(
                f"{target}: a prompt file written by hand is there; move it away or pass --force to replace it"
            )
        version = next_version(override.base.version, target)
        text = render_override(override, version, header)
        parse_prompt(text, str(target), override.base.name)  # what is written must load
        planned.append((target, version, text))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for target, _, text in planned:
            write_text_atomic(target, text)
    except OSError as exc:
        raise KgragError(f"{exc.filename or directory}: cannot write prompt overrides ({exc.strerror})") from exc
    return [(target, version) for target, version, _ in planned]
