"""Which files to index, given the paths a user named.

A file the user names is always indexed: naming it is an explicit request, and filters exist to
prune directory walks. Directories are walked in sorted order so that the same tree always yields the
same list (and the same document order in the index). Exclude patterns are matched against every
path component *below* the directory given, never against the directory's own path, so that indexing
``./docs`` or a tree under ``~/.cache`` is not excluded by the default ``.*`` pattern.

Only regular files are indexed: a FIFO named ``notes.txt`` would block the reader forever, and a device
or socket has no document in it. Those, directories that cannot be listed (no permission, a path over
the system's length limit) and named paths that cannot be examined are skipped, each with its reason in
``skipped``, so nothing is left out silently.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from kgrag.core.errors import DocumentError
from kgrag.documents.ignore import (
    Ignored,
    IgnoreRules,
    Spec,
    folder_specs,
    generated_dir,
    generated_file,
    ignored,
    redirect_stub,
)
from kgrag.documents.mkdocs_site import MARKDOWN_SUFFIXES, MkDocsSite, find_site

Skipped = list[tuple[Path, str]]


def discover(
    paths: Sequence[Path],
    include: Sequence[str],
    exclude: Sequence[str],
    skipped: Skipped | None = None,
    rules: IgnoreRules | None = None,
    passed: Ignored | None = None,
) -> list[Path]:
    """Files to index: named files as given, plus matching files under named directories.

    Patterns are matched case-insensitively, like the suffixes the loaders dispatch on. Files reached
    twice (overlapping arguments) are listed once, at their first position. Symlinked directories
    are not followed, so a link loop cannot make the walk endless. What is passed over (not a regular
    file, a directory that cannot be listed) is appended to ``skipped`` as (path, reason); what ignore
    files, templates and generated or vendored output keep out of a walk (:mod:`kgrag.documents.ignore`)
    is counted in ``passed``.
    """
    found: list[Path] = []
    seen: set[Path] = set()
    passed_over: Skipped = skipped if skipped is not None else []
    walk = _Walk(include, exclude, rules or IgnoreRules(), passed if passed is not None else Ignored(), passed_over)
    for path in paths:
        if not os.path.lexists(path):
            raise DocumentError(f"{path}: no such file or directory")
        candidates = walk.files(path) if path.is_dir() else _named(path, passed_over)
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


def _named(path: Path, skipped: Skipped) -> Iterator[Path]:
    """A file the user named, unless it is not a regular file (then it is skipped with the reason)."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        skipped.append((path, f"cannot be examined ({exc.strerror})"))
        return
    if stat.S_ISREG(mode):
        yield path
    else:
        skipped.append((path, f"not a regular file ({_kind(mode)}), so it cannot be read as a document"))


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"))
    return next((name for test, name in kinds if test(mode)), "a block device or other special file")


@dataclass(frozen=True)
class _Walk:
    include: Sequence[str]
    exclude: Sequence[str]
    rules: IgnoreRules
    passed: Ignored
    skipped: Skipped
    sites: dict[str, MkDocsSite | None] = field(default_factory=dict)  # folder → its MkDocs site, per walk

    def files(self, root: Path) -> Iterator[Path]:
        """Matching files under ``root``, depth-first with sorted names; excluded and ignored directories are
        pruned.

        An explicit stack instead of recursion (``os.walk`` recurses on Python 3.11), so a directory tree of
        any depth is walked without a ``RecursionError``; a directory that cannot be listed is skipped (its
        files cannot be read either) is reported in ``skipped``, never an abort of the whole run.
        """
        stack: list[tuple[str, list[Spec]]] = [(str(root), [])]
        while stack:
            current, above = stack.pop()
            try:
                with os.scandir(current) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError as exc:
                reason = f"directory cannot be listed ({exc.strerror}), so none of its files were indexed"
                self.skipped.append((Path(current), reason))
                continue
            specs = above + folder_specs(Path(current), self.rules)
            directories: list[tuple[str, list[Spec]]] = []
            for entry in entries:
                if _is_directory(entry):
                    if not _matches(entry.name, self.exclude) and self._keep(Path(entry.path), specs, True):
                        directories.append((entry.path, specs))
                elif _matches(entry.name, self.exclude):
                    continue
                elif not _matches(entry.name, self.include):
                    self.passed.add_other_type(Path(entry.path))
                elif not self._keep(Path(entry.path), specs, False):
                    continue
                elif _is_regular(entry):
                    yield Path(entry.path)
                else:  # stat it to say why it is skipped (or to report a link that cannot be followed)
                    yield from _named(Path(entry.path), self.skipped)
            stack.extend(reversed(directories))  # sorted order, depth-first

    def _keep(self, path: Path, specs: list[Spec], is_dir: bool) -> bool:
        """False (and counted) for a path an ignore file, or the generated/vendored/template rules, leave out, and
        for a redirect stub."""
        if ignored(path, is_dir, specs):
            self.passed.add(path, generated=False)
            return False
        if generated_dir(path.name, self.rules) if is_dir else generated_file(path, self.rules):
            self.passed.add(path, generated=True)
            return False
        if not is_dir and redirect_stub(path):
            self.passed.add(path, generated=False, redirect=True)
            return False
        if not is_dir and path.suffix.lower() in MARKDOWN_SUFFIXES and not self._page(path):
            self.passed.add(path, generated=False, not_page=True)
            return False
        return True

    def _page(self, path: Path) -> bool:
        """False for a Markdown file its MkDocs site does not render (a snippet source)."""
        folder = str(path.parent)
        if folder not in self.sites:
            self.sites[folder] = find_site(path.parent.resolve())
        site = self.sites[folder]
        return site is None or site.is_page(path.resolve())


def _is_directory(entry: os.DirEntry[str]) -> bool:
    """A real directory (symlinked directories are not followed, so a link loop cannot make the walk endless)."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _is_regular(entry: os.DirEntry[str]) -> bool:
    """A regular file (following a link, as ``stat`` does); known from the listing without another stat
    for a plain file. An error answers False so that :func:`_named` examines it and gives the reason."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _matches(name: str, patterns: Sequence[str]) -> bool:
    lowered = name.lower()
    return any(fnmatchcase(lowered, pattern.lower()) for pattern in patterns)
