"""LLM triple reflection and merge confirmation through the scripted provider, malformed replies
included: a reply that cannot be read never drops a relation or merges a group."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.denoise.conftest import scripted_file

from kgrag import Workspace
from kgrag.core.errors import ConfigError

MakeWs = Callable[..., Workspace]
REFLECT = "Relations:"
CONFIRM = "Entities:"


def _llm(tmp_path: Path, rules: list[tuple[str, str]]) -> dict[str, object]:
    return {
        "provider": "scripted",
        "model": "scripted",
        "providers": {"scripted": {"file": str(scripted_file(tmp_path / "s.jsonl", rules))}},
    }


def _scores(*items: object) -> str:
    return json.dumps({"scores": list(items)})


def test_llm_reflection_drops_low_scores_and_keeps_what_it_cannot_read(make_ws: MakeWs, tmp_path: Path) -> None:
    # 5 relations in one batch: 1 sound, 2 nonsense, 3 score out of range (invalid item), 4 missing, 5 garbage id
    reply = _scores(
        {"id": 1, "score": 0.9, "reason": "stated"},
        {"id": 2, "score": 0.05, "reason": "no such link"},
        {"id": 3, "score": 1.7, "reason": "bad"},
        {"id": "five", "score": 0.0},
    )
    ws = make_ws(llm=_llm(tmp_path, [(REFLECT, reply)]), denoise={"reflection": "llm"})
    report, _ = ws.denoise.apply(resolve=False)
    scores = ws.store.denoise.scores(report.run_id)
    assert len(scores) == 5
    judged = {s.relation_id: s for s in scores if s.score >= 0}
    assert len(judged) == 2
    assert [s.reason for s in scores if s.dropped] == ["no such link"]
    assert sum(s.reason.startswith("not judged") for s in scores) == 3
    assert ws.graph.counts()["relations"] == 4
    stages = {c.stage for c in ws.store.llm_ledger.calls()}
    assert stages == {"index.reflect"}


def test_llm_reflection_with_an_unreadable_reply_drops_nothing(make_ws: MakeWs, tmp_path: Path) -> None:
    ws = make_ws(llm=_llm(tmp_path, [(REFLECT, "I think they are all fine!")]), denoise={"reflection": "llm"})
    relations = ws.graph.counts()["relations"]
    report, _ = ws.denoise.apply(resolve=False)
    assert ws.graph.counts()["relations"] == relations
    assert report.counts["reflect"]["relations_unjudged"] == relations
    assert report.counts["reflect"]["relations_dropped"] == 0
    assert len(ws.store.llm_ledger.calls()) == 2  # the first reply and the one re-ask


def test_llm_confirmation_rejects_and_picks_the_name(make_ws: MakeWs, tmp_path: Path) -> None:
    rules = [
        ("1\\. LLM", json.dumps({"merge": True, "keep": 2, "description": "A language model."})),
        ("1\\. Paris", json.dumps({"merge": False})),
    ]
    ws = make_ws(llm=_llm(tmp_path, rules), denoise={"reflection": "none", "llm_confirm": True})
    report, _ = ws.denoise.apply()
    assert report.counts["resolve"]["llm_rejected"] == 1
    merges = ws.store.denoise.merges(report.run_id)
    assert [m.canonical_name for m in merges] == ["LLM"] and "LLM confirmed" in merges[0].reason
    assert ws.graph.counts()["entities"] == 5
    assert {c.stage for c in ws.store.llm_ledger.calls()} == {"index.resolve"}


def test_llm_confirmation_with_malformed_replies_merges_nothing(make_ws: MakeWs, tmp_path: Path) -> None:
    ws = make_ws(
        llm=_llm(tmp_path, [(CONFIRM, '{"merge": "maybe"')]), denoise={"reflection": "none", "llm_confirm": True}
    )
    report, _ = ws.denoise.apply()
    assert report.counts["resolve"]["llm_invalid"] == 2
    assert ws.graph.counts()["entities"] == 6


def test_llm_steps_without_an_llm_are_config_errors(make_ws: MakeWs) -> None:
    ws = make_ws(denoise={"reflection": "none", "llm_confirm": True})
    with pytest.raises(ConfigError, match="llm_confirm"):
        ws.denoise.plan()
    ws2 = make_ws(denoise={"reflection": "llm"})
    with pytest.raises(ConfigError, match=r"llm\.provider"):
        ws2.denoise.plan(resolve=False)
    assert ws2.denoise.runs() == []
