"""Server-test fixtures: the sample corpus indexed once with a graph (fast word extractor), apps over
workspaces, a real uvicorn server on a free 127.0.0.1 port for tests that need sockets, and the browser
tests' ``browser`` and ``page`` (from ``browser_support``)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install 'kgrag[server]')")

import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS
from tests.graph.graph_fakes import WordExtractor
from tests.server.browser_support import browser, page  # noqa: F401 - the browser tests' fixtures, registered here

from kgrag import Workspace
from kgrag.config import CONFIG_FILE_NAME, ServerConfig
from kgrag.server import create_app, uvicorn_options

# What a served workspace's kgrag.toml says: hashing embedder, no model downloads, no graph extraction
# at serve time (the graph is built once by the fixture with the word extractor).
# What a non-browser client sends with a multipart upload or a bodiless write (the cross-site guard asks
# writes for a JSON body, an API key or this header).
WRITE = {"X-Kgrag-Request": "1"}
SERVED_TOML = '[embedding]\nprovider = "fake"\n\n[graph]\nextractor = "none"\n'


def build_workspace(path: Path, docs: list[Path], *, graph: bool = True) -> Path:
    """A workspace on disk with ``docs`` indexed (and a graph from the word extractor when ``graph``)."""
    path.mkdir(parents=True, exist_ok=True)
    (path / CONFIG_FILE_NAME).write_text(SERVED_TOML, encoding="utf-8")
    overrides = {"graph": {"extractor": "nlp"}} if graph else {}
    with Workspace.open(path, **overrides) as ws:
        ws.indexing.registries.extractors.register("nlp", lambda *_: WordExtractor(), replace=True)
        ws.index(docs)
    return path


@pytest.fixture
def empty_ws(tmp_path: Path) -> Iterator[Workspace]:
    """An empty workspace (no documents, no graph), fresh for each test."""
    with Workspace.open(build_workspace(tmp_path / "ws", [], graph=False)) as ws:
        yield ws


@pytest.fixture(scope="session")
def sample_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample corpus indexed with a graph, once per session (tests open it read-only)."""
    return build_workspace(tmp_path_factory.mktemp("served") / "sample", [SAMPLE_DOCS])


@pytest.fixture(scope="session")
def sample_served(sample_dir: Path) -> Iterator[Workspace]:
    with Workspace.open(sample_dir) as ws:
        yield ws


@pytest.fixture(scope="session")
def client(sample_served: Workspace) -> Iterator[TestClient]:
    """A keyless (loopback) app over the sample workspace named ``sample``."""
    with TestClient(base_url="http://127.0.0.1", app=create_app({"sample": sample_served})) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RunningServer:
    """uvicorn serving ``app`` in a thread on a free loopback port; stopped by :meth:`stop`."""

    def __init__(self, app: FastAPI, limits: ServerConfig | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        options = uvicorn_options(limits or ServerConfig())
        self.server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", **options)
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> RunningServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)
