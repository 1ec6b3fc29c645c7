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


def entity_span(doc: Any, answer: str) -> Any:
    """spaCy's entity of ``doc`` whose text is ``answer`` (with its label), else the span of the answer's first
    occurrence (no label): what the label checks are given."""
    start = doc.text.index(answer)
    return next((e for e in doc.ents if e.text == answer), None) or doc.char_span(start, start + len(answer))


def answer_span(text: str, answer: str) -> Any:
    """The span of ``answer`` (its first occurrence) in ``text`` parsed; None when it does not fall on token
    boundaries."""
    start = text.index(answer)
    return spacy_nlp()(text).char_span(start, start + len(answer))


def brightwater_case(text: str) -> tuple[Any, Any, Any, Any]:
    """The passage of ``text`` (a sentence naming "Brightwater"), its parsed sentence, the span
    "Brightwater" and the rarity of a small corpus it is rare in: what a question about it is made from."""
    from kgrag.evaluation.qgen.cloze import Passage, Rarity, candidate_spans

    others = [
        "The Oslo office writes reports about Norway every week for the council.",
        "Lighthouse keepers in Bergen trim the wicks before dusk each evening.",
    ]
    passages = [Passage("c0", "d0", text)] + [Passage(f"c{i}", f"d{i}", t) for i, t in enumerate(others, 1)]
    rarity, doc = Rarity(passages), spacy_nlp()(text)
    rarity.labels.add(doc)
    sent = next(iter(doc.sents))
    span = next(s for s, _ in candidate_spans(sent) if s.text == "Brightwater")
    return passages[0], sent, span, rarity
