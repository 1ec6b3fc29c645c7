"""``kgrag.denoise`` sits between ``graph`` and ``retrieval``: it imports only the layers below it, and
none of them imports it (checked over the source, like tests/architecture/test_layers.py)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "kgrag"
BELOW = {"core", "config", "store", "models", "graph", "documents", "prompts"}


def _imports(package: str) -> set[str]:
    found: set[str] = set()
    for path in (SRC / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found.update(n.split(".")[1] for n in names if n.startswith("kgrag.") and n.count(".") >= 1)
    return found - {package}


def test_denoise_imports_only_lower_layers() -> None:
    assert _imports("denoise") <= BELOW


def test_no_lower_layer_imports_denoise() -> None:
    assert all("denoise" not in _imports(package) for package in BELOW)
