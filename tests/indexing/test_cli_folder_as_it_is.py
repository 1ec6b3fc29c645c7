"""A documentation folder indexed as it is, end to end through the CLI: ignore files and templates,
generated and vendored files are left out with a count; a file that failed is read again only once it
changes (or with --retry-failed); skipped and failed files are named as they happen, once each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app

FAKE_TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'
PAGE = "# {0}\n\nThe {0} page says that Kestrel stores telemetry in Shale.\n"


def _cli(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": "400"}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    for name in ("index.md", "guide/usage.md", "build/out.md", "drafts/wip.md"):
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(PAGE.format(Path(name).stem), encoding="utf-8")
    (docs / "theme").mkdir()
    (docs / "theme" / "main.html").write_text("{% extends 'base.html' %}{% block content %}x{% endblock %}")
    (docs / "overrides.html").write_text("<html><body>{% block tabs %}{{ super() }}{% endblock %}</body></html>")
    (docs / "jinja-tutorial.html").write_text(
        "<html><body><h1>Templates</h1><p>A page about templates.</p><pre>{% extends 'x' %}</pre></body></html>"
    )
    (docs / "node_modules" / "pkg").mkdir(parents=True)
    (docs / "node_modules" / "pkg" / "README.md").write_text(PAGE.format("vendored"))
    (docs / ".kgragignore").write_text("drafts/\n")
    (docs / ".gitignore").write_text("build/\n")
    (docs / "broken.pdf").write_bytes(b"this is not a PDF at all")
    ws = tmp_path / "ws"
    _cli("init", str(ws))
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    return docs, ws


def _sources(ws: Path) -> set[str]:
    with Workspace.open(ws) as opened:
        return {Path(d.source).name for d in opened.store.documents.list() if d.status.value != "failed"}


def test_ignore_files_templates_and_vendored_code_are_left_out_with_a_count(site: tuple[Path, Path]) -> None:
    docs, ws = site
    out = _cli("index", str(docs), "-w", str(ws))
    assert _sources(ws) == {"index.md", "usage.md", "jinja-tutorial.html"}
    assert "not read: 2 by ignore files · 3 templates/generated/vendored" in out
    assert "left out 2 by an ignore file" in out
    named = _cli("index", str(docs / "theme" / "main.html"), "-w", str(ws))  # a named file is always read
    assert "new 1" in named


def test_a_failed_file_is_retried_only_when_it_changes_or_when_asked(site: tuple[Path, Path]) -> None:
    docs, ws = site
    broken = docs / "broken.pdf"
    first = _cli("index", str(docs), "-w", str(ws))
    assert first.count(str(broken)) == 1 and "not a readable PDF" in first  # named once, not twice
    again = _cli("index", str(docs), "-w", str(ws))
    assert "broken.pdf" not in again and "1 failed before and unchanged" in again
    retried = _cli("index", str(docs), "-w", str(ws), "--retry-failed")
    assert retried.count(str(broken)) == 1
    broken.write_bytes(b"still not a PDF, but changed")
    stat = broken.stat()
    os.utime(broken, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    changed = _cli("index", str(docs), "-w", str(ws))
    assert changed.count(str(broken)) == 1 and "failed before" not in changed


class _Recorder:
    """A progress sink that records the order of events."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def start(self, label: str, total: int | None = None) -> None:
        self.events.append(f"start {label}")

    def advance(self, label: str, n: int = 1) -> None:
        pass

    def finish(self, label: str) -> None:
        self.events.append(f"finish {label}")

    def note(self, message: str) -> None:
        self.events.append(f"note {message}")


def test_problems_are_reported_as_they_happen_once(site: tuple[Path, Path]) -> None:
    docs, ws = site
    recorder = _Recorder()
    with Workspace.open(ws) as opened:
        opened.index([docs], progress=recorder)
    notes = [i for i, e in enumerate(recorder.events) if e.startswith("note skipped") and "broken.pdf" in e]
    assert len(notes) == 1
    starts = [i for i, e in enumerate(recorder.events) if e.startswith("start")]
    ingest = next(i for i in starts if "ingest" in recorder.events[i].lower())
    later = [i for i in starts if i > ingest]
    assert later and notes[0] < later[0]  # named during ingest, not after the last stage


def test_init_on_an_existing_workspace_changes_nothing_unless_forced(site: tuple[Path, Path]) -> None:
    _, ws = site
    out = _cli("init", str(ws))
    assert "already exists; nothing was changed" in out
    assert (ws / "kgrag.toml").read_text() == FAKE_TOML
    forced = _cli("init", str(ws), "--force")
    assert "initialised workspace" in forced
    assert (ws / "kgrag.toml.bak").read_text() == FAKE_TOML and (ws / "kgrag.toml").read_text() != FAKE_TOML


def test_show_path_marks_chunk_boundaries(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "long.md"
    code = "```python\nprint(1)\n```"
    page.write_text("# Long\n\n" + "\n\n".join(f"Sentence number {i} is here." for i in range(60)) + "\n\n" + code)
    ws = tmp_path / "ws"
    _cli("init", str(ws))
    (ws / "kgrag.toml").write_text(FAKE_TOML + "[chunking]\nsize_tokens = 40\noverlap_tokens = 0\n")
    _cli("index", str(docs), "-w", str(ws))
    out = _cli("show", str(page), "-w", str(ws))
    assert out.count("── chunk ") >= 3
    assert "```\n" in out or out.rstrip().endswith("```")  # the fence closes on its own line
    assert "is here.Sentence" not in out and "is here.\n\nSentence number" in out


def test_redirect_stubs_are_not_pages_and_a_failed_page_keeps_its_front_matter_title(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text(PAGE.format("index"))
    (docs / "fares.md").write_text("---\ntitle: Ferry fares\nredirect_to: /tickets/\n---\n")
    (docs / "empty.md").write_text("---\ntitle: Harbour rules\nlayout: rules\n---\n\n")
    ws = tmp_path / "ws"
    _cli("init", str(ws))
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    out = _cli("index", str(docs), "-w", str(ws))
    assert "not read: 1 redirect stubs (not pages)" in out and "fares.md" in out  # the example named
    assert "failed 1" in out
    with Workspace.open(ws) as opened:
        failed = [d for d in opened.store.documents.list() if d.status.value == "failed"]
    assert [(Path(d.source).name, d.title) for d in failed] == [("empty.md", "Harbour rules")]
