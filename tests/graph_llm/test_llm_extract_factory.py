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


def test_the_extract_lines_count_the_llm_calls_answered(scripted_file: Path, tmp_path: Path) -> None:
    """A stage's count moves only when a whole unit is done, minutes apart with a small model on a CPU; its
    progress lines also say how many LLM calls were answered, so a slow run is told from a stuck one."""
    import io

    from rich.console import Console

    from kgrag.cli.progress_lines import LineProgress

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Shale\n\nShale stores telemetry for Kestrel.\n", encoding="utf-8")
    out = io.StringIO()
    ws = Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        llm={"provider": "scripted", "providers": {"scripted": {"file": str(scripted_file)}}},
        graph={"extractor": "llm", "extractors": {"llm": {"gleaning": False}}},
    )
    with ws:
        ws.index([docs], progress=LineProgress(Console(file=out, width=200), interval_s=0.0))
    extract = [line for line in out.getvalue().splitlines() if line.startswith("extract:")]
    assert any(line.endswith("· 1 LLM call answered") for line in extract), extract


def test_a_graph_without_relations_is_said_so_by_index_and_pipelines(tmp_path: Path) -> None:
    """A 0.5B model's graph of a code-review guide had 10 entities and no relation; `kgrag pipelines` said
    "graph (ok)" and the graph pipelines then lost to hybrid without a word."""
    from typer.testing import CliRunner

    from kgrag.cli.app import app
    from kgrag.testing.workspace_toml import write_workspace_toml

    replies = tmp_path / "replies.jsonl"
    only_entities = {"entities": [{"name": "Shale", "type": "product", "description": "Shale stores telemetry."}]}
    replies.write_text(json.dumps({"default": json.dumps({**only_entities, "relations": []})}) + "\n", "utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Shale\n\nShale stores telemetry for Kestrel.\n", encoding="utf-8")
    Workspace.init(tmp_path / "ws").close()
    write_workspace_toml(
        tmp_path / "ws",
        {
            "embedding.provider": '"fake"',
            "graph.extractor": '"llm"',
            "llm.provider": '"scripted"',
            "llm.providers": f'{{ scripted = {{ file = "{replies.as_posix()}" }} }}',
        },
    )
    runner = CliRunner()
    indexed = runner.invoke(app, ["index", str(docs), "-w", str(tmp_path / "ws")])
    assert indexed.exit_code == 0, indexed.output
    assert "the graph has 1 entity and no relation" in indexed.output
    listed = runner.invoke(app, ["pipelines", "-w", str(tmp_path / "ws")])
    assert listed.exit_code == 0, listed.output
    assert "graph (ok, but see below)" in listed.output
    assert listed.output.count("the graph has 1 entity and no relation") == 1


def test_a_chunk_that_fails_again_is_said_to_need_more_than_a_rerun(tmp_path: Path) -> None:
    """A 0.5B model answered one unit with the worked example, run after run: "run the same command again
    to finish" never finished. The second failure says that re-running alone may not help, and what can."""
    from kgrag.core.progress import SilentProgress

    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"default": "I cannot help with that."}) + "\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Shale\n\nShale stores telemetry for Kestrel.\n", encoding="utf-8")
    ws = Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        llm={"provider": "scripted", "providers": {"scripted": {"file": str(replies)}}},
        graph={"extractor": "llm", "extractors": {"llm": {"gleaning": False}}},
    )
    with ws:
        first, second = SilentProgress(), SilentProgress()
        ws.index([docs], progress=first)
        ws.index([docs], progress=second)
    failed = [n for n in first.notes if "failed graph extraction" in n]
    assert failed and "previous run too" not in failed[0]
    again = next(n for n in second.notes if "failed graph extraction" in n)
    assert "1 of them had failed on the previous run too" in again and "kgrag prompts tune" in again


def test_a_model_that_copies_the_example_run_after_run_is_pointed_to_prompt_examples(tmp_path: Path) -> None:
    """The 0.5B model copied the worked example for the same units on every run; without examples it
    extracted them. The second failure names llm.prompt_examples."""
    from kgrag.core.progress import SilentProgress
    from kgrag.prompts import load_prompt

    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"default": load_prompt("extract_graph").example_reply}) + "\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Shale\n\nShale stores telemetry for Kestrel.\n", encoding="utf-8")
    ws = Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        llm={"provider": "scripted", "providers": {"scripted": {"file": str(replies)}}},
        graph={"extractor": "llm", "extractors": {"llm": {"gleaning": False}}},
    )
    with ws:
        first, second = SilentProgress(), SilentProgress()
        ws.index([docs], progress=first)
        ws.index([docs], progress=second)
    assert not any("prompt_examples" in n for n in first.notes)
    again = next(n for n in second.notes if "failed graph extraction" in n)
    assert 'llm.prompt_examples = "auto"' in again


def test_status_names_the_failed_chunks_of_a_graph_left_empty(tmp_path: Path) -> None:
    """The LLM server stopped during the first extraction: `kgrag status` said "graph empty" and nothing
    about the failed chunks or the documents left short of indexed."""
    from typer.testing import CliRunner

    from kgrag.cli.app import app
    from kgrag.testing.workspace_toml import write_workspace_toml

    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"default": "I cannot help with that."}) + "\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Shale\n\nShale stores telemetry for Kestrel.\n", encoding="utf-8")
    Workspace.init(tmp_path / "ws").close()
    write_workspace_toml(
        tmp_path / "ws",
        {
            "embedding.provider": '"fake"',
            "graph.extractor": '"llm"',
            "llm.provider": '"scripted"',
            "llm.providers": f'{{ scripted = {{ file = "{replies.as_posix()}" }} }}',
        },
    )
    runner = CliRunner()
    indexed = runner.invoke(app, ["index", str(docs), "-w", str(tmp_path / "ws")])
    assert indexed.exit_code == 3, indexed.output
    shown = runner.invoke(app, ["status", "-w", str(tmp_path / "ws")])
    assert shown.exit_code == 0, shown.output
    assert "empty · 1 chunk failed extraction" in shown.output
    assert "1 of 1 documents are not fully indexed (graph extraction failed for 1 of their chunks)" in shown.output
