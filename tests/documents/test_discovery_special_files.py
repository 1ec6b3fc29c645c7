"""Nothing is skipped silently and nothing blocks discovery: a FIFO named ``*.txt`` (reading it would wait
forever for a writer), a directory whose path is over the system's length limit, and (as a normal user)
a directory without read permission are each skipped with their reason; ``kgrag index`` names them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO
from tests.reliability.harness import deep_file

from kgrag import Workspace
from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.documents import discover
from kgrag.documents.reading import read_limited

DEFAULTS = DocumentsConfig()


def test_a_fifo_read_directly_is_refused_without_waiting(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    with pytest.raises(DocumentError, match=r"pipe\.txt: not a regular file"):
        read_limited(tmp_path / "pipe.txt", DEFAULTS.max_file_mb)


def test_a_fifo_is_skipped_with_its_reason(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("real text", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.txt")
    skipped: list[tuple[Path, str]] = []
    assert discover([tmp_path], DEFAULTS.include, DEFAULTS.exclude, skipped) == [tmp_path / "real.txt"]
    assert skipped == [(tmp_path / "pipe.txt", "not a regular file (a FIFO), so it cannot be read as a document")]
    named: list[tuple[Path, str]] = []
    assert discover([tmp_path / "pipe.txt"], DEFAULTS.include, DEFAULTS.exclude, named) == []
    assert named == skipped


def test_an_over_long_path_is_reported(tmp_path: Path) -> None:
    deep = deep_file(tmp_path)
    (tmp_path / "ok.md").write_text("# ok", encoding="utf-8")
    skipped: list[tuple[Path, str]] = []
    assert discover([tmp_path], DEFAULTS.include, DEFAULTS.exclude, skipped) == [tmp_path / "ok.md"]
    assert len(skipped) == 1 and str(deep.parent).startswith(str(skipped[0][0]))
    assert "cannot be listed (File name too long)" in skipped[0][1]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads directories without read permission")
def test_an_unreadable_directory_is_reported(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "secret.txt").write_text("x", encoding="utf-8")
    locked.chmod(0)
    try:
        skipped: list[tuple[Path, str]] = []
        assert discover([tmp_path], DEFAULTS.include, DEFAULTS.exclude, skipped) == []
        assert skipped == [
            (locked, "directory cannot be listed (Permission denied), so none of its files were indexed")
        ]
    finally:
        locked.chmod(0o755)


def test_kgrag_index_names_the_fifo_and_finishes(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "real.md").write_text("# Real\n\nA real document about herons.\n", encoding="utf-8")
    os.mkfifo(docs / "pipe.txt")
    workspace = tmp_path / "ws"
    Workspace.init(workspace, embedding={"provider": "fake"}).close()
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "kgrag.cli", "index", str(docs), "-w", str(workspace)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    output = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 0, output
    assert f"skipped {docs / 'pipe.txt'}: not a regular file (a FIFO)" in output


def test_files_of_types_kgrag_does_not_read_are_counted_by_type(tmp_path: Path) -> None:
    from kgrag.documents.ignore import Ignored
    from kgrag.indexing.stages.discover import other_types_line

    for name in ("guide.md", "de.po", "fr.po", "messages.pot", "logo.SVG", "Makefile", ".gitignore", "skip.log"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    passed = Ignored()
    found = discover([tmp_path], ["*.md"], ["*.log"], [], passed=passed)
    assert [p.name for p in found] == ["guide.md"]
    assert passed.other_types == {".po": 2, ".pot": 1, ".svg": 1, "(no suffix)": 1}  # hidden and excluded: not
    line = other_types_line(passed.other_types)
    assert line.startswith("left out 5 files of types kgrag does not read (.po 2, (no suffix) 1, .pot 1, .svg 1)")
