"""A store backend, an embedder and an LLM provider added from *outside* kgrag, as a third party would:
one module, entry points in its distribution, and the names in ``kgrag.toml``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.plugin_support import installed_plugin

from kgrag import Workspace
from kgrag.core.errors import ConfigError

PLUGIN = '''
"""A third-party plug-in for kgrag: a store, an embedder and an LLM provider."""

import numpy as np

from kgrag.core.llm_types import ChatResponse
from kgrag.models.embeddings import FakeEmbedder
from kgrag.store.sqlite.store import SQLiteStore

OPENED = []


def open_toy_store(config, workspace):
    """A backend that keeps its file under its own name (a real one would talk to a server)."""
    OPENED.append(workspace)
    return SQLiteStore(workspace / "toy-store.sqlite3")


class ToyEmbedder(FakeEmbedder):
    def __init__(self, cfg):
        super().__init__(dimension=32, window_tokens=128)


class ToyProvider:
    name = "toy-llm"
    available = True

    def __init__(self, cfg):
        self.requests = 0

    def complete(self, request):
        self.requests += 1
        return ChatResponse("The toy provider answered.", "stop", 10, 5)

    def close(self):
        pass
'''

POINTS = {
    "kgrag.stores": {"toy": "toy_backends_plugin:open_toy_store"},
    "kgrag.embedders": {"toy-embed": "toy_backends_plugin:ToyEmbedder"},
    "kgrag.llm_providers": {"toy-llm": "toy_backends_plugin:ToyProvider"},
}


def test_workspace_runs_on_plugin_store_embedder_and_llm(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE_DOCS / "team-platform.md", docs / "team-platform.md")
    config = '[store]\nbackend = "toy"\n[embedding]\nprovider = "toy-embed"\n[llm]\nprovider = "toy-llm"\nmodel = "m"\n'
    with installed_plugin(tmp_path / "site", "toy_backends_plugin", PLUGIN, POINTS):
        import toy_backends_plugin  # type: ignore[import-not-found]

        (tmp_path / "ws").mkdir()
        (tmp_path / "ws" / "kgrag.toml").write_text(config + '[graph]\nextractor = "none"\n')
        with Workspace.open(tmp_path / "ws") as ws:
            report = ws.index([docs])
            response = ws.query("Who leads the Platform team?", pipeline="dense")
            usage = ws.usage.summary()
        assert [tmp_path / "ws"] == toy_backends_plugin.OPENED
        assert (tmp_path / "ws" / "toy-store.sqlite3").is_file()
        assert report.texts_embedded > 0
        assert response.answer.mode == "llm" and "toy provider" in response.answer.text
        assert usage.total.calls == 1


def test_unknown_backend_names_are_config_errors_listing_plugins(tmp_path: Path) -> None:
    expected = r"store\.backend: unknown store backend 'nope'.*sqlite, postgresql, toy"
    with (
        installed_plugin(tmp_path / "site", "toy_backends_plugin", PLUGIN, POINTS),
        pytest.raises(ConfigError, match=expected),
    ):
        Workspace.init(tmp_path / "ws", store={"backend": "nope"})
