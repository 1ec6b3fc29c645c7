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
versions of a site. A top-level heading that many documents share ("# Motivation" in every RFC) is read as a
section of its document's title in the first place (:class:`~kgrag.evaluation.qgen.scope.DocumentHeadings`), and
a title too long to name tells its place apart by its numbered lead ("F# RFC FS-1021":
:func:`~kgrag.evaluation.qgen.scope.shortened`). A section that no heading tells apart keeps its heading: read
blind, "In the section “Prior art”, …" questions of one RFC among many were usable when their sentence was the
corpus's only one to hold their words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from kgrag.evaluation.qgen.scope import DocumentHeadings, Heading, heading_key, names_place, shortened


class SectionPlaces:
    """How many places of a corpus each heading, and each heading under another, names."""

    def __init__(self, headings: DocumentHeadings) -> None:
        self._alone: Counter[str] = Counter()
        self._under: Counter[tuple[str, str]] = Counter()
        for path in headings.paths():
            inner = heading_key(path[-1].text)
            self._alone[inner] += 1
            for outer in {heading_key(h.text) for h in path[:-1]}:
                self._under[outer, inner] += 1

    def count(self, named: Sequence[Heading]) -> int:
        """How many places fit ``named``: headings with the innermost's text, under a heading with the
        outermost's text when there are two."""
        if len(named) >= 2:
            return self._under[heading_key(named[0].text), heading_key(named[-1].text)]
        return self._alone[heading_key(named[0].text)] if named else 0


def distinct(
    named: tuple[Heading, ...], above: Sequence[Heading], answer: str, question: str, places: SectionPlaces
) -> tuple[Heading, ...]:
    """The headings a question names so that they fit one place (module docstring): ``named`` when it names no
    section, a page alone, or a section that fits one place already; otherwise the innermost of
    ``named`` with the outermost heading ``above`` it that tells its place apart, when one may be named;
    ``named`` when none does."""
    if not named or named[-1].level <= 1 or places.count(named) <= 1:
        return named
    inner = named[-1]
    outers = above[: next((i for i, h in enumerate(above) if h is inner), 0)]  # none when ``inner`` is not above
    for outer in outers:
        short = shortened(outer)  # "F# RFC FS-1021" of a title too long to name
        if places.count((outer, inner)) == 1 and names_place(short, answer, question, code=True):
            return (short, inner)
    return named
