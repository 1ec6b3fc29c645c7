"""Schemathesis fuzzes every operation of the published OpenAPI schema, with valid and with invalid
inputs: the server must never answer with a 5xx. The
number of cases and of server errors is written to ``build/test-artifacts/fuzz-summary.json``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from tests.conftest import REPO, SAMPLE_DOCS  # noqa: E402
from tests.server.conftest import WRITE, build_workspace  # noqa: E402

from kgrag import Workspace  # noqa: E402
from kgrag.config import ServerConfig  # noqa: E402
from kgrag.server import create_app  # noqa: E402

ARTIFACTS = REPO / "build" / "test-artifacts"
EXAMPLES_PER_MODE = 12


def _fuzz_operation(operation: Any, mode: Any, statuses: Counter[int], failures: list[str]) -> None:
    fixed = {"workspace": "sample"} if "{workspace}" in operation.path else None

    @given(case=operation.as_strategy(mode, path_parameters=fixed))
    @settings(
        max_examples=EXAMPLES_PER_MODE,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case: Any) -> None:
        response = case.call(headers=WRITE)  # a script's request: past the cross-site guard
        statuses[response.status_code] += 1
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:200]}")
        elif response.status_code >= 400 and not response.json()["error"]["message"]:
            failures.append(f"{case.method} {case.formatted_path}: error without a message")

    try:
        run()
    except Unsatisfiable:
        if mode == schemathesis.GenerationMode.POSITIVE:
            raise
        # an operation without parameters or body has no invalid input to generate


def test_fuzz_the_openapi_schema_without_server_errors(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "ws", [SAMPLE_DOCS])
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    with Workspace.open(path) as ws:
        limits = ServerConfig(rate_limit_per_minute=0, max_file_bytes=200_000, allowed_hosts=["testserver"])
        app = create_app({"sample": ws}, limits)
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        operations = [result.ok() for result in schema.get_all_operations()]
        for operation in operations:
            for mode in schemathesis.GenerationMode:
                _fuzz_operation(operation, mode, statuses, failures)
        app.state.kgrag.shutdown()  # uploads start jobs: let them end before the workspace closes
    cases = sum(statuses.values())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    summary = {
        "operations": len(operations),
        "cases": cases,
        "server_errors": len(failures),
        "by_status": {str(k): v for k, v in sorted(statuses.items())},
    }
    (ARTIFACTS / "fuzz-summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    assert failures == []
    assert len(operations) >= 18 and cases >= len(operations) * EXAMPLES_PER_MODE
