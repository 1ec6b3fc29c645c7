"""A MkDocs site with snippet includes, end to end through the CLI: the included text is searchable as part of
the page; an include that cannot be read is named once, as the run goes; editing an included file (or
creating a missing one) makes the next run read the unchanged page again; snippet files are not pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app

FAKE_TOML = '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'


def _cli(*args: str) -> str:
    result = CliRunner(env={"COLUMNS": "400"}).invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def site(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "site"
    (root / "docs" / "snippets").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(
        "site_name: Kestrel\nexclude_docs: |\n  snippets/\nmarkdown_extensions:\n"
        "  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "  - pymdownx.snippets:\n      base_path: [docs]\n",
        encoding="utf-8",
    )
    (root / "docs" / "index.md").write_text(
        '# Kestrel\n\nKestrel stores telemetry.\n\n```toml\n--8<-- "snippets/config.toml"\n```\n\n'
        '--8<-- "snippets/retention.md"\n--8<-- "snippets/later.md"\n--8<-- "../../outside.md"\n',
        encoding="utf-8",
    )
    (root / "docs" / "snippets" / "config.toml").write_text('[store]\nengine = "shale"\n', encoding="utf-8")
    (root / "docs" / "snippets" / "retention.md").write_text("Telemetry is kept for 30 days.\n", encoding="utf-8")
    (tmp_path / "outside.md").write_text("PRIVATE NOTE\n", encoding="utf-8")
    ws = tmp_path / "ws"
    _cli("init", str(ws))
    (ws / "kgrag.toml").write_text(FAKE_TOML)
    return root / "docs", ws


def _chunks(ws: Path) -> str:
    with Workspace.open(ws) as opened:
        return "\n".join(chunk.text for chunk in opened.store.chunks.iter_all())


def test_includes_are_indexed_with_the_page_and_followed_when_they_change(site: tuple[Path, Path]) -> None:
    docs, ws = site
    first = _cli("index", str(docs), "-w", str(ws))
    assert "new 1" in first and "not read: 1 MkDocs snippet files (not pages)" in first
    assert first.count("includes left out") == 1
    assert "snippets/later.md (not found)" in first and "../../outside.md (outside the folder being indexed" in first
    text = _chunks(ws)
    assert 'engine = "shale"' in text and "kept for 30 days" in text
    assert "8<" not in text and "PRIVATE NOTE" not in text
    shown = _cli("show", str(docs / "index.md"), "-w", str(ws))
    assert "kept for 30 days" in shown

    again = _cli("index", str(docs), "-w", str(ws))
    assert "unchanged 1" in again and "includes left out" not in again  # said once, when the page was read

    (docs / "snippets" / "retention.md").write_text("Telemetry is kept for 90 days.\n", encoding="utf-8")
    changed = _cli("index", str(docs), "-w", str(ws))
    assert "changed 1" in changed
    assert "kept for 90 days" in _cli("show", str(docs / "index.md"), "-w", str(ws))
    answer = _cli("query", "How long is telemetry kept?", "--pipeline", "bm25", "-w", str(ws))
    assert "90 days" in answer

    (docs / "snippets" / "later.md").write_text("Shale compacts nightly.\n", encoding="utf-8")
    created = _cli("index", str(docs), "-w", str(ws))
    assert "changed 1" in created and "Shale compacts nightly." in _chunks(ws)
