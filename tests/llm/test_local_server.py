"""A workspace with default settings against a stand-in that behaves like llama-cpp-python's server.

The stand-in refuses ``response_format: json_schema`` with HTTP 500, serves a 4096-token window it never
announces, and its model adds an entity the text never mentions to every extraction reply (as the real
0.5B model copied names from the prompt). Indexing must still succeed on the default configuration, keep
the invented entity out of the graph, count it, and never send ``json_schema`` again after the first
refusal, in this command or the next one.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.models.llm.capabilities import ServerProfile, profile_key
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder, request_kind

INVENTED = "Zephyrine Quorum"
DOCS = ("team-sre.md", "incident-inc-2024-031.md")


class InventingResponder:
    """The realistic extraction responder, plus one invented entity (and a relation to it) per extraction."""

    def __init__(self) -> None:
        self.inner = ExtractionResponder()

    def __call__(self, body: dict[str, Any]) -> str:
        reply = self.inner.for_server(body)
        kind, _ = request_kind(body.get("messages", []))
        if kind not in ("extract", "glean"):
            return reply
        data = json.loads(reply)
        data.setdefault("entities", []).append({"name": INVENTED, "type": "organization", "description": "x"})
        if data["entities"][:1]:
            first = data["entities"][0]["name"]
            data.setdefault("relations", []).append({"source": first, "target": INVENTED, "label": "works with"})
        return json.dumps(data)


@pytest.fixture
def standin() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(InventingResponder(), behaviour="llama-cpp-python", context_window=4096) as server:
        yield server


@pytest.fixture
def ws(tmp_path: Path, standin: FakeOpenAIServer) -> Path:
    path = tmp_path / "ws"
    Workspace.init(path).close()
    (path / "kgrag.toml").write_text(  # defaults everywhere else: json_mode, window, unit sizes
        '[embedding]\nprovider = "fake"\n[graph]\nextractor = "llm"\n'
        f'[llm]\nprovider = "openai"\nproviders.openai.base_url = "{standin.base_url}"\nmodel = "qwen2.5-0.5b"\n'
    )
    return path


def _docs(tmp_path: Path, names: tuple[str, ...]) -> Path:
    target = tmp_path / "docs"
    target.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(SAMPLE_DOCS / name, target / name)
    return target


def test_default_settings_index_against_a_llama_cpp_python_like_server(
    ws: Path, tmp_path: Path, standin: FakeOpenAIServer
) -> None:
    result = CliRunner().invoke(app, ["index", str(_docs(tmp_path, DOCS[:1])), "-w", str(ws)])
    assert result.exit_code == 0, result.output
    assert "ungrounded dropped" in result.output
    assert standin.stats.format_rejections == {"json_schema": 1}  # refused once, then never sent again

    with Workspace.open(ws) as opened:
        names = {e.name for e in opened.store.graph.entities()}
        profile = ServerProfile.from_json(opened.store.meta.get(profile_key(standin.base_url, "qwen2.5-0.5b")))
    assert names and INVENTED not in names
    assert profile is not None and profile.server == "llama-cpp-python" and profile.rejected == ["json_schema"]
    shown = CliRunner().invoke(app, ["status", "-w", str(ws)])  # what was learnt is shown, not only stored
    assert "llm server: llama-cpp-python · JSON mode json_object_schema (refused: json_schema) · window" in shown.output

    # the next command reads the verdict from the workspace: json_schema is not tried again
    second = CliRunner().invoke(app, ["index", str(_docs(tmp_path, DOCS)), "-w", str(ws)])
    assert second.exit_code == 0, second.output
    assert standin.stats.format_rejections == {"json_schema": 1}
