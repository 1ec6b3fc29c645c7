"""Two generators' sets as one: every question once whoever wrote it, and every count kept."""

from __future__ import annotations

from collections import Counter

from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.qgen.combine import combine
from kgrag.evaluation.qgen.generate import QGenResult


def _result(items: list[QAItem], rejected: dict[str, int], generated: int) -> QGenResult:
    result = QGenResult(items=items, rejected=Counter(rejected), generated=generated)
    result.meta = {item.id: {"chunk_ids": [f"c-{item.id}"]} for item in items}
    result.offered, result.notes = Counter({"passage": generated}), [f"{generated} generated"]
    return result


def test_a_question_the_first_set_holds_is_dropped_from_the_second() -> None:
    model = _result([QAItem("gen-1", "Which team owns the Shale storage layer?", "Platform", "single-fact")], {}, 2)
    free = _result(
        [
            QAItem("ki-1", "Which team owns the Shale storage layer?", "Platform", "known-item"),
            QAItem("ki-2", "Who led the response to incident INC-2024-031?", "Dana", "known-item"),
        ],
        {"duplicate": 1},
        5,
    )
    both = combine([model, free], dedup_threshold=0.8)
    assert [item.id for item in both.items] == ["gen-1", "ki-2"]
    assert both.rejected == Counter({"duplicate": 2}) and both.generated == 7
    assert both.meta == {"gen-1": {"chunk_ids": ["c-gen-1"]}, "ki-2": {"chunk_ids": ["c-ki-2"]}}
    assert both.offered == Counter({"passage": 7}) and both.notes == ["2 generated", "5 generated"]


def test_one_set_comes_back_as_it_was() -> None:
    alone = _result([QAItem("ki-1", "Which team owns Shale?", "Platform", "known-item")], {"too short": 3}, 4)
    again = combine([alone], dedup_threshold=0.8)
    assert (again.items, again.rejected, again.generated, again.meta) == (
        alone.items,
        alone.rejected,
        alone.generated,
        alone.meta,
    )
