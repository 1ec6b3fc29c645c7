"""Headings that tell one place of the corpus from the others, for the question that names them.

A heading many sections share names no place: "Arguments" on every component page of a reference,
"Fields" under each of the types a field reference lists, "Configuring the Experiment" on two pages of one
title. "In the section “Arguments”, what determines the number of batches to keep?" reads as well of any
component's arguments, and blind readers called such questions ambiguous. So when the headings
:func:`kgrag.evaluation.qgen.scope.named_headings` chose fit more than one place of the corpus (a place: a
heading with that text, under a heading with the outer one's text when two are named), the question names
its innermost heading with the outermost heading above it that together fit one place — a heading written
as code too, such as a component's name (``loki.source.api``) or a type's (``PodDisruptionBudgetSpec``),
which the headings are otherwise not named by, since code in a heading is a poor name for a subject when
plain words are at hand. A heading may still be named only if it gives nothing away
(:func:`kgrag.evaluation.qgen.scope.names_place`). When no heading above tells the place apart (the same page
in two versions of a site), the question keeps the headings it had: a passage that holds the question's words
but another answer is caught by the distinctiveness check, and one holding the same answer is no ambiguity.

A page named by its title alone is left as it is: two pages of one title are most often one page in two
versions of a site. A top-level heading more than :data:`TEMPLATE_PLACES` documents share is a template's
section, not a page ("# Motivation" and "# Detailed design" in every RFC of a proposals repository, whose own
title may be too long to name): named alone it tells the reader nothing, so nothing is named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kgrag.evaluation.qgen.scope import DocumentHeadings, Heading, names_place

TEMPLATE_PLACES = 5
"""More places than a site keeps versions of one page: a top-level heading shared this widely is a template's."""


def _key(heading: Heading) -> str:
    return " ".join(heading.text.casefold().split())


class SectionPlaces:
    """How many places of a corpus each heading, and each heading under another, names."""

    def __init__(self, headings: DocumentHeadings) -> None:
        self._alone: Counter[str] = Counter()
        self._under: Counter[tuple[str, str]] = Counter()
        for path in headings.paths():
            inner = _key(path[-1])
            self._alone[inner] += 1
            for outer in {_key(h) for h in path[:-1]}:
                self._under[outer, inner] += 1

    def count(self, named: Sequence[Heading]) -> int:
        """How many places fit ``named``: headings with the innermost's text, under a heading with the
        outermost's text when there are two."""
        if len(named) >= 2:
            return self._under[_key(named[0]), _key(named[-1])]
        return self._alone[_key(named[0])] if named else 0


def distinct(
    named: tuple[Heading, ...], above: Sequence[Heading], answer: str, question: str, places: SectionPlaces
) -> tuple[Heading, ...]:
    """The headings a question names so that they fit one place (module docstring): none for a template's
    top-level section; ``named`` when it names no section, a page alone, or a section that fits one place
    already; otherwise the innermost of
    ``named`` with the outermost heading ``above`` it that tells its place apart, when one may be named;
    ``named`` when none does."""
    if len(named) == 1 and named[0].level <= 1 and places.count(named) > TEMPLATE_PLACES:
        return ()  # a template's section at the top level ("# Motivation" in every RFC), not a page
    if not named or named[-1].level <= 1 or places.count(named) <= 1:
        return named
    inner = named[-1]
    outers = above[: next((i for i, h in enumerate(above) if h is inner), 0)]  # none when ``inner`` is not above
    for outer in outers:
        if places.count((outer, inner)) == 1 and names_place(outer, answer, question, code=True):
            return (outer, inner)
    return named
