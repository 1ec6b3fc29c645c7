"""What each grounding rule does to the replies recorded from a real small model.

Replays every extraction reply of ``tests/fixtures/llm_replies/*.jsonl`` (recorded by ``make llm-check``)
through the real parsing and grounding code, as the extractor runs it: replies that do not parse or that
copy the worked example are left out (the run re-asked them and stored nothing from them), the others go
through the clause check, name grounding and the description checks. Each file is replayed twice, without
and with the two newest rules (names that read as a clause; descriptions shaped like the worked example),
and the counts of both are printed side by side, with every item the new rules changed. LLM-free, no
server; the examples are read from the prompt files.

    .venv/bin/python bench/bench_grounding_replay.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kgrag.core.records import ChunkRecord
from kgrag.documents import TokenCounter
from kgrag.graph.extract.attribution import ground
from kgrag.graph.extract.clauses import clause_reason, refuse_clauses
from kgrag.graph.extract.example_shape import example_shapes
from kgrag.graph.extract.parse import ExtractionReply, ParsedItems, parse_items
from kgrag.graph.extract.support import check_support
from kgrag.graph.extract.units import build_units
from kgrag.models.llm.structured import ReplyInvalid, copied_from_example, parse_reply
from kgrag.prompts import load_prompt

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "llm_replies"
TYPES = ["person", "organization", "team", "product", "technology", "location", "event", "concept"]
PROMPTS = ("extract_graph", "glean_graph")


def _unit(text: str) -> Any:
    chunk = ChunkRecord("d:0", "d", 0, 0, len(text), text, 1, "h")
    return build_units([chunk], 100_000, TokenCounter.for_encoding())[0]


def _stored_replies(path: Path) -> list[tuple[str, ParsedItems]]:
    """(unit text, parsed items) of each reply of ``path`` the run stored."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line) if line.strip() else {}
        if record.get("prompt") not in PROMPTS:
            continue
        user = next(m["content"] for m in record["messages"] if m["role"] == "user")
        try:
            reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
        except ReplyInvalid:
            continue
        if copied_from_example(reply, load_prompt(record["prompt"]).example_reply, user) is not None:
            continue
        out.append((user.split("Text:\n", 1)[-1], parse_items(reply, TYPES)))
    return out


def replay(replies: list[tuple[str, ParsedItems]], new_rules: bool) -> tuple[dict[str, int], list[dict[str, Any]]]:
    shapes = example_shapes(tuple(load_prompt(p).example_reply for p in PROMPTS)) if new_rules else ()
    totals = dict.fromkeys(
        ("entities", "relations", "clause_entities", "clause_relations", "ungrounded_entities",
         "ungrounded_relations", "unsupported_relations", "descriptions_replaced", "descriptions_filled"), 0,
    )  # fmt: skip
    stored = []
    for text, items in replies:
        if new_rules:
            items, entities, relations = refuse_clauses(items)
            totals["clause_entities"] += entities
            totals["clause_relations"] += relations
        kept, entities, relations = ground(_unit(text), items)
        totals["ungrounded_entities"] += entities
        totals["ungrounded_relations"] += relations
        kept, counts = check_support(text, kept, shapes)
        totals["unsupported_relations"] += counts.unsupported_relations
        totals["descriptions_replaced"] += counts.descriptions_replaced
        totals["descriptions_filled"] += counts.descriptions_filled
        totals["entities"] += len(kept.entities)
        totals["relations"] += len(kept.relations)
        stored.append({"entities": kept.entities, "relations": kept.relations})
    return totals, stored


def changes(replies: list[tuple[str, ParsedItems]], before: list[Any], after: list[Any]) -> list[str]:
    out = []
    for (_, items), old, new in zip(replies, before, after, strict=True):
        refused = [e.name for e in items.entities if clause_reason(e.name)]
        out += [f"refused (clause): {name}" for name in refused]
        new_by_name = {e.name: e.description for e in new["entities"]}
        for entity in old["entities"]:
            if entity.name in new_by_name and new_by_name[entity.name] != entity.description:
                out.append(f"replaced (example shape): {entity.name}: {entity.description!r}")
        kept = {(r.source, r.target, r.description) for r in new["relations"]}
        for relation in old["relations"]:
            key = (relation.source, relation.target, relation.description)
            if key not in kept and clause_reason(relation.source) is None and clause_reason(relation.target) is None:
                out.append(f"dropped (example shape): {relation.source} -> {relation.target}: {relation.description!r}")
    return out


def main() -> None:
    result = {}
    for path in sorted(FIXTURES.glob("*.jsonl")):
        replies = _stored_replies(path)
        before, old = replay(replies, new_rules=False)
        after, new = replay(replies, new_rules=True)
        result[path.name] = {"stored_replies": len(replies), "before": before, "after": after}
        result[path.name]["changed"] = changes(replies, old, new)
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
