"""Shared fixtures: sample corpus paths, the optional shared datasets, and fast fake workspaces."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgrag import Workspace

# The store fixtures (``store``, ``make_store``, ``store_backend``), parametrised by backend.
pytest_plugins = ("tests.store.backends", "tests.store.pg_fixture")

TEST_TIMEOUT_S = 300.0  # per test on an idle machine; slow-marked tests get four times that

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DOCS = REPO / "examples" / "sample" / "docs"
SAMPLE_QUESTIONS = REPO / "examples" / "sample" / "questions.json"
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
MEDICAL = SHARED_DATASETS / "graphrag-bench-medical"


# The tests ``make test-fast`` leaves out (marked ``slow`` here, beside the modules that mark themselves):
# end-to-end runs through subprocesses, servers and browsers, fuzzing, the PostgreSQL backend (a server
# per session), and tests over the shared datasets. Paths are relative to tests/.
SLOW_PATHS = (
    "reliability/",
    "integration/",
    "docs/test_docs_examples.py",
    "server/test_fuzz.py",
    "server/test_browser",
    "server/test_isolation_concurrency.py",
    "server/test_server_layering.py",
    "llm/test_estimate_accuracy.py",
    "llm/test_local_server.py",
    "graph/test_spacy_import.py",
    "graph_io/test_graph_io_dataset.py",
    "graph_llm/test_llm_extract_http.py",
    "foundation/test_lean_commands.py",
    "llm/test_batch_indexing.py",
    "llm/test_llm_deadlines.py",
    "llm/test_llm_http_faults.py",
    "evaluation/test_qgen_llm_free.py",
    "server/test_docs_offline.py",
    "server/test_csrf_rebinding.py",
    "prompt_tune/test_prompt_tune_workspace.py",
)


def _is_slow(item: pytest.Item) -> bool:
    where = Path(str(item.path)).resolve().relative_to(REPO / "tests").as_posix()
    return where.startswith(SLOW_PATHS) or "postgres" in item.nodeid or item.get_closest_marker("dataset") is not None


def pytest_configure(config: pytest.Config) -> None:
    """pytest-xdist workers start with ``COLUMNS=80`` and ``LINES=24`` in their environment, which the CLI
    honours (``new_console``): drop them, so a test sees the environment of a plain ``pytest`` run and
    command output is not wrapped at 80 columns in one lane and unwrapped in the other."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the :data:`SLOW_PATHS` tests ``slow``, and give every test a timeout that scales with the
    machine (:func:`tests.services.timeout_scale`): a test's own ``timeout`` mark wins; otherwise 300 s,
    or 1200 s for ``slow`` tests, times the scale."""
    from tests.services import timeout_scale

    scale = timeout_scale()
    for item in items:
        if item.get_closest_marker("slow") is None and _is_slow(item):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("timeout") is None:
            base = TEST_TIMEOUT_S * (4 if item.get_closest_marker("slow") else 1)
            item.add_marker(pytest.mark.timeout(base * scale))


@pytest.fixture
def fake_ws(tmp_path: Path) -> Iterator[Workspace]:
    """An empty workspace with the hashing embedder (no model load) and the NLP-free path."""
    ws = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def sample_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    """The sample corpus indexed once per session with the fake embedder (read-only for tests)."""
    path = tmp_path_factory.mktemp("sample") / "ws"
    ws = Workspace.init(path, embedding={"provider": "fake"}, graph={"extractor": "none"})
    ws.index([SAMPLE_DOCS])
    yield ws
    ws.close()


@pytest.fixture
def medical_dir() -> Path:
    if not MEDICAL.exists():
        pytest.skip("../shared/datasets/graphrag-bench-medical is not present")
    return MEDICAL


# The reliability figures (tests/reliability/totals.py): printed after the run; under pytest-xdist each
# worker sends its own to the controller, which adds them up and prints them.
def pytest_sessionfinish(session: pytest.Session) -> None:
    from tests.reliability.totals import snapshot

    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["reliability_totals"] = snapshot()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    from tests.reliability.totals import merge

    merge(getattr(node, "workeroutput", {}).get("reliability_totals", {}))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.reliability.totals import summary_lines

    lines = summary_lines()
    if lines:
        terminalreporter.section("reliability totals")
        for line in lines:
            terminalreporter.write_line(line)
