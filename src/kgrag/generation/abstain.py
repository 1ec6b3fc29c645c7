"""When the LLM-free answer says "not found" instead of stating a sentence, and why.

An extractive answer that states a fact about something other than what was asked is worse than none:
asked when the ``secrets`` module was added, a passage on ``pickle``'s protocol versions holds a version
and the question's other words. So the answer abstains, naming the reason, when

* **the subject is missing**: the question names an identifier (``exclude_if``, ``r.json()``,
  ``itertools.pairwise``; a word before *module*, *function*, *parameter*, …) that the chosen sentence's
  passage does not hold (the next best sentence whose passage holds it is taken instead, when there is
  one);
* **the question is off the corpus**: it names no identifier and more than half of its words are in no
  retrieved passage ("What is the boiling point of mercury?" over a library's documentation);
* **the best sentence covers too little** of the question: less than the threshold, which is
  calibrated per corpus (:func:`calibrated_threshold`).

The calibration: a question's words are also matched against a sample of the workspace's own sentences
(:data:`CORPUS_SAMPLE`, one per stored chunk up to :data:`SAMPLE_SIZE`, read once per store generation);
the coverage that the best *retrieved* sentence must reach is ``NULL_MARGIN`` times the coverage the
best of those unrelated sentences reaches, bounded by ``[MIN_THRESHOLD, generation.extractive_min_coverage]``.
Where the question's words are rare in the corpus (chance matches are poor), a sentence covering less of
the question still stands out and is stated; where any sentence of the corpus shares as much with the
question, the configured ceiling holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from kgrag.documents.words import ordered_content_words

MISSING_SHARE = 0.5  # more of the question's words than this in no passage: off the corpus
MIN_THRESHOLD = 0.12
NULL_MARGIN = 1.5
NULL_QUANTILE = 0.95
SAMPLE_SIZE = 400
_IDENTIFIER = re.compile(r"\b[A-Za-z_][\w]*(?:[._][\w]+)+(?:\(\))?|\b\w+\(\)")
_KIND_NOUNS = (
    "module|function|method|class|parameter|argument|attribute|option|setting|field|package|library|flag|"
    "keyword|decorator|type|exception|command|variable"
)
_NAMED_BY_KIND = re.compile(rf"\b(?:the\s+)?([a-z_][\w]*)\s+(?:{_KIND_NOUNS})s?\b")
_NOT_SUBJECTS = frozenset("the a an this that which what each every any some new default same other".split())


def subject_terms(question: str, stem: object) -> list[tuple[str, frozenset[str]]]:
    """The identifiers a question is about, each with the stems a passage must hold to be about it."""
    found: dict[str, frozenset[str]] = {}
    for match in _IDENTIFIER.finditer(question):
        words = ordered_content_words(match.group(0))
        if words:
            found[match.group(0)] = frozenset(stem(w) for w in words)  # type: ignore[operator]
    for match in _NAMED_BY_KIND.finditer(question.lower()):
        word = match.group(1)
        if word not in _NOT_SUBJECTS and not any(word in key.lower() for key in found):
            words = ordered_content_words(word)
            if words:
                found[word] = frozenset(stem(w) for w in words)  # type: ignore[operator]
    return list(found.items())


def missing_subject(subjects: Sequence[tuple[str, frozenset[str]]], passage: frozenset[str]) -> str | None:
    """The first subject whose stems ``passage`` does not all hold."""
    return next((name for name, stems in subjects if not stems <= passage), None)


def missing_share(terms: Sequence[str], weights: np.ndarray, passages: Sequence[frozenset[str]]) -> float:
    """The share of the question's words (by ``weights``: a compound's parts share one word's) that no
    retrieved passage holds."""
    if not len(terms) or weights.sum() <= 0:
        return 0.0
    present: set[str] = set().union(*passages) if passages else set()
    absent = np.array([term not in present for term in terms], dtype=float)
    return float(absent @ weights / weights.sum())


def calibrated_threshold(null_coverage: float | None, ceiling: float) -> float:
    """The coverage the best sentence must reach: ``NULL_MARGIN`` x the best coverage of the corpus sample
    (``None``: no sample, the configured ``ceiling``), within ``[MIN_THRESHOLD, ceiling]``."""
    if null_coverage is None or ceiling <= 0:
        return ceiling
    return float(min(ceiling, max(MIN_THRESHOLD, NULL_MARGIN * null_coverage)))
