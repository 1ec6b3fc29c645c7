"""PostgreSQL + pgvector backend (optional extra ``kgrag[postgres]``): one schema per workspace, full-text
search over a generated ``tsvector``, HNSW vector search, versioned migrations. psycopg is imported only
when a store is opened, so importing this package costs nothing on a SQLite-only install."""

from kgrag.store.postgres.store import PostgresStore, open_postgres_store
from kgrag.store.postgres.url import PgTarget, parse_target

__all__ = ["PgTarget", "PostgresStore", "open_postgres_store", "parse_target"]
