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
            key = file_identity(candidate)
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


def file_identity(path: Path) -> Path:
    """The path a file is known by for de-duplication: resolved when possible; a symlink loop or an
    unreadable link keeps its absolute path (the loader then reports that one file, and the run goes on)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop" on Python 3.11
        return path.absolute()


def _walk(root: Path, include: Sequence[str], exclude: Sequence[str]) -> Iterator[Path]:
    """Matching files under ``root``, depth-first with sorted names; excluded directories are pruned.

    An explicit stack instead of recursion (``os.walk`` recurses on Python 3.11), so a directory tree of
    any depth is walked without a ``RecursionError``; a directory that cannot be listed is skipped (its
    files cannot be read either), never an abort of the whole run.
    """
    stack = [str(root)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            continue
        directories: list[str] = []
        for entry in entries:
            if _is_directory(entry):
                if not _matches(entry.name, exclude):
                    directories.append(entry.path)
            elif _matches(entry.name, include) and not _matches(entry.name, exclude):
                yield Path(entry.path)
        stack.extend(reversed(directories))  # sorted order, depth-first


def _is_directory(entry: os.DirEntry[str]) -> bool:
    """A real directory (symlinked directories are not followed, so a link loop cannot make the walk endless)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _matches(name: str, patterns: Sequence[str]) -> bool:
    lowered = name.lower()
    return any(fnmatchcase(lowered, pattern.lower()) for pattern in patterns)
