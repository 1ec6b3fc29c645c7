"""Figures the reliability tests add up over a run and pytest prints at the end (the summary hooks in
``tests/conftest.py``, which also add up the figures of pytest-xdist workers): kills survived, faults
absorbed, bad inputs tried, server attacks refused, writers that waited. A test records what it tried and
what held, e.g. ``record("kills", tried=5, held=5)``; the summary prints ``kills: 5 of 5 held``.
"""

from __future__ import annotations

from collections import Counter

# what each figure means in the summary, in print order
LABELS = {
    "kills": "kills survived with a database identical to an uninterrupted run",
    "faults": "LLM faults absorbed with results identical to a fault-free run",
    "bad inputs": "bad inputs answered by a result or one clear line (no internal error, no hang)",
    "silent skips": "skipped files and directories named with a reason",
    "hangs": "stalling endpoints and inputs bounded by a timeout or refused",
    "server": "cross-site and rebinding requests refused (legitimate ones served)",
    "writers": "writers started during `kgrag index` that waited for it",
}
TOTALS: dict[str, Counter[str]] = {}


def record(figure: str, *, tried: int, held: int) -> None:
    """Add ``tried`` cases of ``figure``, ``held`` of which behaved (the test asserts they all did)."""
    counts = TOTALS.setdefault(figure, Counter())
    counts["tried"] += tried
    counts["held"] += held


def summary_lines() -> list[str]:
    """One line per figure recorded in this run, known figures first."""
    order = [f for f in LABELS if f in TOTALS] + sorted(f for f in TOTALS if f not in LABELS)
    return [
        f"{figure}: {TOTALS[figure]['held']} of {TOTALS[figure]['tried']} held — {LABELS.get(figure, figure)}"
        for figure in order
    ]


def snapshot() -> dict[str, dict[str, int]]:
    """The figures recorded in this process, as plain data (what an xdist worker sends its controller)."""
    return {figure: dict(counts) for figure, counts in TOTALS.items()}


def merge(figures: dict[str, dict[str, int]]) -> None:
    """Add figures another process recorded (an xdist worker's :func:`snapshot`)."""
    for figure, counts in figures.items():
        record(figure, tried=int(counts.get("tried", 0)), held=int(counts.get("held", 0)))
