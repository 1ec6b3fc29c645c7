"""create_llm_extractor(config, client): config wiring, persistent ledger, and the workspace's own client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kgrag import Workspace
from kgrag.config import LLMConfig, load_config
from kgrag.graph.extract.llm import LLMExtractor, create_llm_extractor, extraction_max_tokens
from kgrag.models.llm import ScriptedProvider
from kgrag.prompts import load_prompt
from kgrag.testing.extraction_responder import ExtractionResponder

REPLY = {
    "entities": [{"name": "Kestrel", "type": "product", "description": "A platform."}],
    "relations": [
        {
            "source": "Kestrel",
            "target": "Shale",
            "label": "contains",
            "description": "d",
            "keywords": ["storage"],
            "strength": 8,
        }
    ],
}


@pytest.fixture
def scripted_file(tmp_path: Path) -> Path:
    path = tmp_path / "replies.jsonl"
    path.write_text(json.dumps({"default": json.dumps(REPLY)}) + "\n", encoding="utf-8")
    return path


def test_factory_builds_from_config_and_records_usage_in_the_workspace_db(
    kit: Any, scripted_file: Path, tmp_path: Path
) -> None:
    ws = Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        llm={"provider": "scripted", "providers": {"scripted": {"file": str(scripted_file)}}, "max_concurrency": 3},
        graph={
            "entity_types": ["product", "concept"],
            "language": "Norwegian",
            "extractors": {"llm": {"unit_tokens": 600, "gleaning": False}},
        },
    )
    extractor = create_llm_extractor(ws.config, ws.components.llm())
    assert isinstance(extractor, LLMExtractor)
    assert (extractor.unit_tokens, extractor.language, extractor.batch_units) == (600, "Norwegian", 12)
    assert extractor.entity_types == ["product", "concept"] and not extractor.glean.enabled
    versions = f"{load_prompt('extract_graph').version}+{load_prompt('glean_graph').version}"
    assert extractor.name == f"llm:scripted:extract_graph@{versions}"
    chunks = kit.sample_chunks(limit=1)
    extractions = list(extractor.extract(chunks))
    assert len(extractions) == len(chunks) and all(x.error is None for x in extractions)
    rows = ws.store.db.query("SELECT stage, COUNT(*) FROM llm_calls GROUP BY stage")
    assert {r[0]: r[1] for r in rows} == {"index.extract": extractor.stats.units}
    provider = extractor.client.runner.provider
    assert isinstance(provider, ScriptedProvider)
    assert "Norwegian" in provider.requests[0].messages[0]["content"]
    ws.close()


def test_factory_prefers_the_workspace_client(kit: Any) -> None:
    client = kit.scripted_client(ExtractionResponder())
    assert create_llm_extractor(load_config(None), client).client is client


def test_extraction_max_tokens_leaves_room_and_fits_the_window() -> None:
    assert extraction_max_tokens(LLMConfig(), 1200) == 2400
    assert extraction_max_tokens(LLMConfig(max_output_tokens=4000), 1200) == 4000
    assert extraction_max_tokens(LLMConfig(context_window=4096), 1200) == 4096 - 1200 - 600
    assert extraction_max_tokens(LLMConfig(context_window=2048), 1200) == 1024  # never below the config


def test_workspace_extractor_is_the_llm_extractor(tmp_path: Path, scripted_file: Path) -> None:
    ws = Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        llm={"provider": "scripted", "providers": {"scripted": {"file": str(scripted_file)}}},
        graph={"extractor": "llm"},
    )
    try:
        assert isinstance(ws.components.extractor(), LLMExtractor)
    finally:
        ws.close()
