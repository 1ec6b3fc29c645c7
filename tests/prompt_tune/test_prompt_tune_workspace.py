"""`kgrag prompts tune` end to end: on the sample corpus, against the fake OpenAI server, the overrides it
writes load, show in `kgrag prompts list`, and are what the next `kgrag index` sends and records."""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.graph.extract.parse import render_types
from kgrag.prompts import load_prompt
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.workspace_toml import write_workspace_toml

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample" / "docs"
INDEXED = ("team-security.md", "access-policy-gatekeeper.md")
PROPOSAL = {
    "entity_types": ["Water Utility", "person", "team", "sensor!", "Firmware_Release", "a b c d e"],
    "domain": "Internal handbooks, incident reports and customer notes of a water-technology company. $x",
    "language": "English",
}


class Recorder:
    """Responder: answers the proposal prompt with :data:`PROPOSAL`, everything else with the extraction
    rules, and keeps every request body."""

    def __init__(self, propose: bool = True) -> None:
        self.extraction = ExtractionResponder()
        self.bodies: list[dict[str, Any]] = []
        self.propose = propose

    def __call__(self, body: dict[str, Any]) -> str:
        self.bodies.append(body)
        system = body["messages"][0]["content"]
        if self.propose and "set up a knowledge-graph extractor" in system:
            return json.dumps(PROPOSAL)
        return self.extraction.for_server(body)

    def systems(self) -> list[str]:
        return [b["messages"][0]["content"] for b in self.bodies]


@pytest.fixture
def server() -> Iterator[tuple[FakeOpenAIServer, Recorder]]:
    recorder = Recorder()
    with FakeOpenAIServer(recorder) as fake:
        yield fake, recorder


