"""``/docs`` works offline under the strict Content-Security-Policy: every asset it references is served
by kgrag itself, no script is inline, and in headless Chromium Swagger UI draws every operation without a
CSP violation or a request leaving the machine."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from tests.server.conftest import RunningServer, build_workspace

from kgrag import Workspace
from kgrag.server import create_app
from kgrag.server.openapi30 import downgrade


def test_docs_page_references_only_local_assets_and_no_inline_script(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
    html = page.text
    assert "http://" not in html and "https://" not in html and "//" not in html.replace("<!DOCTYPE html>", "")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all('src="' in attrs and not body.strip() for attrs, body in scripts)
    referenced = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(referenced) == 4
    for url in referenced:
        asset = client.get(url)
        assert asset.status_code == 200 and len(asset.content) > 100, url
    init = client.get("/docs/init.js")
    assert init.headers["content-type"].startswith("text/javascript")
    assert "/docs/openapi-3.0.json" in init.text and "validatorUrl: null" in init.text
    assert client.get("/docs/openapi-3.0.json").json()["openapi"] == "3.0.3"
    bundle = client.get("/docs-assets/swagger-ui-bundle.js")
    assert bundle.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")


def test_every_operation_is_documented_with_a_summary(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operations = [(path, verb, op) for path, verbs in schema["paths"].items() for verb, op in verbs.items()]
    assert len(operations) >= 25
    assert [f"{verb} {path}" for path, verb, op in operations if not op.get("summary")] == []
    for path in ("/passages/{chunk_id}", "/settings", "/eval/runs/{run_id}/questions/{question_id}"):
        assert f"/v1/workspaces/{{workspace}}{path}" in schema["paths"], path


def test_swagger_ui_renders_offline_in_chromium(browser: Any, tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "d", [], graph=False)
    with Workspace.open(path) as ws, RunningServer(create_app({"d": ws})) as server:
        schema = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
        expected = sum(len(verbs) for verbs in schema["paths"].values())
        page = browser.new_page()
        try:
            outside: list[str] = []
            problems: list[str] = []
            page.on("request", lambda r: None if r.url.startswith(server.url) else outside.append(r.url))
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.goto(f"{server.url}/docs")
            page.wait_for_selector(".opblock-summary", timeout=60_000)
            rendered = page.locator(".opblock").count()
            title = page.locator(".info .title").inner_text()
        finally:
            page.close()
    assert outside == [] and problems == []
    assert "kgrag" in title and rendered >= expected


@pytest.mark.parametrize("route", ["/redoc"])
def test_routes_without_a_page_answer_404_json(client: TestClient, route: str) -> None:
    response = client.get(route)
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_the_docs_schema_is_the_same_api_in_the_openapi_30_dialect(client: TestClient) -> None:
    full = client.get("/openapi.json").json()
    docs = client.get("/docs/openapi-3.0.json").json()
    assert full["openapi"].startswith("3.1") and docs["openapi"] == "3.0.3"
    assert docs["paths"].keys() == full["paths"].keys()
    text = json.dumps(docs)
    assert '"type": "null"' not in text and '"const"' not in text
    section = docs["components"]["schemas"]["PassageOut"]["properties"]["section"]
    assert section["type"] == "string" and section["nullable"] is True and "anyOf" not in section
    assert section["description"] == full["components"]["schemas"]["PassageOut"]["properties"]["section"]["description"]


def test_downgrade_spells_31_constructs_in_30() -> None:
    node = {"anyOf": [{"type": "integer", "exclusiveMinimum": 0}, {"type": "null"}], "default": None}
    assert downgrade(node) == {
        "type": "integer",
        "minimum": 0,
        "exclusiveMinimum": True,
        "default": None,
        "nullable": True,
    }
    assert downgrade({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}) == {
        "anyOf": [{"type": "string"}, {"type": "integer"}],
        "nullable": True,
    }
    assert downgrade({"const": "index", "examples": ["a", "b"]}) == {"enum": ["index"], "example": "a"}
    assert downgrade({"openapi": "3.1.0", "info": {}}) == {"openapi": "3.0.3", "info": {}}
