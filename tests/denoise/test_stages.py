"""``resolve`` and ``reflect`` as registered indexing stages: in the ``denoised`` pipeline, resumable
(an unchanged re-run does nothing), and re-indexing keeps merged identities."""

from __future__ import annotations

from pathlib import Path

from kgrag import Workspace
from kgrag.core.builtins import new_registry
from kgrag.indexing import IndexReport
from kgrag.indexing.stages.reflect import ReflectReport
from kgrag.indexing.stages.resolve import ResolveReport

DOCS = {
    "a.txt": "Acme Robotics builds robots in Oslo. Acme Robotics employs Maria Lopez.",
    "b.txt": "ACME Robotics opened a lab in Oslo. Maria Lopez leads the lab.",
}


def _index(ws: Workspace, root: Path) -> IndexReport:
    return ws.index([root], pipeline="denoised")


def test_stages_are_registered_and_named_in_the_denoised_pipeline() -> None:
    stages = new_registry("stage")
    assert "resolve" in stages and "reflect" in stages
    assert list(new_registry("index_pipeline").load("denoised")[3:6]) == ["extract", "resolve", "reflect"]


def test_denoised_pipeline_resolves_once_and_resumes_for_free(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    denoise = {
        "ego_text": "name",
        "blocker": "none",
        "threshold": 0.0,
        "groupers": {"greedy": {"anchor_floor": -1.0}},
        "target_reduction": 0.2,
    }
    with Workspace.init(
        tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "nlp"}, denoise=denoise
    ) as ws:
        report = _index(ws, root)
        runs = ws.denoise.runs()
        assert [r.status for r in runs] == ["applied", "applied"]  # one resolve run, one reflect run
        resolved, reflected = report.stages["resolve"], report.stages["reflect"]
        assert isinstance(resolved, ResolveReport) and isinstance(reflected, ReflectReport)
        assert {resolved.run_id, reflected.run_id} == {r.id for r in runs} and resolved.counts
        entities = ws.graph.counts()["entities"]
        again = _index(ws, root)
        assert "resolve" not in again.stages and "reflect" not in again.stages
        assert len(ws.denoise.runs()) == 2  # unchanged graph: both stages skipped
        assert ws.graph.counts()["entities"] == entities
        (root / "c.txt").write_text("Maria Lopez visited Oslo again.", encoding="utf-8")
        _index(ws, root)
        aliases = ws.store.denoise.aliases()
        keys = {e.key for e in ws.store.graph.entities()}
        assert not (set(aliases) & keys)  # no merged-away key came back with the new document
