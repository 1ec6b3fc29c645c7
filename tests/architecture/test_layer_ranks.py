"""Layer *rank*, not just acyclicity: every kgrag package has a rank and may import only packages of a
strictly lower rank (imports inside functions count). The ranks are the picture in
``docs/architecture.md``, bottom up; a new package must be given one here, which makes its place in the
design a reviewed decision instead of an accident of whichever imports came first.
"""

from __future__ import annotations

from collections.abc import Iterator

from tests.architecture.test_layers import SRC, _modules, _package_of, kgrag_imports

RANKS: dict[str, int] = {
    "core": 0,
    "fileio": 1,
    "prompts": 1,
    "config": 2,
    "documents": 3,
    "store": 3,
    "models": 4,
    "graph": 5,
    "communities": 6,
    "denoise": 6,
    "retrieval": 7,
    "generation": 8,
    "indexing": 9,
    "evaluation": 9,
    "tuning": 10,
    "workspace": 11,
    "server": 12,
    "testing": 12,
    "cli": 13,
    "__init__": 14,
}


def rank_violations(ranks: dict[str, int], imports: Iterator[tuple[str, int, str]]) -> list[str]:
    """``file:line pkg -> target`` for every import that does not go to a strictly lower rank."""
    bad: list[str] = []
    for where, me, target in ((w, m, t) for w, m, t in imports if m != t):
        if me not in ranks or target not in ranks:
            bad.append(f"{where}: {me} -> {target} (package without a rank: add it to RANKS)")
        elif ranks[target] >= ranks[me]:
            bad.append(f"{where}: {me} (rank {ranks[me]}) -> {target} (rank {ranks[target]})")
    return bad


def _all_imports() -> Iterator[tuple[str, str, str]]:
    for path, tree in _modules():
        me = _package_of(path)
        for line, target in kgrag_imports(tree):
            yield f"{path.relative_to(SRC)}:{line}", me, target


def test_every_import_goes_down_a_rank() -> None:
    bad = rank_violations(RANKS, _all_imports())
    assert not bad, "imports that do not go to a lower layer:\n" + "\n".join(bad)


def test_every_package_has_a_rank() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in SRC.glob("*.py")}
    assert packages <= set(RANKS), f"packages without a rank: {sorted(packages - set(RANKS))}"


def test_nothing_in_the_library_imports_the_test_fakes() -> None:
    users = [w for w, me, target in _all_imports() if target == "testing" and me != "testing"]
    assert not users, f"library code importing kgrag.testing: {users}"


def test_rank_check_can_fail() -> None:
    """Upward, sideways and unranked imports are all reported; downward ones are not."""
    ranks = {"low": 0, "mid": 1, "side": 1, "high": 2}
    imports = [("a.py:1", "mid", "low"), ("b.py:2", "low", "high"), ("c.py:3", "mid", "side"), ("d.py:4", "mid", "new")]
    bad = rank_violations(ranks, iter(imports))
    assert [b.split(":")[0] for b in bad] == ["b.py", "c.py", "d.py"]