def _workspace(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "ws"
    Workspace.init(path, embedding={"provider": "fake"}).close()
    return write_workspace_toml(
        path,
        {
            "embedding.provider": '"fake"',
            "graph.extractor": '"llm"',
            "graph.extractors.llm.gleaning": "false",
            "communities.reports": '"extractive"',
            "llm.provider": '"openai"',
            "llm.providers.openai.base_url": json.dumps(base_url),
            "llm.model": '"fake-model"',
        },
    )


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _docs(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in INDEXED:
        shutil.copy(SAMPLE / name, docs / name)
    return docs


def test_llm_free_tune_writes_overrides_that_the_next_index_sends_and_records(
    tmp_path: Path, server: tuple[FakeOpenAIServer, Recorder]
) -> None:
    fake, recorder = server
    ws_path = _workspace(tmp_path, fake.base_url)
    result = _cli("prompts", "tune", str(SAMPLE), "--llm", "none", "-w", str(ws_path))
    assert result.exit_code == 0, result.output
    assert recorder.bodies == []  # --llm none sends nothing
    assert "ORG" in result.output and "organization" in result.output  # the NER distribution is shown

    prompts = ws_path / "prompts"
    extract = load_prompt("extract_graph", prompts)
    report = load_prompt("community_report", prompts)
    assert extract.version == f"{load_prompt('extract_graph').version}+tuned.1"
    assert report.version == f"{load_prompt('community_report').version}+tuned.1"
    assert not extract.example_invented and "$language" in report.system
    example_text = extract.example_variables["text"]
    for entity in json.loads(extract.example_reply)["entities"]:  # the example is grounded in its sentence
        assert entity["name"] in example_text
    assert any(example_text in p.read_text(encoding="utf-8") for p in SAMPLE.glob("*.md"))  # a real sentence
    config = tomllib.loads((ws_path / "kgrag.toml").read_text(encoding="utf-8"))["graph"]
    assert config["language"] == "English"
    assert {"person", "organization", "concept"} <= set(config["entity_types"])
    assert config["entity_types"] != load_default_types()

    with Workspace.open(ws_path) as ws:
        assert ws.config.llm.prompts_dir == prompts.resolve()
        ws.index([_docs(tmp_path)])
        calls = [c for c in ws.store.llm_ledger.calls() if c.stage == "index.extract"]
        types_used = {e.type for e in ws.store.graph.entities()}
    assert calls and {c.prompt_version for c in calls} == {extract.version}
    sent = [s for s in recorder.systems() if "You extract a knowledge graph" in s]
    assert sent and all(render_types(config["entity_types"]) in s for s in sent)
    assert all(example_text in s and "Example (from the documents)" in s for s in sent)
    assert types_used <= set(config["entity_types"])


def load_default_types() -> list[str]:
    from kgrag.config import GraphConfig

    return GraphConfig().entity_types


def test_tune_with_the_model_cleans_its_proposal_and_keeps_a_grounded_example(
    tmp_path: Path, server: tuple[FakeOpenAIServer, Recorder]
) -> None:
    fake, recorder = server
    ws_path = _workspace(tmp_path, fake.base_url)
    with Workspace.open(ws_path) as ws:
        ws.index([_docs(tmp_path)])  # tune samples the stored documents when given no paths
        before = len(recorder.bodies)
        result = ws.prompt_tune.tune(_options())
        assert result.llm is not None
        assert result.types == ["water utility", "person", "team", "firmware release", "concept"]
        assert "$x" not in load_prompt("extract_graph", ws_path / "prompts").system.replace("$$x", "")
        assert result.example_origin.startswith("the model's extraction")
        assert ws.config.graph.entity_types == result.types  # applied to the open workspace too
        header = (ws_path / "prompts" / "extract_graph.toml").read_text(encoding="utf-8").splitlines()[:10]
        assert any("model: fake-model; types proposed by: the model" in line for line in header)
        # the same open workspace indexes again with the tuned prompt: every unit is asked afresh
        known = {c.created_at for c in ws.store.llm_ledger.calls()}
        ws.index([tmp_path / "docs"])
        again = [c for c in ws.store.llm_ledger.calls() if c.stage == "index.extract" and c.created_at not in known]
    assert again and {c.prompt_version for c in again} == {"3+tuned.1"}
    assert not any(c.cache_hit for c in again)  # the version and text are in the cache key: nothing stale
    asked = recorder.systems()[before:]
    assert any("set up a knowledge-graph extractor" in s for s in asked)
    extract = load_prompt("extract_graph", ws_path / "prompts")
    reply = json.loads(extract.example_reply)
    assert len(reply["entities"]) >= 2
    assert all(e["name"].casefold() in extract.example_variables["text"].casefold() for e in reply["entities"])
    assert "Internal handbooks" in extract.system


def _options(**kwargs: Any) -> Any:
    from kgrag.graph.tune.run import TuneOptions

    return TuneOptions(**kwargs)


def test_running_tune_again_bumps_the_version_and_list_marks_overrides(
    tmp_path: Path, server: tuple[FakeOpenAIServer, Recorder]
) -> None:
    fake, _ = server
    ws_path = _workspace(tmp_path, fake.base_url)
    docs = _docs(tmp_path)
    for _ in range(2):
        assert _cli("prompts", "tune", str(docs), "--llm", "none", "-w", str(ws_path)).exit_code == 0
    assert load_prompt("extract_graph", ws_path / "prompts").version.endswith("+tuned.2")
    listed = _cli("prompts", "list", "-w", str(ws_path)).output
    rows = {line.split("│")[1].strip(): line for line in listed.splitlines() if line.count("│") > 3}
    assert "tuned" in rows["extract_graph"] and "tuned" in rows["community_report"]
    assert "tuned" not in rows["answer"]


def test_a_hand_written_override_is_kept_unless_forced(
    tmp_path: Path, server: tuple[FakeOpenAIServer, Recorder]
) -> None:
    fake, _ = server
    ws_path = _workspace(tmp_path, fake.base_url)
    prompts = ws_path / "prompts"
    prompts.mkdir()
    mine = (Path(__file__).resolve().parents[2] / "src" / "kgrag" / "prompts" / "extract_graph.toml").read_text()
    (prompts / "extract_graph.toml").write_text(mine.replace('version = "2"', 'version = "2-mine"'))
    docs = _docs(tmp_path)
    refused = _cli("prompts", "tune", str(docs), "--llm", "none", "-w", str(ws_path))
    assert refused.exit_code != 0
    assert "written by hand" in refused.output and "extract_graph.toml" in refused.output
    assert not (prompts / "community_report.toml").exists()  # all or nothing
    listed = _cli("prompts", "list", "-w", str(ws_path)).output
    assert "edited" in listed
    forced = _cli("prompts", "tune", str(docs), "--llm", "none", "--force", "-w", str(ws_path))
    assert forced.exit_code == 0, forced.output
    assert load_prompt("extract_graph", prompts).version == "3+tuned.1"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("name = 'extract_graph'\nversion = ", "not valid TOML"),
        ('name = "extract_graph"\nversion = "2+tuned.1"\n', "missing"),
        (None, "[example] invented must be true or false"),
    ],
)
def test_a_broken_override_file_is_one_clear_line_naming_it(
    tmp_path: Path, server: tuple[FakeOpenAIServer, Recorder], content: str | None, expected: str
) -> None:
    fake, _ = server
    ws_path = _workspace(tmp_path, fake.base_url)
    docs = _docs(tmp_path)
    assert _cli("prompts", "tune", str(docs), "--llm", "none", "-w", str(ws_path)).exit_code == 0
    target = ws_path / "prompts" / "extract_graph.toml"
    if content is None:
        content = target.read_text(encoding="utf-8").replace("invented = false", 'invented = "no"')
    target.write_text(content, encoding="utf-8")
    for command in (["prompts", "list"], ["index", str(docs)]):
        result = _cli(*command, "-w", str(ws_path))
        assert result.exit_code != 0
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, result.output
        assert str(target) in lines[0].replace("\n", "") and expected in lines[0]
        assert "Traceback" not in result.output


