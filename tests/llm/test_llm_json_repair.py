"""json_repair: the common breakages are fixed, and nothing but JSONRepairError ever escapes."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.models.llm.json_repair import JSONRepairError, repair_json

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
        ("```\n[1, 2]\n```", [1, 2]),
        ('{"a": [1, 2,],}', {"a": [1, 2]}),
        ("{'a': 'it\\'s', 'b': True, 'c': None}", {"a": "it's", "b": True, "c": None}),
        ('Sure, here it is: {"a": 1} Hope that helps!', {"a": 1}),
        ('{"items": ["x", "y", "z', {"items": ["x", "y"]}),
        ('[{"n": 1}, {"n": 2}, {"n": 3, "m": "ab', [{"n": 1}, {"n": 2}]),
        ('{"a": 1 "b": 2}', {"a": 1, "b": 2}),
        ('{name: "Ada", kind: PERSON}', {"name": "Ada", "kind": "PERSON"}),
        ('{"text": "two\nlines"}', {"text": "two\nlines"}),
        ('```json\n{"entities": [{"name": "A"}, {"name": "B"', {"entities": [{"name": "A"}]}),
    ],
)
def test_repairs_common_breakage(text: str, expected: Any) -> None:
    assert repair_json(text).value == expected


def test_reports_whether_it_repaired() -> None:
    assert not repair_json('{"a": 1}').repaired
    fixed = repair_json('{"a": [1,],}')
    assert fixed.repaired and "removed trailing comma" in fixed.fixes


def test_expect_object_skips_brackets_in_prose() -> None:
    assert repair_json('See note [1]: {"a": 2}', expect="{").value == {"a": 2}


@pytest.mark.parametrize("text", ["", "   ", "no json here", ":::", "]]]", '"unterminated'])
def test_hopeless_input_raises_repair_error(text: str) -> None:
    with pytest.raises(JSONRepairError):
        repair_json(text)


@pytest.mark.parametrize(("text", "expected"), [("{", {}), ("[[[", []), ('{"a": tru'[:3], {})])
def test_output_cut_right_after_an_opener_closes_to_an_empty_container(text: str, expected: object) -> None:
    """Nothing after the opener survived, so the repair is an empty container, flagged as a repair (callers
    that must not accept a truncated reply check ``repaired`` and the finish reason)."""
    fixed = repair_json(text)
    assert fixed.value == expected
    assert fixed.repaired and "closed truncated output" in fixed.fixes


@pytest.mark.parametrize("text", ["[" * 100_000, "[" * 100_000 + "]" * 100_000, "1" * 10_000])
def test_pathological_input_does_not_crash(text: str) -> None:
    with contextlib.suppress(JSONRepairError):  # any other exception fails the test
        repair_json(text)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_never_raises_anything_else(text: str) -> None:
    with contextlib.suppress(JSONRepairError):  # any other exception fails the test
        repair_json(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{}[]\",:'` \n\\abc01-tTrueNnl.", max_size=80))
def test_fuzz_json_like_noise(text: str) -> None:
    with contextlib.suppress(JSONRepairError):  # any other exception fails the test
        repair_json(text)


@pytest.mark.parametrize("value", ["{", ["{"], {"a": "{"}, "[1,", {"k": "```"}])
def test_fenced_value_with_brackets_inside_strings_is_not_rescanned(value: Any) -> None:
    assert repair_json(f"```json\n{json.dumps(value)}\n```").value == value


@settings(max_examples=120, deadline=None)
@given(json_values)
def test_valid_json_roundtrips(value: Any) -> None:
    text = json.dumps(value)
    assert repair_json(text).value == value
    assert repair_json(f"```json\n{text}\n```").value == value


flat_items = (
    st.integers(-1000, 1000)
    | st.text(max_size=12)
    | st.dictionaries(st.text(max_size=6), st.integers(0, 99) | st.text(max_size=6), max_size=3)
)


@settings(max_examples=150, deadline=None)
@given(st.lists(flat_items, min_size=1, max_size=6), st.data())
def test_truncated_array_yields_a_prefix_of_its_items(items: list[Any], data: st.DataObject) -> None:
    """Cutting a reply anywhere never invents or alters an item: what comes back is a prefix."""
    text = json.dumps(items)
    cut = data.draw(st.integers(1, len(text)))
    value = repair_json(text[:cut], expect="[").value
    assert value == items[: len(value)]
