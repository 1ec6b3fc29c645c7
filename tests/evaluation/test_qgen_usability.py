"""The usability model of LLM-free questions: its features read the strings the generator has, its fit is
deterministic and recovers a planted signal, and the shipped weights are the fit of the shipped blind-read
verdicts (``bench/fit_qgen_usability.py --write``), so nobody edits a weight by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kgrag.evaluation.qgen.scope import unscoped as body
from kgrag.evaluation.qgen.usability import FEATURES, INTERCEPT, TRAINED_ON, WEIGHTS, features
from kgrag.tuning.qgen_usability import auc, fit_usability, gain_interval, kept_by_read, load_verdicts, verdict_rows

VERDICTS = Path(__file__).resolve().parents[2] / "bench" / "data" / "qgen_blind_verdicts.jsonl.gz"


def _named(question: str, answer: str, sentence: str, headed: bool = False) -> dict[str, float]:
    return dict(zip(FEATURES, features(question, answer, sentence, headed=headed), strict=True))


def test_the_heading_lead_is_taken_off_and_marked_headed() -> None:
    question = "In the section “Storage” of “Operations”, which database keeps the ferry timetables?"
    assert body(question) == "which database keeps the ferry timetables?"
    assert body("In “Storage”, what keeps it?") == "what keeps it?"
    assert body("What keeps the timetables?") == "What keeps the timetables?"


def test_the_features_read_the_answer_form_and_the_question_word() -> None:
    sentence = "Harbour clients authenticate with Proof Key for Code Exchange before they book a crossing."
    completed = _named(
        "Harbour clients authenticate with Proof Key for what before they book?", "Code Exchange", sentence
    )
    assert completed["name completed by the answer"] == 1.0
    assert completed["asks what"] == 1.0 and sum(v for k, v in completed.items() if k.startswith("asks ")) == 1.0
    assert completed["capitalised answer"] == 1.0 and completed["acronym answer"] == 0.0
    count = _named("The office answers with code what number Unauthorized?", "401", "The office answers with 401.")
    assert count["asks what number"] == 1.0 and count["asks what"] == 0.0 and count["number answer"] == 1.0
    acronym = _named("Which service hands out addresses?", "DHCP", "DHCP hands out addresses.", headed=True)
    assert acronym["acronym answer"] == 1.0 and acronym["headed"] == 1.0 and acronym["whole"] == 1.0
    assert acronym["answer position"] == 0.0
    cut = _named("Which service hands out addresses?", "DHCP", "DHCP hands out addresses on the ferry deck.")
    assert cut["whole"] == 0.0  # the sentence's "ferry deck" is not in the question
    assert all(0.0 <= v <= 1.0 for v in {**completed, **count, **acronym}.values())


def test_the_fit_recovers_a_planted_signal_and_is_deterministic() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((600, len(FEATURES)))
    truth = np.zeros(len(FEATURES))
    truth[FEATURES.index("question words")] = 4.0
    truth[FEATURES.index("asks what number")] = -4.0
    y = (rng.random(600) < 1 / (1 + np.exp(-(x @ truth - 0.5)))).astype(float)
    model = fit_usability(x, y)
    assert model == fit_usability(x, y)
    ranked = sorted(FEATURES, key=lambda name: model.weights[name])
    assert ranked[0] == "asks what number" and ranked[-1] == "question words"
    scores = np.array([model.probability(tuple(row)) for row in x])
    assert auc(scores, y) > 0.7
    assert auc(np.array([0.9, 0.1]), np.array([1.0, 0.0])) == 1.0
    assert auc(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == 0.5


def test_keeping_the_top_half_of_each_held_out_read_gains_on_a_planted_signal() -> None:
    rng = np.random.default_rng(1)
    rows = []
    for read in range(1, 7):
        for i in range(40):
            long = i % 2 == 0
            question = "What does the office of the northern harbour ferry line keep every week for its crew?"
            rows.append(
                {
                    "read": read,
                    "question": question if long else "What does it keep?",
                    "answer": "Tidewright",
                    "source": "The office keeps Tidewright.",
                    "usable": bool(rng.random() < (0.9 if long else 0.4)),
                }
            )
    data = verdict_rows(rows)
    reads = kept_by_read(data, lambda read: data.reads != read, np.arange(1, 7), 0.5)
    assert [r.kept for r in reads] == [20] * 6 and [r.questions for r in reads] == [40] * 6
    gain, low, high = gain_interval(reads)
    assert low > 0.05 and low <= gain <= high


def test_the_shipped_weights_are_the_fit_of_the_shipped_verdicts() -> None:
    rows = load_verdicts(VERDICTS)
    data = verdict_rows(rows)
    model = fit_usability(data.x, data.y)
    assert pytest.approx(model.intercept, abs=1e-6) == INTERCEPT
    assert dict(WEIGHTS) == pytest.approx(dict(model.weights), abs=1e-6)
    assert f"blind reads 1–{max(r['read'] for r in rows)}" == TRAINED_ON


def test_a_candidate_is_scored_at_pick_time_as_its_question_will_read() -> None:
    from kgrag.evaluation.qgen.cloze import Cloze
    from kgrag.evaluation.qgen.known_item import _features
    from kgrag.evaluation.qgen.scope import Heading, scoped_question

    sentence = "The Tidewright planner keeps the ferry timetables of the northern harbour line."
    c = Cloze(
        "c1",
        "d1",
        sentence,
        "Tidewright planner",
        "ORG",
        "What keeps the ferry timetables of the northern harbour line?",
        "in-place:org",
        (),
        1.0,
    )
    asked = scoped_question(c.question, (Heading(1, "Harbour"), Heading(2, "Timetables")), c.name_first)
    assert _features(c, True) == features(body(asked), c.answer, c.sentence, headed=True)  # how it is written
    assert _features(c, False) == features(c.question, c.answer, c.sentence, headed=False)


def test_verdicts_are_saved_without_reasons_and_read_back_byte_for_byte(tmp_path: Path) -> None:
    from kgrag.tuning.qgen_usability import save_verdicts

    rows = [{"read": 1, "question": "Which ferry leaves at noon?", "usable": True, "reason": "pier four, line 3"}]
    first, second = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
    save_verdicts(first, rows)
    save_verdicts(second, rows)
    assert load_verdicts(first) == [{"read": 1, "question": "Which ferry leaves at noon?", "usable": True}]
    assert first.read_bytes() == second.read_bytes()  # no time stamp: the same rows, the same file
    assert not list(tmp_path.glob("*.part"))
