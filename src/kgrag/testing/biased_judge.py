"""A deliberately biased LLM judge, and a generator that misses its target length, for tests and
demonstrations of the unbiased pairwise procedure.

:class:`BiasedJudge` answers the pairwise prompts (``eval_pairwise_aspects``, ``eval_two_pass``) and the
judge's alignment fallbacks (``eval_length_align``, ``eval_length_pad``) like a real model would, either
through :class:`~kgrag.models.llm.ScriptedProvider` (:meth:`BiasedJudge.provider`) or as the responder of
:func:`~kgrag.testing.fake_openai_server.fake_openai_server` (:meth:`BiasedJudge.responder`), so the real
HTTP client, JSON parsing and schema validation are exercised. Its points per aspect are

    base + position_bonus (shown first) + length bonus (the longer answer) + quality + noise,

rounded to whole points in 0-5 as the prompt asks. The length bonus is ``length_bonus`` per
``length_unit`` words of difference, capped at ``max_length_bonus``; quality is ``term_bonus`` per
``better_terms`` entry the answer contains (zero by default: content ignored). Noise is uniform in
±``noise``, drawn from the request's seed when ``honours_seed`` (a server that samples with the seed
sent); otherwise fresh on every call at temperature > 0 and fixed per prompt at temperature 0 (then
trials are identical copies). Given two equally good answers, a naive comparison therefore reports a win
for whichever pipeline sits first, and a length gap left by alignment decides verdicts for the longer
side. The judge's rewrite fallback restates the answer's own words; answers that contain
``stubborn_marker`` are never lengthened (so the discard path is exercised).

:class:`TargetLengthWriter` is a generator for the ``answer`` prompt: with the ``answer_length`` line it
writes about ``(1 − undershoot) × target − short_by ± jitter`` words drawn from the context (models
asked for N words tend to stop short), without it ``plain_words`` words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.testing.wire import ChatBody

import itertools
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.llm_types import Message
from kgrag.models.llm import ScriptedProvider, ScriptRule

_ANSWERS = re.compile(r"Answer 1:\n(?P<one>.*?)\n\nAnswer 2:\n(?P<two>.*)\Z", re.DOTALL)
_TARGET = re.compile(r"about (\d+) words long")
_MISSING = re.compile(r"by about (\d+) words")
_LENGTH_LINE = re.compile(r"Length: write about (\d+) words")
_CONTEXT = re.compile(r"Context:\n(?P<context>.*?)\n\nQuestion:", re.DOTALL)
ASPECTS = ("comprehensiveness", "relevance", "empowerment", "directness")
CRITERIA = ("comprehensiveness", "diversity", "empowerment", "overall")
Messages = Sequence[Message]


def _part(messages: Messages, role: str) -> str:
    return next((str(m.get("content") or "") for m in messages if m.get("role") == role), "")


def stretch(text: str, target: int) -> str:
    """``text``'s own words repeated or cut to ``target`` words (no new content)."""
    words = text.split()
    if not words:
        return text
    out = list(words)
    while len(out) < target:
        out.extend(words[: target - len(out)])
    return " ".join(out[: max(1, target)])


