"""The README's and docs' code blocks run as written, and every CLI command is documented.

Blocks fenced as ``python``, ``bash``, ``sh`` or ``console`` are executed, in file order, in one scratch
directory per file that holds a copy of part of the sample corpus as ``docs/`` and its questions as
``questions.json``. In shell blocks every ``kgrag`` line runs through the real CLI (``make`` lines are
what CI itself runs, so they are skipped). A block that cannot run here (it needs Neo4j, or it is a
synopsis with placeholders) is preceded by ``<!-- not-tested: why -->``: skipping is explicit and visible.
Models are the fast fakes (set through ``KGRAG_*`` variables), so this checks the commands and the API
calls, not model quality.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from typer.main import get_command
from typer.testing import CliRunner

from kgrag.cli.app import app

ROOT = Path(__file__).resolve().parents[2]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_LANGUAGES = {"python", "bash", "sh", "console"}
_FENCE = re.compile(r"(?P<marker><!--\s*not-tested:[^>]*-->\s*\n)?```(?P<lang>[a-z]*)\n(?P<body>.*?)```", re.S)
SAMPLE_FILES = ("team-platform.md", "product-kestrel.md", "incident-inc-2024-031.md", "on-call-handbook.md")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    lang: str
    body: str
    skipped: bool


def code_blocks(path: Path) -> Iterator[Block]:
    text = path.read_text(encoding="utf-8")
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start("lang")) + 1
        yield Block(path, line, match["lang"], match["body"], match["marker"] is not None)


def _shell_commands(body: str) -> Iterator[list[str]]:
    for raw in body.replace("\\\n", " ").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#") or line.startswith("make "):
            continue
        words = shlex.split(line)
        assert words[0] in {"kgrag", ".venv/bin/kgrag"}, f"not a kgrag command: {line!r} (mark the block not-tested)"
        yield words[1:]


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in SAMPLE_FILES:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    shutil.copy(SAMPLE_DOCS.parent / "questions.json", tmp_path / "questions.json")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    monkeypatch.delenv("KGRAG_WORKSPACE", raising=False)
    return tmp_path


def _run_block(block: Block) -> None:
    where = f"{block.path.relative_to(ROOT)}:{block.line}"
    if block.lang == "python":
        exec(compile(block.body, where, "exec"), {"__name__": "__doc_example__"})
        return
    for args in _shell_commands(block.body):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, f"{where}: kgrag {shlex.join(args)} exited {result.exit_code}:\n{result.output}"


@pytest.mark.parametrize("doc", DOC_FILES, ids=lambda p: p.name)
def test_code_blocks_run(doc: Path, scratch: Path) -> None:
    blocks = [b for b in code_blocks(doc) if b.lang in RUN_LANGUAGES and not b.skipped]
    for block in blocks:
        _run_block(block)
    assert os.getcwd() == str(scratch)


def test_block_finder_sees_markers(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text("a\n<!-- not-tested: needs neo4j -->\n```sh\nneo4j x\n```\n```python\nx = 1\n```\n")
    assert [(b.lang, b.skipped, b.line) for b in code_blocks(page)] == [("sh", True, 3), ("python", False, 6)]


def _command_paths() -> list[str]:
    """Every leaf command of the CLI as typed after ``kgrag`` (``index``, ``graph stats``...)."""
    paths: list[str] = []

    def walk(command: object, prefix: str) -> None:
        children = getattr(command, "commands", None)
        if not children:
            paths.append(prefix.strip())
            return
        for name, child in children.items():
            if not getattr(child, "hidden", False):  # an older spelling kept working, documented as such
                walk(child, f"{prefix} {name}")

    walk(get_command(app), "")
    return sorted(paths)


def test_every_cli_command_is_documented() -> None:
    text = "\n".join(path.read_text(encoding="utf-8") for path in DOC_FILES)
    missing = [path for path in _command_paths() if f"kgrag {path}" not in text]
    assert not missing, f"commands missing from README.md/docs: {missing}"
