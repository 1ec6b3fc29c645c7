"""A keyless server on 127.0.0.1 against pages in the user's browser: cross-site forms, DNS rebinding,
key guessing, slow headers, and /docs served without a CDN."""

from __future__ import annotations

import io
import re
import socket
from pathlib import Path

import httpx
from fastapi.testclient import TestClient
from tests.server.conftest import WRITE, RunningServer

from kgrag import Workspace
from kgrag.config import ServerConfig
from kgrag.server import KeyRing, create_app

EVIL = "http://evil.example"
UPLOAD = "/v1/workspaces/w/documents"


def _client(ws: Workspace, keys: KeyRing | None = None, **limits: object) -> TestClient:
    app = create_app({"w": ws}, ServerConfig(**limits), keys)
    return TestClient(app, base_url="http://127.0.0.1:8765", raise_server_exceptions=False)


def _form_file() -> list[tuple[str, tuple[str, io.BytesIO]]]:
    return [("files", ("planted.md", io.BytesIO(b"# Planted\n\nA cross-site page wrote this.\n")))]


def _stored(ws: Workspace) -> list[Path]:
    uploads = ws.path / "uploads"
    return list(uploads.iterdir()) if uploads.exists() else []


def test_a_cross_site_form_cannot_upload_or_start_indexing(empty_ws: Workspace) -> None:
    with _client(empty_ws) as c:
        # what an HTML <form enctype="multipart/form-data" method="post"> on another site sends
        forged = c.post(UPLOAD, files=_form_file(), headers={"Origin": EVIL})
        assert forged.status_code == 403 and forged.json()["error"]["code"] == "cross_site"
        # the same form from a browser that sends no Origin, and the other two form encodings
        assert c.post(UPLOAD, files=_form_file()).status_code == 403
        assert c.post("/v1/workspaces/w/jobs", content=b"kind=index", headers={"Origin": EVIL}).status_code == 403
        plain = {"content-type": "text/plain", "Origin": EVIL}
        assert c.post("/v1/workspaces/w/query", content=b'{"question": "x"}', headers=plain).status_code == 403
        form = {"content-type": "application/x-www-form-urlencoded"}
        assert c.post("/v1/workspaces/w/jobs", content=b"kind=index", headers=form).status_code == 403
        # a fetch() from another site with the header would need a preflight; browsers also say where it came from
        assert c.post(UPLOAD, files=_form_file(), headers={**WRITE, "Sec-Fetch-Site": "cross-site"}).status_code == 403
        assert c.post(UPLOAD, files=_form_file(), headers={**WRITE, "Origin": "null"}).status_code == 403
        assert c.post(UPLOAD, files=_form_file(), headers={**WRITE, "Origin": EVIL}).status_code == 403
        assert _stored(empty_ws) == [] and c.get("/v1/workspaces/w/jobs").json() == []
        # this server's own page (same origin, with the header) and a script with the header still work
        own = c.post(f"{UPLOAD}?index=false", files=_form_file(), headers={**WRITE, "Origin": "http://127.0.0.1:8765"})
        assert own.status_code == 201, own.text
        assert c.post(f"{UPLOAD}?index=false", files=_form_file(), headers=WRITE).status_code == 201
        assert len(_stored(empty_ws)) == 2


def test_json_and_reads_pass_without_the_header(empty_ws: Workspace) -> None:
    with _client(empty_ws) as c:
        assert c.get("/v1/workspaces/w/documents").status_code == 200
        job = c.post("/v1/workspaces/w/jobs", json={"kind": "index"})
        assert job.status_code == 202, job.text
        assert "set-cookie" not in job.headers and "set-cookie" not in c.get("/").headers


def test_a_foreign_host_header_is_refused(empty_ws: Workspace) -> None:
    with _client(empty_ws, allowed_hosts=["kgrag.lan"]) as c:
        for host in ("evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.", ""):
            refused = c.get("/v1/workspaces", headers={"Host": host})
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_host", host
            assert c.post(UPLOAD, files=_form_file(), headers={**WRITE, "Host": host}).status_code == 400
        for host in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765", "kgrag.lan:80"):
            assert c.get("/v1/workspaces", headers={"Host": host}).status_code == 200, host
    assert _stored(empty_ws) == []


def test_wrong_keys_are_rate_limited_per_address(empty_ws: Workspace) -> None:
    good = "right-key-0123456789abcdef"
    with _client(empty_ws, KeyRing.parse([good], "test"), failed_auth_per_minute=5) as c:
        assert c.get("/v1/workspaces", headers={"X-API-Key": good}).status_code == 200
        codes = [c.get("/v1/workspaces", headers={"X-API-Key": f"guess-{i:020d}"}).status_code for i in range(5)]
        assert codes == [401] * 5
        locked = c.get("/v1/workspaces", headers={"X-API-Key": good})  # even the right key waits now
        assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1


def test_docs_are_served_from_this_server_only(empty_ws: Workspace) -> None:
    with _client(empty_ws) as c:
        page = c.get("/docs")
        assert page.status_code == 200 and "swagger-ui-bundle.js" in page.text
        urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", page.text)
        assert urls and all(u.startswith("/") for u in urls), urls
        assert c.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
        assert c.get("/redoc").status_code == 404  # ReDoc would need a CDN


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        return sock.recv(65536)


def test_real_server_refuses_rebinding_and_closes_slow_headers(empty_ws: Workspace) -> None:
    limits = ServerConfig(header_timeout_s=1.0)
    with RunningServer(create_app({"w": empty_ws}, limits), limits) as server:
        rebound = _raw(server.port, b"GET /v1/workspaces HTTP/1.1\r\nHost: attacker.example:8765\r\n\r\n")
        assert rebound.startswith(b"HTTP/1.1 400") and b"bad_host" in rebound
        assert httpx.get(f"{server.url}/v1/workspaces", timeout=30).status_code == 200
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finish
            assert sock.recv(1024) == b""  # closed by the server (our own 30 s timeout would raise instead)
