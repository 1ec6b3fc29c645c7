"""A keyless server on 127.0.0.1 against pages in the user's browser: cross-site forms, DNS rebinding,
key guessing, slow headers, and /docs served without a CDN."""

from __future__ import annotations

import io
import re
import select
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
        for host in (
            "evil.example",
            "evil.example:8765",
            "127.0.0.1.evil.example",
            "localhost.",
            "",
            "127.0.0.1:8765 evil",
            "127.0.0.1 evil",
            "127.0.0.1:",
            "127.0.0.1:8765:1",
            "[::1]x",
            "127.0.0.1/x",
        ):
            refused = c.get("/v1/workspaces", headers={"Host": host})
            assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_host", host
            assert c.post(UPLOAD, files=_form_file(), headers={**WRITE, "Host": host}).status_code == 400
        for host in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765", "kgrag.lan:80"):
            assert c.get("/v1/workspaces", headers={"Host": host}).status_code == 200, host
    assert _stored(empty_ws) == []


def test_a_repeated_wrong_key_waits_and_the_right_key_is_still_accepted(empty_ws: Workspace) -> None:
    """Behind a shared proxy every client has one address: one client's wrong key must not lock the others out."""
    good, wrong = "right-key-0123456789abcdef", "wrong-key-0000000000000000"
    with _client(empty_ws, KeyRing.parse([good], "test"), failed_auth_per_minute=10) as c:
        codes = [c.get("/v1/workspaces", headers={"X-API-Key": wrong}).status_code for _ in range(10)]
        assert codes == [401] * 10
        locked = c.get("/v1/workspaces", headers={"X-API-Key": wrong})
        assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1
        assert c.get("/v1/workspaces", headers={"X-API-Key": good}).status_code == 200
        guesses = [c.get("/v1/workspaces", headers={"X-API-Key": f"guess-{i:020d}"}).status_code for i in range(10)]
        assert guesses == [401] * 10  # each new wrong key is checked (and fails): keys are >= 16 characters
        assert c.get("/v1/workspaces", headers={"Authorization": f"Bearer {good}"}).status_code == 200
        missing = [c.get("/v1/workspaces").status_code for _ in range(11)]
        assert missing == [401] * 10 + [429]


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


def test_real_server_refuses_a_host_with_trailing_junk_and_cuts_slow_bodies(empty_ws: Workspace) -> None:
    limits = ServerConfig(body_timeout_s=1.0)
    with RunningServer(create_app({"w": empty_ws}, limits), limits) as server:
        junk = _raw(server.port, f"GET /v1/workspaces HTTP/1.1\r\nHost: 127.0.0.1:{server.port} evil\r\n\r\n".encode())
        assert junk.startswith(b"HTTP/1.1 400") and b"bad_host" in junk
        declared = 600
        head = (
            f"POST /v1/workspaces/w/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {declared}\r\n\r\n"
        )
        sent = 0
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(head.encode())
            while sent < declared:  # a byte every 0.1 s: the whole body would take a minute
                readable, _, _ = select.select([sock], [], [], 0.1)
                if readable and sock.recv(1024) == b"":
                    break  # closed by the server
                try:
                    sock.sendall(b" ")
                except OSError:
                    break
                sent += 1
        assert sent < declared  # cut before the body was complete
        assert httpx.get(f"{server.url}/v1/workspaces", timeout=30).status_code == 200
