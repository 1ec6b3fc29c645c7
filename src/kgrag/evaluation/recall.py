"""LLM-free evidence recall: did the retrieved context contain the evidence sentences?

An evidence sentence counts as recalled when at least ``threshold`` of its content words (see
:func:`kgrag.documents.words.content_words`) occur in a single retrieved item. Evidence in
GraphRAG-Bench is often lightly paraphrased, so exact matching would undercount; 0.7 is the default
(config ``evaluation.evidence_overlap``).

Evidence copied from a page's Markdown source carries what the indexed page does not: a link's target
(``[NIST SP800-63B](https://pages.nist.gov/…)`` adds six words no passage holds), emphasis marks,
backticks. A sentence whose text holds Markdown inline syntax is therefore also read as the Markdown
loader reads it (:func:`kgrag.documents.markdown_text.markdown_line_text`), and it counts as held when
either reading is; plain evidence is read once, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from kgrag.documents.words import content_words

_MARKUP = re.compile(r"[\[\]<>`*_&\\]")
"""A character Markdown inline syntax needs (links, images, HTML, code, emphasis, entities, escapes)."""


@lru_cache(maxsize=8192)
def evidence_word_forms(evidence: str) -> tuple[frozenset[str], ...]:
    """The content words of ``evidence`` as written and, when it holds Markdown inline syntax that changes
    them, as rendered; empty when it has no content word."""
    written = frozenset(content_words(evidence))
    if not written:
        return ()
    if not _MARKUP.search(evidence):
        return (written,)
    from kgrag.documents.markdown_text import markdown_line_text

    rendered = frozenset(content_words(markdown_line_text(evidence)))
    return (written, rendered) if rendered and rendered != written else (written,)


def holds(form: frozenset[str], item: set[str] | frozenset[str], threshold: float) -> bool:
    """Whether ``item`` (a text's content words) holds ``threshold`` of the words of one evidence form."""
    return len(form & item) / len(form) >= threshold


def evidence_hit(evidence: str, item_words: Sequence[set[str]], threshold: float) -> bool:
    forms = evidence_word_forms(evidence)
    return any(holds(form, item, threshold) for form in forms for item in item_words)


def usable_evidence(evidence: Sequence[str]) -> list[str]:
    """The evidence sentences recall can be scored on: those with a content word."""
    return [e for e in evidence if content_words(e)]


def evidence_recall(evidence: Sequence[str], retrieved_texts: Sequence[str], threshold: float) -> float | None:
    """Share of evidence sentences recalled; None when the question has no usable evidence."""
    usable = usable_evidence(evidence)
    if not usable:
        return None
    item_words = [content_words(text) for text in retrieved_texts]
    return sum(evidence_hit(e, item_words, threshold) for e in usable) / len(usable)
