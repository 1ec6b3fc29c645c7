"""Distinct identifiers never merge on similarity alone, and a dry run writes nothing to the database.

The graph is shaped like the LLM-free graph of an API reference (Python's ``shutil`` and ``warnings``
pages): function names one word part apart, keyword arguments with different values, versions.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tests.helpers import add_document
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.core.records import DocumentStatus
from kgrag.denoise.identifiers import code_like, distinct_identifiers, same_identifier
from kgrag.denoise.resolve import keep_identifiers_apart
from kgrag.denoise.types import Group, ResolutionGraph
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import ExtractiveSummarizer

MakeWs = Callable[..., Workspace]
API_TEXTS = [
    "shutil.copystat(src, dst) copies the permission bits, times and flags from src to dst.",
    "shutil.copymode(src, dst) copies the permission bits from src to dst.",
    "warnings.warn(message, stacklevel=2) reports the caller of the function that warns.",
    "With stacklevel=1 the warning points at the line that called warn itself.",
    "These functions are available in Python 3.11 and Python 3.12.",
]
# (key, name, chunk) — every entity a "function"/"parameter"/"version" so the ego texts look alike.
API_ENTITIES = [
    ("copystat", "copystat", 0),
    ("shutil.copystat", "shutil.copystat", 0),
    ("copymode", "copymode", 1),
    ("stacklevel=2", "stacklevel=2", 2),
    ("stacklevel=1", "stacklevel=1", 3),
    ("python 3.11", "Python 3.11", 4),
    ("python 3.12", "Python 3.12", 4),
]
# Everything is a candidate: the similarity guards are off, so only the identifier rule can keep names apart.
LOOSE: dict[str, object] = {"ego_text": "name_type", "blocker": "none", "threshold": -1.0}
LOOSE |= {"groupers": {"greedy": {"anchor_floor": -1.0, "max_group": 20}}}
LOOSE |= {"target_reduction": 0.9, "reflection": "none", "candidates": 10}


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("copystat", "copymode"),
        ("stacklevel=2", "stacklevel=1"),
        ("Python 3.11", "Python 3.12"),
        ("Type 1 diabetes", "Type 2 diabetes"),
        ("os.path", "sys.path"),
        ("follow_symlinks", "follow_links"),
        ("copyMode", "copyStat"),
        ("metformin", "glipizide"),
    ],
)
def test_distinct_identifiers_are_told_apart(a: str, b: str) -> None:
    assert distinct_identifiers(a, b) and distinct_identifiers(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("shutil.copystat", "copystat"),
        ("copystat()", "Copystat"),
        ("`stacklevel=2`", "stacklevel = 2"),
        ("sensor", "sensors"),
        ("Kestrel", "kestrel"),
    ],
)
def test_spellings_of_one_identifier_are_the_same(a: str, b: str) -> None:
    assert same_identifier(a, b) and not distinct_identifiers(a, b)


PROSE_PAIRS = [("diabetes", "diabetes mellitus"), ("Aisha Okafor", "A. Okafor"), ("LLM", "LLMs")]


@pytest.mark.parametrize(("a", "b"), PROSE_PAIRS)
def test_prose_names_are_left_to_similarity(a: str, b: str) -> None:
    assert not distinct_identifiers(a, b)


def test_code_marks() -> None:
    assert all(map(code_like, ["stacklevel=2", "copystat()", "os.path", "follow_symlinks", "3.11", "copyMode"]))
    assert not any(map(code_like, ["copystat", "Dr. Smith", "Águas do Tejo", "on-call rotation"]))


def _api_ws(tmp_path: Path) -> Workspace:
    ws = Workspace.init(tmp_path / "api", embedding={"provider": "fake"}, graph={"extractor": "none"}, denoise=LOOSE)
    chunks = add_document(ws.store, "api", API_TEXTS, DocumentStatus.EMBEDDED)
    kinds = {0: "function", 1: "function", 2: "parameter", 3: "parameter", 4: "version"}
    mentions = [EntityMention(key, chunks[c], name, kinds[c], API_TEXTS[c]) for key, name, c in API_ENTITIES]
    ws.store.graph.add_entity_mentions(mentions)
    ws.store.graph.add_relation_mentions(
        [RelationMention("copystat", "copymode", chunks[1], "related_to", "Both copy permission bits.")]
    )
    recompute_stale(ws.store, ExtractiveSummarizer(max_tokens=60))
    return ws


def test_the_plan_merges_no_two_distinct_identifiers(tmp_path: Path) -> None:
    with _api_ws(tmp_path) as ws:
        report, _ = ws.denoise.plan(reflect=False)
    merged = [{sample.canonical, *sample.aliases} for sample in report.merges]
    assert merged == [{"copystat", "shutil.copystat"}]  # the one pair that spells one identifier
    assert report.counts["resolve"]["refused_identifier"] > 0


def test_a_chain_through_a_prose_name_is_split() -> None:
    names = ["file metadata", "copystat", "copymode", "copystat()"]
    graph = ResolutionGraph(names, names, names, ["concept"] * 4, np.array([5, 3, 2, 1]), np.zeros((4, 2)), [])
    groups, dropped = keep_identifiers_apart(graph, [Group(canonical=0, members=[0, 1, 2, 3], score=0.9)])
    # copymode clashes with copystat; "copystat()" is code-like, so it joins only its own spellings
    assert [g.members for g in groups] == [[0, 1]] and dropped == 2


def _fingerprint(ws_path: Path) -> tuple[str, dict[str, int]]:
    """The database file's bytes and every table's row count, read without opening a workspace."""
    database = ws_path / "kgrag.sqlite3"
    db = sqlite3.connect(f"file:{database}?immutable=1", uri=True)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {t: int(db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]) for t in tables}
    finally:
        db.close()
    return hashlib.sha256(database.read_bytes()).hexdigest(), counts


def test_a_dry_run_writes_nothing_to_the_database(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"ego_text": "name_type", "reflection": "provenance"})  # ego vectors not stored yet
    ws.components.embedder().embed(["the model is recorded, as indexing leaves it"])
    path = ws.path
    ws.close()
    before = _fingerprint(path)
    env = {"KGRAG_EMBEDDING__PROVIDER": "fake", "KGRAG_DENOISE__EGO_TEXT": "name_type"}  # as the workspace was made
    result = CliRunner().invoke(app, ["graph", "denoise", "--dry-run", "-w", str(path)], env=env)
    assert result.exit_code == 0, result.output
    assert "Denoising plan" in result.output
    assert _fingerprint(path) == before
    with Workspace.open(path, embedding={"provider": "fake"}, denoise={"ego_text": "name_type"}) as ws:
        report, _ = ws.denoise.plan()
        assert report.counts["resolve"]["merged_away"] == 2  # the plan had merges to show: LLM/LLM, Paris/Paris
    assert _fingerprint(path) == before
