"""The responses' declared shapes: the OpenAPI document describes what the routes return field by field
(not as free-form objects), a response carries exactly the declared fields, and what a plug-in step
leaves in its trace parameters as tuples or sets still reaches the client (as lists)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from kgrag.server.plain import plain_json


def _response_schema(schema: dict, path: str, method: str = "get") -> dict:
    content = schema["paths"][path][method]["responses"]
    ok = content.get("200") or content.get("202")
    return ok["content"]["application/json"]["schema"]


def test_openapi_describes_the_query_result_field_by_field(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    parts = schema["components"]["schemas"]
    result = parts["QueryResult"]["properties"]
    assert result["items"]["items"]["$ref"].endswith("/ItemOut")
    assert result["trace"]["items"]["$ref"].endswith("/TraceOut")
    assert result["cost"]["$ref"].endswith("/CostDict")
    assert set(parts["ItemOut"]["required"]) == {"kind", "id", "score", "chunk_ids", "doc_id", "span", "scores",
                                                  "metadata"}  # fmt: skip
    assert set(parts["CostDict"]["required"]) == {"prompt_tokens", "completion_tokens", "cost_usd", "line"}


def test_openapi_names_the_shapes_of_the_untyped_routes_of_before(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert _response_schema(schema, "/v1/health")["$ref"].endswith("/Health")
    jobs = _response_schema(schema, "/v1/workspaces/{workspace}/jobs")
    assert jobs["items"]["$ref"].endswith("/JobOut")
    pipelines = _response_schema(schema, "/v1/workspaces/{workspace}/pipelines")
    assert pipelines["items"]["$ref"].endswith("/PipelineRow")
    assert _response_schema(schema, "/v1/models")["$ref"].endswith("/ModelList")


def test_a_response_carries_the_declared_fields(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    body = client.post("/v1/workspaces/sample/query", json={"question": "Who leads the Apps team?", "pipeline": "ppr"})
    assert body.status_code == 200, body.text
    data = body.json()
    for item in data["items"]:
        assert set(item) <= set(schema["ItemOut"]["properties"])
        assert ("text" in item) == (item["kind"] != "chunk")  # a chunk's text is in passages
    for step in data["trace"]:
        assert set(step) == set(schema["TraceOut"]["properties"])
    rows = client.get("/v1/workspaces/sample/pipelines").json()
    assert rows and all(set(row) == set(schema["PipelineRow"]["properties"]) for row in rows)


def test_tuples_and_sets_a_plug_in_step_leaves_become_lists() -> None:
    value = {"pair": (1, 2), "seen": {"a"}, "nested": [{"span": (3, 4)}], 7: "key", "x": 1.5, "none": None}
    assert plain_json(value) == {
        "pair": [1, 2],
        "seen": ["a"],
        "nested": [{"span": [3, 4]}],
        "7": "key",
        "x": 1.5,
        "none": None,
    }
