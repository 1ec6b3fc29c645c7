"""The MkDocs site a Markdown page belongs to: where snippets are looked up, and which files are pages.

A page's site is the nearest folder above it holding ``mkdocs.yml`` (or ``mkdocs.yaml``) whose ``docs_dir``
holds the page (else the nearest such folder). From that file
only what reading the pages needs is taken: ``docs_dir`` (default ``docs``), ``exclude_docs`` (gitignore
patterns relative to ``docs_dir``) and the ``pymdownx.snippets`` options ``base_path`` (a folder, or a
file matched by its name; relative to the site root, where ``mkdocs`` runs) and ``dedent_subsections``.
``INHERIT`` (a parent config) fills in keys the file does not set.

mkdocs.yml often carries Python tags (``!!python/name:material.extensions.emoji.twemoji``) and
``!ENV``: the file is read with a safe YAML loader that turns any tag into its plain value, so nothing is
imported or executed and an odd tag never stops indexing. A file that cannot be parsed still marks the
site root; its options then keep their defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from kgrag.documents.yaml_text import text_dates_loader

CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")
SNIPPETS = "pymdownx.snippets"
_MAX_CONFIG_BYTES = 1024 * 1024
_MAX_INHERIT = 4
MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass(frozen=True)
class MkDocsSite:
    """What a site's config says about its pages and snippets (paths absolute)."""

    root: Path
    docs_dir: Path
    base_paths: tuple[Path, ...] = ()  # the configured ``base_path`` entries; () when not configured
    dedent_subsections: bool = False
    exclude_docs: tuple[str, ...] = ()

    def is_page(self, path: Path) -> bool:
        """Whether MkDocs renders ``path`` (a Markdown file under the site) as a page of its own.

        Not a page: a file inside ``docs_dir`` that ``exclude_docs`` matches, and a file outside
        ``docs_dir`` that is a snippet ``base_path`` or lies in one (other than the site root). Other files
        outside ``docs_dir`` (a README, a changelog) are kept: the folder was given to be indexed."""
        if path.suffix.lower() not in MARKDOWN_SUFFIXES:
            return True
        if _inside(path, self.docs_dir):
            return not (self.exclude_docs and _matches(self.exclude_docs, path.relative_to(self.docs_dir)))
        return not any(base != self.root and _inside(path, base) for base in self.base_paths)


def find_site(folder: Path) -> MkDocsSite | None:
    """The site of a page in ``folder``: the nearest MkDocs config above it whose ``docs_dir`` holds the
    folder (a stray copy of a config elsewhere in the tree does not own the pages), else the nearest one."""
    first: MkDocsSite | None = None
    for candidate in (folder, *folder.parents):
        for name in CONFIG_NAMES:
            config = candidate / name
            try:
                stat = config.stat()
            except OSError:
                continue
            site = _site(str(config), stat.st_size, stat.st_mtime_ns)
            if _inside(folder, site.docs_dir):
                return site
            first = first or site
            break
    return first


@lru_cache(maxsize=16)
def _site(config_path: str, size: int, mtime_ns: int) -> MkDocsSite:
    """The parsed config (cached by path, size and modification time: a changed file is read again)."""
    config = Path(config_path)
    root = config.parent
    data = _load(config)
    docs_dir = root / str(data.get("docs_dir") or "docs")
    options = snippet_options(data.get("markdown_extensions"))
    bases = options.get("base_path")
    base_list = [bases] if isinstance(bases, str) else bases if isinstance(bases, list) else []
    exclude = data.get("exclude_docs")
    return MkDocsSite(
        root=root,
        docs_dir=docs_dir,
        base_paths=tuple(root / str(base) for base in base_list if isinstance(base, str | Path)),
        dedent_subsections=bool(options.get("dedent_subsections", False)),
        exclude_docs=tuple(str(exclude).splitlines()) if isinstance(exclude, str) else (),
    )


def snippet_options(extensions: Any) -> dict[str, Any]:
    """The ``pymdownx.snippets`` options of a ``markdown_extensions`` list ({} when absent or bare)."""
    for entry in extensions if isinstance(extensions, list) else []:
        if isinstance(entry, dict) and SNIPPETS in entry:
            options = entry[SNIPPETS]
            return options if isinstance(options, dict) else {}
    return {}


def _load(config: Path, depth: int = 0) -> dict[str, Any]:
    """The config as a mapping, keys of its ``INHERIT`` parent filling in what it leaves out; {} when it
    cannot be read or parsed."""
    import yaml

    try:
        with config.open("rb") as handle:
            raw = handle.read(_MAX_CONFIG_BYTES)
        data = yaml.load(raw.decode("utf-8", "replace"), Loader=_tolerant_loader())  # a SafeLoader: no objects
    except (OSError, yaml.YAMLError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    parent = data.get("INHERIT")
    if isinstance(parent, str) and depth < _MAX_INHERIT:
        return {**_load(config.parent / parent, depth + 1), **data}
    return data


@lru_cache(maxsize=1)
def _tolerant_loader() -> type[Any]:
    """A SafeLoader that reads any unknown tag as the plain value under it (never constructs objects), and
    dates as their text (:func:`kgrag.documents.yaml_text.text_dates_loader`)."""
    import yaml

    class Loader(text_dates_loader()):  # type: ignore[misc]
        pass

    def plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_scalar(node)

    Loader.add_multi_constructor("", plain)
    return Loader


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _matches(patterns: tuple[str, ...], relative: Path) -> bool:
    from pathspec import GitIgnoreSpec

    return bool(GitIgnoreSpec.from_lines(patterns).match_file(relative.as_posix()))
