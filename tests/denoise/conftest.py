"""A workspace with a small graph holding known duplicates: ``LLM``/``LLM`` and ``Paris``/``Paris``
(same names under different keys, as LightRAG imports give ``#2`` suffixes), so ego vectors of the
entity *names* are identical whatever the embedder, and the fake hashing embedder is enough."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.helpers import add_document

from kgrag import Workspace
from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.core.records import DocumentStatus
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import ExtractiveSummarizer

GRAPH_TABLES = ("entities", "entity_mentions", "relations", "relation_mentions")
TEXTS = [
    "The LLM runs on a GPU in Paris.",
    "An LLM was trained on text. Paris hosts the lab.",
    "Oslo is cold. The GPU is hot.",
]


def build_graph(ws: Workspace) -> None:
    chunks = add_document(ws.store, "d", TEXTS, DocumentStatus.EMBEDDED)
    ws.store.graph.add_entity_mentions(
        [
            EntityMention("llm", chunks[0], "LLM", "technology", "A language model."),
            EntityMention("gpu", chunks[0], "GPU", "technology", "A chip."),
            EntityMention("paris", chunks[0], "Paris", "location", "A city."),
            EntityMention("llm#2", chunks[1], "LLM", "technology", "A model trained on text."),
            EntityMention("paris#2", chunks[1], "Paris", "location", "Hosts the lab."),
            EntityMention("oslo", chunks[2], "Oslo", "location", "A cold city."),
            EntityMention("gpu", chunks[2], "GPU", "technology", ""),
        ]
    )
    ws.store.graph.add_relation_mentions(
        [
            RelationMention("llm", "gpu", chunks[0], "runs_on", "The LLM runs on a GPU."),
            RelationMention("gpu", "paris", chunks[0], "located_in", "The GPU is in Paris."),
            RelationMention("llm#2", "paris#2", chunks[1], "trained_in", "Trained in Paris."),
            RelationMention("llm#2", "oslo", chunks[1], "related_to", "Nothing says so."),
            RelationMention("oslo", "gpu", chunks[2], "related_to", "Oslo and the GPU."),
        ]
    )
    recompute_stale(ws.store, ExtractiveSummarizer(max_tokens=60))


DENOISE = {"ego_text": "name", "blocker": "none", "threshold": 0.99, "target_reduction": 0.4}
DENOISE |= {"groupers": {"greedy": {"anchor_floor": 0.99}}}


@pytest.fixture
def make_ws(tmp_path: Path) -> Iterator[Callable[..., Workspace]]:
    opened: list[Workspace] = []

    def make(**overrides: object) -> Workspace:
        denoise = {**DENOISE, **overrides.pop("denoise", {})}  # type: ignore[dict-item]
        ws = Workspace.init(
            tmp_path / f"ws{len(opened)}",
            embedding={"provider": "fake"},
            graph={"extractor": "none"},
            denoise=denoise,
            **overrides,
        )
        opened.append(ws)
        build_graph(ws)
        return ws

    yield make
    for ws in opened:
        ws.close()


def dump(ws: Workspace) -> dict[str, list[tuple[object, ...]]]:
    """Every graph table, every column, rowids included."""
    db = ws.store.db  # type: ignore[attr-defined]
    return {t: [tuple(r) for r in db.query(f"SELECT rowid, * FROM {t} ORDER BY rowid")] for t in GRAPH_TABLES}


def scripted_file(path: Path, rules: list[tuple[str, str]]) -> Path:
    path.write_text("\n".join(json.dumps({"match": m, "response": r}) for m, r in rules) + "\n", encoding="utf-8")
    return path
