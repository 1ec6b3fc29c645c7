"""House rules that keep the package easy to change, checked over the source with ``ast``.

- No import cycle between kgrag's top-level packages (lazy imports inside functions count too: a cycle
  dodged with a local import is still a cycle in the design).
- ``kgrag.core`` is a leaf: it imports nothing else of kgrag, so records, ids, progress, stages and the
  registry can be used from every layer.
- No function over 60 lines, no module over 400 lines.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "kgrag"
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 400


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _package_of(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return parts[0]


def kgrag_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, top-level kgrag package) of every import of kgrag in ``tree``, lazy ones included."""
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            bits = name.split(".")
            if bits[0] == "kgrag" and len(bits) > 1:
                yield node.lineno, bits[1]


def _imported_kgrag_packages(tree: ast.Module) -> set[str]:
    return {package for _, package in kgrag_imports(tree)}


def package_graph() -> dict[str, set[str]]:
    """Top-level package → the top-level packages it imports (itself excluded)."""
    graph: dict[str, set[str]] = {}
    for path, tree in _modules():
        me = _package_of(path)
        graph.setdefault(me, set()).update(p for p in _imported_kgrag_packages(tree) if p != me)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle found by a depth-first search (one representative per cycle)."""
    found: set[tuple[str, ...]] = set()

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                cycle = path[:]
                pivot = cycle.index(min(cycle))
                found.add(tuple(cycle[pivot:] + cycle[:pivot]))
            elif nxt not in path and nxt > start:
                walk(start, nxt, [*path, nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return [list(c) for c in sorted(found)]


def test_no_import_cycle_between_packages() -> None:
    cycles = _cycles(package_graph())
    assert not cycles, "import cycles between kgrag packages: " + "; ".join(" -> ".join([*c, c[0]]) for c in cycles)


def test_core_is_a_leaf() -> None:
    assert package_graph().get("core", set()) == set()


def test_cycle_finder_finds_a_cycle() -> None:
    """The check above must be able to fail."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def test_functions_are_small() -> None:
    too_long = [
        f"{path.relative_to(SRC)}:{fn.lineno} {fn.name} ({(fn.end_lineno or fn.lineno) - fn.lineno + 1} lines)"
        for path, tree in _modules()
        for fn in _functions(tree)
        if (fn.end_lineno or fn.lineno) - fn.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines: {too_long}"


def test_modules_are_small() -> None:
    too_long = [
        f"{path.relative_to(SRC)} ({n} lines)"
        for path, _ in _modules()
        if (n := path.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES
    ]
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_cli_goes_through_the_workspace_apis() -> None:
    """The CLI is a thin layer over the workspace sub-APIs (which a server calls too): it never reaches
    into the store, so no logic lives only in the CLI."""
    offenders = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path, tree in _modules()
        if _package_of(path) == "cli"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in {"store", "components"}
    ]
    assert not offenders, f"CLI code touching the store directly: {offenders}"
