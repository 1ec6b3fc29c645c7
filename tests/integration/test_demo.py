"""`make demo` is one of the two commands the README gives a newcomer: its script must run to the end on
the current API (it indexes the sample corpus, answers, compares pipelines and runs an evaluation)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_the_demo_runs_to_the_end(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "demo.py"), str(tmp_path / "demo-ws")],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "Which pipeline pays off here?" in out and "demo finished in" in out
    assert "Traceback" not in out + done.stderr
    assert "stored as evaluation run run-" in out
