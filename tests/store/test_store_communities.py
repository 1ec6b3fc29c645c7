"""Contract of the community repository (every backend): hierarchy replacement keeps unchanged
communities and their reports, drops the rest with their reports, and round-trips reports exactly."""

from __future__ import annotations

from kgrag.core.community_records import CommunityRecord, CommunityReport, Finding, LevelStats, community_id
from kgrag.store import Store


def _community(level: int, members: tuple[str, ...], parent: str | None = None, children: int = 0) -> CommunityRecord:
    return CommunityRecord(community_id(level, members), level, parent, tuple(sorted(members)), children)


def _report(c: CommunityRecord, title: str = "t") -> CommunityReport:
    return CommunityReport(
        c.id,
        c.level,
        title,
        "summary",
        (Finding("f1", "why", ("e1", "r1")), Finding("f2")),
        7.5,
        "llm",
        ("c1", "c2"),
    )


def _hierarchy() -> tuple[list[CommunityRecord], list[LevelStats]]:
    top = _community(1, ("a", "b", "c", "d"), None, 2)
    left = _community(0, ("a", "b"), top.id)
    right = _community(0, ("c", "d"), top.id)
    return [left, right, top], [LevelStats(0, 2, 0.4), LevelStats(1, 1, 0.0)]


def test_ids_follow_level_and_members() -> None:
    assert community_id(0, ["b", "a"]) == community_id(0, ["a", "b"])
    assert community_id(0, ["a", "b"]) != community_id(1, ["a", "b"])
    assert community_id(0, ["a", "b"]) != community_id(0, ["a", "c"])


def test_replace_and_read_back(store: Store) -> None:
    records, levels = _hierarchy()
    store.communities.replace(records, levels)
    assert store.communities.levels() == levels
    assert sorted(store.communities.communities(), key=lambda c: c.id) == sorted(records, key=lambda c: c.id)
    assert [c.level for c in store.communities.communities()] == [0, 0, 1]
    assert {c.id for c in store.communities.communities(0)} == {records[0].id, records[1].id}
    assert store.communities.get(records[2].id) == records[2]
    assert store.communities.get("missing") is None
    assert store.communities.counts() == {"communities": 3, "levels": 2, "reports": 0}
    assert store.communities.without_report() == [*sorted(c.id for c in records[:2]), records[2].id]


def test_reports_round_trip(store: Store) -> None:
    records, levels = _hierarchy()
    store.communities.replace(records, levels)
    report = _report(records[0])
    store.communities.save_reports([report])
    assert store.communities.report(records[0].id) == report
    assert store.communities.report(records[1].id) is None
    assert store.communities.reports() == [report]
    assert records[0].id not in store.communities.without_report()
    store.communities.save_reports([_report(records[0], "new title")])  # replacing is allowed
    assert store.communities.report(records[0].id).title == "new title"  # type: ignore[union-attr]


def test_replace_keeps_unchanged_and_drops_changed(store: Store) -> None:
    records, levels = _hierarchy()
    store.communities.replace(records, levels)
    store.communities.save_reports([_report(c) for c in records])
    # "d" leaves: the right community and the top change; the left one stays as it was
    top = _community(1, ("a", "b", "c"), None, 2)
    left = _community(0, ("a", "b"), top.id)
    right = _community(0, ("c",), top.id)
    store.communities.replace([left, right, top], [LevelStats(0, 2, 0.3), LevelStats(1, 1, 0.0)])
    assert left.id == records[0].id
    assert {r.community_id for r in store.communities.reports()} == {left.id}
    assert store.communities.get(left.id).parent_id == top.id  # type: ignore[union-attr]
    assert set(store.communities.without_report()) == {right.id, top.id}
    assert store.communities.levels()[0].modularity == 0.3
    store.communities.replace([], [])
    assert store.communities.counts() == {"communities": 0, "levels": 0, "reports": 0}


def test_replace_is_atomic_with_the_callers_transaction(store: Store) -> None:
    records, levels = _hierarchy()
    try:
        with store.transaction():
            store.communities.replace(records, levels)
            raise RuntimeError("crash")
    except RuntimeError:
        pass
    assert store.communities.counts()["communities"] == 0
