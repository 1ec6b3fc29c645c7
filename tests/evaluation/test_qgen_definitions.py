"""A sentence that defines a term is asked for the term, and such questions are picked first: the rules of
:mod:`kgrag.evaluation.qgen.definitions` on sentences written for these tests, parsed with the real spaCy
pipeline, and the generator's order on candidates built by hand."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tests.evaluation.qgen_spacy import spacy_nlp

from kgrag.evaluation.qgen.cloze import Cloze, Passage, Rarity, clozes
from kgrag.evaluation.qgen.definitions import TEMPLATE, definition_subject
from kgrag.evaluation.qgen.known_item import pick_known_items


def _subject(text: str) -> str | None:
    sent = next(spacy_nlp()(text).sents)
    term = definition_subject(sent)
    return None if term is None else term.text


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Ownership is a set of rules that govern the memory of a Quillon program.", "Ownership"),
        ("Tamsin is a scheduler that plans the weekly ferry crossings of the harbour.", "Tamsin"),
        ("A Quillon is a wrapper over a vector of bytes in the standard library.", "Quillon"),
        ("In Tidewright, a berth plan is the schedule for every ship that enters the harbour.", "berth plan"),
        ("Promdash was a native dashboard builder for the Tamsin monitoring system.", "Promdash"),
        ("Tamsin queues are short lists of jobs that the scheduler runs at night.", "Tamsin queues"),
        ("The Contributor Covenant is a code of conduct used by many open source projects.", "Contributor Covenant"),
    ],
)
def test_the_term_a_sentence_defines_is_its_subject(text: str, term: str) -> None:
    assert _subject(text) == term


@pytest.mark.parametrize(
    "text",
    [
        "This is a deliberate decision in the design of the Quillon language.",  # points back
        "The result is a flattened array that contains only the dynamic nodes of the tree.",  # "the" + no name
        "Help is a string and should be non-empty in every Tamsin exposition.",  # two predicates
        "Metrics are a specific kind of telemetry data that the Tamsin agent collects.",  # plural
        "Cloud native is a flexible operating model.",  # nothing narrows the noun
        "Stage 3 is a realistic piece of work.",  # an "of" phrase alone does not narrow it
        "A good example is the Quillon cask, whose name is spelled out in full.",  # an example, not a term
        "When the queue is full, the Tamsin scheduler drops the oldest job from it.",  # no copula
        "Tamsin runs every night and is a scheduler for ferry crossings in the harbour.",  # verb before "is"
        "Certain rules are single words that activate or remove a flag of the Tamsin user.",  # no term
        "The NODE subcommand is the one with the most complex semantics of all the Tamsin commands.",  # "one"
    ],
)
def test_sentences_that_do_not_define_their_subject_are_left_to_the_other_templates(text: str) -> None:
    assert _subject(text) is None


def _clozes(texts: list[str]) -> list[Cloze]:
    passages = [Passage(f"c{i}", f"d{i}", text) for i, text in enumerate(texts)]
    rarity, rejected = Rarity(passages), Counter[str]()
    docs = {p.chunk_id: [spacy_nlp()(p.text)] for p in passages}
    for parsed in docs.values():
        rarity.labels.add(parsed[0])
    return [c for p in passages for c in clozes(p, docs[p.chunk_id], rarity, rejected)]


def test_a_definition_is_asked_for_its_term_even_when_the_corpus_names_the_term_often() -> None:
    definition = "Tidewright is a scheduler that plans the weekly ferry crossings of the northern harbour."
    mentions = [f"Tidewright moved the {word} ferry to another berth on Tuesday." for word in ("red", "blue", "grey")]
    filler = [f"The canal museum opened a new room about {word} boats last spring." for word in "abcdefghijkl"]
    made = _clozes([definition, *mentions, *filler])
    defined = [c for c in made if c.template == TEMPLATE]
    assert [(c.question, c.answer) for c in defined] == [
        ("What is a scheduler that plans the weekly ferry crossings of the northern harbour?", "Tidewright")
    ]
    # the same name picked out of another sentence must be rare, and here it is not: no question about it
    assert not [c for c in made if c.template != TEMPLATE and c.answer == "Tidewright"]


def test_a_definition_that_repeats_its_term_is_refused_like_any_other_question() -> None:
    filler = [f"The canal museum opened a new room about {word} boats last spring." for word in "abcdefghijkl"]
    made = _clozes(["Counter is a monotonically increasing counter of the Tamsin agent.", *filler])
    assert not [c for c in made if c.template == TEMPLATE]


def _candidate(doc: str, quality_: float, answer: str, template: str, about: str) -> Cloze:
    sentence = f"{answer} is the office that {about}."
    question = f"What is the office that {about}?"
    return Cloze(f"{doc}-c", doc, sentence, answer, "THING", question, template, (), 1.0, False, quality_)


def test_definitions_are_picked_before_the_trusted_shape_and_the_rest() -> None:
    trusted = _candidate("d1", 0.95, "Quaymaster", "in-place:org", "plans weekly ferry crossings across the bay")
    other = _candidate("d2", 0.99, "ferry desk", "in-place:thing", "sells tickets for night trains to Bergen")
    defined = _candidate("d3", 0.80, "berth desk", TEMPLATE, "assigns moorings to visiting yachts in summer")
    pool = [trusted, other, defined]
    assert pick_known_items(pool, 1, random.Random(0), 0.95) == [defined]
    assert pick_known_items(pool, 3, random.Random(0), 0.95) == [defined, trusted, other]
    assert pick_known_items(pool, 1, random.Random(0), 0.95, trusted_first=False) == [other]
