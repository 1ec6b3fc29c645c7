"""Deterministic stand-ins for the judge's "statements" and "is this statement supported by that text".

A statement is a sentence (:func:`kgrag.documents.split_sentences`) of one line of the answer; a citation
marker and a line break both end one, because an extractive answer strings together headings, table rows
and sentences from different passages, and only the markers and line breaks tell them apart. A statement
is supported by a text when it occurs in one of the text's parts word for word, or when at least
``threshold`` of its content words do: the same rule as LLM-free evidence recall
(:mod:`kgrag.evaluation.recall`), so all LLM-free metrics share one notion of support. A statement that
joins several items ("A, B and C") may instead be supported item by item by different parts, as long as
those parts are about the same thing (:func:`joined_support`): an answer that gathers what several
passages say is faithful to them, which a one-part rule would deny.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kgrag.documents import split_sentences
from kgrag.documents.words import content_words
from kgrag.evaluation.recall import evidence_hit

_CITATION = re.compile(r"\s*\[(?:c:)?c[0-9a-f]{6,}\]")
_JOINS = re.compile(r"\s*[,;]\s*|\s+(?:and|or|as well as|plus)\s+", re.IGNORECASE)


def strip_citations(text: str) -> str:
    """The answer without chunk citations (``[c:c0123abcd]`` from the LLM answer, ``[c0123abcd]`` from
    the extractive one): ids are provenance, not content, and would count as unsupported words."""
    return " ".join(_CITATION.sub(" ", text).split())


def plain_answer(text: str) -> str:
    """The answer without citations, one line per cited stretch or line of the answer (spaces collapsed)."""
    lines = (" ".join(line.split()) for line in _CITATION.sub("\n", text).splitlines())
    return "\n".join(line for line in lines if line)


def statements(text: str) -> list[str]:
    """The sentences of ``text``, line by line, that have content words (citations removed)."""
    found: list[str] = []
    for line in plain_answer(text).splitlines():
        spans = split_sentences(line)
        found += [line[a:b].strip() for a, b in spans] if spans else [line.strip()]
    return [s for s in found if content_words(s)]


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def list_items(claim: str) -> list[str]:
    """The items of a claim that joins several (``"A, B and C"``), split at commas, semicolons and the
    joining words; empty when the claim joins fewer than two items with content words."""
    items = [item for item in _JOINS.split(claim) if content_words(item)]
    return items if len(items) >= 2 else []


def joined_support(claim: str, part_words: Sequence[set[str]], threshold: float) -> bool:
    """Whether a claim that joins several items is supported item by item: the part holding most of the
    claim's words anchors it, and each item is held (``threshold`` of its content words) by that part or
    by another part sharing a word with the anchor. "The kit has a lamp, a tent and a stove" is supported
    by three passages naming one item each beside the kit; an item that only a passage about something
    else holds ("Paracetamol reduces fever" for "Aspirin inhibits COX and reduces fever") is not."""
    items = list_items(claim)
    words = content_words(claim)
    if not items or not words or not part_words:
        return False
    best = max(part_words, key=lambda p: len(words & p))
    anchor = words & best
    if not anchor:
        return False
    for item in items:
        item_words = content_words(item)
        if not any(
            len(item_words & p) >= threshold * len(item_words) and (p is best or p & anchor) for p in part_words
        ):
            return False
    return True


def supported(claims: Sequence[str], parts: Sequence[str], threshold: float) -> list[bool]:
    """For each claim, whether one of ``parts`` holds it verbatim (case and spacing aside) or holds
    ``threshold`` of its content words, or, for a claim joining several items, whether the parts hold it
    item by item (:func:`joined_support`)."""
    part_words = [content_words(p) for p in parts]
    flat_parts = [_flat(p) for p in parts]
    return [
        any(_flat(claim) in part for part in flat_parts)
        or evidence_hit(claim, part_words, threshold)
        or joined_support(claim, part_words, threshold)
        for claim in claims
    ]


def f1(tp: int, fp: int, fn: int) -> float | None:
    """The statement F-score 2TP / (2TP + FP + FN); None when there is nothing to score."""
    denominator = 2 * tp + fp + fn
    return None if denominator == 0 else 2 * tp / denominator
