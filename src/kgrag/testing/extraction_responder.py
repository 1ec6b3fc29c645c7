"""A scripted "LLM" for graph-extraction tests: plausible JSON for the text it is sent, or broken JSON.

It reads the request the way a model would see it (the messages rendered from ``extract_graph``,
``glean_graph`` and ``summarize_descriptions``) and answers from the unit text with cheap rules:

* entities: runs of capitalised words (``Rui Carvalho``, ``Kestrel 4.2``, ``INC-2024-031``), minus
  leading function words; the type is guessed from the shape of the name; the description is the first
  sentence that mentions it;
* relations: names next to each other in one sentence, labelled with the lower-case words between them;
* gleaning: everything not in the ``Found:`` list, so first pass + glean = the full extraction;
* summaries: the notes joined and cut to the requested number of words.

The same answers are deterministic functions of the text, so a run with faults can be compared with a
clean run. Malformed modes imitate what real models send: code fences, prose around the JSON, trailing
commas, Python quoting, a truncated reply, the wrong schema, missing or invalid fields, or no JSON.

Use it with the scripted provider (:meth:`ExtractionResponder.provider`) or as the fake HTTP server's
responder (:meth:`ExtractionResponder.for_server`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typing_extensions import TypedDict

from kgrag.graph.tune.example import EntityItem, ExtractionReply, RelationItem

if TYPE_CHECKING:
    from kgrag.testing.wire import ChatBody

import itertools
import json
import math
import random
import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.llm_types import ChatRequest, Message
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule

LOSSLESS = ("fence", "prose", "trailing_comma", "single_quotes")
RECOVERABLE = (*LOSSLESS, "wrong_schema", "garbage")
LOSSY = ("truncated", "missing_fields", "invalid_fields")
ALL_MALFORMATIONS = (*RECOVERABLE, *LOSSY)

_TOKEN = r"(?:[A-ZÀ-ÖØ-Þ][\w'&]*(?:[-.]\w+)*)"
_NAME = re.compile(_TOKEN + r"(?:[ \t]+(?:" + _TOKEN + r"|\d+(?:\.\d+)*))*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_LOWER_WORD = re.compile(r"\b[a-z][a-z-]*\b")
_LEADING = frozenset(
    "a an the this that these those every each any all our we it its in on at for if when since after before "
    "during while with by from to of and or but as so also then here there what which who how why owner "
    "applies no not some many most".split()
)
_ORGANISATION_WORDS = frozenset({"systems", "utilities", "water", "board", "inc", "ltd", "company", "council"})
_SEPARATORS = {"glean": "Found: ", "extract": "Text:\n", "summarize": "\nNotes:\n", "report": "Material ("}
_LABEL_LINE = re.compile(r"^\[([ERC]\d+)\] (.+)$", re.MULTILINE)


def _strip_leading(words: list[str]) -> list[str]:
    while words and words[0].casefold() in _LEADING:
        words = words[1:]
    return words


def _guess_type(name: str) -> str:
    words = name.split()
    last = words[-1].casefold()
    if last == "team":
        return "team"
    if last in _ORGANISATION_WORDS:
        return "organization"
    if name.startswith("INC-"):
        return "event"
    if name.startswith("ADR-"):
        return "document"
    if len(words) == 2 and all(w.isalpha() and w[0].isupper() and w[1:].islower() for w in words):
        return "person"
    return "product" if any(ch.isdigit() for ch in name) else "concept"


def _mentions(sentence: str) -> list[tuple[str, int, int]]:
    """Names in one sentence with their spans, leading function words and a final ``'s`` removed."""
    found = []
    for match in _NAME.finditer(sentence):
        words = _strip_leading(match.group(0).split())
        if not words:
            continue
        name = " ".join(words).removesuffix("'s").rstrip(".-")
        if len(name) > 1:
            start = sentence.index(words[0], match.start())
            found.append((name, start, start + len(name)))
    return found


def _short(sentence: str, words: int = 14) -> str:
    parts = sentence.replace("|", " ").replace("*", "").replace("#", "").split()
    return " ".join(parts[:words])


