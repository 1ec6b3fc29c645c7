"""No new silent fallback to the built-ins: a call that leaves out a registry argument (a function's
``Registry[...] | None = None`` parameter) or calls a helper that returns a fresh registry builds one of
built-ins and plug-ins alone, where what a workspace registered does not exist. Every such call in
src/kgrag is listed here with why it may build its own; a new one fails until it passes the workspace's
registry (or is added with its reason)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "kgrag"

ALLOWED: dict[tuple[str, str], str] = {
    ("documents/loaders.py", "loader_registry"): "the default of load_path/supported_suffixes themselves",
    ("evaluation/rescore.py", "create_llm_client"): "rescoring replays an export: no workspace, a scripted client",
    ("evaluation/rescore.py", "metric_registry"): "rescoring replays an export: no workspace (plug-ins are read)",
    ("evaluation/rescore.py", "judge_registry"): "rescoring replays an export: no workspace (plug-ins are read)",
    ("models/llm/registry.py", "build_provider"): "create_llm_client's own default when no provider is given",
    ("indexing/stages/embed.py", "LocalCompute"): "embedding only: no loader is read",
    ("workspace/facade.py", "open_store"): "the vector indexes travel in the config (with_registered_kinds)",
    ("store/migrate.py", "open_store"): "`kgrag migrate` copies a store by its config, without a workspace",
    # a prompt read for its text alone: its output_schema is never resolved there, so no registry is read
    ("models/llm/window_fit.py", "load_prompt"): "counts templates (override directory included), not the schema",
    ("indexing/estimate_descriptions.py", "load_prompt"): "counts the summary template's tokens, not the schema",
    ("graph/tune/run.py", "load_prompt"): "tuning starts from the shipped prompts; their schema name is copied as text",
    ("prompts/overrides.py", "parse_prompt"): "reads a written file's version back and checks it parses",
}


def _registry_params(tree: ast.Module) -> Iterator[tuple[str, int | None, str]]:
    """(callable name, position, parameter) of every ``Registry[...] | None = None`` parameter; a
    constructor is called by its class name."""
    owners = {id(f): c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        name = owners.get(id(node), node.name) if node.name == "__init__" else node.name
        positional = node.args.posonlyargs + node.args.args
        defaults = [None] * (len(positional) - len(node.args.defaults)) + list(node.args.defaults)
        shift = 1 if positional and positional[0].arg in ("self", "cls") else 0
        params = list(zip(positional, defaults, strict=True)) + list(
            zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)
        )
        for index, (arg, default) in enumerate(params):
            annotation = ast.unparse(arg.annotation) if arg.annotation else ""
            if "Registry[" in annotation and "None" in annotation and isinstance(default, ast.Constant):
                position = index - shift if index < len(positional) else None
                yield name, position, arg.arg


def _fresh_helpers(tree: ast.Module) -> Iterator[str]:
    """Functions whose whole body returns ``KIND.new()``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            body = [s for s in node.body if not isinstance(s, ast.Expr)]
            if len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call):
                func = body[0].value.func
                if isinstance(func, ast.Attribute) and func.attr == "new" and not body[0].value.args:
                    yield node.name


def fallback_calls(src: Path) -> set[tuple[str, str]]:
    trees = {
        path.relative_to(src).as_posix(): ast.parse(path.read_text(encoding="utf-8")) for path in src.rglob("*.py")
    }
    params: dict[str, list[tuple[int | None, str]]] = {}
    fresh = {"supported_suffixes"}  # returns the names of a fresh loader registry
    for tree in trees.values():
        for name, position, param in _registry_params(tree):
            params.setdefault(name, []).append((position, param))
        fresh.update(_fresh_helpers(tree))
    found = set()
    for relative, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = getattr(node.func, "id", getattr(node.func, "attr", ""))
            passed = {k.arg for k in node.keywords}
            if called in fresh:
                found.add((relative, called))
            elif called in params and "registries" not in passed and None not in passed:
                for position, param in params[called]:
                    if param not in passed and (position is None or len(node.args) <= position):
                        found.add((relative, called))
    return found


def test_every_call_that_builds_a_built_ins_registry_is_known() -> None:
    found = fallback_calls(SRC)
    assert found <= set(ALLOWED), f"pass the workspace's registry: {sorted(found - set(ALLOWED))}"
    assert set(ALLOWED) <= found, f"fixed, drop from ALLOWED: {sorted(set(ALLOWED) - found)}"


def test_the_scan_finds_a_left_out_registry(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text(
        "def load(path, loaders: Registry[Loader] | None = None): ...\ndef fresh():\n    return LOADERS.new()\n",
        encoding="utf-8",
    )
    (tmp_path / "use.py").write_text("load(p)\nload(p, mine)\nload(p, loaders=mine)\nfresh()\n", encoding="utf-8")
    assert fallback_calls(tmp_path) == {("use.py", "load"), ("use.py", "fresh")}
