"""The path scrubber on its own: what counts as a path under a root, what is left alone, and JSON text."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient
from tests.server.conftest import WRITE, build_workspace

from kgrag import Workspace
from kgrag.server import create_app
from kgrag.server.scrub import PathScrubber
from kgrag.server.uploads import display_name

NAMES = {"0123456789abcdef-notes.txt": 'my "notes".txt'}
SCRUB = PathScrubber([(Path("/srv/ws"), "team"), (Path("/srv/ws/uploads"), "uploads")], lambda b: NAMES.get(b, b))


def test_paths_under_a_root_become_file_names_and_roots_their_label() -> None:
    assert (
        SCRUB.text("skipped /srv/ws/uploads/0123456789abcdef-notes.txt: not UTF-8")
        == 'skipped my "notes".txt: not UTF-8'
    )
    assert SCRUB.text("see /srv/ws.") == "see team."
    assert SCRUB.text("in /srv/ws/uploads/") == "in uploads"
    assert SCRUB.text("'/srv/ws/db/kgrag.sqlite'") == "'kgrag.sqlite'"
    assert SCRUB.text("read /srv/ws/a/b.md.") == "read b.md."


def test_other_text_is_left_alone() -> None:
    for text in ("/srv/wsx/a.md", "https://example.org/srv/ws/a.md", "srv/ws/a.md", "/srv", "no paths here"):
        assert SCRUB.text(text) == text


def test_json_text_stays_valid_json_when_a_name_has_quotes() -> None:
    body = json.dumps({"note": "skipped /srv/ws/uploads/0123456789abcdef-notes.txt"})
    assert json.loads(SCRUB.text(body, json_escaped=True)) == {"note": 'skipped my "notes".txt'}
    assert SCRUB.data({"a": ["/srv/ws/x.md", 3]}) == {"a": ["x.md", 3]}


def test_display_name_strips_only_the_generated_prefix() -> None:
    assert display_name("0123456789abcdef-notes.txt") == "notes.txt"
    assert display_name("notes-2024.txt") == "notes-2024.txt"
    assert display_name("0123456789abcdeg-notes.txt") == "0123456789abcdeg-notes.txt"


def test_uploaded_names_survive_a_restart(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w", [], graph=False)
    with Workspace.open(path) as ws:
        with TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
            files = [("files", ("Quarterly Report (final).md", b"# Q3\n\nRevenue grew.\n"))]
            c.post("/v1/workspaces/w/documents?index=false", files=files, headers=WRITE)
        stored = next((path / "uploads").iterdir()).name
        assert stored.endswith("-Quarterly-Report-final.md")
        with TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
            hosted = c.app.state.kgrag.workspaces["w"]  # type: ignore[attr-defined]
            assert hosted.uploads.shown_name(stored) == "Quarterly Report (final).md"
            assert hosted.source_name(str(path / "uploads" / stored) + "#2") == "Quarterly Report (final).md#2"
