"""Dataset loading and the LLM-free evidence recall metric."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.conftest import SAMPLE_QUESTIONS

from kgrag.core.errors import KgragError
from kgrag.evaluation import evidence_recall, load_dataset


def test_sample_questions_are_graphrag_bench_format() -> None:
    items = load_dataset(SAMPLE_QUESTIONS)
    assert len(items) >= 60
    assert {i.question_type for i in items} == {
        "Fact Retrieval",
        "Complex Reasoning",
        "Contextual Summarize",
        "Creative Generation",
    }
    assert all(i.evidence for i in items)


def test_jsonl_and_string_evidence(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "Q?", "answer": "A", "evidence": "One sentence."}) + "\n\n")
    [item] = load_dataset(path)
    assert item.evidence == ["One sentence."] and item.question_type == "Unspecified"


@pytest.mark.parametrize("content", ["", "[]", "{bad", '[{"answer": "no question"}]', "[1]"])
def test_bad_datasets_are_user_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "q.json"
    path.write_text(content)
    with pytest.raises(KgragError):
        load_dataset(path)


def test_recall_threshold_semantics() -> None:
    evidence = ["Daniel Park was the incident commander for INC-2024-031."]
    assert evidence_recall(evidence, ["... Daniel Park was the incident commander for INC-2024-031 ..."], 0.7) == 1
    assert evidence_recall(evidence, ["Daniel Park joined SRE."], 0.7) == 0
    assert evidence_recall(["The the of."], ["anything"], 0.7) is None
    two = ["Kestrel stores telemetry.", "Osprey has a battery."]
    assert evidence_recall(two, ["kestrel stores telemetry in shale"], 0.7) == 0.5


@given(
    st.lists(st.text(max_size=40), max_size=4),
    st.lists(st.text(max_size=80), max_size=4),
    st.floats(min_value=0.05, max_value=1.0),
)
def test_recall_is_a_share_or_none(evidence: list[str], texts: list[str], threshold: float) -> None:
    value = evidence_recall(evidence, texts, threshold)
    assert value is None or 0.0 <= value <= 1.0
