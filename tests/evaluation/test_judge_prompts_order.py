"""Judges reason before they score: in every evaluation prompt that asks for a verdict, the output schema
lists ``reasoning`` first, the worked example's reply writes it first, and the instructions say so.
Models write fields in order, so a score written before its reasoning is rationalised, not reasoned."""

from __future__ import annotations

import json

import pytest

from kgrag.prompts import list_prompts
from kgrag.prompts.loader import TEXT_OUTPUT

JUDGE_PROMPTS = [
    p
    for p in list_prompts()
    if p.name.startswith("eval_") and p.output_schema != TEXT_OUTPUT and p.name != "eval_length_align"
]


def test_the_answer_judges_are_covered() -> None:
    names = {p.name for p in JUDGE_PROMPTS}
    assert {"eval_reference_judge", "eval_dim_correctness", "eval_dim_relevance", "eval_dim_groundedness"} <= names
    assert {"eval_dim_retrieval_relevance", "eval_gb_classify", "eval_gb_context_relevance"} <= names


@pytest.mark.parametrize("prompt", JUDGE_PROMPTS, ids=lambda p: p.name)
def test_reasoning_comes_first(prompt) -> None:  # type: ignore[no-untyped-def]
    schema = prompt.json_schema()
    assert schema is not None
    fields = list(schema.get("properties", {}))
    if "reasoning" not in fields:
        pytest.skip(f"{prompt.name} asks for no reasoning (a per-aspect score sheet)")
    assert fields[0] == "reasoning", fields
    assert next(iter(json.loads(prompt.example_reply))) == "reasoning"
    assert "first" in prompt.system.lower()


@pytest.mark.parametrize(
    ("name", "phrases"),
    [
        # feldt-hellstrom-2026: accuracy, completeness, relevance, overall quality; a refusal scores 1
        ("eval_reference_judge", ["factual agreement", "completeness", "relevance", "overall quality", "declining"]),
        # lundberg-2026: extra correct information is fine unless it contradicts the reference
        ("eval_dim_correctness", ["does not contradict the reference"]),
        ("eval_dim_relevance", ["whether it is correct does not matter"]),
        ("eval_dim_groundedness", ["go beyond", "contradict"]),
        ("eval_dim_retrieval_relevance", ["context alone"]),
    ],
)
def test_rubrics_follow_the_theses(name: str, phrases: list[str]) -> None:
    prompt = next(p for p in list_prompts() if p.name == name)
    for phrase in phrases:
        assert phrase in prompt.system, phrase
    assert int(prompt.version) >= 3
