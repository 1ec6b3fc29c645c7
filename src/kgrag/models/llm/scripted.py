"""The scripted provider: canned replies for tests and offline replays, never touching the network.

Replies come, in this order, from (1) a replay table keyed by :func:`replay_key` of the request (what
:class:`~kgrag.models.llm.recording.RecordingProvider` writes), (2) rules tried in order, whose regex is
searched in the request's message contents, (3) a default reply. No match is a non-retryable error.

Replay/rule file (JSONL, one object per line)::

    {"key": "<replay_key>", "response": "...", "finish_reason": "stop"}   # recorded exchange
    {"match": "(?i)capital of france", "response": "Paris [c:c1]"}      # rule
    {"default": "I don't know based on the provided context."}         # fallback
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kgrag.core.errors import ConfigError
from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.models.llm.base import ProviderError

Reply = str | Callable[[ChatRequest], str]


def replay_key(request: ChatRequest) -> str:
    """Provider-independent request hash, so a recording made against any endpoint replays here."""
    return request.cache_key("replay")


def request_text(request: ChatRequest) -> str:
    """All message contents joined; what rule patterns are searched in."""
    return "\n".join(m["content"] for m in request.messages)


@dataclass
class ScriptRule:
    """Reply ``reply`` (text, or a function of the request) when ``pattern`` occurs; ``times`` limits uses."""

    pattern: str
    reply: Reply
    times: int | None = None
    finish_reason: str = "stop"
    _regex: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        try:
            self._regex = re.compile(self.pattern, re.DOTALL)
        except re.error as exc:
            raise ConfigError(f"scripted rule {self.pattern!r} is not a valid regex: {exc}") from exc

    def matches(self, text: str) -> bool:
        return (self.times is None or self.times > 0) and self._regex.search(text) is not None


@dataclass(frozen=True)
class _Recorded:
    text: str
    finish_reason: str | None


class ScriptedProvider:
    """Deterministic provider; ``requests`` keeps every request it answered, for assertions."""

    name = "scripted"
    available = True

    def __init__(
        self,
        rules: Sequence[ScriptRule] = (),
        replay: Mapping[str, str] | None = None,
        default: str | None = None,
    ) -> None:
        self.rules = list(rules)
        self._replay = {k: _Recorded(v, "stop") for k, v in (replay or {}).items()}
        self.default = default
        self.requests: list[ChatRequest] = []
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: Path) -> ScriptedProvider:
        """Load recorded exchanges, rules and an optional default from a JSONL file."""
        provider = cls()
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"llm.providers.scripted.file {path}: cannot read ({exc})") from exc
        for number, line in enumerate(lines, 1):
            if line.strip():
                provider._add_line(line, f"{path}:{number}")
        return provider

    def _add_line(self, line: str, where: str) -> None:
        try:
            entry = json.loads(line)
            if "key" in entry:
                self._replay[str(entry["key"])] = _Recorded(str(entry["response"]), entry.get("finish_reason"))
            elif "match" in entry:
                self.rules.append(ScriptRule(str(entry["match"]), str(entry["response"])))
            elif "default" in entry:
                self.default = str(entry["default"])
            else:
                raise KeyError("key, match or default")
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{where}: not a replay entry ({exc}); see kgrag.models.llm.scripted") from exc

    def __getstate__(self) -> dict[str, object]:
        """Picklable (a copy can answer in another process, e.g. a Ray actor); the lock is rebuilt."""
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.requests.append(request)
            recorded = self._replay.get(replay_key(request))
            if recorded is not None:
                return ChatResponse(recorded.text, recorded.finish_reason)
            text = request_text(request)
            for rule in self.rules:
                if rule.matches(text):
                    if rule.times is not None:
                        rule.times -= 1
                    reply = rule.reply(request) if callable(rule.reply) else rule.reply
                    return ChatResponse(reply, rule.finish_reason)
        if self.default is not None:
            return ChatResponse(self.default, "stop")
        snippet = text[-160:].replace("\n", " ")
        raise ProviderError(f"scripted: no rule or recording matches request ending {snippet!r}", retryable=False)

    def close(self) -> None:
        return None
