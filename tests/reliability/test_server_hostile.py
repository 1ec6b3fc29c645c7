"""A real ``kgrag serve``-configured uvicorn on 127.0.0.1 without keys, attacked as a web page in the user's
browser would: every combination of write method, form encoding, Origin, Sec-Fetch-Site and foreign Host
that a cross-site page or a DNS-rebinding page can produce is refused and changes nothing; this server's
own page and scripts still get through. ``make soak`` adds random rebinding host names."""

from __future__ import annotations

import io
import itertools
import os
import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.reliability.totals import record
from tests.server.conftest import RunningServer, build_workspace

from kgrag import Workspace
from kgrag.config import ServerConfig
from kgrag.server import create_app

FORMS = {  # what an HTML form can send without JavaScript, and without the page's header
    "multipart": {"files": [("files", ("planted.md", io.BytesIO(b"# Planted\n\nforged\n")))]},
    "urlencoded": {"content": b"kind=index", "headers": {"content-type": "application/x-www-form-urlencoded"}},
    "text-plain": {"content": b'{"kind": "index"}', "headers": {"content-type": "text/plain"}},
}
TARGETS = ("/v1/workspaces/w/documents", "/v1/workspaces/w/jobs", "/v1/workspaces/w/query")
ORIGINS = (None, "http://evil.example", "null", "http://127.0.0.1.evil.example", "http://localhost:9")
SITES = (None, "cross-site", "same-site")
SOAK = bool(os.environ.get("KGRAG_SOAK"))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    path = build_workspace(tmp_path / "ws", [], graph=False)
    with Workspace.open(path) as ws, RunningServer(create_app({"w": ws}, ServerConfig()), ServerConfig()) as running:
        yield running.url, path


def _forms() -> Iterator[tuple[str, dict[str, object]]]:
    for name, form in FORMS.items():
        fresh = dict(form)
        if "files" in fresh:
            fresh["files"] = [("files", ("planted.md", io.BytesIO(b"# Planted\n\nforged\n")))]
        yield name, fresh


def _rebinding_hosts(port: int) -> list[str]:
    hosts = ["attacker.example", f"attacker.example:{port}", "127.0.0.1.nip.example", "localhost.evil", "0.0.0.0"]
    if SOAK:
        rng = random.Random(27)
        letters = "abcdefghijklmnopqrstuvwxyz0123456789-"
        hosts += ["".join(rng.choice(letters) for _ in range(rng.randint(3, 30))) + ".test" for _ in range(200)]
    return hosts


def test_forged_and_rebound_requests_are_refused(server: tuple[str, Path]) -> None:
    url, path = server
    port = int(url.rsplit(":", 1)[1])
    tried = refused = 0
    with httpx.Client(base_url=url, timeout=30) as client:
        for target, origin, site in itertools.product(TARGETS, ORIGINS, SITES):
            for _, form in _forms():
                headers = dict(form.pop("headers", {}) or {})  # type: ignore[call-overload]
                if origin is not None:
                    headers["Origin"] = origin
                if site is not None:
                    headers["Sec-Fetch-Site"] = site
                response = client.post(target, headers=headers, **form)  # type: ignore[arg-type]
                tried += 1
                refused += response.status_code == 403 and response.json()["error"]["code"] == "cross_site"
        for host in _rebinding_hosts(port):
            for method, target in (("GET", "/v1/workspaces"), ("GET", "/"), ("POST", "/v1/workspaces/w/jobs")):
                response = client.request(method, target, headers={"Host": host}, json={"kind": "index"})
                tried += 1
                refused += response.status_code == 400 and response.json()["error"]["code"] == "bad_host"
        assert client.get("/v1/workspaces/w/jobs").json() == []  # nothing started a job
        own = client.post("/v1/workspaces/w/jobs", json={"kind": "index"}, headers={"Origin": url})
        script = client.post(
            "/v1/workspaces/w/documents?index=false",
            files=[("files", ("mine.md", io.BytesIO(b"# Mine\n")))],
            headers={"X-Kgrag-Request": "1"},
        )
    record("server", tried=tried + 2, held=refused + (own.status_code == 202) + (script.status_code == 201))
    print(f"server: {refused} of {tried} forged or rebound requests refused")
    assert refused == tried
    assert own.status_code == 202 and script.status_code == 201
    assert [p.name.endswith("mine.md") for p in (path / "uploads").iterdir()] == [True]
