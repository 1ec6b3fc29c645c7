"""Markdown marks taken off a line before questions are cut from it (:mod:`kgrag.evaluation.qgen.markup`):
emphasis goes, code keeps its text, and no input costs more than linear time in practice."""

from __future__ import annotations

from kgrag.evaluation.qgen.markup import unmarked


def test_emphasis_goes_and_code_stays_as_written() -> None:
    assert unmarked("The **Tamsin** cache keeps *every* sample.") == "The Tamsin cache keeps every sample."
    assert unmarked("Run `**kwargs` with `__init__` in `/pods/*/*/*.log`.") == (
        "Run **kwargs with __init__ in /pods/*/*/*.log."
    )
    assert unmarked("Set **`FORCE_COLOR`** before the run.") == "Set FORCE_COLOR before the run."  # around code
    assert (
        unmarked("Read CHANGELOG-* and SCHED_RR, 2*3*4 and *args.") == "Read CHANGELOG-* and SCHED_RR, 2*3*4 and *args."
    )


def test_nested_emphasis_goes_to_three_levels() -> None:
    assert unmarked("A **bold *italic* bold** word.") == "A bold italic bold word."
    assert unmarked("A ***strong*** and **both** word.") == "A strong and both word."
    assert unmarked("One **a _b *c* b_ a** two.") == "One a b c b a two."


def test_a_long_emphasised_paragraph_loses_its_marks() -> None:
    body = "The Tamsin gateway expires every token after one hour, " * 20
    assert unmarked(f"_{body.strip()}_") == body.strip()  # about 1,100 characters between the marks


def test_unpaired_marks_and_runs_of_backticks_stay_linear_and_private_use_marks_go() -> None:
    assert unmarked("*a " * 5000) == "*a " * 5000  # no pair: nothing stripped
    assert unmarked("`" * 20000) == ""
    assert unmarked("a ``b ` c`` d") == "a b ` c d"  # a double-backtick span holding a single backtick
    assert unmarked("text \ue0000\ue001 and `code`") == "text 0 and code"  # a sentinel in the text is no span
