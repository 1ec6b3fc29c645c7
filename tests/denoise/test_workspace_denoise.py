"""``ws.denoise`` end to end: dry run changes nothing, apply merges and logs, undo restores the graph
tables byte for byte, re-indexing keeps merged identities, and undo refuses to lose later changes."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from tests.denoise.conftest import dump
from tests.helpers import add_document

from kgrag import Workspace
from kgrag.core.errors import KgragError
from kgrag.core.graph_ids import entity_id_for_key
from kgrag.core.graph_records import EntityMention
from kgrag.core.records import DocumentStatus

MakeWs = Callable[..., Workspace]


def test_dry_run_writes_the_plan_and_changes_nothing(make_ws: MakeWs) -> None:
    ws = make_ws()
    before = dump(ws)
    report, path = ws.denoise.plan()
    assert dump(ws) == before and ws.denoise.runs() == []
    plan = json.loads(path.read_text())
    assert {(m["canonical"], tuple(m["aliases"])) for m in plan["merges"]} == {("LLM", ("LLM",)), ("Paris", ("Paris",))}
    assert report.counts["resolve"]["merged_away"] == 2
    assert "relations_judged" in report.counts["reflect"]
    assert "Denoising plan" in report.markdown()


def test_apply_merges_logs_and_undo_restores_byte_identical_tables(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"reflection": "provenance"})
    before = dump(ws)
    report, log = ws.denoise.apply()
    assert ws.graph.counts()["entities"] == 4  # llm, gpu, paris, oslo
    assert report.counts["resolve"]["entities_merged_away"] == 2
    assert report.before is not None and report.after is not None and report.after.nodes == 4
    merge_log = json.loads(log.read_text())["merge_log"]
    assert {m["alias_key"] for m in merge_log} == {"llm#2", "paris#2"}
    # "llm—oslo" is stated in no sentence and has one chunk: provenance reflection drops it
    dropped = {(d.source, d.target) for d in report.drops}
    assert dropped == {("LLM", "Oslo")}
    assert dump(ws) != before
    run = ws.denoise.undo()
    assert run.status == "undone"
    assert dump(ws) == before
    assert ws.store.denoise.aliases() == {} and ws.store.denoise.scores() == []
    with pytest.raises(KgragError, match="nothing to undo"):
        ws.denoise.undo()


def test_reindexing_keeps_merged_identities(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"reflection": "none"})
    ws.denoise.apply()
    chunk = add_document(ws.store, "e", ["The LLM again."], DocumentStatus.EMBEDDED)[0]
    ws.store.graph.add_entity_mentions([EntityMention("llm#2", chunk, "LLM", "technology", "Again.")])
    keys = {e.key for e in ws.store.graph.entities()}
    assert "llm#2" not in keys
    canonical = next(e for e in ws.store.graph.entities() if e.key in {"llm", "llm#2"})
    assert canonical.id in {entity_id_for_key("llm"), entity_id_for_key("llm#2")}


def test_undo_refuses_to_lose_later_changes_unless_forced(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"reflection": "none"})
    before = dump(ws)
    ws.denoise.apply()
    chunk = add_document(ws.store, "e", ["Rome."], DocumentStatus.EMBEDDED)[0]
    ws.store.graph.add_entity_mentions([EntityMention("rome", chunk, "Rome", "location", "")])
    with pytest.raises(KgragError, match="--force"):
        ws.denoise.undo()
    ws.denoise.undo(force=True)
    assert dump(ws) == before


def test_second_run_does_not_shrink_the_graph_again(make_ws: MakeWs) -> None:
    ws = make_ws(
        denoise={
            "reflection": "none",
            "threshold": 0.0,
            "groupers": {"greedy": {"anchor_floor": -1.0}},
            "target_reduction": 0.4,
        }
    )
    ws.denoise.apply()
    assert ws.graph.counts()["entities"] == 6 - int(0.4 * 6)  # every pair may merge: the target stops it
    report, _ = ws.denoise.apply()
    assert report.counts["resolve"]["merged_before"] == 2
    assert ws.graph.counts()["entities"] == 4  # 40% of the 6 extracted entities are already gone


def test_link_mode_keeps_nodes_and_adds_synonym_relations(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"reflection": "none", "merge_mode": "link"})
    ws.denoise.apply()
    assert ws.graph.counts()["entities"] == 6
    labels = {r.label for r in ws.store.graph.relations()}
    assert "same_as" in labels


def test_report_of_a_run(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"reflection": "none"})
    applied, _ = ws.denoise.apply()
    again = ws.denoise.report(applied.run_id)
    assert again.run_id == applied.run_id and len(again.merges) == 2
    assert "Sample merges" in again.markdown()
    with pytest.raises(KgragError, match="no denoising run"):
        ws.denoise.report("nope")


def test_one_undo_restores_the_graph_after_a_kill_between_the_two_transactions(
    make_ws: MakeWs, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolution is committed, then the process dies before reflection's transaction; the next apply resumes
    that run instead of snapshotting the half-applied graph, so a single undo gets back to the start."""
    import kgrag.denoise.runner as runner

    ws = make_ws(denoise={"reflection": "provenance"})
    before = dump(ws)

    def killed(*args: object, **kwargs: object) -> int:
        raise KeyboardInterrupt  # what the process sees of a kill at this point: nothing after it runs

    with monkeypatch.context() as patch:
        patch.setattr(runner, "apply_reflection", killed)
        with pytest.raises(KeyboardInterrupt):
            ws.denoise.apply()
    assert [r.status for r in ws.denoise.runs()] == ["applying"] and dump(ws) != before
    ws.denoise.apply()
    assert [r.status for r in ws.denoise.runs()] == ["applied"]
    ws.denoise.undo()
    assert dump(ws) == before
    with pytest.raises(KgragError, match="nothing to undo"):
        ws.denoise.undo()
