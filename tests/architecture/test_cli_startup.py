"""``kgrag --help`` must answer at once: the CLI module may not import the heavy layers at import time.

Tests never assert on wall time (shared machines are noisy); what makes the CLI slow is *what* it
imports, so that is what is checked. ``bench/bench_cli_startup.py`` measures the time itself.
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pydantic", "numpy", "kgrag.workspace", "kgrag.config", "torch", "sentence_transformers", "spacy", "igraph")


def _modules_after(statement: str) -> set[str]:
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return set(json.loads(out))


def test_cli_module_imports_no_heavy_layer() -> None:
    loaded = _modules_after("import kgrag.cli.app")
    assert not [name for name in HEAVY if name in loaded]


def test_import_kgrag_is_light_but_public_names_still_resolve() -> None:
    assert "kgrag.workspace" not in _modules_after("import kgrag")
    assert "kgrag.workspace" in _modules_after("from kgrag import Workspace")