def test_an_unusable_proposal_falls_back_to_ner_types_but_the_model_still_writes_the_example(tmp_path: Path) -> None:
    recorder = Recorder(propose=False)  # the extraction rules answer the proposal prompt with no types
    with FakeOpenAIServer(recorder) as fake:
        ws_path = _workspace(tmp_path, fake.base_url)
        with Workspace.open(ws_path) as ws:
            result = ws.prompt_tune.tune(_options(), [_docs(tmp_path)])
    assert result.llm is None and any("unusable" in note for note in result.notes)
    assert result.ner is not None and result.types == result.ner.types(10)
    assert result.example_origin.startswith("the model's extraction")
    header = (ws_path / "prompts" / "extract_graph.toml").read_text(encoding="utf-8")
    assert "spaCy NER labels" in header


def test_example_shipped_keeps_the_invented_examples_and_tunes_the_rest(
    tmp_path: Path, server: tuple[FakeOpenAIServer, Recorder]
) -> None:
    fake, _ = server
    ws_path = _workspace(tmp_path, fake.base_url)
    result = _cli("prompts", "tune", str(_docs(tmp_path)), "--llm", "none", "--example", "shipped", "-w", str(ws_path))
    assert result.exit_code == 0, result.output
    tuned, shipped = load_prompt("extract_graph", ws_path / "prompts"), load_prompt("extract_graph")
    assert tuned.example_invented and tuned.example_reply == shipped.example_reply
    assert tuned.version == "3+tuned.1" and "About these documents" in tuned.system
    assert "$language" in load_prompt("community_report", ws_path / "prompts").system
    bad = _cli("prompts", "tune", "--example", "mine", "-w", str(ws_path))
    assert bad.exit_code == 1 and "--example 'mine'" in bad.output
