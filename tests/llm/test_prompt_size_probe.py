"""Prompts sized to the model: one probe call on a fixed text decides whether worked examples are shown.

A model that answers the schema-only prompt with a valid, grounded reply gets compact prompts (no invented
examples) for the rest of the workspace's life; one that echoes the schema or invents names keeps them.
Against real HTTP servers (the counting server with the scripted extraction responder, which follows the
schema), through the workspace, with the verdict stored and read back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgrag import Workspace
from kgrag.models.llm.examples_probe import PROBE_STAGE, PROBE_TEXT, PROBE_TRIES
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.workspace_toml import write_workspace_toml

EXAMPLE_MARK = "Example (invented names)"


def _workspace(path: Path, base_url: str, **settings: str) -> Path:
    Workspace.init(path, embedding={"provider": "fake"}).close()
    lines = {
        "embedding.provider": '"fake"',
        "graph.extractor": '"llm"',
        "llm.provider": '"openai"',
        "llm.providers.openai.base_url": json.dumps(base_url),
        "llm.model": '"m"',
        "llm.providers.openai.api_key_env": '"KGRAG_PROBE_TEST_KEY"',
        "llm.prompt_examples": '"auto"',
        **settings,
    }
    return write_workspace_toml(path, lines)


class _Recorder:
    """Answers like ``inner`` and keeps every request's system message and whether it was the probe."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.systems: list[str] = []
        self.probes = 0

    def __call__(self, body: dict[str, Any]) -> str:
        self.systems.append(str(body["messages"][0]["content"]))
        self.probes += any(PROBE_TEXT in str(m.get("content", "")) for m in body["messages"])
        return str(self.inner(body))


def _docs(tmp_path: Path, monkeypatch: Any) -> Path:
    """A folder with one short document; the endpoint's key set."""
    monkeypatch.setenv("KGRAG_PROBE_TEST_KEY", "sk-test")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Herons\n\nGrey herons hunt fish in the Thames estuary near Gravesend.\n")
    return docs


def _index(path: Path, docs: Path) -> None:
    with Workspace.open(path) as ws:
        ws.indexing.run([docs])


def test_a_model_following_the_schema_gets_compact_prompts_once(tmp_path: Path, monkeypatch: Any) -> None:
    docs = _docs(tmp_path, monkeypatch)
    recorder = _Recorder(ExtractionResponder().for_server)
    with FakeOpenAIServer(recorder) as server:
        path = _workspace(tmp_path / "ws", server.base_url)
        _index(path, docs)
        assert recorder.probes == 1
        extraction = [s for s in recorder.systems if s.startswith("You extract")]
        assert extraction and not any(EXAMPLE_MARK in s for s in extraction)  # compact, probe included
        seen = len(recorder.systems)
        (docs / "b.md").write_text("# Otters\n\nEurasian otters returned to the River Kennet in Berkshire.\n")
        _index(path, docs)  # the verdict is stored: no second probe
        later = recorder.systems[seen:]
        assert later and not any(EXAMPLE_MARK in s for s in later) and recorder.probes == 1
    with Workspace.open(path) as ws:
        stages = ws.usage.summary().by_stage
    assert stages[PROBE_STAGE].calls == 1


def test_a_model_echoing_the_schema_keeps_the_examples(tmp_path: Path, monkeypatch: Any) -> None:
    docs = _docs(tmp_path, monkeypatch)
    extractor = ExtractionResponder().for_server

    def small_model(body: dict[str, Any]) -> str:
        system = str(body["messages"][0]["content"])
        if EXAMPLE_MARK not in system and system.startswith("You extract"):
            return json.dumps({"type": "object", "properties": {"entities": {"type": "array"}}})  # schema echoed
        return str(extractor(body))

    recorder = _Recorder(small_model)
    with FakeOpenAIServer(recorder) as server:
        path = _workspace(tmp_path / "ws", server.base_url)
        _index(path, docs)
    assert recorder.probes == 2 * PROBE_TRIES  # each try and its re-ask echoed the schema
    first_passes = [s for s in recorder.systems if s.startswith("You extract") and EXAMPLE_MARK in s]
    assert first_passes
    with Workspace.open(path) as ws:
        assert ws.graph.counts()["entities"] > 0  # the examples kept the graph coming


def test_always_and_never_decide_without_a_probe(tmp_path: Path, monkeypatch: Any) -> None:
    docs = _docs(tmp_path, monkeypatch)
    for mode, shown in (("always", True), ("never", False)):
        recorder = _Recorder(ExtractionResponder().for_server)
        with FakeOpenAIServer(recorder) as server:
            path = _workspace(tmp_path / mode, server.base_url, **{"llm.prompt_examples": f'"{mode}"'})
            _index(path, docs)
        assert recorder.probes == 0
        extraction = [s for s in recorder.systems if s.startswith("You extract")]
        assert extraction and all((EXAMPLE_MARK in s) == shown for s in extraction)


def test_a_query_sends_no_probe_and_the_next_index_run_probes_once(tmp_path: Path, monkeypatch: Any) -> None:
    """The probe sizes the extraction and report prompts, so only indexing sends it: a query on an ``auto``
    workspace with no verdict yet is answered by the model without a probe request reaching the server,
    with the examples kept; the next index run then probes once."""
    docs = _docs(tmp_path, monkeypatch)
    recorder = _Recorder(ExtractionResponder().for_server)
    with FakeOpenAIServer(recorder) as server:
        path = _workspace(tmp_path / "ws", server.base_url, **{"llm.provider": '"none"', "graph.extractor": '"none"'})
        _index(path, docs)  # indexed without an LLM: no verdict stored
        _workspace(path, server.base_url)
        with Workspace.open(path) as ws:
            response = ws.query("Where do grey herons hunt fish?", pipeline="hybrid")
        assert response.answer.text and server.stats.chat_requests > 0  # the model answered the query
        assert recorder.probes == 0
        (docs / "b.md").write_text("# Otters\n\nEurasian otters returned to the River Kennet in Berkshire.\n")
        _index(path, docs)
        assert recorder.probes == 1
        extraction = [s for s in recorder.systems if s.startswith("You extract")]
        assert extraction and not any(EXAMPLE_MARK in s for s in extraction)  # the verdict applied at once