def extract_items(text: str) -> tuple[list[EntityItem], list[RelationItem]]:
    """The full extraction of ``text``: entity and relation dicts in order of first appearance."""
    entities: dict[str, EntityItem] = {}
    pairs: dict[tuple[str, str], RelationItem] = {}
    counts: Counter[tuple[str, str]] = Counter()
    for sentence in (s.strip() for s in _SENTENCE.split(text)):
        mentions = _mentions(sentence)
        for name, _, _ in mentions:
            entities.setdefault(
                name.casefold(), {"name": name, "type": _guess_type(name), "description": _short(sentence)}
            )
        for (a, _, a_end), (b, b_start, _) in itertools.pairwise(mentions):
            key = (a.casefold(), b.casefold())
            if key[0] == key[1] or (key[1], key[0]) in pairs:
                continue
            counts[key] += 1
            between = _LOWER_WORD.findall(sentence[a_end:b_start])[:3]
            label = " ".join(between) or "appears with"
            pairs.setdefault(
                key,
                {
                    "source": a,
                    "target": b,
                    "label": label,
                    "description": _short(sentence),
                    "keywords": [label.split()[-1]],
                },
            )
    relations = [RelationItem(**rel, strength=min(10, 4 + counts[key])) for key, rel in pairs.items()]
    return list(entities.values()), relations


