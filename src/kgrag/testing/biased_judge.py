"""A deliberately biased LLM judge for tests and demonstrations of the unbiased pairwise procedure.

It answers the pairwise prompts through :class:`~kgrag.models.llm.ScriptedProvider` like a real model
would, but its scores ignore content: every aspect starts at ``base``, the answer shown first gets
``position_bonus``, the longer answer gets ``length_bonus`` per 10 words of difference (capped), plus
seeded noise, rounded to integers as judges do. Given two equally good answers, a naive comparison
(one order, one trial, no length alignment, no ties) therefore reports a large win for whichever
pipeline sits first; the unbiased procedure must report a tie. It also serves the length-alignment
prompts: rewrites reach the target length by restating the answer's own words, except for answers that
contain ``stubborn_marker``, which it never lengthens (so the discard path is exercised).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass

from kgrag.core.llm_types import ChatRequest
from kgrag.models.llm import ScriptedProvider, ScriptRule

_ANSWERS = re.compile(r"Answer 1:\n(?P<one>.*?)\n\nAnswer 2:\n(?P<two>.*)\Z", re.DOTALL)
_TARGET = re.compile(r"about (\d+) words long")
_MISSING = re.compile(r"by about (\d+) words")
ASPECTS = ("comprehensiveness", "relevance", "empowerment", "directness")


def _user(request: ChatRequest) -> str:
    return next(m["content"] for m in request.messages if m["role"] == "user")


def _stretch(text: str, target: int) -> str:
    words = text.split()
    if not words:
        return text
    out = list(words)
    while len(out) < target:
        out.extend(words[: target - len(out)])
    return " ".join(out[:target])


@dataclass
class BiasedJudge:
    """The reply function of the biased judge; :meth:`provider` wraps it in a scripted provider."""

    base: float = 3.0
    position_bonus: float = 1.5
    length_bonus: float = 0.5
    max_length_bonus: float = 1.0
    noise: float = 0.6
    stubborn_marker: str = "STUBBORN"

    def _score(self, first: bool, words: int, other_words: int, rng: random.Random) -> dict[str, float]:
        bonus = self.position_bonus if first else 0.0
        if words > other_words:
            bonus += min(self.max_length_bonus, self.length_bonus * (words - other_words) / 10)
        return {
            a: float(min(5, max(0, round(self.base + bonus + rng.uniform(-self.noise, self.noise))))) for a in ASPECTS
        }

    def compare(self, request: ChatRequest) -> str:
        match = _ANSWERS.search(_user(request))
        if match is None:
            return "not a pairwise request"
        one, two = match.group("one").split(), match.group("two").split()
        rng = random.Random(f"{request.params.get('seed')}|{match.group('one')}|{match.group('two')}")
        return json.dumps(
            {
                "reasoning": "Both answers address the question; scoring each aspect.",
                "answer_1": self._score(True, len(one), len(two), rng),
                "answer_2": self._score(False, len(two), len(one), rng),
            }
        )

    def rewrite(self, request: ChatRequest) -> str:
        text = _user(request)
        answer = text.split("Original answer:\n", 1)[-1]
        if self.stubborn_marker in answer:
            return answer
        system = request.messages[0]["content"]
        found = _TARGET.search(system)
        target = int(found.group(1)) if found else len(answer.split())
        return _stretch(answer, target)

    def pad(self, request: ChatRequest) -> str:
        answer = _user(request).split("Answer:\n", 1)[-1]
        if self.stubborn_marker in answer:
            return answer
        missing = _MISSING.search(request.messages[0]["content"])
        return _stretch(answer, len(answer.split()) + (int(missing.group(1)) if missing else 0))

    def provider(self) -> ScriptedProvider:
        return ScriptedProvider(
            [
                ScriptRule(r"rewrite an answer so that it is about", self.rewrite),
                ScriptRule(r"You extend an answer by about", self.pad),
                ScriptRule(r"Answer 1:\n", self.compare),
            ]
        )
