"""The two kinds read below the workspace honour the workspace's own registry: a prompt schema registered
on one workspace validates that workspace's prompt files and the replies to them, and a vector index
registered on one workspace is what its store and graph build; another workspace sees neither."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel, Field
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.config.store import StoreConfig
from kgrag.core.dense_index import exact_index
from kgrag.core.errors import ConfigError
from kgrag.core.registries import Registries
from kgrag.core.vector_index import AnnParams, VectorIndex
from kgrag.models.llm import ScriptRule
from kgrag.store.sqlite.store import open_sqlite_store
from kgrag.testing import ScriptedProvider
from kgrag.workspace import kinds

BASE_TOML = '[embedding]\nprovider = "fake"\n\n[graph]\nextractor = "none"\n'
TRIAGE_PROMPT = """name = "ticket_triage"
version = "1"
description = "Sort a support ticket into a queue."
output_schema = "ticket_triage_reply"
system = "You sort support tickets. Reply with JSON only."
user = "Ticket: $ticket"
"""


class TicketTriage(BaseModel):
    """The reply the workspace's own prompt asks for."""

    queue: str = Field(pattern=r"^(billing|outage|other)$")
    urgent: bool


def _triage_reply(request: Any) -> str:
    text = request.messages[-1]["content"]
    return json.dumps({"queue": "outage" if "down" in text else "other", "urgent": "down" in text})


def _workspace(tmp_path: Path, name: str, toml: str) -> Path:
    ws_dir = tmp_path / name
    (ws_dir / "prompts").mkdir(parents=True)
    (ws_dir / "kgrag.toml").write_text(toml, encoding="utf-8")
    return ws_dir


def _scripted(registries: Registries) -> ScriptedProvider:
    provider = ScriptedProvider([ScriptRule(r"Ticket:", _triage_reply)])
    kinds.llm_providers(registries).register("triage-script", lambda cfg: provider)
    return provider


def test_a_schema_registered_on_a_workspace_validates_its_prompt_file_and_reply(tmp_path: Path) -> None:
    toml = BASE_TOML + '\n[llm]\nprovider = "triage-script"\nmodel = "m"\n'
    mine, theirs = _workspace(tmp_path, "mine", toml), _workspace(tmp_path, "theirs", toml)
    for ws_dir in (mine, theirs):
        (ws_dir / "prompts" / "ticket_triage.toml").write_text(TRIAGE_PROMPT, encoding="utf-8")
    registries = Registries()
    provider = _scripted(registries)
    kinds.prompt_schemas(registries).register("ticket_triage_reply", TicketTriage)
    with Workspace.open(mine, registries=registries) as ws:
        client = ws.components.llm()
        prompt = client.prompt("ticket_triage")
        assert prompt.source.endswith("prompts/ticket_triage.toml")
        assert prompt.schema_model() is TicketTriage
        assert prompt.json_schema() == TicketTriage.model_json_schema()
        result = client.structured("ticket_triage", {"ticket": "The dashboard is down since 9:00"}, stage="t")
        assert result.value == TicketTriage(queue="outage", urgent=True)
        assert any("queue" in str(r.messages) for r in provider.requests)  # the schema was shown
        judge = ws.eval.judge_factory(None)  # judges resolve the workspace's schemas too
        assert judge.prompt("ticket_triage").schema_model() is TicketTriage
    others = Registries()
    _scripted(others)
    with (
        Workspace.open(theirs, registries=others) as other,
        pytest.raises(ConfigError, match=r"output_schema 'ticket_triage_reply' not found"),
    ):
        other.components.llm().structured("ticket_triage", {"ticket": "Invoice twice"}, stage="t")
    assert "ticket_triage_reply" not in kinds.prompt_schemas(Registries())


class CountingIndexes:
    """A ``vector_index`` factory that builds the exact index and counts what it was asked for."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, ids: list[str], matrix: np.ndarray, params: AnnParams) -> VectorIndex:
        self.calls.append(len(ids))
        return exact_index(ids, matrix, params)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("team-platform.md", "product-kestrel.md"):
        shutil.copy(SAMPLE_DOCS / name, folder / name)
    return folder


def test_a_vector_index_registered_on_a_workspace_is_what_its_store_builds(tmp_path: Path, docs: Path) -> None:
    ws_dir = _workspace(tmp_path, "ws", BASE_TOML + '\n[store]\nvector_index = "counting"\n')
    registries = Registries()
    counting = CountingIndexes()
    kinds.vector_indexes(registries).register("counting", counting)
    with Workspace.open(ws_dir, registries=registries) as ws:
        ws.index([docs])
        hits = ws.retrieve("Who runs the Kestrel platform?", k=3)
    assert hits.items, "the search found nothing"
    assert counting.calls and counting.calls[0] > 0
    with pytest.raises(ConfigError, match=r"store\.vector_index"):
        Workspace.open(ws_dir)  # another workspace does not know the index
    assert "counting" not in kinds.vector_indexes(Registries())


def test_a_plugin_store_factory_receives_the_workspace_vector_indexes(tmp_path: Path) -> None:
    """The store factory signature is unchanged: the registry arrives inside the config it is handed."""
    ws_dir = _workspace(tmp_path, "ws", BASE_TOML + '\n[store]\nbackend = "mine"\nvector_index = "counting"\n')
    registries = Registries()
    counting = CountingIndexes()
    kinds.vector_indexes(registries).register("counting", counting)
    handed: list[StoreConfig] = []

    def factory(config: StoreConfig, workspace: Path) -> Any:
        handed.append(config)
        return open_sqlite_store(config, workspace)

    kinds.stores(registries).register("mine", factory)
    with Workspace.open(ws_dir, registries=registries) as ws:
        assert ws.store is not None
    index = handed[0].ann_params().indexes
    assert index is not None and index.load("counting") is counting
    assert StoreConfig().ann_params().indexes is None  # a config nobody handed a registry to