def _report(material: str) -> str:
    """A community report built from the labelled material lines, as a careful model would write it."""
    lines = _LABEL_LINE.findall(material)
    if not lines:
        return json.dumps({"title": "Group", "summary": "A group of related items.", "findings": [], "rating": 1})
    first = lines[0][1].split(" (")[0].split(":")[0]
    findings = [{"summary": _short(text), "explanation": "", "refs": [label]} for label, text in lines[:3]]
    summary = _short(" ".join(text for _, text in lines[:2]))
    return json.dumps({"title": f"{first} and related items", "summary": summary, "findings": findings,
                       "rating": min(10, 2 + len(lines) // 3)})  # fmt: skip


def request_kind(messages: Sequence[Message]) -> tuple[str, str]:
    """(kind, first user message): kind is ``extract``, ``glean``, ``summarize``, ``report`` or ``other``.

    The first user message is used because a re-ask appends the bad reply and a correction after it.
    """
    first = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
    if first.startswith(_SEPARATORS["glean"]):
        return "glean", first
    if first.startswith(_SEPARATORS["extract"]):
        return "extract", first
    if _SEPARATORS["summarize"] in first:
        return "summarize", first
    if first.startswith(_SEPARATORS["report"]):
        return "report", first
    return "other", first


def _trailing_commas(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + "".join(f"{json.dumps(k)}: {_trailing_commas(v)}, " for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + "".join(f"{_trailing_commas(v)}, " for v in value) + "]"
    return json.dumps(value)


class LooseEntity(TypedDict, total=False):
    """An entity of a malformed reply: a field may be missing or of the wrong type."""

    name: str
    type: str
    description: str | list[str]


class LooseRelation(TypedDict, total=False):
    """A relation of a malformed reply: a field may be missing or of the wrong type."""

    source: str
    target: str
    label: str
    description: str
    keywords: list[str]
    strength: int | str


class LooseReply(TypedDict):
    entities: list[LooseEntity]
    relations: list[LooseRelation]


def _drop_fields(value: ExtractionReply) -> LooseReply:
    entities: list[LooseEntity] = []
    for i, e in enumerate(value["entities"]):
        entity: LooseEntity = {**e}
        if i % 3 == 1:
            entity.pop("name")
        entities.append(entity)
    relations: list[LooseRelation] = []
    for i, r in enumerate(value["relations"]):
        relation: LooseRelation = {**r}
        if i % 3 == 1:
            relation.pop("target")
        relations.append(relation)
    return {"entities": entities, "relations": relations}


def _bad_fields(value: ExtractionReply) -> LooseReply:
    entities: list[LooseEntity] = [
        {**e, "description": [e["description"]]} if i % 3 == 1 else {**e} for i, e in enumerate(value["entities"])
    ]
    relations: list[LooseRelation] = [
        {**r, "strength": "high"} if i % 3 == 1 else {**r} for i, r in enumerate(value["relations"])
    ]
    return {"entities": entities, "relations": relations}


def malform(value: ExtractionReply, kind: str) -> str:
    """``value`` (an extraction reply) written the broken way ``kind`` names (see :data:`ALL_MALFORMATIONS`)."""
    clean = json.dumps(value, ensure_ascii=False)
    writers = {
        "fence": lambda: "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```",
        "prose": lambda: "Here is the knowledge graph for the text:\n" + clean + "\nI hope this helps.",
        "trailing_comma": lambda: _trailing_commas(value),
        "single_quotes": lambda: repr(value),
        "truncated": lambda: clean[: max(1, int(len(clean) * 0.6))],
        "wrong_schema": lambda: json.dumps({"nodes": value["entities"], "edges": value["relations"]}),
        "missing_fields": lambda: json.dumps(_drop_fields(value)),
        "invalid_fields": lambda: json.dumps(_bad_fields(value)),
        "garbage": lambda: "Sorry, I can only describe the text in words: it talks about several teams.",
    }
    if kind not in writers:
        raise ValueError(f"unknown malformation {kind!r}; choose from {', '.join(ALL_MALFORMATIONS)}")
    return writers[kind]()


@dataclass
class ExtractionResponder:
    """Answers extraction, gleaning and summary requests; thread-safe (the fake server is threaded).

    ``first_pass_share`` < 1 returns only that share of the entities on the first pass (gleaning then
    returns the rest). ``malformation`` breaks every first-attempt reply that way; ``random_faults`` with
    ``rate`` breaks a random share of replies (seeded) in randomly chosen ways. Re-asks (conversations
    holding the bad reply) are answered cleanly unless ``clean_reasks`` is False. Units whose text
    contains one of ``fail_markers`` always get an unusable reply. ``calls`` counts requests per kind.
    """

    first_pass_share: float = 1.0
    malformation: str | None = None
    random_faults: Sequence[str] = ()
    rate: float = 0.0
    seed: int = 0
    clean_reasks: bool = True
    fail_markers: Sequence[str] = ()
    calls: Counter[str] = field(default_factory=Counter)
    malformed: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        for kind in [*self.random_faults, *([self.malformation] if self.malformation else [])]:
            malform({"entities": [], "relations": []}, kind)  # fail early on a misspelt kind

    def reply(self, messages: Sequence[Message]) -> str:
        """The reply text for one request."""
        kind, first = request_kind(messages)
        reask = any(m.get("role") == "assistant" for m in messages)
        with self._lock:
            self.calls[kind + ("-reask" if reask else "")] += 1
        if kind == "summarize":
            return self._summary(first, "\n".join(str(m.get("content", "")) for m in messages))
        if kind == "other":
            return "I don't know."
        if kind == "report":
            return _report(first)
        text = first.split(_SEPARATORS["extract"], 1)[1] if _SEPARATORS["extract"] in first else ""
        value = self._glean(first, text) if kind == "glean" else self._first_pass(text)
        if any(marker in text for marker in self.fail_markers):
            return malform(value, "garbage")
        broken = self._choose_fault(reask)
        if broken is None:
            return json.dumps(value, ensure_ascii=False)
        with self._lock:
            self.malformed[broken] += 1
        return malform(value, broken)

    def _choose_fault(self, reask: bool) -> str | None:
        if reask and self.clean_reasks:
            return None
        if self.malformation is not None:
            return self.malformation
        if self.random_faults and self.rate > 0:
            with self._lock:
                if self._rng.random() < self.rate:
                    return self._rng.choice(list(self.random_faults))
        return None

    def _first_pass(self, text: str) -> ExtractionReply:
        entities, relations = extract_items(text)
        if self.first_pass_share >= 1:
            return {"entities": entities, "relations": relations}
        kept = entities[: math.ceil(len(entities) * self.first_pass_share)]
        names = {e["name"].casefold() for e in kept}
        return {
            "entities": kept,
            "relations": [r for r in relations if r["source"].casefold() in names and r["target"].casefold() in names],
        }

    @staticmethod
    def _glean(first: str, text: str) -> ExtractionReply:
        found_line = first.split("\n", 1)[0].removeprefix(_SEPARATORS["glean"])
        found = {name.strip().casefold() for name in found_line.split(";")}
        entities, relations = extract_items(text)
        return {
            "entities": [e for e in entities if e["name"].casefold() not in found],
            "relations": [
                r for r in relations if r["source"].casefold() not in found or r["target"].casefold() not in found
            ],
        }

    @staticmethod
    def _summary(first: str, everything: str) -> str:
        notes = [line.removeprefix("- ").strip() for line in first.split(_SEPARATORS["summarize"], 1)[1].splitlines()]
        match = re.search(r"at most (\d+) words", everything)
        limit = int(match.group(1)) if match else 60
        return " ".join(" ".join(n for n in notes if n).split()[:limit])

    def __getstate__(self) -> dict[str, Any]:
        """Picklable, so a copy can answer inside another process (a Ray actor); the lock is rebuilt."""
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def for_server(self, body: ChatBody) -> str:
        """Responder signature of :class:`kgrag.testing.FakeOpenAIServer` (the request's JSON body)."""
        return self.reply(body.get("messages", []))

    def for_scripted(self, request: ChatRequest) -> str:
        """Reply signature of :class:`kgrag.models.llm.scripted.ScriptRule`."""
        return self.reply(request.messages)

    def provider(self) -> ScriptedProvider:
        """A scripted provider answering every request through this responder."""
        return ScriptedProvider([ScriptRule(r".", self.for_scripted)])
