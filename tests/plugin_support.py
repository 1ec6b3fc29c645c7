"""Install a throw-away plug-in distribution for a test: a ``*.dist-info`` with ``entry_points.txt`` and
a module, in a temporary directory put on ``sys.path``. ``importlib.metadata`` then finds its entry points
exactly as it finds those of a pip-installed package, so tests exercise the real plug-in path."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def installed_plugin(
    directory: Path, module_name: str, source: str, entry_points: Mapping[str, Mapping[str, str]]
) -> Iterator[Path]:
    """Write ``module_name.py`` with ``source`` and a dist-info declaring ``entry_points`` (group → name →
    ``module:attr``); yields the directory (also usable on ``PYTHONPATH`` for subprocesses)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{module_name}.py").write_text(source, encoding="utf-8")
    dist = directory / f"{module_name}-0.1.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module_name}\nVersion: 0.1\n", encoding="utf-8")
    lines = []
    for group, names in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in names.items()]
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    sys.path.insert(0, str(directory))
    importlib.invalidate_caches()
    try:
        yield directory
    finally:
        sys.path.remove(str(directory))
        sys.modules.pop(module_name, None)
        importlib.invalidate_caches()
