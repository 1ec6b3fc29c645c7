"""PostgreSQL community repository (semantics of :mod:`kgrag.store.sqlite.communities`): rows keyed by
content-derived ids, so a rebuild keeps the rows and reports of unchanged communities."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from kgrag.core.community_records import CommunityRecord, CommunityReport, Finding, LevelStats
from kgrag.store.postgres.database import PgDatabase

_REPORT_COLUMNS = "community_id, level, title, summary, findings, rating, method, chunk_ids"


def _findings_json(findings: Sequence[Finding]) -> str:
    return json.dumps([{"summary": f.summary, "explanation": f.explanation, "refs": list(f.refs)} for f in findings])


def _report(row: Sequence[Any]) -> CommunityReport:
    findings = tuple(
        Finding(str(f.get("summary", "")), str(f.get("explanation", "")), tuple(f.get("refs", ())))
        for f in json.loads(row[4])
    )
    return CommunityReport(
        community_id=row[0],
        level=int(row[1]),
        title=row[2],
        summary=row[3],
        findings=findings,
        rating=float(row[5]),
        method=row[6],
        chunk_ids=tuple(json.loads(row[7])),
    )


class PgCommunities:
    """Implements :class:`kgrag.store.base.CommunityRepository`; writes join the caller's transaction."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    def replace(self, communities: Sequence[CommunityRecord], levels: Sequence[LevelStats]) -> None:
        """Install ``communities`` as the hierarchy: unchanged ids keep their rows and reports."""
        wanted = {c.id for c in communities}
        with self._db.transaction():
            existing = {r[0] for r in self._db.query("SELECT id FROM communities FOR UPDATE")}
            stale = sorted(existing - wanted)
            if stale:
                self._db.execute("DELETE FROM communities WHERE id = ANY(%s)", (stale,))
            self._db.executemany(
                "INSERT INTO communities(id, level, parent_id, size, children) VALUES (%s,%s,%s,%s,%s) "
                "ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, children = excluded.children",
                [(c.id, c.level, c.parent_id, c.size, c.children) for c in communities],
            )
            self._db.executemany(
                "INSERT INTO community_members(community_id, entity_id) VALUES (%s,%s) ON CONFLICT DO NOTHING",
                [(c.id, e) for c in communities if c.id not in existing for e in c.entity_ids],
            )
            self._db.execute("DELETE FROM community_levels")
            self._db.executemany(
                "INSERT INTO community_levels(level, communities, modularity) VALUES (%s,%s,%s)",
                [(s.level, s.communities, float(s.modularity)) for s in levels],
            )

    def _members(self, ids: Sequence[str] | None) -> dict[str, list[str]]:
        if ids is None:
            rows = self._db.query("SELECT community_id, entity_id FROM community_members ORDER BY 1, 2")
        else:
            rows = self._db.query(
                "SELECT community_id, entity_id FROM community_members WHERE community_id = ANY(%s) ORDER BY 1, 2",
                (list(ids),),
            )
        members: dict[str, list[str]] = {}
        for row in rows:
            members.setdefault(row[0], []).append(row[1])
        return members

    def communities(self, level: int | None = None) -> list[CommunityRecord]:
        """Communities (of one level, or all), ordered by level then id."""
        where, params = ("WHERE level = %s", (level,)) if level is not None else ("", None)
        rows = self._db.query(
            f"SELECT id, level, parent_id, children FROM communities {where} ORDER BY level, id", params
        )
        members = self._members(None if level is None else [r[0] for r in rows])
        return [CommunityRecord(r[0], int(r[1]), r[2], tuple(members.get(r[0], ())), int(r[3])) for r in rows]

    def get(self, community_id: str) -> CommunityRecord | None:
        rows = self._db.query("SELECT id, level, parent_id, children FROM communities WHERE id = %s", (community_id,))
        if not rows:
            return None
        r = rows[0]
        return CommunityRecord(r[0], int(r[1]), r[2], tuple(self._members([r[0]]).get(r[0], ())), int(r[3]))

    def levels(self) -> list[LevelStats]:
        rows = self._db.query("SELECT level, communities, modularity FROM community_levels ORDER BY level")
        return [LevelStats(int(r[0]), int(r[1]), float(r[2])) for r in rows]

    def save_reports(self, reports: Sequence[CommunityReport]) -> None:
        rows = [
            (
                r.community_id,
                r.level,
                r.title,
                r.summary,
                _findings_json(r.findings),
                float(r.rating),
                r.method,
                json.dumps(list(r.chunk_ids)),
            )
            for r in reports
        ]
        updates = ", ".join(f"{c} = excluded.{c}" for c in _REPORT_COLUMNS.split(", ")[1:])
        with self._db.transaction():
            self._db.executemany(
                f"INSERT INTO community_reports({_REPORT_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s) "
                f"ON CONFLICT (community_id) DO UPDATE SET {updates}",
                rows,
            )

    def reports(self, community_ids: Sequence[str] | None = None) -> list[CommunityReport]:
        """Reports (of the given communities, or all), ordered by level then community id."""
        if community_ids is None:
            rows = self._db.query(f"SELECT {_REPORT_COLUMNS} FROM community_reports ORDER BY level, community_id")
        else:
            rows = self._db.query(
                f"SELECT {_REPORT_COLUMNS} FROM community_reports WHERE community_id = ANY(%s) "
                "ORDER BY level, community_id",
                (list(dict.fromkeys(community_ids)),),
            )
        return [_report(r) for r in rows]

    def report(self, community_id: str) -> CommunityReport | None:
        found = self.reports([community_id])
        return found[0] if found else None

    def without_report(self) -> list[str]:
        """Ids of communities that have no report yet, finest level first."""
        rows = self._db.query(
            "SELECT c.id FROM communities c LEFT JOIN community_reports r ON r.community_id = c.id "
            "WHERE r.community_id IS NULL ORDER BY c.level, c.id"
        )
        return [r[0] for r in rows]

    def counts(self) -> dict[str, int]:
        row = self._db.query(
            "SELECT (SELECT COUNT(*) FROM communities), (SELECT COUNT(*) FROM community_levels), "
            "(SELECT COUNT(*) FROM community_reports)"
        )[0]
        return {"communities": int(row[0]), "levels": int(row[1]), "reports": int(row[2])}
