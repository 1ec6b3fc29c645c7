"""``kgrag index --engine ray --ray-address HOST:PORT`` on a Ray cluster started beforehand with ``ray start
--head`` (docs/ray.md, "Where it runs"): the index equals the local engine's, table by table. And what
kgrag says, at once, when the address is wrong or the cluster wants a token (no Ray needed for those).

The head is this test's own: one CPU, a free port, its own ``--temp-dir``, token authentication with a
token of its own, and kept on the loopback interface (Ray on Linux replaces 127.0.0.1 by the machine's
address unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, for the head and the driver alike). It runs in a
session of its own and is stopped by killing that process group — never ``ray stop``, which stops every
Ray on the machine. Ray costs ~500 MB and a few seconds to start, so this is one test.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.conftest import REPO, SAMPLE_DOCS
from tests.reliability.harness import dump_tables
from tests.services import import_service, scaled

from kgrag import Workspace
from kgrag.indexing.engines import ray_address
from kgrag.indexing.engines.ray_address import connection_failure, split_address, unreachable_reason
from kgrag.testing.pg_server import free_port
from kgrag.testing.workspace_toml import write_workspace_toml

START_TIMEOUT_S = scaled(120.0)
RUN_TIMEOUT_S = scaled(300.0)
PLUGIN = '''
def words_extractor(config, client, progress):
    """The tests' NLP-free WordExtractor, as an installed plug-in would provide an extractor."""
    from tests.graph.graph_fakes import WordExtractor

    return WordExtractor()
