"""``kgrag.workspace`` is wiring and thin facades only: a feature's orchestration lives in the package that
owns it (behind a service the workspace builds with its parts and registries), so the workspace stays
small. Checked over the source with ``ast``: the package's total size, its function length, and no import
cycle between its modules (lazy imports count)."""

from __future__ import annotations

import ast

from tests.architecture.test_layers import SRC, _cycles

WORKSPACE = SRC / "workspace"
MAX_WORKSPACE_LINES = 1500
MAX_WORKSPACE_FUNCTION_LINES = 40


def _sources() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(WORKSPACE.glob("*.py"))}


def too_long_functions(sources: dict[str, str], limit: int) -> list[str]:
    """``module:line name (n lines)`` of every function (methods and nested ones too) over ``limit`` lines."""
    found = []
    for name, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append(f"{name}:{node.lineno} {node.name} ({length} lines)")
    return found


def module_graph(sources: dict[str, str], package: str) -> dict[str, set[str]]:
    """Module → the modules of ``package`` it imports (itself excluded)."""
    graph: dict[str, set[str]] = {}
    prefix = f"{package}."
    for name, text in sources.items():
        targets = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(text)):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            modules += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            targets.update(m.removeprefix(prefix).split(".")[0] for m in modules if m.startswith(prefix))
        targets.discard(name)
    return graph


def test_workspace_is_small() -> None:
    total = sum(text.count("\n") for text in _sources().values())
    assert total < MAX_WORKSPACE_LINES, (
        f"src/kgrag/workspace/ has {total} lines (limit {MAX_WORKSPACE_LINES}): move the feature's orchestration "
        "into the package that owns it, behind a service Components builds"
    )


def test_workspace_functions_are_short() -> None:
    too_long = too_long_functions(_sources(), MAX_WORKSPACE_FUNCTION_LINES)
    assert not too_long, f"workspace functions over {MAX_WORKSPACE_FUNCTION_LINES} lines: {too_long}"


def test_no_import_cycle_between_workspace_modules() -> None:
    cycles = _cycles(module_graph(_sources(), "kgrag.workspace"))
    assert not cycles, "import cycles in kgrag.workspace: " + "; ".join(" -> ".join([*c, c[0]]) for c in cycles)


def test_the_workspace_checks_can_fail() -> None:
    """A long function and a cycle between two modules (one import lazy) are both reported."""
    body = "".join(f"    x{i} = {i}\n" for i in range(41))
    assert too_long_functions({"m": f"def f():\n{body}"}, 40) == ["m:1 f (42 lines)"]
    assert too_long_functions({"m": "def f():\n    return 1\n"}, 40) == []
    sources = {"a": "from kgrag.workspace.b import x\n", "b": "def f():\n    import kgrag.workspace.a\n"}
    assert _cycles(module_graph(sources, "kgrag.workspace")) == [["a", "b"]]
