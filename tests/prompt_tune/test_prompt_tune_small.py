"""`kgrag prompts tune` on a corpus too small for NER, and the A/B that keeps worse tuned prompts out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import GraphConfig
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.workspace_toml import write_workspace_toml

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample" / "docs"
PROPOSAL = {"entity_types": ["person", "team", "system"], "domain": "Handbooks of a company.", "language": "English"}


def _workspace(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "ws"
    Workspace.init(path, embedding={"provider": "fake"}).close()
    return write_workspace_toml(
        path,
        {
            "embedding.provider": '"fake"',
            "graph.extractor": '"llm"',
            "llm.provider": '"openai"',
            "llm.providers.openai.base_url": json.dumps(base_url),
            "llm.model": '"fake-model"',
        },
    )


def test_a_small_corpus_without_names_still_tunes_and_says_what_was_missing(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("the pump was cleaned on monday.\nthe valve leaks when it is cold.\n")
    with FakeOpenAIServer(ExtractionResponder().for_server) as fake:
        ws = _workspace(tmp_path, fake.base_url)
        result = CliRunner().invoke(app, ["prompts", "tune", str(docs), "--llm", "none", "-w", str(ws)])
    assert result.exit_code == 0, result.output
    assert "--sample-tokens" not in result.output  # the whole corpus was sampled: more cannot help
    assert "the whole corpus" in result.output and "shipped invented example" in result.output
    assert "no A/B" in result.output
    with Workspace.open(ws) as opened:
        assert opened.config.graph.entity_types == GraphConfig().entity_types


class ThinWhenTuned:
    """The realistic extractor, except that a tuned prompt (it carries the domain note) gets one entity."""

    def __init__(self) -> None:
        self.inner = ExtractionResponder()

    def __call__(self, body: dict[str, Any]) -> str:
        system = body["messages"][0]["content"]
        if "set up a knowledge-graph extractor" in system:
            return json.dumps(PROPOSAL)
        reply = self.inner.for_server(body)
        if "About these documents" in system and "You extract a knowledge graph" in system:
            data = json.loads(reply)
            return json.dumps({"entities": data["entities"][:1], "relations": []})
        return reply


def test_tuned_prompts_that_extract_less_are_not_kept(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "team.md").write_text((SAMPLE / "team-security.md").read_text(encoding="utf-8"))
    with FakeOpenAIServer(ThinWhenTuned()) as fake:
        ws = _workspace(tmp_path, fake.base_url)
        result = CliRunner().invoke(app, ["prompts", "tune", str(docs), "-w", str(ws)])
    assert result.exit_code == 0, result.output
    assert "A/B on one passage" in result.output and "NOT kept" in result.output
    assert "nothing written" in result.output
    assert not (ws / "prompts" / "extract_graph.toml").exists()
    with Workspace.open(ws) as opened:
        assert opened.config.graph.entity_types == GraphConfig().entity_types  # kgrag.toml untouched
