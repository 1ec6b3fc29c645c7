"""Names that differ by a contrast (a negation, or a pair of opposite words) are never merged, not even
through a third name; spelling and modifier variants still are.

The names are shaped like the LLM-free graph of OWASP's security cheat sheets, where embeddings put
"correct password" next to "incorrect password" and "client-side encryption" next to "server-side
encryption".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.helpers import add_document

from kgrag import Workspace
from kgrag.config.denoise import DenoiseConfig
from kgrag.core.graph_records import EntityMention
from kgrag.core.records import DocumentStatus
from kgrag.denoise.contrasts import contrasting_names
from kgrag.denoise.grouping import group_pairs
from kgrag.denoise.resolve import keep_apart
from kgrag.denoise.types import Group, Pair, ResolutionGraph
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import ExtractiveSummarizer

OPPOSED = [
    ("incorrect password", "correct password"),
    ("unsafe object deserialization", "safe deserialization"),
    ("Public Key Infrastructure", "Private Key Infrastructure"),
    ("Client-side encryption", "server-side encryption"),
    ("side's private key", "side’s public key"),
    ("trusted networks", "untrusted networks"),
    ("secure configuration", "insecure configuration"),
    ("valid session ID", "invalid session ID values"),
    ("external attack", "internal attacker"),
    ("correct syntax", "bad syntax"),
    ("file upload", "file downloads"),
    ("non-repudiation service", "repudiation service"),
    ("allowlist validation", "denylist validation"),
    ("data encryption", "data decryption"),
]
VARIANTS = [
    ("password", "passwords"),
    ("strong password", "password"),
    ("Client side encryption", "client-side encryption"),
    ("Public Key Infrastructure", "public key infrastructure"),
    ("non-repudiation", "nonrepudiation"),
    ("PostgreSQL", "Postgres"),
    ("public/private key pair", "private key"),
    ("request and response", "HTTP requests"),
    ("information", "formation"),
]


@pytest.mark.parametrize(("a", "b"), OPPOSED)
def test_opposite_names_contrast(a: str, b: str) -> None:
    assert contrasting_names(a, b) and contrasting_names(b, a)


@pytest.mark.parametrize(("a", "b"), VARIANTS)
def test_variants_and_modifiers_do_not_contrast(a: str, b: str) -> None:
    assert not contrasting_names(a, b)


def _graph(names: list[str]) -> ResolutionGraph:
    mentions = np.arange(len(names), 0, -1)
    return ResolutionGraph(names, names, names, ["concept"] * len(names), mentions, np.zeros((len(names), 2)), [])


def test_the_grouper_refuses_joining_opposites_through_a_third_name() -> None:
    graph = _graph(["password", "correct password", "incorrect password", "passwords"])
    pairs = [Pair(0, 3, 0.99), Pair(0, 1, 0.95), Pair(0, 2, 0.93), Pair(1, 2, 0.92)]
    config = DenoiseConfig(threshold=0.5, target_reduction=0.9, groupers={"greedy": {"anchor_floor": -1.0}})
    groups, refused = group_pairs(graph, graph.vectors, pairs, config)
    # the weaker link (to "incorrect password") is the one left out; the plural still merges
    assert [g.members for g in groups] == [[0, 1, 3]]
    assert refused["refused_contrast"] == 2


def test_a_group_from_any_grouper_is_split() -> None:
    graph = _graph(["side encryption", "client-side encryption", "server-side encryption", "side-encryption"])
    groups, dropped = keep_apart(
        graph,
        [Group(canonical=0, members=[0, 1, 2, 3], score=0.9)],
        lambda a, b: contrasting_names(graph.names[a], graph.names[b]),
    )
    assert [g.members for g in groups] == [[0, 1, 3]] and dropped == 1


PLAN_NAMES = [
    "correct password",
    "incorrect password",
    "Public Key Infrastructure",
    "Private Key Infrastructure",
    "public key infrastructure",
    "client-side encryption",
    "Client side encryption",
    "side encryption",
    "server-side encryption",
    "valid session ID",
    "invalid session ID",
    "HTTP session cookie",
    "HTTP session cookies",
]


def add_plan_names(ws: Workspace) -> None:
    """One passage and one entity (its own key) per name of :data:`PLAN_NAMES`, aggregated."""
    chunks = add_document(ws.store, "owasp", [f"About {n}." for n in PLAN_NAMES], DocumentStatus.EMBEDDED)
    mentions = [
        EntityMention(n.casefold() + f"#{i}", c, n, "concept", "")
        for i, (n, c) in enumerate(zip(PLAN_NAMES, chunks, strict=True))
    ]
    ws.store.graph.add_entity_mentions(mentions)
    recompute_stale(ws.store, ExtractiveSummarizer(max_tokens=60))


def test_the_plan_merges_no_opposites_and_keeps_the_variants(tmp_path: Path) -> None:
    loose = {"ego_text": "name_type", "blocker": "none", "threshold": 0.7, "target_reduction": 0.9}
    loose |= {"reflection": "none", "candidates": 10, "groupers": {"greedy": {"anchor_floor": -1.0}}}
    ws = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}, denoise=loose)
    with ws:
        add_plan_names(ws)
        report, _ = ws.denoise.plan(reflect=False)
    merged = [{sample.canonical, *sample.aliases} for sample in report.merges]
    for group in merged:
        assert not any(contrasting_names(a, b) for a in group for b in group), group
    assert {"Public Key Infrastructure", "public key infrastructure"} in merged
    assert {"HTTP session cookie", "HTTP session cookies"} in merged
    assert any({"client-side encryption", "Client side encryption"} <= group for group in merged)
    assert report.counts["resolve"]["refused_contrast"] > 0
