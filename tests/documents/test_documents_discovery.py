"""discover: explicit files always, directories filtered, sorted and pruned."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents.discovery import discover

DEFAULTS = DocumentsConfig()


def _tree(root: Path, names: list[str]) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("text", encoding="utf-8")


def test_directories_are_walked_sorted_and_filtered(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        [
            "b.md",
            "a.txt",
            "image.png",
            "notes.txt~",
            ".hidden.txt",
            "sub/z.PDF",
            "sub/c.html",
            ".git/config.txt",
            "__pycache__/x.txt",
            "sub/.cache/y.txt",
        ],
    )
    found = discover([tmp_path], DEFAULTS.include, DEFAULTS.exclude)
    assert [path.relative_to(tmp_path).as_posix() for path in found] == ["a.txt", "b.md", "sub/c.html", "sub/z.PDF"]


def test_explicit_files_ignore_include_and_exclude(tmp_path: Path) -> None:
    _tree(tmp_path, ["image.png", ".hidden.txt"])
    explicit = [tmp_path / "image.png", tmp_path / ".hidden.txt"]
    assert discover(explicit, DEFAULTS.include, DEFAULTS.exclude) == explicit


def test_root_inside_a_hidden_directory_is_still_walked(tmp_path: Path) -> None:
    _tree(tmp_path, [".cache/docs/a.txt"])
    found = discover([tmp_path / ".cache" / "docs"], DEFAULTS.include, DEFAULTS.exclude)
    assert found == [tmp_path / ".cache" / "docs" / "a.txt"]


def test_custom_patterns_and_duplicates(tmp_path: Path) -> None:
    _tree(tmp_path, ["keep/a.txt", "drafts/b.txt", "keep/c.md"])
    found = discover([tmp_path, tmp_path / "keep" / "a.txt"], ["*.txt"], ["drafts"])
    assert found == [tmp_path / "keep" / "a.txt"]


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match=r"nope: no such file or directory"):
        discover([tmp_path / "nope"], DEFAULTS.include, DEFAULTS.exclude)


def test_symlinked_directory_loops_are_not_followed(tmp_path: Path) -> None:
    _tree(tmp_path, ["d/a.txt"])
    (tmp_path / "d" / "loop").symlink_to(tmp_path / "d", target_is_directory=True)
    assert discover([tmp_path], ["*.txt"], []) == [tmp_path / "d" / "a.txt"]
