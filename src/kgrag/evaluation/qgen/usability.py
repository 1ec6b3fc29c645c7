"""How likely a known-item question is to be usable as it is, learned from blind reads.

The checks refuse defects one shape at a time and the quality signs (:mod:`kgrag.evaluation.qgen.quality`)
reward the shape of a good question; neither says how the shapes weigh against each other. Blind reads do:
every question of every read carries a reader's verdict (usable, defective, trivial, ambiguous;
``bench/data/qgen_blind_verdicts.jsonl.gz``). A logistic regression over plain features of the question, its
answer and its sentence, fitted on those verdicts (:func:`kgrag.tuning.qgen_usability.fit_usability`), gives
the chance that a candidate is usable; with ``evaluation.qgen_usability = true`` the generator keeps the
likeliest first (:func:`kgrag.evaluation.qgen.known_item.pick_known_items`). Every known-item question is
written with that chance. Held out within the reads it ranks a read's questions better than chance; on the
questions of fresh sites read later it did not, so it is not the default.

The features are what the generator knows of a candidate when it picks, written so that no feature names a
site, a product or a word list: the question's length and question word (the first of
:data:`QUESTION_WORDS` it holds, a relative "which" or "when" too), whether it names the headings its
sentence sits under (``headed``: any heading lead, a section alone too) and keeps every content word of its
sentence (``whole``), the answer's form (an acronym, a number, a name, a lower-case phrase, a single plural
name), code-like characters, commas, "you", a name completed by the answer ("Proof Key for what"), and the
sentence's length, brackets and where the answer sits
in it. Each is scaled to [0, 1].

Held-out figures (trained on earlier reads, scored on later ones, and leave-one-read-out) are in
``docs/results/qgen-llm-free.md``; the weights below were refitted on all reads by
``bench/fit_qgen_usability.py``, which a test repeats.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from kgrag.documents.words import content_words
from kgrag.evaluation.qgen.quality import trusted_shape

QUESTION_WORDS = (
    "what number",
    "how many",
    "how much",
    "how long",
    "which version",
    "who",
    "when",
    "where",
    "which",
    "what",
)
"""Question words, most specific first; a question is given the first it holds."""
_QUESTION_WORD = tuple((word, re.compile(rf"\b{word}\b")) for word in QUESTION_WORDS)

FEATURES = (
    "headed",
    "whole",
    "trusted shape",
    "question words",
    *(f"asks {word}" for word in QUESTION_WORDS),
    "opens with its question word",
    "name completed by the answer",
    "capitalised words",
    "digits in the question",
    "code in the question",
    "you",
    "commas",
    "acronym answer",
    "answer words",
    "answer characters",
    "number answer",
    "capitalised answer",
    "lower-case answer",
    "plural name answer",
    "code in the answer",
    "sentence words",
    "brackets in the sentence",
    "code in the sentence",
    "answer position",
)

_ACRONYM = re.compile(r"[A-Z]{2,5}s?")
_CODE = re.compile(r"[`{}<>=_/]")
_NAME_COMPLETED = re.compile(r"[A-Z][\w-]* (?:for|of) what\b")
_OPENING = re.compile(r"(?:What|Who|Which|When|Where|How)\b")
_YOU = re.compile(r"\b(?:you|your)\b", re.IGNORECASE)


def _capped(value: float, cap: float) -> float:
    return min(value, cap) / cap


def _asked(text: str) -> str:
    lowered = text.lower()
    return next((word for word, pattern in _QUESTION_WORD if pattern.search(lowered)), "")


def _question_features(text: str) -> dict[str, float]:
    words = text.split()
    asked = _asked(text)
    values = {f"asks {word}": float(word == asked) for word in QUESTION_WORDS}
    values.update(
        {
            "question words": _capped(len(words), 40),
            "opens with its question word": float(bool(_OPENING.match(text))),
            "name completed by the answer": float(bool(_NAME_COMPLETED.search(text))),
            "capitalised words": _capped(sum(w[:1].isupper() for w in words[1:]), 8),
            "digits in the question": float(any(ch.isdigit() for ch in text)),
            "code in the question": float(bool(_CODE.search(text))),
            "you": float(bool(_YOU.search(text))),
            "commas": _capped(text.count(","), 3),
        }
    )
    return values


def _answer_features(answer: str, sentence: str) -> dict[str, float]:
    words = answer.split()
    at = sentence.find(answer)
    return {
        "acronym answer": float(bool(_ACRONYM.fullmatch(answer))),
        "answer words": _capped(len(words), 6),
        "answer characters": _capped(len(answer), 30),
        "number answer": float(any(ch.isdigit() for ch in answer)),
        "capitalised answer": float(answer[:1].isupper()),
        "lower-case answer": float(answer[:1].islower()),
        "plural name answer": float(
            len(words) == 1 and answer.endswith("s") and answer[:1].isupper() and not answer.isupper()
        ),
        "code in the answer": float(bool(re.search(r"[`{}<>=_/.]", answer))),
        "sentence words": _capped(len(sentence.split()), 60),
        "brackets in the sentence": float("(" in sentence),
        "code in the sentence": float(bool(_CODE.search(sentence))),
        "answer position": at / max(1, len(sentence)) if at >= 0 else 0.5,
    }


def features(question: str, answer: str, sentence: str, *, headed: bool) -> tuple[float, ...]:
    """The :data:`FEATURES` of a question (without its heading lead:
    :func:`kgrag.evaluation.qgen.scope.unscoped`), its answer and the
    sentence it was cut from, in that order; ``headed``: whether the question names its page's headings.
    ``whole`` is read off the strings: every content word of the sentence is in the question or the answer."""
    whole = content_words(sentence) <= content_words(question) | content_words(answer)
    values = {
        "headed": float(headed),
        "whole": float(whole),
        "trusted shape": float(trusted_shape(answer, question)),
        **_question_features(question),
        **_answer_features(answer, sentence),
    }
    return tuple(values[name] for name in FEATURES)


@dataclass(frozen=True)
class UsabilityModel:
    """A logistic regression over :data:`FEATURES`: ``intercept`` and one weight per feature."""

    intercept: float
    weights: Mapping[str, float]
    trained_on: str

    def probability(self, values: tuple[float, ...]) -> float:
        """The chance that a question with these feature values is usable as it is."""
        z = self.intercept + sum(self.weights[name] * v for name, v in zip(FEATURES, values, strict=True))
        return 1.0 / (1.0 + math.exp(-z))


WEIGHTS: Final[Mapping[str, float]] = MappingProxyType(
    {
        "headed": 0.746685,
        "whole": 0.476712,
        "trusted shape": -0.060017,
        "question words": 0.752705,
        "asks what number": -1.533607,
        "asks how many": 0.576729,
        "asks how much": -0.526723,
        "asks how long": 0.935554,
        "asks which version": 0.514136,
        "asks who": 0.576405,
        "asks when": -0.098354,
        "asks where": 0.096365,
        "asks which": 0.405639,
        "asks what": -0.056999,
        "opens with its question word": 0.307036,
        "name completed by the answer": -0.581090,
        "capitalised words": -0.029964,
        "digits in the question": -0.167164,
        "code in the question": -0.054589,
        "you": -0.007260,
        "commas": -0.212600,
        "acronym answer": -0.138677,
        "answer words": -0.899159,
        "answer characters": 0.591145,
        "number answer": 0.287266,
        "capitalised answer": 0.266340,
        "lower-case answer": 0.012554,
        "plural name answer": -0.198806,
        "code in the answer": -0.017704,
        "sentence words": 0.311723,
        "brackets in the sentence": -0.435182,
        "code in the sentence": 0.108492,
        "answer position": 0.230750,
    }
)
"""Fitted weights (filled by ``bench/fit_qgen_usability.py --write``)."""
INTERCEPT: Final = -0.956526
TRAINED_ON: Final = "blind reads 1–215"


def shipped_model() -> UsabilityModel:
    """The model fitted on every blind read so far (:data:`WEIGHTS`)."""
    return UsabilityModel(INTERCEPT, WEIGHTS, TRAINED_ON)
