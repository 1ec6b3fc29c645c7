"""Worked-example replies for the tuned prompts: the items of one grounded extraction, written as the reply
of ``extract_graph`` and turned into the material and reply of ``community_report``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import NotRequired

from typing_extensions import TypedDict

MAX_DESCRIPTION_WORDS = 30
_SPACES = re.compile(r"\s+")


def _short(text: str) -> str:
    words = _SPACES.sub(" ", text).strip().split(" ")
    return " ".join(words[:MAX_DESCRIPTION_WORDS])


class EntityItem(TypedDict):
    """An entity as the ``extract_graph`` reply writes it."""

    name: str
    type: str
    description: str


class RelationItem(TypedDict):
    """A relation as the ``extract_graph`` reply writes it (``keywords`` and ``strength`` optional)."""

    source: str
    target: str
    label: str
    description: str
    keywords: NotRequired[list[str]]
    strength: NotRequired[int]


class ExtractionReply(TypedDict):
    """The ``extract_graph`` (and gleaning) reply."""

    entities: list[EntityItem]
    relations: list[RelationItem]


def entity_item(name: str, type_: str, description: str) -> EntityItem:
    return {"name": name, "type": type_, "description": _short(description)}


def relation_item(source: str, target: str, label: str, description: str) -> RelationItem:
    return {
        "source": source,
        "target": target,
        "label": label,
        "description": _short(description),
        "keywords": [label],
        "strength": 7,
    }


@dataclass(frozen=True)
class ExampleItems:
    """A text and the grounded entities and relations of a good extraction of it."""

    text: str
    entities: list[EntityItem]
    relations: list[RelationItem]

    def grounded(self) -> bool:
        """Every entity name and relation endpoint occurs in the text (case-insensitively)."""
        folded = self.text.casefold()
        names = {e["name"].casefold() for e in self.entities}
        return all(n in folded for n in names) and all(
            r["source"].casefold() in names and r["target"].casefold() in names for r in self.relations
        )

    def extraction_reply(self) -> str:
        reply: ExtractionReply = {"entities": self.entities, "relations": self.relations}
        return json.dumps(reply, ensure_ascii=False)

    def report_material(self) -> str:
        lines = [f"[E{i}] {e['name']} ({e['type']}): {e['description']}" for i, e in enumerate(self.entities, 1)]
        lines += [
            f"[R{i}] {r['source']} — {r['label']} — {r['target']}: {r['description']}"
            for i, r in enumerate(self.relations, 1)
        ]
        return "\n".join(lines)

    def report_reply(self) -> str:
        """A report that uses only the material: title from the first names, findings citing its labels."""
        names = [e["name"] for e in self.entities]
        labels = {e["name"]: f"E{i}" for i, e in enumerate(self.entities, 1)}
        findings = [
            {
                "summary": r["description"],
                "explanation": f"{r['source']} {r['label']} {r['target']}.",
                "refs": [labels[r["source"]], labels[r["target"]], f"R{i}"],
            }
            for i, r in enumerate(self.relations, 1)
            if r["source"] in labels and r["target"] in labels
        ]
        if not findings:
            findings = [{"summary": self.entities[0]["description"], "explanation": "", "refs": ["E1"]}]
        reply = {
            "title": " and ".join(names[:2]),
            "summary": self.entities[0]["description"],
            "findings": findings,
            "rating": 5,
        }
        return json.dumps(reply, ensure_ascii=False)
