"""What the bench's scripted estimate servers share: which of kgrag's prompts a request is, and a reply cut
at ``max_tokens`` as a server stops generating there.

The held-out servers (:mod:`estimate_heldout_server`, :mod:`estimate_heldout2_server`,
:mod:`estimate_heldout3_server`) and their real-indexing check tell a request's prompt by the opening of its
system message; the openings are kgrag's prompt files' and change with them, so they are written once here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from kgrag.documents import TokenCounter
from kgrag.testing.fake_openai_server import cut_at_max_tokens as cut_reply

PROMPT_KINDS = (
    ("You extract a knowledge graph", "extract"),
    ("A knowledge graph was extracted", "glean"),
    ("You merge notes about one", "summarize"),
    ("You write a briefing note", "report"),
    ("You review candidate duplicates", "merge"),
    ("You check relations of a knowledge graph", "reflect"),
)


def prompt_kind(system: str) -> str:
    """The kind of kgrag prompt whose system message is ``system`` (``other`` when none matches)."""
    return next((kind for opening, kind in PROMPT_KINDS if system.startswith(opening)), "other")


@lru_cache(maxsize=1)
def cl100k() -> TokenCounter:
    """The cl100k counter the servers count and cut replies with (loaded once)."""
    return TokenCounter.for_encoding("cl100k_base")


def cut_at_max_tokens(reply: str, max_tokens: int) -> str:
    """``reply`` stopped at ``max_tokens`` cl100k tokens (whole when it is shorter, or ``max_tokens`` is 0), as
    the fake server's cutting transport stops it."""
    return cut_reply(reply, max_tokens)[0] if max_tokens else reply


class ScriptedRequest:
    """What a scripted reply depends on: the system text, the first user message, whether it is a re-ask,
    the entity types offered, ``max_tokens``, and a seed from the whole request's text (its messages and
    temperature), never from the order requests arrive in."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        messages: Sequence[Mapping[str, Any]] = body.get("messages", [])
        self.system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
        users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
        self.first = users[0] if users else ""
        self.again = any(m.get("role") == "assistant" for m in messages)
        self.types = tuple(re.findall(r"^- (\w+)$", self.system, re.MULTILINE))
        self.max_tokens = int(body.get("max_tokens") or 0)
        text = "\x1f".join(str(m.get("content", "")) for m in messages)
        self.seed = f"{text}\x1f{body.get('temperature')}"
