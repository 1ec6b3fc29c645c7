"""The real spaCy pipeline the qgen checks parse with, loaded once for all the qgen test modules."""

from __future__ import annotations

from functools import cache
from typing import Any

from kgrag.config import KgragConfig
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings


@cache
def spacy_nlp() -> Any:
    """The configured spaCy pipeline (the one graph extraction and question generation load)."""
    nlp = nlp_settings(KgragConfig())
    return SpacyExtractor(nlp.spacy_model, allow_torch=nlp.spacy_torch).nlp


def answer_span(text: str, answer: str) -> Any:
    """The span of ``answer`` (its first occurrence) in ``text`` parsed; None when it does not fall on token
    boundaries."""
    start = text.index(answer)
    return spacy_nlp()(text).char_span(start, start + len(answer))
