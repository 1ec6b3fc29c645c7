"""One `kgrag serve` with a SQLite and a PostgreSQL workspace, behind API keys, while its PostgreSQL server
is halted and after it is started again (a real server, a real `kgrag serve` process): health and the
SQLite workspace answer as before, the listings name the unreachable workspace with the store's message,
the PostgreSQL workspace answers 503 with that message (a streamed answer ends with an ``error`` event),
and once the database is back the same server answers from it without a restart."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import SAMPLE_DOCS
from tests.server.conftest import SERVED_TOML, build_workspace
from tests.server.serve_support import serve
from tests.services import scaled
from tests.store.pg_fixture import schema_url

from kgrag import Workspace
from kgrag.config import CONFIG_FILE_NAME
from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.server import create_app
from kgrag.server.state import ROOTS_REFRESH_S
from kgrag.testing.pg_server import PgServer

KEY = "store-down-key-0123456789abcdef"
HEADERS = {"Authorization": f"Bearer {KEY}"}
QUESTION = {"question": "Who leads the Platform team?", "pipeline": "bm25"}
OUTSIDE = Path("/srv/kgrag-corpus/reports")  # never created: a document record may name any directory
WAIT_S = scaled(30.0)  # a bound on each request, as on any hang: without the fix, requests got no answer in 60 s


@pytest.fixture(scope="module")
def served(pg_restartable: PgServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("store-down")
    docs = root / "docs"
    docs.mkdir()
    for name in ("company-overview.md", "hiring-process.md", "customer-vestland-water.md"):
        shutil.copy(SAMPLE_DOCS / name, docs / name)
    lite = build_workspace(root / "lite", [docs], graph=False)
    pg = root / "pg"
    pg.mkdir()
    store = f'[store]\nbackend = "postgresql"\nurl = "{schema_url(pg_restartable.url, pg)}"\n\n'
    (pg / CONFIG_FILE_NAME).write_text(store + SERVED_TOML, encoding="utf-8")
    with Workspace.open(pg) as ws:
        ws.index([docs])
    keys = root / "keys.txt"
    keys.write_text(f"{KEY}\n", encoding="utf-8")
    yield from serve({"sq": lite, "pg": pg}, "--api-key-file", str(keys))


def _answered(method: str, url: str, status: int = 200, **kwargs: Any) -> httpx.Response:
    """The response to one request, which must come within :data:`WAIT_S` (a hang is a timeout error) and
    with ``status``."""
    response = httpx.request(method, url, headers=HEADERS, timeout=WAIT_S, **kwargs)
    assert (response.status_code, url) == (status, url), response.text
    return response


def _store_message(text: str, server: PgServer) -> None:
    assert text.startswith("store.url postgresql://kgrag:***@127.0.0.1:"), text
    assert server.password not in text and "Traceback" not in text


def _stream_error(response: httpx.Response) -> dict[str, Any]:
    """The ``error`` event that ends a streamed answer."""
    events = [block for block in response.text.split("\n\n") if block.strip()]
    name, data = events[-1].split("\n", 1)
    assert name == "event: error", response.text
    error: dict[str, Any] = json.loads(data.removeprefix("data: "))["error"]
    return error


def _while_down(url: str, server: PgServer) -> None:
    for wait in (ROOTS_REFRESH_S + 1, 0):  # every scrubber wants its directories read again; then again at once
        time.sleep(wait)
        assert _answered("GET", f"{url}/v1/health").json()["status"] == "ok"
        assert _answered("POST", f"{url}/v1/workspaces/sq/query", json=QUESTION).json()["items"]
        rows = {row["name"]: row for row in _answered("GET", f"{url}/v1/workspaces").json()}
        assert rows["sq"]["error"] == "" and rows["sq"]["chunks"] > 0
        _store_message(rows["pg"]["error"], server)
        models = [m["id"] for m in _answered("GET", f"{url}/v1/models").json()["data"]]
        assert "kgrag/sq/bm25" in models and "kgrag/pg" in models
        metrics = _answered("GET", f"{url}/v1/metrics").text
        assert 'kgrag_store_up{workspace="pg"} 0' in metrics and 'kgrag_store_up{workspace="sq"} 1' in metrics
        refused = _answered("POST", f"{url}/v1/workspaces/pg/query", 503, json=QUESTION)
        assert refused.json()["error"]["code"] == "store_unavailable"
        _store_message(refused.json()["error"]["message"], server)
        error = _stream_error(_answered("POST", f"{url}/v1/workspaces/pg/query/stream", json=QUESTION))
        assert (error["status"], error["code"]) == (503, "store_unavailable")
        _store_message(error["message"], server)


def test_a_halted_database_fails_only_its_workspace_and_the_server_recovers(
    served: str, pg_restartable: PgServer
) -> None:
    assert _answered("POST", f"{served}/v1/workspaces/pg/query", json=QUESTION).json()["items"]
    pg_restartable.halt()
    try:
        _while_down(served, pg_restartable)
    finally:
        pg_restartable.resume()
    assert _answered("POST", f"{served}/v1/workspaces/pg/query", json=QUESTION).json()["items"]  # no restart
    rows = {row["name"]: row for row in _answered("GET", f"{served}/v1/workspaces").json()}
    assert rows["pg"]["error"] == "" and rows["pg"]["chunks"] == rows["sq"]["chunks"] > 0


def test_a_failed_refresh_keeps_every_directory_hidden(pg_restartable: PgServer, tmp_path: Path) -> None:
    """The scrubber's document directories come from the store; when it cannot be read they stay as last
    read (never fewer), so a path under one is still rewritten to its file name."""
    path = tmp_path / "pg"
    path.mkdir()
    store = f'[store]\nbackend = "postgresql"\nurl = "{schema_url(pg_restartable.url, path)}"\n\n'
    (path / CONFIG_FILE_NAME).write_text(store + SERVED_TOML, encoding="utf-8")
    with Workspace.open(path) as ws:
        record = DocumentRecord("d", str(OUTSIDE / "q3.md"), "q3.md", "h", DocumentStatus.FAILED, "unreadable")
        with ws.store.transaction():
            ws.store.documents.upsert(record)
        state = create_app({"pg": ws}).state.kgrag
        leaked = f"cannot read {OUTSIDE / 'q3.md'} nor {OUTSIDE}"
        assert state.scrubber().text(leaked) == "cannot read q3.md nor reports"
        pg_restartable.halt()
        try:
            state.workspaces["pg"].forget_roots()  # as after a document change: read again now, and fail
            assert state.scrubber().text(leaked) == "cannot read q3.md nor reports"
            assert state.workspaces["pg"].scrub({"error": leaked}) == {"error": "cannot read q3.md nor reports"}
        finally:
            pg_restartable.resume()


def test_a_directory_indexed_beside_the_server_is_hidden_in_the_first_response_after_the_refresh_period(
    tmp_path: Path,
) -> None:
    """The CLI indexed a new folder while the server was idle: the first response once the directories were
    older than the refresh period still used the old ones, and named the new folder's path."""
    path = tmp_path / "lite"
    path.mkdir()
    (path / CONFIG_FILE_NAME).write_text(SERVED_TOML, encoding="utf-8")
    with Workspace.open(path) as ws:
        state = create_app({"lite": ws}).state.kgrag
        hosted = state.workspaces["lite"]
        leaked = f"cannot read {OUTSIDE / 'q3.md'}"
        assert hosted.scrub(leaked) == leaked  # not indexed from there yet
        record = DocumentRecord("d", str(OUTSIDE / "q3.md"), "q3.md", "h", DocumentStatus.FAILED, "unreadable")
        with ws.store.transaction():  # what a `kgrag index` in another process writes
            ws.store.documents.upsert(record)
        hosted._read_at -= ROOTS_REFRESH_S + 1
        assert hosted.scrub(leaked) == "cannot read q3.md"
