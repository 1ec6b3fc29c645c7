"""A small gazetteer (the :class:`kgrag.evaluation.qgen.places.PlaceNames` protocol) for tests of LLM-free
question generation that should not load the GeoNames tables: a few cities, countries and US states, one name
that is two kinds of place, and one town that shares its name with software."""

from __future__ import annotations

from kgrag.evaluation.qgen.places import Gazetteer

FAKE_CITIES = ("San Francisco", "Moscow", "Amsterdam", "Concord", "Georgetown", "Jinja")
FAKE_COUNTRIES = ("United States", "Italy", "Indonesia", "Georgia")
FAKE_STATES = ("Texas", "Georgia")


def fake_gazetteer() -> Gazetteer:
    """The gazetteer of :data:`FAKE_CITIES`, :data:`FAKE_COUNTRIES` and :data:`FAKE_STATES` ("Georgia" is a
    country and a state; "Concord" and "Jinja" are towns and software)."""
    return Gazetteer(FAKE_CITIES, FAKE_COUNTRIES, FAKE_STATES)
