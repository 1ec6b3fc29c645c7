"""Community reports: the extractive path, single-child inheritance, the size floor, the LLM path with
scripted replies (malformed ones included), and incremental regeneration of changed communities only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.communities.conftest import (
    GROUPS,
    WorkspaceMaker,
    index_docs,
    report_reply,
    scripted_provider,
    write_groups,
)
from tests.helpers import index_with_word_extractor

from kgrag.communities.vectors import report_hash
from kgrag.core.errors import ConfigError
from kgrag.core.llm_types import ChatRequest
from kgrag.core.stages import COMMUNITY_REPORTS, ledger_stage
from kgrag.models.llm.scripted import ScriptedProvider


def _report_requests(provider: ScriptedProvider) -> int:
    return sum("briefing note on one group" in r.messages[0]["content"] for r in provider.requests)


def test_extractive_reports_on_the_sample_corpus(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = make_ws(communities={"builders": {"leiden": {"max_cluster_size": 10}}})
    index_docs(ws, sample_docs)
    result = ws.communities.build()
    counts = result.report.communities
    communities = ws.store.communities.communities()
    reports = {r.community_id: r for r in ws.store.communities.reports()}
    assert counts["communities"] == len(communities) > 50 and len(ws.communities.levels()) >= 2
    assert counts["reports_written"] + counts["reports_inherited"] == len(reports)
    floor = ws.config.communities.min_community_size
    assert counts["reports_trivial"] == sum(c.size < floor for c in communities)  # no report below the floor
    assert all(reports.get(c.id) is None for c in communities if c.size < floor)
    for report in reports.values():
        assert report.title and report.summary and 0 <= report.rating <= 10 and report.chunk_ids
    by_id = {c.id: c for c in communities}
    children: dict[str, list[str]] = {}
    for c in communities:
        if c.parent_id:
            children.setdefault(c.parent_id, []).append(c.id)
    inherited = [r for r in reports.values() if r.method == "inherited"]
    assert inherited  # the hierarchy carries unsplit communities up a level
    for report in inherited:  # single child: the child's report, word for word
        (child,) = children[report.community_id]
        assert by_id[report.community_id].children == 1
        assert reports[child].text == report.text and reports[child].level == report.level - 1
    level0 = [r for r in reports.values() if r.level == 0 and r.method == "extractive"]
    assert any(f.refs for r in level0 for f in r.findings)  # findings cite relations and their entities
    vectors = ws.store.vectors.get(ws.components.embedding_model_id, [report_hash(r) for r in reports.values()])
    assert len(vectors) == len({report_hash(r) for r in reports.values()})  # every report text is embedded


def test_llm_reports_cite_known_labels_and_inherit_without_calls(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    provider = scripted_provider()
    ws = make_ws(provider, communities={"builders": {"leiden": {"max_cluster_size": 10}}})
    index_docs(ws, sample_docs)
    result = ws.communities.build()
    reports = ws.store.communities.reports()
    llm = [r for r in reports if r.method == "llm"]
    assert llm and _report_requests(provider) == len(llm)  # one call per written report, none for inherited
    assert any(r.method == "inherited" for r in reports)
    entity_ids = {e.id for e in ws.store.graph.entities()}
    relation_ids = {r.id for r in ws.store.graph.relations()}
    community_ids = {c.id for c in ws.store.communities.communities()}
    cited = [ref for r in llm for f in r.findings for ref in f.refs]
    assert cited and all(ref in entity_ids | relation_ids | community_ids for ref in cited)  # Z99 was dropped
    summary = ws.usage.summary(ws.components.llm().run_id)
    assert summary.by_stage[ledger_stage(COMMUNITY_REPORTS)].calls == len(llm)
    assert any("community-reports" in line for line in result.llm_lines)
    assert result.report.communities["reports_naive_calls"] > len(llm)


@pytest.mark.parametrize("bad", ["not json at all", '{"title": "x"}', '{"title": "", "summary": "s", "rating": 3}'])
def test_malformed_replies_fall_back_to_extractive(make_ws: WorkspaceMaker, tmp_path: Path, bad: str) -> None:
    provider = scripted_provider(report=bad)
    ws = make_ws(provider)
    index_docs(ws, write_groups(tmp_path / "docs", GROUPS))
    result = ws.communities.build()
    reports = ws.store.communities.reports()
    assert len(reports) == len(GROUPS) and all(r.method == "fallback" for r in reports)
    assert all(r.title and r.summary for r in reports)
    assert result.report.communities["reports_fallback"] == len(GROUPS)
    assert _report_requests(provider) == 2 * len(GROUPS)  # the client re-asks once, then gives up


def test_only_changed_communities_get_new_reports(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    provider = scripted_provider()
    ws = make_ws(provider)
    docs = write_groups(tmp_path / "docs", GROUPS)
    index_docs(ws, docs)
    ws.communities.build()
    before = {r.community_id: r for r in ws.store.communities.reports()}
    assert len(before) == len(GROUPS) and _report_requests(provider) == len(GROUPS)
    # one group gains a member, a new group appears; the third is untouched
    write_groups(
        docs, {"alpha": [*GROUPS["alpha"], "Foxtrot"], "lakes": ["Ontario", "Erie", "Huron", "Superior", "Michigan"]}
    )
    index_docs(ws, docs)
    result = ws.communities.build()
    after = {r.community_id: r for r in ws.store.communities.reports()}
    assert _report_requests(provider) == len(GROUPS) + 2  # new alpha and lakes only
    unchanged = set(before) & set(after)
    assert len(unchanged) == 2 and all(before[c] == after[c] for c in unchanged)
    assert result.report.communities["reports_kept"] == 2 and result.report.communities["reports_written"] == 2
    again = ws.communities.build()
    assert again.report.communities["reports_written"] == 0 and _report_requests(provider) == len(GROUPS) + 2


def test_removing_a_document_drops_its_community(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    ws = make_ws()
    docs = write_groups(tmp_path / "docs", GROUPS)
    index_docs(ws, docs)
    ws.communities.build()
    source = next(d.source for d in ws.store.documents.list() if d.source.endswith("river.md"))
    ws.remove([source])
    ws.communities.build()
    titles = " ".join(r.title for r in ws.store.communities.reports())
    assert len(ws.store.communities.reports()) == 2 and "Rhine" not in titles


def test_reports_need_an_llm_when_asked(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    ws = make_ws(communities={"reports": "llm"})
    index_docs(ws, write_groups(tmp_path / "docs", GROUPS))
    with pytest.raises(ConfigError, match=r"communities\.reports = llm"):
        ws.communities.build()


def test_a_killed_report_run_resumes(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    calls = {"n": 0}
    provider = scripted_provider()

    def flaky(request: ChatRequest) -> str:
        calls["n"] += 1
        if calls["n"] > 1:
            raise KeyboardInterrupt  # the run dies after the first report
        return report_reply(request)

    provider.rules[0].reply = flaky
    ws = make_ws(provider, llm={"provider": "scripted", "max_concurrency": 1})
    docs = shutil.copytree(write_groups(tmp_path / "docs", GROUPS), tmp_path / "d2")
    index_docs(ws, docs)
    with pytest.raises(KeyboardInterrupt):
        ws.communities.build()
    assert ws.store.communities.counts()["reports"] == 0  # the batch had not been committed
    provider.rules[0].reply = report_reply
    result = ws.communities.build()
    assert result.report.communities["reports_written"] == len(GROUPS)


def test_the_graphrag_indexing_pipeline_builds_communities(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    ws = make_ws()
    docs = write_groups(tmp_path / "docs", GROUPS)

    def index() -> dict[str, int]:
        report = index_with_word_extractor(ws, [docs], "graphrag")
        assert {"communities", "community-reports"} <= set(report.seconds)
        return report.communities

    first = index()
    assert first["communities"] == len(GROUPS) and first["reports_written"] == len(GROUPS)
    second = index()  # nothing changed: no detection, no report
    assert second["new"] == 0 and second["reports_written"] == 0 and second["reports_kept"] == len(GROUPS)


def test_fallback_reports_and_their_parents_are_rewritten_on_the_next_run(
    make_ws: WorkspaceMaker, tmp_path: Path
) -> None:
    provider = scripted_provider(report="not json at all")
    ws = make_ws(provider)
    index_docs(ws, write_groups(tmp_path / "docs", GROUPS))
    first = ws.communities.build()
    assert first.report.communities["reports_fallback"] == len(GROUPS)
    assert first.report.incomplete  # the run says what it left for the next one
    provider.rules[0].reply = report_reply  # the endpoint is healthy again
    second = ws.communities.build()
    reports = ws.store.communities.reports()
    assert second.report.communities["reports_written"] == len(GROUPS)
    assert reports and all(r.method in ("llm", "inherited") for r in reports)
    assert not second.report.incomplete
    third = ws.communities.build()  # nothing left to redo: no more calls
    assert third.report.communities["reports_written"] == 0
