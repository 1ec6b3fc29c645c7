"""Shared fixtures: sample corpus paths, the optional shared datasets, and fast fake workspaces."""

from __future__ import annotations

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Timeouts that scale with the machine (:func:`tests.services.timeout_scale`): a test's own
    ``timeout`` mark wins; otherwise 300 s, or 1200 s for ``slow`` tests, times the scale."""
    from tests.services import timeout_scale

    scale = timeout_scale()
    for item in items:
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
