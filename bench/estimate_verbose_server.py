"""A held-out reply distribution for ``bench_estimate_servers.py``: a verbose chat model.

Written before any change it is run against and never used to tune the estimate. It answers as a
talkative chat model does, unlike the other scripted servers:

* every reply opens with a sentence of preamble and carries pretty-printed JSON (two-space indent) in a
  code fence, so a reply costs more tokens per item;
* entities are capitalised names *and* lower-case medical terms (words ending in -itis, -osis, -emia,
  -ectomy, -pathy, -oma, -cillin, ...), typed by their ending, each described by two sentences of the text;
* every pair of entities in a sentence is related (at most 8 entities a sentence), each relation
  described by a sentence of its own plus the source sentence;
* gleaning is ignored: a gleaning call repeats the first pass (its first 12 entities), as a model that
  does not read "only what is missing" does;
* one first extraction reply in nine is cut off mid-JSON (transient: the re-ask is answered whole),
  one merge confirmation in five is answered in prose first (re-asked), never the same request twice;
* reports have five long findings, summaries use the whole word limit, reflections give a sentence of
  reason per relation.

Deterministic: faults are chosen by a CRC of the request's first user message, not by arrival order.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from kgrag.testing.extraction_responder import request_kind

_CAPITAL = re.compile(r"\b[A-Z][A-Za-z0-9'-]+(?:[ \t]+[A-Z][A-Za-z0-9'-]+)*")
_TERM = re.compile(
    r"\b[a-z]{3,}(?:itis|osis|emia|aemia|ectomy|otomy|pathy|algia|plasia|trophy|cillin|mycin|statin|azole|"
    r"therapy|ology|cytes?|omas?|cancers?)\b"
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_LEADING = frozenset(
    "a an the this that these those in on at for if when after before with by from to of and or but as so it its "
    "there here some many most such other is are was were what how why did do you your".split()
)
_TYPES = (("cillin", "drug"), ("mycin", "drug"), ("statin", "drug"), ("azole", "drug"), ("therapy", "treatment"),
          ("ectomy", "procedure"), ("otomy", "procedure"), ("ology", "field"), ("cyte", "cell"))  # fmt: skip
PREAMBLE = "Sure! Here is the knowledge graph I extracted from the text, following the requested schema:\n\n"


def _fenced(value: object) -> str:
    return PREAMBLE + "```json\n" + json.dumps(value, indent=2) + "\n```\n\nLet me know if you need anything else."


def _names(sentence: str) -> list[str]:
    found = []
    for match in _CAPITAL.finditer(sentence):
        words = match.group(0).split()
        while words and words[0].casefold() in _LEADING:
            words = words[1:]
        if len(words) == 1 and match.start() == 0:
            continue  # a word capitalised only because it starts the sentence
        if words and len(" ".join(words)) > 2:
            found.append(" ".join(words))
    return list(dict.fromkeys([*found, *_TERM.findall(sentence)]))[:8]


def _type(name: str) -> str:
    if name[:1].isupper():
        return "organization" if name.isupper() else "concept"
    return next((kind for ending, kind in _TYPES if name.endswith(ending)), "condition")


def _graph(text: str) -> dict[str, list[dict[str, str]]]:
    sentences = [s.strip() for s in _SENTENCES.split(text) if s.strip()]
    entities: dict[str, dict[str, str]] = {}
    relations = []
    for index, sentence in enumerate(sentences):
        names = _names(sentence)
        for name in names:
            described = " ".join(" ".join(sentences[index : index + 2]).split()[:50])
            entities.setdefault(name.casefold(), {"name": name, "type": _type(name), "description": described})
        for i, source in enumerate(names):
            for target in names[i + 1 :]:
                relations.append({"source": source, "target": target, "label": "is associated with",
                                  "description": f"The text links {source} with {target} in the same sentence: "
                                                 + " ".join(sentence.split()[:30])})  # fmt: skip
    return {"entities": list(entities.values()), "relations": relations}


def _reflect(first: str) -> str:
    ids = [int(n) for n in re.findall(r"^(\d+)\. ", first, re.MULTILINE)]
    reason = "The passage states this link explicitly, although it gives no detail on how strong it is."
    return _fenced({"scores": [{"id": i, "score": 0.8, "reason": reason} for i in ids]})


def _report(first: str) -> str:
    labels = re.findall(r"^\[([ERC]\d+)\] ", first, re.MULTILINE)[:5]
    explanation = " ".join(["This finding is supported by the material and explains how the items relate."] * 3)
    findings = [{"summary": f"What {label} contributes to the group.", "explanation": explanation, "refs": [label]}
                for label in labels]  # fmt: skip
    summary = " ".join(["The community groups closely related medical concepts described in the material."] * 3)
    return _fenced({"title": "Related medical concepts", "summary": summary, "findings": findings, "rating": 7})


def verbose_server(body: dict[str, Any]) -> str:
    """Answers one chat request as the verbose chat model described in the module docstring."""
    messages: Sequence[Mapping[str, Any]] = body.get("messages", [])
    kind, first = request_kind(messages)
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    again = any(m.get("role") == "assistant" for m in messages)
    draw = zlib.crc32(first.encode())
    if kind == "extract":
        reply = _fenced(_graph(first.split("Text:\n", 1)[-1]))
        return reply[: len(reply) * 2 // 3] if draw % 9 == 4 and not again else reply
    if kind == "glean":
        graph = _graph(first.partition("\n")[2])
        kept = {e["name"] for e in graph["entities"][:12]}
        relations = [r for r in graph["relations"] if r["source"] in kept and r["target"] in kept]
        return _fenced({"entities": graph["entities"][:12], "relations": relations})
    if kind == "summarize":
        match = re.search(r"at most (\d+) words", "\n".join(str(m.get("content", "")) for m in messages))
        notes = first.split("\nNotes:\n", 1)[-1].replace("- ", " ").split()
        return " ".join((notes * 4)[: int(match.group(1)) if match else 80])
    if kind == "report":
        return _report(first)
    if "candidate duplicates" in system:
        if draw % 5 == 2 and not again:
            return "Looking at both entries, I think they probably refer to the same concept, so merging makes sense."
        description = " ".join(first.split()[:45])
        return _fenced({"merge": draw % 3 == 0, "keep": 1, "description": description})
    if "relations of a knowledge graph" in system:
        return _reflect(first)
    return "I'm sorry, I am not sure what you are asking for."