@dataclass
class BiasedJudge:
    """The biased judge's reply function; see the module docstring for its scoring model."""

    base: float = 3.0
    position_bonus: float = 1.5
    length_bonus: float = 0.5
    length_unit: int = 10
    max_length_bonus: float = 1.0
    noise: float = 0.6
    better_terms: tuple[str, ...] = ()
    term_bonus: float = 1.0
    honours_seed: bool = True
    stubborn_marker: str = "STUBBORN"
    _counter: itertools.count[int] = field(default_factory=itertools.count, init=False, repr=False)

    def _rng(self, params: Mapping[str, Any], key: str) -> random.Random:
        if self.honours_seed:
            salt: object = params.get("seed")
        elif float(params.get("temperature") or 0) > 0:
            salt = f"call{next(self._counter)}"  # sampling without a usable seed: every call differs
        else:
            salt = None  # greedy decoding: the same prompt gets the same reply
        return random.Random(f"{salt}|{key}")

    def _points(self, first: bool, answer: str, other: str, rng: random.Random) -> dict[str, int]:
        bonus = self.position_bonus if first else 0.0
        excess = len(answer.split()) - len(other.split())
        if excess > 0:
            bonus += min(self.max_length_bonus, self.length_bonus * excess / self.length_unit)
        lowered = answer.lower()
        bonus += self.term_bonus * sum(term.lower() in lowered for term in self.better_terms)
        return {a: min(5, max(0, round(self.base + bonus + rng.uniform(-self.noise, self.noise)))) for a in ASPECTS}

    def _scores(self, user: str, params: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, int]] | None:
        match = _ANSWERS.search(user)
        if match is None:
            return None
        one, two = match.group("one"), match.group("two")
        rng = self._rng(params, user)  # the question too: equal answers to two questions are judged apart
        return self._points(True, one, two, rng), self._points(False, two, one, rng)

    def compare(self, messages: Messages, params: Mapping[str, Any]) -> str:
        scores = self._scores(_part(messages, "user"), params)
        if scores is None:
            return "not a pairwise request"
        return json.dumps(
            {
                "reasoning": "Both answers address the question; scoring each aspect.",
                "answer_1": scores[0],
                "answer_2": scores[1],
            }
        )

    def two_pass(self, messages: Messages, params: Mapping[str, Any]) -> str:
        scores = self._scores(_part(messages, "user"), params)
        if scores is None:
            return "not a pairwise request"
        one, two = sum(scores[0].values()), sum(scores[1].values())
        pick = "1" if one > two else "2" if two > one else "tie"
        return json.dumps({"reasoning": "Weighing both answers.", **dict.fromkeys(CRITERIA, pick)})

    def rewrite(self, messages: Messages, params: Mapping[str, Any]) -> str:
        answer = _part(messages, "user").split("Original answer:\n", 1)[-1]
        if self.stubborn_marker in answer:
            return answer
        found = _TARGET.search(_part(messages, "system"))
        return stretch(answer, int(found.group(1)) if found else len(answer.split()))

    def pad(self, messages: Messages, params: Mapping[str, Any]) -> str:
        answer = _part(messages, "user").split("Answer:\n", 1)[-1]
        if self.stubborn_marker in answer:
            return answer
        missing = _MISSING.search(_part(messages, "system"))
        return stretch(answer, len(answer.split()) + (int(missing.group(1)) if missing else 0))

    def reply(self, messages: Messages, params: Mapping[str, Any]) -> str:
        """The reply to any request this judge serves (dispatch on the prompt's wording)."""
        system = _part(messages, "system")
        route: Callable[[Messages, Mapping[str, Any]], str]
        if "rewrite an answer so that it is about" in system:
            route = self.rewrite
        elif "You extend an answer by about" in system:
            route = self.pad
        elif "You compare two answers" in system:
            route = self.two_pass
        else:
            route = self.compare
        return route(messages, params)

    def provider(self) -> ScriptedProvider:
        """The judge as a scripted provider (in-process, no HTTP)."""
        return ScriptedProvider([ScriptRule(r".", lambda r: self.reply(r.messages, r.params))])

    def responder(self) -> Callable[[ChatBody], str]:
        """The judge as a :func:`~kgrag.testing.fake_openai_server.fake_openai_server` responder."""
        return lambda request: self.reply(request.get("messages", []), request)


@dataclass
class TargetLengthWriter:
    """An ``answer``-prompt generator that misses the requested length the way models do (see module)."""

    undershoot: float = 0.1
    jitter: int = 2
    plain_words: int = 30
    short_by: int = 0
    seed: int = 0
    requests: list[int | None] = field(default_factory=list)

    def reply(self, messages: Messages, params: Mapping[str, Any]) -> str:
        user = _part(messages, "user")
        if "You extend an answer by about" in _part(messages, "system"):
            return BiasedJudge().pad(messages, params)
        found = _LENGTH_LINE.search(user)
        context = _CONTEXT.search(user)
        source = context.group("context") if context else user
        words = [w for w in source.split() if not w.startswith("[") and not w.endswith(":")] or ["answer"]
        if found is None:
            self.requests.append(None)
            return " ".join(stretch(" ".join(words), self.plain_words).split())
        target = int(found.group(1))
        self.requests.append(target)
        rng = random.Random(f"{self.seed}|{target}|{len(self.requests)}")
        size = round(target * (1 - self.undershoot)) - self.short_by + rng.randint(-self.jitter, self.jitter)
        size = max(1, size)
        return stretch(" ".join(words), size)

    def provider(self) -> ScriptedProvider:
        return ScriptedProvider([ScriptRule(r".", lambda r: self.reply(r.messages, r.params))])
