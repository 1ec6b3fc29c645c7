"""LLM-free support for a statement that joins several items, each from a different passage."""

from __future__ import annotations

import pytest

from kgrag.evaluation.metrics.answer import Faithfulness
from kgrag.evaluation.metrics.base import MetricTools, Sample
from kgrag.evaluation.metrics.statements import list_items, supported

FREE = MetricTools(similarity=lambda a, b: 0.0)

# Three retrieved passages of a clinical guideline, each naming one adjuvant regimen.
PASSAGES = [
    "Adjuvant chemotherapy for stage III colon cancer commonly uses FOLFOX for six months.",
    "CAPOX is an accepted adjuvant regimen for stage III colon cancer, given for three or six months.",
    "For patients unfit for oxaliplatin, capecitabine alone is an adjuvant option in stage III colon cancer.",
    "Screening colonoscopy is advised from age 45.",
]


def test_an_answer_joining_items_from_several_passages_is_faithful() -> None:
    answer = "Adjuvant options for stage III colon cancer include FOLFOX, CAPOX and capecitabine alone [c:c0a1b2c3d4]."
    sample = Sample("What adjuvant regimens are used for stage III colon cancer?", "", answer, PASSAGES)
    # no single passage holds 70% of the sentence's content words, but each item is in one passage
    # that is about the same thing (stage III colon cancer)
    assert Faithfulness().llm_free(sample, FREE).value == 1.0


def test_an_item_no_passage_holds_is_still_unsupported() -> None:
    answer = "Adjuvant options for stage III colon cancer include FOLFOX, CAPOX and radiotherapy."
    sample = Sample("Q?", "", answer, PASSAGES)
    assert Faithfulness().llm_free(sample, FREE).value == 0.0


def test_an_item_held_only_by_a_passage_about_something_else_is_unsupported() -> None:
    contexts = ["Aspirin irreversibly inhibits COX enzymes.", "Paracetamol reduces fever in children."]
    assert supported(["Aspirin inhibits COX and reduces fever."], contexts, 0.7) == [False]
    contexts[1] = "Aspirin also reduces fever."
    assert supported(["Aspirin inhibits COX and reduces fever."], contexts, 0.7) == [True]


@pytest.mark.parametrize(
    ("claim", "items"),
    [
        ("The kit has a lamp, a tent and a stove.", ["The kit has a lamp", "a tent", "a stove."]),
        ("Tea or coffee", ["Tea", "coffee"]),
        ("Aspirin inhibits cyclooxygenase.", []),
    ],
)
def test_list_items(claim: str, items: list[str]) -> None:
    assert list_items(claim) == items
