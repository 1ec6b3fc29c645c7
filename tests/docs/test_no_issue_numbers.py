"""User-facing text cites docs pages and paper keys (docs/references.md), never internal issue numbers:
a reader of the docs, a docstring or a config description cannot look "issue #8" up."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = [
    ROOT / "README.md",
    *(ROOT / "docs").rglob("*.md"),
    *(ROOT / "src").rglob("*"),
    *(ROOT / "bench").rglob("*.py"),
]
INTERNAL = re.compile(
    r"\b[Ii]ssues? ?#\d|(?<![\w/&`])#\d{1,3}\b(?![0-9a-fA-F])|(?<![\w-])[Ii]ssue-\d|\bthe issue(?:'s)?\b"
)
"""An issue's number in any of its forms; "issue-12" inside a hyphenated name (a quoted file path such as
"joke-issue-10000/README.md" of another project) is not a citation."""


def test_no_internal_issue_numbers() -> None:
    found = []
    for path in SCANNED:
        if path.is_dir() or path.suffix not in {".py", ".md", ".toml", ".html", ".js", ".css", ".txt"}:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if INTERNAL.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "cite a docs page or a paper key instead:\n" + "\n".join(found)
