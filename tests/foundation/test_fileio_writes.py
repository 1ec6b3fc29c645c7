"""Files kgrag writes for the user (generated questions, prompt overrides, a tuned kgrag.toml) appear whole,
with the mode any file the user creates gets, and a file replaced keeps its mode."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgrag.core.atomic_write import write_text_atomic
from kgrag.evaluation.qgen.generate import QGenResult
from kgrag.evaluation.qgen.output import write_questions


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_umasks_mode_and_a_replaced_one_keeps_its_own(tmp_path: Path, umask_022: None) -> None:
    fresh = tmp_path / "questions.json"
    write_text_atomic(fresh, "[]\n")
    assert fresh.read_text() == "[]\n" and _mode(fresh) == 0o644
    config = tmp_path / "kgrag.toml"
    config.write_text("[retrieval]\n")
    config.chmod(0o640)
    write_text_atomic(config, "[retrieval]\nk = 3\n")
    assert config.read_text() == "[retrieval]\nk = 3\n" and _mode(config) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kgrag.toml", "questions.json"]  # no temporary left


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "kgrag.toml"
    target.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        write_text_atomic(target, "bad \udcff surrogate")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["kgrag.toml"]


def test_generated_questions_are_readable_like_the_users_other_files(tmp_path: Path, umask_022: None) -> None:
    out = tmp_path / "generated.json"
    write_questions(out, QGenResult(items=[], generated=0), "ws")
    assert out.read_text().strip() == "[]" and _mode(out) == 0o644
