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


QUOTED = re.compile(r"^- (?:Question|Answer|Source \(.*?\)|First impression|Verdict):")
"""A line of a blind-read page that quotes another project's documentation or its reader ("The triage team might
close the issue …"): the words are theirs, not a citation of ours."""


def _quoted(path: Path, line: str) -> bool:
    return path.name.startswith("qgen-blind-read-") and bool(QUOTED.match(line))


def test_no_internal_issue_numbers() -> None:
    found = []
    for path in SCANNED:
        if path.is_dir() or path.suffix not in {".py", ".md", ".toml", ".html", ".js", ".css", ".txt"}:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if INTERNAL.search(line) and not _quoted(path, line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "cite a docs page or a paper key instead:\n" + "\n".join(found)


def test_a_quotation_on_a_blind_read_page_is_not_a_citation() -> None:
    page = Path("docs/results/qgen-blind-read-x.md")
    assert _quoted(page, '- Source (testing.md): "The triage team might close the issue."')
    assert not _quoted(page, "Our own sentence citing the issue.")
    assert not _quoted(Path("docs/results/other.md"), '- Source (testing.md): "… close the issue."')
