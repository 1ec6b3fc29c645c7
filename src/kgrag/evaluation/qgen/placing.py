"""Where each known-item candidate's sentence sits: the headings above it, those its question names
(:mod:`kgrag.evaluation.qgen.scope`, told apart from other places by :mod:`kgrag.evaluation.qgen.sections`),
whether it names its page, and whether it asks for what its page is about
(:func:`kgrag.evaluation.qgen.scope.asks_page_subject`), found once per candidate for the refusal, the
preference and the wording of :mod:`kgrag.evaluation.qgen.known_item`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from kgrag.evaluation.qgen.cloze import Cloze, Passage
from kgrag.evaluation.qgen.generate import QGenResult
from kgrag.evaluation.qgen.scope import (
    DocumentHeadings,
    Heading,
    asks_page_subject,
    named_headings,
    names_page,
    outer_section_named,
    scoped_question,
    sentence_offset,
)
from kgrag.evaluation.qgen.sections import SectionPlaces, distinct

PAGE_SUBJECT = "answer is what its page is about: the page's title gives it (kgrag.evaluation.qgen.scope)"
OUTER_SECTION = "answer is what its section is about, and the section around it would be named (qgen.scope)"


def _above(c: Cloze, by_id: dict[str, Passage], headings: DocumentHeadings) -> tuple[Heading, ...]:
    """The headings ``c``'s sentence sits under; none when the sentence is not found as written in its
    passage (no heading is named rather than a wrong one)."""
    passage = by_id[c.chunk_id]
    offset = sentence_offset(passage.text, c.sentence)
    if offset is None:
        return ()
    return headings.above(c.doc_id, passage.start + offset)


def places(
    candidates: Sequence[Cloze], passages: Sequence[Passage], headings: DocumentHeadings
) -> dict[Cloze, tuple[Heading, ...]]:
    """The headings each candidate's sentence sits under, outermost first, found once for the page check,
    the preference and the wording."""
    by_id = {p.chunk_id: p for p in passages}
    return {c: _above(c, by_id, headings) for c in candidates}


def names(
    candidates: Sequence[Cloze], passages: Sequence[Passage], headings: DocumentHeadings
) -> dict[Cloze, tuple[Heading, ...]]:
    """The headings each candidate's question would name (:mod:`kgrag.evaluation.qgen.scope`,
    :mod:`kgrag.evaluation.qgen.sections`)."""
    return _named(places(candidates, passages, headings), SectionPlaces(headings))


def _named(above: dict[Cloze, tuple[Heading, ...]], sections: SectionPlaces) -> dict[Cloze, tuple[Heading, ...]]:
    return {
        c: distinct(named_headings(c.question, these, c.answer), these, c.answer, c.question, sections)
        for c, these in above.items()
    }


def off_page_subject(
    candidates: Sequence[Cloze],
    above: dict[Cloze, tuple[Heading, ...]],
    named: dict[Cloze, tuple[Heading, ...]],
    result: QGenResult,
) -> list[Cloze]:
    """``candidates`` without those asking for what their page is about, or for what their own section is
    about while naming (``named``) the section around it (:func:`kgrag.evaluation.qgen.scope.asks_page_subject`,
    :func:`~kgrag.evaluation.qgen.scope.outer_section_named`), which ``result`` counts among the rejections."""
    kept = []
    for c in candidates:
        these = above.get(c, ())
        if asks_page_subject(these, c.answer):
            result.rejected[PAGE_SUBJECT] += 1
        elif outer_section_named(these, named.get(c, ()), c.answer):
            result.rejected[OUTER_SECTION] += 1
        else:
            kept.append(c)
    return kept


def paged(named: dict[Cloze, tuple[Heading, ...]]) -> set[Cloze]:
    """The candidates whose question names the page their sentence is on, by the headings :func:`names` or
    :func:`scope_candidates` found (:func:`kgrag.evaluation.qgen.scope.names_page`): the ones taken first in
    the order of preferences (:func:`kgrag.evaluation.qgen.known_item.preference`)."""
    return {c for c, these in named.items() if names_page(these)}


def with_headings(candidates: Sequence[Cloze], named: dict[Cloze, tuple[Heading, ...]]) -> list[Cloze]:
    """Each candidate with the headings ``named`` for it opening its question; as it is when none."""
    out = []
    for c in candidates:
        if not (these := named.get(c, ())):
            out.append(c)
            continue
        question = scoped_question(c.question, these, c.name_first)
        out.append(dataclasses.replace(c, question=question, headings=tuple(h.text for h in these)))
    return out


def scope_candidates(
    candidates: list[Cloze], good: list[Cloze], passages: Sequence[Passage], result: QGenResult
) -> tuple[list[Cloze], list[Cloze], dict[Cloze, tuple[Heading, ...]]]:
    """The candidates and those above the floor (``good``) without the ones asking for their page's
    subject (:func:`off_page_subject`), and the headings each of ``good`` left would name."""
    headings = DocumentHeadings(passages)
    above = places(good, passages, headings)
    named = _named(above, SectionPlaces(headings))  # once, for the outer-section check and the wording
    kept = off_page_subject(good, above, named, result)
    if len(kept) < len(good):  # an unchanged list keeps the seeded order of the pick
        dropped = set(good) - set(kept)
        candidates, good = [c for c in candidates if c not in dropped], kept
    return candidates, good, {c: named[c] for c in good}  # picks and pairs are all of good
