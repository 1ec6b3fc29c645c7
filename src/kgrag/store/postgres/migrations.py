"""Versioned schema migrations, applied in order when a store opens.

Each :class:`Migration` is a numbered step; ``schema_migrations`` records the ones a workspace schema
has. Opening a store applies the missing steps, in order, in **one** transaction under an advisory lock
(two processes opening a fresh workspace at once do not both create it; a failing step leaves the schema
as it was). A step is never edited once released: a schema change is a new step at the end, which is
what lets an old workspace upgrade in place. A schema newer than this kgrag is refused rather than
guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgrag.core.errors import WorkspaceError
from kgrag.store.postgres.schema_base import BASE_DDL, FULL_TEXT_DDL
from kgrag.store.postgres.schema_denoise import DENOISE_DDL

if TYPE_CHECKING:
    from kgrag.store.postgres.database import PgDatabase


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    ddl: str


CONTENT_HASH_DDL = "CREATE INDEX IF NOT EXISTS documents_content ON documents(content_hash);"

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1, "base tables: documents, chunks, embeddings, graph, communities, LLM cache and ledger, eval", BASE_DDL
    ),
    Migration(2, "full-text search: generated tsvector column on chunks with a GIN index", FULL_TEXT_DDL),
    Migration(3, "graph denoising: aliases, dropped relations, run logs, undo snapshots", DENOISE_DDL),
    Migration(4, "documents by content hash: identical files are stored once", CONTENT_HASH_DDL),
)
LATEST = MIGRATIONS[-1].version

_EXTENSION_LOCK = "kgrag:extension:vector"
_FIND_VECTOR = (
    "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
)


def apply_migrations(db: PgDatabase, schema: str, upto: int | None = None) -> list[int]:
    """Bring ``schema`` up to ``upto`` (default: the latest step); returns the versions applied now."""
    from psycopg import sql

    search_path = sql.SQL("SET search_path TO {}, {}").format(
        sql.Identifier(schema), sql.Identifier(_vector_schema(db))
    )
    db.execute(search_path)
    with db.transaction(content=False):
        db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"kgrag:schema:{schema}",))
        db.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        applied = {int(r[0]) for r in db.query("SELECT version FROM schema_migrations")}
        if applied and max(applied) > LATEST:
            raise WorkspaceError(
                f"store.url {db.target.display}: schema {schema!r} is at version {max(applied)}, newer than this "
                f"kgrag knows ({LATEST}); upgrade kgrag, or use another ?schema="
            )
        done = []
        for step in MIGRATIONS:
            if step.version in applied or (upto is not None and step.version > upto):
                continue
            db.execute(step.ddl)
            db.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (step.version, step.name))
            done.append(step.version)
    return done


def _vector_schema(db: PgDatabase) -> str:
    """The schema pgvector lives in, installing the extension (into ``public``) when it is missing."""
    found = db.scalar(_FIND_VECTOR)
    if found:
        return str(found)
    import psycopg

    try:
        with db.transaction(content=False):
            db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_EXTENSION_LOCK,))
            db.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    except psycopg.Error as exc:
        raise WorkspaceError(
            f"store.url {db.target.display}: the pgvector extension is not installed in this database and "
            f"kgrag may not install it ({str(exc).strip()}); ask an administrator to run "
            "`CREATE EXTENSION vector;` in it (pgvector >= 0.5 is needed for HNSW)"
        ) from exc
    return str(db.scalar(_FIND_VECTOR))