'''


@dataclass(frozen=True)
class RayHead:
    address: str
    env: dict[str, str]  # what a driver needs to reach it (the token, loopback) and to import the plug-in


def _install_plugin(site: Path) -> None:
    """An installed distribution declaring the ``words`` extractor (entry points, as pip would write them)."""
    info = site / "kgrag_test_words-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kgrag_test_words\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[kgrag.extractors]\nwords = kgrag_test_words:words_extractor\n", encoding="utf-8"
    )
    (site / "kgrag_test_words.py").write_text(PLUGIN, encoding="utf-8")


def _wait_for_port(head: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if head.poll() is not None:
            raise AssertionError(f"ray start exited ({head.returncode}): {log.read_text(errors='replace')[-2000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"the Ray head did not listen on 127.0.0.1:{port} within {START_TIMEOUT_S:.0f} s")


def _stop(head: subprocess.Popen[bytes]) -> None:
    """Kill the head's session (GCS, raylet, agents, workers: all started inside it) and reap the head."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(head.pid, sig)
        except ProcessLookupError:
            break
        try:
            head.wait(timeout=5)
        except subprocess.TimeoutExpired:
            continue


@pytest.fixture
def ray_head(tmp_path: Path) -> Iterator[RayHead]:
    """A one-CPU Ray head on 127.0.0.1 that can import the tests' extractor plug-in."""
    import_service("ray.data", "Ray", "Ray is not installed (pip install 'kgrag[ray]'); Ray engine tests skipped")
    site = tmp_path / "site"
    _install_plugin(site)
    path = os.pathsep.join([str(REPO / "src"), str(REPO), str(site)])
    env = {
        **os.environ,
        "PYTHONPATH": path,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
        "HF_HUB_OFFLINE": "1",
    }
    port, temp = free_port(), Path(tempfile.mkdtemp(prefix="kgrag-ray-head-"))  # short: Ray's socket paths
    ports = [
        f"--{name}={free_port()}" for name in ("dashboard-port", "dashboard-agent-listen-port", "metrics-export-port")
    ]
    ray = Path(sys.executable).with_name("ray")
    log = tmp_path / "ray-head.log"
    with log.open("wb") as out:
        head = subprocess.Popen(
            [str(ray), "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
             "--num-cpus=1", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}", *ports],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        _wait_for_port(head, port, log)
        yield RayHead(f"127.0.0.1:{port}", env)
    finally:
        _stop(head)
        shutil.rmtree(temp, ignore_errors=True)


def _index(workspace: Path, env: dict[str, str], *engine: str) -> subprocess.CompletedProcess[str]:
    Workspace.init(workspace, embedding={"provider": "fake"}).close()
    write_workspace_toml(
        workspace,
        {
            "embedding.provider": '"fake"',
            "graph.extractor": '"words"',
            "llm.provider": '"none"',
            "indexing.engines.ray.extract_batch": "4",
            "indexing.engines.ray.load_batch": "2",
        },
    )
    command = [sys.executable, "-m", "kgrag.cli", "index", str(SAMPLE_DOCS), "-w", str(workspace), *engine]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


@pytest.mark.slow
def test_index_on_a_ray_cluster_by_address_equals_local(tmp_path: Path, ray_head: RayHead) -> None:
    local = _index(tmp_path / "local", ray_head.env, "--engine", "local")
    assert local.returncode == 0, local.stdout + local.stderr
    remote = _index(tmp_path / "ray", ray_head.env, "--engine", "ray", "--ray-address", ray_head.address)
    assert remote.returncode == 0, remote.stdout + remote.stderr
    assert f"the Ray cluster at {ray_head.address}" in remote.stdout
    tables = dump_tables(tmp_path / "local" / "kgrag.sqlite3")
    assert len(tables["entities"]) > 100 and len(tables["chunks"]) > 100
    assert dump_tables(tmp_path / "ray" / "kgrag.sqlite3") == tables


def test_addresses_are_split_where_kgrag_can_check_them() -> None:
    assert split_address("127.0.0.1:6379") == ("127.0.0.1", 6379)
    assert split_address("ray://head.example:10001") == ("head.example", 10001)
    assert split_address("[::1]:6379") == ("::1", 6379)
    assert split_address("auto") is None and split_address("local") is None and split_address("head") is None


def test_an_address_where_nothing_listens_fails_at_once_with_the_reason() -> None:
    """``ray.init`` would retry a closed port for minutes; the check answers in milliseconds."""
    with socket.create_server(("0.0.0.0", 0)) as listening:  # all interfaces: whichever address Ray dials
        port = listening.getsockname()[1]
        assert unreachable_reason(f"127.0.0.1:{port}") is None
    reason = unreachable_reason(f"127.0.0.1:{port}")
    assert reason is not None and f":{port} (" in reason and "nothing accepts connections" in reason


def test_a_loopback_only_head_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray on Linux dials a loopback host as the machine's address; a loopback-only head is then missed."""
    monkeypatch.setattr(ray_address, "_dialled_host", lambda address, host: "127.0.0.2")  # as Ray would
    with socket.create_server(("127.0.0.1", 0)) as listening:
        reason = unreachable_reason(f"127.0.0.1:{listening.getsockname()[1]}")
    assert reason is not None and "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0" in reason


def test_a_missing_token_is_named_with_the_fix() -> None:
    """The chain Ray 2.60 raises for a token-authenticated cluster named by address without a token."""
    inner = RuntimeError(
        "Failed to connect to GCS. Last connection error: Traceback (most recent call last):\n"
        '  File "node.py", line 996, in _init_gcs_client\n'
        "ray.exceptions.AuthenticationError: RPC error: InvalidAuthToken: Authentication token is missing or "
        "incorrect. Note: RAY_AUTH_MODE is currently 'disabled' (not 'token').\n"
    )
    try:
        raise ConnectionError("Failed to connect to Ray cluster at 127.0.0.1:6379") from inner
    except ConnectionError as exc:
        text = connection_failure(exc)
    assert text.startswith("Failed to connect to Ray cluster at 127.0.0.1:6379 (ray.exceptions.AuthenticationError")
    assert "InvalidAuthToken: Authentication token is missing or incorrect)" in text
    assert "RAY_AUTH_MODE=token" in text and "RAY_AUTH_TOKEN" in text
    assert connection_failure(ValueError("bad address")) == "bad address"
