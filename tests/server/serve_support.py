"""`kgrag serve` as a real subprocess for end-to-end tests (browser, OpenAI client, MCP client)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from tests.server.conftest import free_port


def serve(
    workspaces: dict[str, Path], *options: str, env: dict[str, str] | None = None, polls: int = 600
) -> Iterator[str]:
    """`kgrag serve` as a real subprocess on a free loopback port (``options`` and ``env`` added to its
    command line and environment), polled on /v1/health up to ``polls`` times; terminated afterwards."""
    port = free_port()
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HF_HUB_OFFLINE": "1", **(env or {})}
    spec = [arg for name, path in workspaces.items() for arg in ("-w", f"{name}={path}")]
    command = [sys.executable, "-m", "kgrag.cli", "serve", *spec, *options, "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(polls):
            if process.poll() is not None:
                raise RuntimeError(f"kgrag serve exited: {process.stdout.read().decode() if process.stdout else ''}")
            try:
                if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(30)
