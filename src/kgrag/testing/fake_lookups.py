"""A small gazetteer (the :class:`kgrag.evaluation.qgen.places.PlaceNames` protocol) and a short list of first
names (:class:`kgrag.evaluation.qgen.first_names.FirstNames`) for tests of LLM-free question generation that
should not load the GeoNames tables or faker: a few cities, countries and US states, one name that is two kinds
of place, towns and first names that are also software's."""

from __future__ import annotations

from kgrag.evaluation.qgen.first_names import NameList
from kgrag.evaluation.qgen.places import Gazetteer

FAKE_CITIES = ("San Francisco", "Moscow", "Amsterdam", "Concord", "Georgetown", "Jinja", "Madison")
FAKE_COUNTRIES = ("United States", "Italy", "Indonesia", "Georgia")
FAKE_STATES = ("Texas", "Georgia")


def fake_gazetteer() -> Gazetteer:
    """The gazetteer of :data:`FAKE_CITIES`, :data:`FAKE_COUNTRIES` and :data:`FAKE_STATES` ("Georgia" is a
    country and a state; "Concord" and "Jinja" are towns and software)."""
    return Gazetteer(FAKE_CITIES, FAKE_COUNTRIES, FAKE_STATES)


FAKE_FIRST_NAMES = ("Marcelo", "Ari", "Tyler", "Renee", "Nicolò", "Johannes", "Hugo", "Sydney", "Madison")


def fake_first_names() -> NameList:
    """The first names of :data:`FAKE_FIRST_NAMES` ("Hugo" is also a program, "Sydney" and "Madison" cities)."""
    return NameList(FAKE_FIRST_NAMES)
