"""``auto`` with a stored routing policy: the tree picks the pipeline, the trace names the rule, an
unavailable choice falls back, a broken policy fails with one clear line; without one, the heuristics."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor

from kgrag import Workspace
from kgrag.core.errors import KgragError
from kgrag.retrieval.steps.router_policy import POLICY_KEY, question_features

DOCS = ("team-platform.md", "product-kestrel.md", "expense-and-travel-policy.md")
CREATIVE = "Imagine you are the on-call lead: write a handover note about the Kestrel rollout."
FACT = "What is the expense limit for hotels?"


def _policy(creative: str = "bm25", default: str = "rerank") -> str:
    return json.dumps(
        {
            "version": 1,
            "default": default,
            "pipelines": sorted({creative, default}),
            "tree": {
                "feature": "cue_creative",
                "threshold": 0.5,
                "le": {"pipeline": default, "questions": 30},
                "gt": {"pipeline": creative, "questions": 10},
            },
        }
    )


def _store(ws: Workspace, text: str) -> None:
    with ws.store.transaction():
        ws.store.meta.set(POLICY_KEY, text)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    root = tmp_path_factory.mktemp("learned-router")
    docs = root / "docs"
    docs.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    workspace = Workspace.init(root / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    index_with_word_extractor(workspace, [docs])
    yield workspace
    workspace.close()


def test_without_a_policy_auto_keeps_its_heuristics(ws: Workspace) -> None:
    _store(ws, "")
    route = ws.retrieve(FACT, "auto", 5).trace[0]
    assert route.params["decided_by"] == "heuristics" and route.params["route"] in {"local", "multi-hop"}


def test_auto_routes_by_the_stored_policy_and_names_the_rule(ws: Workspace) -> None:
    _store(ws, _policy())
    creative = ws.retrieve(CREATIVE, "auto", 5)
    route = creative.trace[0]
    assert route.params == {
        "route": "learned",
        "label": "learned rule",
        "pipeline": "bm25",
        "decided_by": "policy",
        "reason": "rule: cue_creative > 0.5 → bm25",
    }
    steps = [s.step for s in creative.trace[1:]]
    assert "bm25_search" in steps and "dense_search" not in steps and "rerank" not in steps
    assert creative.items and creative.items == ws.retrieve(CREATIVE, "bm25", 5).items
    fact = ws.retrieve(FACT, "auto", 5).trace
    assert fact[0].params["pipeline"] == "rerank" and fact[0].params["reason"] == "rule: cue_creative ≤ 0.5 → rerank"
    assert "rerank" in [s.step for s in fact[1:]]


def test_a_choice_that_cannot_run_falls_back_to_the_default(ws: Workspace) -> None:
    _store(ws, _policy(creative="community"))  # needs community reports, which this workspace lacks
    route = ws.retrieve(CREATIVE, "auto", 5).trace[0]
    assert route.params["pipeline"] == "rerank" and route.params["reason"] == "rule: cue_creative > 0.5 → community"
    assert "community unavailable" in route.note


def test_a_broken_stored_policy_fails_with_one_line(ws: Workspace) -> None:
    _store(ws, _policy().replace("cue_creative", "shoe_size"))
    with pytest.raises(KgragError, match=r"router\.policy: tree: unknown feature 'shoe_size'"):
        ws.retrieve(FACT, "auto", 5)
    _store(ws, "")


def test_features_at_query_time_need_no_label(ws: Workspace) -> None:
    values = question_features(CREATIVE, ws.components.query_context)
    assert values["cue_creative"] == 1.0 and values["wh_none"] == 1.0
    assert 0.0 <= values["pool_overlap"] <= 1.0 and values["top_agree"] in (0.0, 1.0)
    assert values["graph_entities"] >= 1.0  # "Kestrel" is an entity of the word-extractor graph
    assert values["graph_bridge"] in (0.0, 1.0)
