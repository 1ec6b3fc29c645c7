"""Fixtures of the streaming and conversation tests: the sample corpus indexed once (hashing embedder, no
graph), and a workspace over it whose LLM is the fake OpenAI server answering with cited sentences."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.answer_responder import answer_responder
from kgrag.testing.workspace_toml import write_workspace_toml


@pytest.fixture(scope="session")
def indexed_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus indexed once with the hashing embedder and no graph (copied per test)."""
    path = tmp_path_factory.mktemp("conv") / "ws"
    Workspace.init(path).close()
    write_workspace_toml(path, {"embedding.provider": '"fake"', "graph.extractor": '"none"'})
    with Workspace.open(path) as ws:
        ws.index([SAMPLE_DOCS])
    return path


@pytest.fixture
def llm_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(answer_responder) as server:
        yield server


def llm_workspace(source: Path, target: Path, base_url: str, **extra: str) -> Path:
    """A copy of ``source`` whose LLM is the OpenAI-compatible server at ``base_url``."""
    shutil.copytree(source, target)
    lines = {
        "embedding.provider": '"fake"',
        "graph.extractor": '"none"',
        "llm.provider": '"openai"',
        "llm.providers.openai.base_url": f'"{base_url}"',
        "llm.model": '"fake-model"',
        # the tests count the answer's own requests: no examples probe (tests/llm/test_prompt_size_probe.py)
        "llm.prompt_examples": '"always"',
        **extra,
    }
    return write_workspace_toml(target, lines)


@pytest.fixture
def llm_ws(indexed_sample: Path, tmp_path: Path, llm_server: FakeOpenAIServer) -> Path:
    return llm_workspace(indexed_sample, tmp_path / "llm-ws", llm_server.base_url)
