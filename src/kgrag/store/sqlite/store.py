"""The embedded SQLite store: one file, WAL, all repositories sharing one transaction scope."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from kgrag.config.store import StoreConfig
from kgrag.core.errors import WorkspaceError
from kgrag.core.progress import Progress
from kgrag.core.vector_index import AnnParams
from kgrag.store.index_lock import ProcessLock, file_lock
from kgrag.store.sql.database import SQLITE
from kgrag.store.sql.store import SqlStore
from kgrag.store.sqlite.chunks import CHUNKS_DDL, SQLiteChunks
from kgrag.store.sqlite.communities import COMMUNITIES_DDL
from kgrag.store.sqlite.conversations import CONVERSATIONS_DDL
from kgrag.store.sqlite.database import Database
from kgrag.store.sqlite.denoise import SQLiteDenoise
from kgrag.store.sqlite.denoise_schema import DENOISE_DDL
from kgrag.store.sqlite.documents import DOCUMENTS_DDL, META_DDL
from kgrag.store.sqlite.eval_runs import EVAL_RUNS_DDL
from kgrag.store.sqlite.graph_schema import GRAPH_DDL
from kgrag.store.sqlite.lexical_hot import LexicalParams
from kgrag.store.sqlite.llm_cache import LLM_CACHE_DDL
from kgrag.store.sqlite.llm_ledger import LLM_LEDGER_ADDED, LLM_LEDGER_DDL
from kgrag.store.sqlite.rows import SQLiteRows
from kgrag.store.sqlite.vectors import VECTORS_DDL, SQLiteVectors

SCHEMAS: tuple[str, ...] = (
    META_DDL,
    DOCUMENTS_DDL,
    CHUNKS_DDL,
    VECTORS_DDL,
    GRAPH_DDL,
    COMMUNITIES_DDL,
    DENOISE_DDL,
    LLM_CACHE_DDL,
    LLM_LEDGER_DDL,
    EVAL_RUNS_DDL,
    CONVERSATIONS_DDL,
)

DEFAULT_FILE_NAME = "kgrag.sqlite3"


class SQLiteStore(SqlStore):
    """Implements :class:`kgrag.store.base.Store` over a single SQLite file.

    ``SQLiteStore(":memory:")`` is the in-process fake for tests: same code path, nothing on disk.
    The indexing lock is a file in ``lock_dir`` (the workspace directory) and in the database's directory
    when that is another one, or, for ``:memory:`` without a ``lock_dir``, an in-process lock (nothing
    else can reach it).
    """

    def __init__(
        self,
        path: Path | str,
        extra_schemas: tuple[str, ...] = (),
        ann: AnnParams | None = None,
        lock_dir: Path | None = None,
        lexical: LexicalParams | None = None,
    ) -> None:
        self.db = Database(path, SCHEMAS + extra_schemas, LLM_LEDGER_ADDED)
        in_memory = str(path) == ":memory:"
        # The workspace's lock file is the one every kgrag version takes; the database's directory is
        # locked too, so two workspaces sharing one database file (an absolute ``store.url``) take turns.
        # Sorted, so two runs never take the same two locks in opposite orders (no deadlock).
        dirs = set() if in_memory else {Path(path).resolve().parent}
        dirs |= {lock_dir.resolve()} if lock_dir is not None else set()
        self._lock_dirs = sorted(dirs)
        self._process_lock = ProcessLock()
        super().__init__(self.db, self.db, SQLITE)
        self.chunks = SQLiteChunks(self.db, lexical)
        ann_dir = None if in_memory else Path(f"{path}.ann")  # saved HNSW indexes (ann_sidecar)
        self.vectors = SQLiteVectors(self.db, ann, ann_dir)
        self.denoise = SQLiteDenoise(self.db)
        self.rows = SQLiteRows(self.db)  # row-level copies (kgrag migrate)

    @contextmanager
    def indexing_lock(self, progress: Progress) -> Iterator[None]:
        """:meth:`kgrag.store.base.IndexLocking.indexing_lock`: an ``flock`` on ``.kgrag-index.lock`` in the
        workspace directory (the file every kgrag version locks) and the database's, or the in-process lock
        of an in-memory store."""
        if not self._lock_dirs:
            with self._process_lock.held(progress):
                yield
            return
        with ExitStack() as held:
            for directory in self._lock_dirs:
                held.enter_context(file_lock(directory, progress))
            yield

    def close(self) -> None:
        self.chunks.lexical.close()
        super().close()


def open_sqlite_store(config: StoreConfig, workspace: Path) -> SQLiteStore:
    """The ``sqlite`` entry of the store registry: ``store.url`` is the database path (relative paths are
    relative to the workspace, ``:memory:`` keeps everything in memory), default ``<workspace>/kgrag.sqlite3``."""
    lexical = LexicalParams(mode=config.lexical_index, max_chunks=config.lexical_max_chunks)
    if config.url == ":memory:":
        # no other process can reach it: an in-process lock
        return SQLiteStore(":memory:", ann=config.ann_params(), lexical=lexical)
    path = workspace / (Path(config.url).expanduser() if config.url else Path(DEFAULT_FILE_NAME))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # a fresh workspace, or a url into a new directory
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot create the database directory ({exc.strerror})") from exc
    return SQLiteStore(path, ann=config.ann_params(), lock_dir=workspace, lexical=lexical)
