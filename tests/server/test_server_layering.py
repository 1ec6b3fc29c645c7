"""The server is a thin layer: it reaches the index only through the workspace sub-APIs, and nothing but
the `kgrag serve` command imports it."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "kgrag"


def _trees(root: Path) -> list[tuple[Path, ast.AST]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(root.rglob("*.py"))]


def test_server_never_reaches_past_the_sub_apis() -> None:
    offenders = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path, tree in _trees(SRC / "server")
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in {"store", "components", "query_context"}
    ]
    assert offenders == []


def test_only_the_serve_command_imports_the_server() -> None:
    importers = {
        str(path.relative_to(SRC))
        for path, tree in _trees(SRC)
        if "server" not in path.relative_to(SRC).parts[:1]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kgrag.server")
    }
    assert importers == {"cli/serve_command.py", "cli/mcp_command.py"}  # `kgrag mcp` serves the MCP tools
