"""The security list of issue #13: keys off loopback, key scopes, rate limits, safe uploads, size limits,
archive limits, JSON errors without tracebacks."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.server.conftest import WRITE, build_workspace

from kgrag import Workspace
from kgrag.config import ServerConfig
from kgrag.core.errors import ConfigError
from kgrag.server import KeyRing, check_bind, create_app, is_loopback

KEY_A = "key-for-team-a-0123456789"
KEY_ALL = "admin-key-abcdefghijklmnop"


def _client(ws: Workspace, **limits: object) -> TestClient:
    return TestClient(
        base_url="http://127.0.0.1", app=create_app({"w": ws}, ServerConfig(**limits)), raise_server_exceptions=False
    )


def _upload(c: TestClient, name: str, data: bytes) -> dict[str, object]:
    response = c.post(
        "/v1/workspaces/w/documents?index=false", files=[("files", (name, io.BytesIO(data)))], headers=WRITE
    )
    body: dict[str, object] = response.json()
    body["status"] = response.status_code
    return body


def test_non_loopback_needs_a_key() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("192.168.1.5")
    check_bind("127.0.0.1", KeyRing())
    with pytest.raises(ConfigError, match="API key"):
        check_bind("0.0.0.0", KeyRing())
    check_bind("0.0.0.0", KeyRing.parse([KEY_ALL], "test"))
    with pytest.raises(ConfigError, match="16 characters"):
        KeyRing.parse(["short"], "test")


def test_kgrag_serve_refuses_to_start_open_to_the_network(empty_ws: Workspace) -> None:
    env = {k: v for k, v in os.environ.items() if k != "KGRAG_API_KEYS"}
    done = subprocess.run(
        [sys.executable, "-m", "kgrag.cli", "serve", "-w", str(empty_ws.path), "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1 and "refusing to bind 0.0.0.0" in done.stderr


def test_keys_are_required_checked_and_scoped(tmp_path: Path) -> None:
    a = build_workspace(tmp_path / "a", [], graph=False)
    b = build_workspace(tmp_path / "b", [], graph=False)
    keys = KeyRing.parse([f"{KEY_A} a", KEY_ALL], "test")
    with (
        Workspace.open(a) as wa,
        Workspace.open(b) as wb,
        TestClient(base_url="http://127.0.0.1", app=create_app({"a": wa, "b": wb}, keys=keys)) as c,
    ):
        assert c.get("/v1/health").status_code == 200  # liveness only, no data
        missing = c.get("/v1/workspaces/a/documents")
        assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
        assert (
            c.get("/v1/workspaces/a/documents", headers={"Authorization": "Bearer wrong-key-0000000000"}).status_code
            == 401
        )
        as_a = {"Authorization": f"Bearer {KEY_A}"}
        assert c.get("/v1/workspaces/a/documents", headers=as_a).status_code == 200
        assert c.get("/v1/workspaces/b/documents", headers=as_a).status_code == 403
        assert [w["name"] for w in c.get("/v1/workspaces", headers=as_a).json()] == ["a"]
        assert 'workspace="b"' not in c.get("/v1/metrics", headers=as_a).text
        assert c.get("/v1/workspaces/b/documents", headers={"X-API-Key": KEY_ALL}).status_code == 200
        assert c.get("/v1/metrics").status_code == 401


def test_rate_limit_per_key(empty_ws: Workspace) -> None:
    with _client(empty_ws, rate_limit_per_minute=60, rate_limit_burst=3) as c:
        codes = [c.get("/v1/workspaces/w/documents").status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3] == 429
        limited = c.get("/v1/workspaces/w/documents")
        assert limited.json()["error"]["code"] == "rate_limited" and int(limited.headers["retry-after"]) >= 1


def test_uploads_get_generated_names_inside_the_uploads_directory(empty_ws: Workspace, tmp_path: Path) -> None:
    with _client(empty_ws) as c:
        for hostile in ("../../escape.md", "..\\..\\escape.md", "/etc/passwd.txt", "a/../../b.md", "x\x00y.md"):
            body = _upload(c, hostile, b"# hi\n\nhello\n")
            assert body["status"] == 201, body
        stored = sorted(p.name for p in (empty_ws.path / "uploads").iterdir())
        assert len(stored) == 5 and all(len(n.split("-", 1)[0]) == 16 for n in stored)
        assert not any((tmp_path / n).exists() for n in ("escape.md", "b.md"))
        assert not list(tmp_path.glob("escape*")) and not list(empty_ws.path.glob("escape*"))


def test_size_limits_per_file_and_per_request(empty_ws: Workspace) -> None:
    with _client(empty_ws, max_file_bytes=1000, max_request_bytes=5000) as c:
        big = _upload(c, "big.txt", b"x" * 1001)
        assert big["status"] == 413 and "per-file" in str(big["error"])
        two = c.post(
            "/v1/workspaces/w/documents?index=false",
            files=[("files", ("ok.txt", io.BytesIO(b"fine"))), ("files", ("big.txt", io.BytesIO(b"x" * 2000)))],
            headers=WRITE,
        )
        assert two.status_code == 413 and not list((empty_ws.path / "uploads").iterdir())  # all or nothing
        huge = c.post(
            "/v1/workspaces/w/documents", files=[("files", ("h.txt", io.BytesIO(b"x" * 6000)))], headers=WRITE
        )
        assert huge.status_code == 413 and huge.json()["error"]["code"] == "too_large"

        def chunks() -> Iterator[bytes]:  # no Content-Length: the limit applies while streaming
            yield b'{"question": "'
            for _ in range(10):
                yield b"a" * 1000
            yield b'"}'

        streamed = c.post("/v1/workspaces/w/query", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413


def test_unsupported_types_and_other_archives_are_refused(empty_ws: Workspace) -> None:
    with _client(empty_ws) as c:
        assert _upload(c, "tool.exe", b"MZ")["status"] == 415
        assert _upload(c, "corpus.tar.gz", b"\x1f\x8b")["status"] == 415


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_zip_is_extracted_with_generated_names_and_skips(empty_ws: Workspace) -> None:
    archive = _zip(
        {"../../evil.md": b"# Evil\n\ntext\n", "docs/a.md": b"# A\n\na\n", "nested.zip": b"PK", "b.exe": b"MZ"}
    )
    with _client(empty_ws) as c:
        body = _upload(c, "docs.zip", archive)
        assert body["status"] == 201
        accepted = [f["name"] for f in body["files"] if f["status"] == "accepted"]  # type: ignore[union-attr,index]
        assert sorted(accepted) == ["../../evil.md", "docs/a.md"]
        assert len(body["skipped"]) == 2  # type: ignore[arg-type]
        stored = list((empty_ws.path / "uploads").iterdir())
        assert len(stored) == 2 and all(p.parent == empty_ws.path / "uploads" for p in stored)


def test_zip_bombs_and_damaged_zips_are_refused(empty_ws: Workspace) -> None:
    bomb = _zip({"zeros.txt": b"\0" * (3 * 1024 * 1024)})  # ~3 KB compressed, ratio ~1000
    with _client(empty_ws, max_archive_ratio=50) as c:
        refused = _upload(c, "bomb.zip", bomb)
        assert refused["status"] == 413 and "ratio" in str(refused["error"])
        assert not list((empty_ws.path / "uploads").iterdir())
        assert _upload(c, "broken.zip", b"PK\x03\x04 not really")["status"] == 400
    with _client(empty_ws, max_archive_files=2) as c:
        assert _upload(c, "many.zip", _zip({f"{i}.md": b"x" for i in range(3)}))["status"] == 413
    with _client(empty_ws, archives="reject") as c:
        assert _upload(c, "ok.zip", _zip({"a.md": b"a"}))["status"] == 415


def test_errors_are_json_with_a_message_never_a_traceback(empty_ws: Workspace) -> None:
    with _client(empty_ws) as c:
        cases = [
            c.post("/v1/workspaces/w/query", content=b"{not json", headers={"content-type": "application/json"}),
            c.post("/v1/workspaces/w/query", json={"question": "x", "k": 0}),
            c.post("/v1/workspaces/w/query", json={"question": "anything"}),  # empty workspace: a user error
            c.post("/v1/workspaces/w/query", json={"question": "x", "pipeline": "nope"}),
            c.get("/v1/workspaces/no-such/documents"),
            c.get("/v1/nowhere"),
            c.delete("/v1/workspaces/w", headers=WRITE),
        ]
        for response in cases:
            assert 400 <= response.status_code < 500, response.text
            error = response.json()["error"]
            assert error["message"] and "Traceback" not in response.text


def test_internal_errors_hide_details(empty_ws: Workspace) -> None:
    def broken(*_: object, **__: object) -> object:
        raise RuntimeError("secret /srv/path detail")

    with _client(empty_ws) as c:
        empty_ws.documents.list = broken  # type: ignore[method-assign]
        response = c.get("/v1/workspaces/w/documents")
        assert response.status_code == 500 and "secret" not in response.text
        assert response.headers["x-request-id"] in response.json()["error"]["message"]


def test_an_uploaded_page_cannot_include_a_file_of_the_server(empty_ws: Workspace) -> None:
    secret = empty_ws.path / "kgrag.toml"  # beside the uploads folder: readable by the server, not uploaded
    page = f'# Notes\n\nKestrel stores telemetry.\n\n--8<-- "../kgrag.toml"\n--8<-- "{secret}"\n'.encode()
    with _client(empty_ws) as c:
        sent = c.post("/v1/workspaces/w/documents", files=[("files", ("notes.md", io.BytesIO(page)))], headers=WRITE)
        job = sent.json()
        for _ in range(1200):
            job = c.get(f"/v1/workspaces/w/jobs/{sent.json()['job_id']}").json()
            if job["state"] not in ("queued", "running"):
                break
            time.sleep(0.05)
    text = "\n".join(chunk.text for chunk in empty_ws.store.chunks.iter_all())
    assert "Kestrel stores telemetry." in text and "[embedding]" not in text and "provider" not in text
    [note] = job["result"]["notes"]
    assert note["name"] == "notes.md" and "outside the folder being indexed" in note["reason"]
    assert str(empty_ws.path) not in json.dumps(job)  # no server path in the job's result
