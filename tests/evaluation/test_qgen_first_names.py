"""A person named by a first name alone is asked "who" where the list of first names holds the name and the
corpus never writes it in lower case nor labels it a place (:mod:`kgrag.evaluation.qgen.first_names`);
sentences written for these tests, parsed with the real spaCy pipeline."""

from __future__ import annotations

from typing import Any

import pytest
from tests.evaluation.qgen_spacy import entity_span, spacy_nlp

from kgrag.evaluation.qgen.answers import trusted_label
from kgrag.evaluation.qgen.first_names import NameList, faker_first_names
from kgrag.evaluation.qgen.labels import NameLabels
from kgrag.evaluation.qgen.lookups import Lookups
from kgrag.evaluation.qgen.wording import ask_around
from kgrag.testing import fake_first_names, fake_gazetteer

NAMES = Lookups(first_names=fake_first_names())


def _parsed(text: str, answer: str, labels: NameLabels) -> tuple[Any, Any]:
    doc = spacy_nlp()(text)
    labels.add(doc)
    span = entity_span(doc, answer)
    return span.sent, span


def test_a_first_name_alone_is_asked_who_whatever_spacy_labelled_it() -> None:
    """spaCy calls these an organisation, a person or nothing; asked "what", the questions read wrong."""
    for text, name, asked in (
        ("StackBlitz hired Ari to invest more time in Tolvey development.", "Ari", "hired which person"),
        ("In 2009, Renee suggested adapting the ferry gopher as a mascot.", "Renee", "which person suggested"),
        ("Marcelo built the first Tolvey ferry scheduler in the spring.", "Marcelo", "Who built"),
    ):
        labels = NameLabels()
        sent, span = _parsed(text, name, labels)
        label = span.label_ or "THING"
        assert trusted_label(span, sent, label, labels) != "PERSON", name  # without the list: "what"
        assert trusted_label(span, sent, label, labels, NAMES) == "PERSON", name
        assert asked in ask_around(sent, span, "PERSON", whole=True)[0], name


def test_a_program_or_a_place_named_like_a_person_stays_what() -> None:
    """ "Hugo" is written "hugo" where it is a command; "Sydney" is labelled a place in most of its mentions."""
    labels = NameLabels()
    for text in (
        "Run hugo server to preview the Tolvey site.",
        "The Tolvey meetup moved to Sydney last year.",
        "Sydney hosts the largest Tolvey user group.",
        "We flew to Sydney for the ferry conference.",
    ):
        labels.add(spacy_nlp()(text))
    sent, span = _parsed("Hugo builds the Tolvey site from Markdown in seconds.", "Hugo", labels)
    assert trusted_label(span, sent, span.label_ or "THING", labels, NAMES) != "PERSON"
    sent, span = _parsed("Sydney wrote the Tolvey release notes last week.", "Sydney", labels)
    assert trusted_label(span, sent, span.label_ or "THING", labels, NAMES) != "PERSON"


def test_a_place_label_the_gazetteer_does_not_bear_out_and_a_file_name_do_not_refuse_a_person() -> None:
    """spaCy calls "Johannes" a place, and the corpus writes "johannes" in a photo's file name: neither is
    evidence against a person when the gazetteer holds no such place and the word is prose nowhere else."""
    labels = NameLabels()
    labels.add(spacy_nlp()("![Johannes at the meetup](/assets/2024 helvetic-ruby johannes müller.jpg)"))
    text = "In essence, Johannes has already been a de facto leader of the Tolvey ferry project."
    sent, span = _parsed(text, "Johannes", labels)
    assert span.label_ == "GPE" and labels.lower_words["johannes"] == 1  # the two signs that used to refuse him
    both = Lookups(places=fake_gazetteer(), first_names=fake_first_names())
    assert trusted_label(span, sent, span.label_, labels, both) == "PERSON"
    assert trusted_label(span, sent, span.label_, labels, NAMES) != "PERSON"  # no gazetteer: the place label stands


def test_the_list_is_read_without_case_or_accents() -> None:
    names = NameList(["Nicolò", "Ari"])
    assert names.holds("Nicolo") and names.holds("NICOLÒ") and names.holds("ari")
    assert not names.holds("Kubernetes")


def test_fakers_first_names_are_read_in_latin_letters() -> None:
    pytest.importorskip("faker", reason="faker is not installed (make setup installs it)")
    names = faker_first_names()
    assert names is not None
    for name in ("Marcelo", "Tyler", "Renee", "Nicolò", "Michal", "Hynek", "Alexandre", "Akira"):  # romanized too
        assert names.holds(name), name
    for word in ("Kubernetes", "Redis", "Paxos", "伟"):
        assert not names.holds(word), word
