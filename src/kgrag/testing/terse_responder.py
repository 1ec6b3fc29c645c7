"""A second scripted model, unlike :class:`~kgrag.testing.extraction_responder.ExtractionResponder`: for
checking the estimate against a reply distribution it was not tuned on.

Where the realistic responder returns every capitalised run of words as an entity and links names that
follow each other in a sentence, this one behaves like a terse model with its own notion of a name:

* extraction: single capitalised words of four letters or more, at most :data:`MAX_ENTITIES` per reply,
  each with a fixed short description, and every entity linked to the one two places after it (so
  relations do not follow sentences);
* gleaning: up to :data:`MAX_GLEANED` further words the first pass left out;
* summaries: the first :data:`SUMMARY_WORDS` words of the notes; community reports: a one-finding report;
* merge confirmations: always yes, keeping the first name; triple reflection: every relation scored 0.8.

Every reply is valid, so it causes no re-asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.core.llm_types import Message
from kgrag.graph.tune.example import EntityItem, ExtractionReply, RelationItem

if TYPE_CHECKING:
    from kgrag.testing.wire import ChatBody

import json
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from kgrag.testing.extraction_responder import request_kind

MAX_ENTITIES = 12
MAX_GLEANED = 4
SUMMARY_WORDS = 30
_WORD = re.compile(r"\b[A-Z][A-Za-z]{3,}\b")
_NUMBERED = re.compile(r"^(\d+)\. ", re.MULTILINE)
_COMMON = frozenset("this that these those when with from after before during there their what which".split())


def _words(text: str) -> list[str]:
    """Distinct capitalised words of ``text`` in order of first appearance."""
    seen: dict[str, str] = {}
    for word in _WORD.findall(text):
        if word.casefold() not in _COMMON:
            seen.setdefault(word.casefold(), word)
    return list(seen.values())


def _graph(names: Sequence[str]) -> ExtractionReply:
    entities: list[EntityItem] = [
        {"name": n, "type": "concept", "description": f"{n} as the text describes it."} for n in names
    ]
    relations: list[RelationItem] = [
        {"source": a, "target": b, "label": "linked to", "description": f"{a} is linked to {b}."}
        for a, b in zip(names, names[2:], strict=False)
    ]
    return {"entities": entities, "relations": relations}


@dataclass
class TerseResponder:
    """Answers every indexing request validly and tersely; ``calls`` counts requests per kind."""

    calls: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reply(self, messages: Sequence[Message]) -> str:
        kind, first = request_kind(messages)
        system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
        if kind == "other" and "candidate duplicates" in system:
            kind = "confirm"
        elif kind == "other" and "relations of a knowledge graph" in system:
            kind = "reflect"
        with self._lock:
            self.calls[kind] += 1
        if kind == "extract":
            return json.dumps(_graph(_words(first.split("Text:\n", 1)[-1])[:MAX_ENTITIES]))
        if kind == "glean":
            found_line, _, text = first.partition("\n")
            found = {name.strip().casefold() for name in found_line.removeprefix("Found: ").split(";")}
            return json.dumps(_graph([w for w in _words(text) if w.casefold() not in found][:MAX_GLEANED]))
        if kind == "summarize":
            return " ".join(first.split("\nNotes:\n", 1)[-1].replace("- ", " ").split()[:SUMMARY_WORDS])
        if kind == "report":
            finding = {"summary": "The group's main items.", "explanation": "", "refs": []}
            return json.dumps({"title": "Related items", "summary": "Items that appear together.",
                               "findings": [finding], "rating": 5})  # fmt: skip
        if kind == "confirm":
            return json.dumps({"merge": True, "keep": 1, "description": "One entity under several names."})
        if kind == "reflect":
            ids = [int(n) for n in _NUMBERED.findall(first)]
            return json.dumps({"scores": [{"id": i, "score": 0.8, "reason": "plausible"} for i in ids]})
        return "I don't know."

    def for_server(self, body: ChatBody) -> str:
        """Responder signature of :class:`kgrag.testing.FakeOpenAIServer` (the request's JSON body)."""
        return self.reply(body.get("messages", []))
