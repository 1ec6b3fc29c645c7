"""Fixtures of the community tests: small workspaces whose graphs have known groups.

Graphs come from :class:`tests.graph.graph_fakes.WordExtractor` (capitalised words are entities,
neighbours in a sentence are related), so a document like ``cluster_text(["Alpha", "Bravo", ...])``
is one tightly connected group, and groups in different documents are separate components.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor

from kgrag import Workspace
from kgrag.config import LLMConfig, load_config
from kgrag.core.llm_types import ChatRequest
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule
from kgrag.store import open_store
from kgrag.workspace.components import Components

GROUPS = {
    "alpha": ["Alpha", "Bravo", "Charlie", "Delta", "Echo"],
    "metro": ["Mercury", "Venus", "Earth", "Mars", "Jupiter"],
    "river": ["Rhine", "Danube", "Volga", "Thames", "Seine"],
}


def cluster_text(names: list[str]) -> str:
    """Every pair of names shares a sentence, so the group is a clique (weights from repeats)."""
    lines = [
        f"{a} works closely with {b.lower()}ish {b} on the shared plan." for a, b in itertools.combinations(names, 2)
    ]
    return "\n\n".join(lines) + "\n"


def write_groups(directory: Path, groups: dict[str, list[str]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for name, members in groups.items():
        (directory / f"{name}.md").write_text(cluster_text(members), encoding="utf-8")
    return directory


def index_docs(ws: Workspace, docs: Path) -> None:
    """Chunks, fake vectors and the WordExtractor graph of ``docs`` (standard pipeline)."""
    index_with_word_extractor(ws, [docs])


SUBSET = 12


def sample_subset(directory: Path, count: int = SUBSET) -> Path:
    """The first ``count`` sample documents (enough for a multi-level hierarchy, quick to index)."""
    directory.mkdir(parents=True, exist_ok=True)
    for path in sorted(SAMPLE_DOCS.glob("*.md"))[:count]:
        shutil.copy(path, directory / path.name)
    return directory


_LABEL = re.compile(r"\[([ERC]\d+)\]")


def report_reply(request: ChatRequest) -> str:
    """A valid community report citing the first two labels of the material."""
    user = next(m["content"] for m in request.messages if m["role"] == "user")
    labels = _LABEL.findall(user)[:2]
    title = " ".join(re.findall(r"\] ([A-Z][a-z]+)", user)[:2]) or "Group"
    return json.dumps(
        {
            "title": f"{title} group",
            "summary": f"A group about {title}.",
            "findings": [{"summary": f"{title} matters.", "explanation": "Because.", "refs": [*labels, "Z99"]}],
            "rating": 6,
        }
    )


def map_reply(request: ChatRequest) -> str:
    user = next(m["content"] for m in request.messages if m["role"] == "user")
    labels = re.findall(r"\[(R\d+)\]", user)
    points = [
        {"point": f"Theme from {label}.", "score": 80 - i * 30, "reports": [label]} for i, label in enumerate(labels)
    ]
    return json.dumps({"points": points})


def scripted_provider(**replies: Any) -> ScriptedProvider:
    """Answers report, map and reduce prompts (override any with a reply text or function)."""
    return ScriptedProvider(
        [
            ScriptRule("briefing note on one group", replies.get("report", report_reply)),
            ScriptRule("broad question about a document collection from summaries", replies.get("map", map_reply)),
            ScriptRule("analysts extracted", replies.get("reduce", "The main themes are planets and rivers [R1].")),
        ]
    )


WorkspaceMaker = Callable[..., Workspace]


@pytest.fixture(scope="session")
def sample_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the first sample documents, shared read-only by the tests of this package."""
    return sample_subset(tmp_path_factory.mktemp("community-sample"))


@pytest.fixture
def make_ws(tmp_path: Path) -> Iterator[WorkspaceMaker]:
    """``make_ws(provider=None, **config)``: a workspace with the fake embedder; with a provider, its
    LLM client answers through it (cache and ledger in the store)."""
    opened: list[Workspace] = []

    def make(provider: ScriptedProvider | None = None, name: str = "ws", **overrides: Any) -> Workspace:
        path = tmp_path / name
        Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"}).close()
        llm = {"provider": "scripted", **overrides.pop("llm", {})} if provider is not None else {}
        config = load_config(path, embedding={"provider": "fake"}, graph={"extractor": "none"}, llm=llm, **overrides)
        store = open_store(config.store, path)
        factory = None
        if provider is not None:
            cfg: LLMConfig = config.llm
            factory = lambda: create_llm_client(cfg, store, provider=provider)  # noqa: E731
        ws = Workspace(Components(path, config, store, llm_factory=factory))
        opened.append(ws)
        return ws

    yield make
    for ws in opened:
        ws.close()
