"""A query loads only what its pipeline uses: a BM25 query without an LLM imports neither the graph
extraction code (its context-window pre-flight runs only where extraction runs) nor the graph at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import SAMPLE_DOCS
from tests.helpers import index_with_word_extractor

from kgrag import Workspace

DOCS = (SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md")


def _modules_after(args: list[str]) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``kgrag ARGS`` in a fresh interpreter, and the modules it had loaded when it finished."""
    script = (
        "import sys, json\nfrom kgrag.cli.app import main\n"
        f"sys.argv = ['kgrag', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('MODULES ' + json.dumps(sorted(sys.modules)))"
    )
    env = {**{k: v for k, v in os.environ.items() if k != "COLUMNS"}, "KGRAG_EMBEDDING__PROVIDER": "fake"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    return done, json.loads(done.stdout.split("MODULES ", 1)[1]) if "MODULES " in done.stdout else []


def test_a_bm25_query_without_an_llm_imports_no_graph_code(tmp_path: Path) -> None:
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}) as ws:
        index_with_word_extractor(ws, DOCS)
        assert ws.config.llm.provider == "none" and ws.store.graph.counts()["entities"] > 0
    done, modules = _modules_after(["query", "-p", "bm25", "Who leads the Platform team?", "-w", str(tmp_path / "ws")])
    assert done.returncode == 0, done.stderr
    assert "Platform" in done.stdout  # it answered from the passages it found
    assert "kgrag.retrieval.steps" in modules  # the probe sees the query's own modules
    assert [m for m in modules if m.startswith("kgrag.graph.extract")] == []
    assert [m for m in modules if m.startswith("kgrag.graph")] == []
    assert "igraph" not in modules


def test_a_graph_query_loads_the_graph_but_not_the_extraction_code(tmp_path: Path) -> None:
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}) as ws:
        index_with_word_extractor(ws, DOCS)
    done, modules = _modules_after(["query", "-p", "ppr", "Who leads the Platform team?", "-w", str(tmp_path / "ws")])
    assert done.returncode == 0, done.stderr
    assert "kgrag.graph.snapshot" in modules and "kgrag.graph.pagerank" in modules
    assert [m for m in modules if m.startswith("kgrag.graph.extract")] == []
