"""SIGTERM stops ``kgrag index --engine ray`` like any command: one line, exit 128 + 15, the work resumable.

``ray.init`` installs a SIGTERM handler of its own in the driver, which aborts the process with a native
stack dump (exit 134); the engine puts the command's handlers back after it (``_own_signal_handlers``).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.services import import_service, scaled

from kgrag import Workspace
from kgrag.indexing.engines.ray_session import _own_signal_handlers
from kgrag.testing.workspace_toml import write_workspace_toml

RUN_TIMEOUT_S = scaled(300.0)


def _other(signum: int, frame: object) -> None:
    return None


def test_handlers_set_inside_the_block_are_undone() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with _own_signal_handlers():
        signal.signal(signal.SIGTERM, _other)  # what ray.init does in the driver
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.slow
def test_sigterm_during_a_ray_index_ends_in_one_line_and_143(tmp_path: Path) -> None:
    import_service("ray", "Ray", "the ray extra is not installed (pip install 'kgrag[ray]')")
    workspace = tmp_path / "ws"
    Workspace.init(workspace).close()
    write_workspace_toml(
        workspace, {"embedding.provider": '"fake"', "graph.extractor": '"nlp"', "llm.provider": '"none"'}
    )
    command = [sys.executable, "-m", "kgrag.cli", "index", str(SAMPLE_DOCS), "-w", str(workspace), "--engine", "ray"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert run.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + RUN_TIMEOUT_S
    for line in run.stdout:  # wait until the local Ray runs a stage
        seen.append(line)
        if line.startswith(("ingest:", "embed:")) or time.monotonic() > deadline:
            break
    run.send_signal(signal.SIGTERM)
    rest, _ = run.communicate(timeout=RUN_TIMEOUT_S)
    output = "".join(seen) + rest
    assert run.returncode == 128 + signal.SIGTERM, output[-3000:]
    assert "stopped by SIGTERM; re-run the same command to resume" in output
    assert "SIGTERM received" not in output  # Ray's abort handler did not run
