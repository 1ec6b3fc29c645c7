"""Set ``graph.entity_types`` and ``graph.language`` in a workspace's kgrag.toml, keeping everything else.

The config stays the one source of truth for the types (the extractor reads them from there and maps any
other type a model returns to ``concept``), so the tuned prompts carry no copy of them. The edit is made
on the text: an existing assignment in ``[graph]`` is replaced (a multi-line array included), otherwise
the keys are added under the section header (the section is added when missing); comments and the order
of everything else are kept. The result is parsed back before it replaces the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from kgrag.core.atomic_write import write_text_atomic
from kgrag.core.errors import ConfigError

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\"' -]+?)\s*\]\s*(#.*)?$")


def _toml_value(value: str | Sequence[str]) -> str:
    import json

    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return "[" + ", ".join(json.dumps(v, ensure_ascii=False) for v in value) + "]"


def _section_bounds(lines: list[str], section: str) -> tuple[int, int] | None:
    start = None
    for number, line in enumerate(lines):
        match = _HEADER.match(line)
        if match is None:
            continue
        if start is not None:
            return start, number
        if match.group(1).strip() == section:
            start = number
    return (start, len(lines)) if start is not None else None


def _assignment_end(lines: list[str], first: int) -> int:
    """The line after an assignment starting at ``first`` (arrays may span lines until brackets balance)."""
    depth = 0
    for number in range(first, len(lines)):
        code = lines[number].split("#", 1)[0]
        depth += code.count("[") - code.count("]")
        if depth <= 0:
            return number + 1
    return len(lines)


def set_section_values(path: Path, section: str, values: Mapping[str, str | Sequence[str]], note: str) -> None:
    """Set ``values`` (strings or lists of strings) in ``[section]`` of the TOML file at ``path``."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = text.splitlines()
    bounds = _section_bounds(lines, section)
    if bounds is None:
        lines += ["", f"[{section}]"]
        bounds = (len(lines) - 1, len(lines))
    start, end = bounds
    for key, value in values.items():
        assignment = f"{key} = {_toml_value(value)}  # {note}"
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        found = next((n for n in range(start + 1, end) if pattern.match(lines[n])), None)
        if found is None:
            lines.insert(start + 1, assignment)
            end += 1
        else:
            stop = _assignment_end(lines, found)
            lines[found:stop] = [assignment]
            end -= stop - found - 1
    updated = "\n".join(lines) + "\n"
    try:
        parsed = tomllib.loads(updated).get(section, {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path}: could not set {', '.join(values)} in [{section}] ({exc}); set them by hand"
        ) from exc
    wrong = [
        key for key, value in values.items() if parsed.get(key) != (value if isinstance(value, str) else list(value))
    ]
    if wrong:
        raise ConfigError(f"{path}: could not set {', '.join(wrong)} in [{section}]; set them by hand")
    write_text_atomic(path, updated)
