"""Which files to index, given the paths a user named.

A file the user names is always indexed: naming it is an explicit request, and filters exist to
prune directory walks. Directories are walked in sorted order so that the same tree always yields the
same list (and the same document order in the index). Exclude patterns are matched against every
path component *below* the directory given, never against the directory's own path, so that indexing
``./docs`` or a tree under ``~/.cache`` is not excluded by the default ``.*`` pattern.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from kgrag.core.errors import DocumentError


def discover(paths: Sequence[Path], include: Sequence[str], exclude: Sequence[str]) -> list[Path]:
    """Files to index: named files as given, plus matching files under named directories.

    Patterns are matched case-insensitively, like the suffixes the loaders dispatch on. Files reached
    twice (overlapping arguments) are listed once, at their first position. Symlinked directories
    are not followed, so a link loop cannot make the walk endless.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        if not path.exists():
            raise DocumentError(f"{path}: no such file or directory")
        candidates = _walk(path, include, exclude) if path.is_dir() else iter([path])
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


def _walk(root: Path, include: Sequence[str], exclude: Sequence[str]) -> Iterator[Path]:
    """Matching files under ``root``, depth-first with sorted names; excluded directories are pruned."""
    for current, dir_names, file_names in os.walk(root):
        # Pruning in place stops os.walk from descending into excluded directories.
        dir_names[:] = sorted(name for name in dir_names if not _matches(name, exclude))
        for name in sorted(file_names):
            if _matches(name, include) and not _matches(name, exclude):
                yield Path(current, name)


def _matches(name: str, patterns: Sequence[str]) -> bool:
    lowered = name.lower()
    return any(fnmatchcase(lowered, pattern.lower()) for pattern in patterns)
