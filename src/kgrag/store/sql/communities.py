"""The community repository of both stores: the hierarchy, its members, modularity per level and reports.

A community row is keyed by its content-derived id (level + members, see
:func:`kgrag.core.community_records.community_id`). ``replace`` keeps the rows (and so the reports) of
communities that survive a rebuild unchanged and deletes the rest; reports reference their community with
``ON DELETE CASCADE``, so a report can never outlive the membership it describes. Members are not foreign
keys to entities: a community describes the graph as it was when the hierarchy was built, and the
``communities`` stage rebuilds it when the graph changes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from kgrag.core.community_records import CommunityRecord, CommunityReport, Finding, LevelStats
from kgrag.store.sql.database import Dialect, Row, SqlDatabase

_REPORT_COLUMNS = "community_id, level, title, summary, findings, rating, method, chunk_ids"


def _findings_json(findings: Sequence[Finding]) -> str:
    return json.dumps([{"summary": f.summary, "explanation": f.explanation, "refs": list(f.refs)} for f in findings])


def _report(row: Row) -> CommunityReport:
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


class SqlCommunities:
    """Implements :class:`kgrag.store.base.CommunityRepository`; writes join the caller's transaction."""

    def __init__(self, db: SqlDatabase, dialect: Dialect) -> None:
        self._db = db
        self._dialect = dialect

    def replace(self, communities: Sequence[CommunityRecord], levels: Sequence[LevelStats]) -> None:
        """Install ``communities`` as the hierarchy: unchanged ids keep their rows and reports."""
        wanted = {c.id for c in communities}
        with self._db.transaction():
            existing = {r[0] for r in self._db.query(f"SELECT id FROM communities{self._dialect.for_update}")}
            for condition, params in self._dialect.in_batches("id", sorted(existing - wanted)):
                self._db.execute(f"DELETE FROM communities WHERE {condition}", params)
            self._db.executemany(
                "INSERT INTO communities(id, level, parent_id, size, children) VALUES (?,?,?,?,?) "
                "ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, children = excluded.children",
                [(c.id, c.level, c.parent_id, c.size, c.children) for c in communities],
            )
            fresh = [c for c in communities if c.id not in existing]
            self._db.executemany(
                "INSERT INTO community_members(community_id, entity_id) VALUES (?,?) ON CONFLICT DO NOTHING",
                [(c.id, e) for c in fresh for e in c.entity_ids],
            )
            self._db.execute("DELETE FROM community_levels")
            self._db.executemany(
                "INSERT INTO community_levels(level, communities, modularity) VALUES (?,?,?)",
                [(s.level, s.communities, float(s.modularity)) for s in levels],
            )

    def _members(self, ids: Sequence[str] | None) -> dict[str, list[str]]:
        members: dict[str, list[str]] = {}
        if ids is None:
            rows = self._db.query("SELECT community_id, entity_id FROM community_members ORDER BY 1, 2")
        else:
            rows = []
            for condition, params in self._dialect.in_batches("community_id", ids):
                rows += self._db.query(
                    f"SELECT community_id, entity_id FROM community_members WHERE {condition} ORDER BY 1, 2", params
                )
        for row in rows:
            members.setdefault(row[0], []).append(row[1])
        return members

    def communities(self, level: int | None = None) -> list[CommunityRecord]:
        """Communities (of one level, or all), ordered by level then id."""
        where, params = ("WHERE level = ?", (level,)) if level is not None else ("", ())
        rows = self._db.query(
            f"SELECT id, level, parent_id, children FROM communities {where} ORDER BY level, id", params
        )
        members = self._members(None if level is None else [r[0] for r in rows])
        return [CommunityRecord(r[0], int(r[1]), r[2], tuple(members.get(r[0], ())), int(r[3])) for r in rows]

    def get(self, community_id: str) -> CommunityRecord | None:
        rows = self._db.query("SELECT id, level, parent_id, children FROM communities WHERE id = ?", (community_id,))
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
                f"INSERT INTO community_reports({_REPORT_COLUMNS}) VALUES (?,?,?,?,?,?,?,?) "
                f"ON CONFLICT (community_id) DO UPDATE SET {updates}",
                rows,
            )

    def reports(self, community_ids: Sequence[str] | None = None) -> list[CommunityReport]:
        """Reports (of the given communities, or all), ordered by level then community id."""
        if community_ids is None:
            rows = self._db.query(f"SELECT {_REPORT_COLUMNS} FROM community_reports ORDER BY level, community_id")
            return [_report(r) for r in rows]
        out: list[CommunityReport] = []
        for condition, params in self._dialect.in_batches("community_id", community_ids):
            rows = self._db.query(f"SELECT {_REPORT_COLUMNS} FROM community_reports WHERE {condition}", params)
            out += [_report(r) for r in rows]
        return sorted(out, key=lambda r: (r.level, r.community_id))

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
