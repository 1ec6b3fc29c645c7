"""Replies recorded from a real small model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M behind llama-cpp-python's
server, by ``make llm-check``) replayed through the real parsing, grounding and attribution code.

A fake proves only the fake: these are the shapes a sub-1B model really produces (prose or code fences
around JSON, names the text does not contain, relations to unnamed things, empty lists, cut replies), and
the extraction path must turn each into grounded items or a counted failure, never an invented fact.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from kgrag.core.records import ChunkRecord
from kgrag.documents import TokenCounter
from kgrag.graph.extract.attribution import attribute, ground
from kgrag.graph.extract.clauses import clause_reason
from kgrag.graph.extract.example_shape import example_shapes
from kgrag.graph.extract.parse import ExtractionReply, parse_items
from kgrag.graph.extract.units import build_units
from kgrag.models.llm.structured import ReplyInvalid, parse_reply
from kgrag.prompts import load_prompt

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm_replies"
MARKS = ".,;:'\"()‘’“”"  # around a word, not part of the name the lookup finds
TYPES = ["person", "organization", "team", "product", "technology", "location", "event", "concept"]


def _records() -> list[dict[str, Any]]:
    records = []
    for path in sorted(FIXTURES.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                record = json.loads(line)
                record["where"] = f"{path.name}:{number}"
                records.append(record)
    return records


RECORDS = _records()
SHAPES = example_shapes(tuple(load_prompt(name).example_reply for name in ("extract_graph", "glean_graph")))
EXTRACTIONS = [r for r in RECORDS if r.get("prompt") in ("extract_graph", "glean_graph")]


def _unit_text(record: dict[str, Any]) -> str:
    user = next(m["content"] for m in record["messages"] if m["role"] == "user")
    return user.split("Text:\n", 1)[-1]


def _unit(text: str) -> Any:
    digest = hashlib.sha256(text.encode()).hexdigest()
    chunk = ChunkRecord("d:0", "d", 0, 0, len(text), text, 1, digest)
    return build_units([chunk], 100_000, TokenCounter.for_encoding())[0]


def test_the_fixtures_hold_real_extraction_replies() -> None:
    assert len(EXTRACTIONS) >= 3, "record replies with `make llm-check` (bench-results/llm-check-replies.jsonl)"
    assert all(r["model"] and r["messages"][0]["role"] == "system" for r in EXTRACTIONS)


@pytest.mark.parametrize("record", EXTRACTIONS, ids=lambda r: r["where"])
def test_a_real_reply_becomes_grounded_items_or_a_counted_failure(record: dict[str, Any]) -> None:
    text = _unit_text(record)
    try:
        reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
    except ReplyInvalid as error:  # a reply the client re-asks, then gives up on: a counted failure
        assert str(error)
        return
    items = parse_items(reply, TYPES)
    unit = _unit(text)
    kept, entities, relations = ground(unit, items)
    assert entities + len(kept.entities) == len(items.entities)
    assert relations + len(kept.relations) == len(items.relations)
    folded = " ".join(text.split()).casefold()
    stored = attribute(unit, items).extractions[0]
    for entity in stored.entities:  # nothing the text does not name is ever attributed to it
        words = [w for w in entity.name.casefold().split() if len(w) >= 3]
        named = entity.name.casefold() in folded or all(w.strip(MARKS) in folded for w in words)
        assert named or _spelt_nearly(entity.name.casefold(), folded), entity.name


def _spelt_nearly(name: str, folded: str) -> bool:
    """Whether a run of as many words of ``folded`` matches ``name`` at the grounding's similarity (a typo
    the lookup finds by design: "Schrummel" for the text's "Schummel")."""
    from rapidfuzz import fuzz

    from kgrag.graph.extract.attribution import DEFAULT_MIN_SIMILARITY

    name = " ".join(w.strip(MARKS) for w in name.split())
    size, words = len(name.split()), [w.strip(MARKS) for w in folded.split()]
    runs = (" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
    return any(fuzz.ratio(name, run) >= DEFAULT_MIN_SIMILARITY for run in runs)


def test_the_example_names_never_reach_the_graph() -> None:
    for record in EXTRACTIONS:
        try:
            reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
        except ReplyInvalid:
            continue
        unit = _unit(_unit_text(record))
        stored = {e.name for e in attribute(unit, parse_items(reply, TYPES)).extractions[0].entities}
        assert not stored & {"Velloran Tide", "Port Quassel", "Ostrimar Yards", "Ilse Varnow", "Lake Brennis"}


JUDGES = [r for r in RECORDS if str(r.get("prompt", "")).startswith("eval_")]


def test_a_real_judge_reply_that_copies_the_example_is_caught() -> None:
    """The 0.5B model, judging, copied sentences of the worked example into its reasoning: such a reply is
    re-asked and never kept as a verdict."""
    from kgrag.models.llm.structured import copied_from_example

    copies = []
    for record in JUDGES:
        prompt = load_prompt(record["prompt"])
        model = prompt.schema_model()
        assert model is not None
        try:
            value, _ = parse_reply(record["response"], record.get("finish_reason"), model)
        except ReplyInvalid:
            continue
        if copied_from_example(value, prompt.example_reply) is not None:
            copies.append(record["where"])
    assert copies, "the recorded judge replies include copies of the example (see docs/results/local-models.md)"


@pytest.mark.parametrize("record", EXTRACTIONS, ids=lambda r: r["where"])
def test_a_real_reply_keeps_only_descriptions_drawn_from_its_text(record: dict[str, Any]) -> None:
    """Grounding beyond names on what the model really wrote: every relation kept has a description the
    sentences holding its ends support, every entity kept has a description, and the counts add up."""
    from kgrag.graph.extract.support import UnitEvidence, check_support

    text = _unit_text(record)
    try:
        reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
    except ReplyInvalid:
        return
    items = parse_items(reply, TYPES)
    kept, counts = check_support(text, items, SHAPES)
    evidence = UnitEvidence(text, SHAPES)
    assert len(kept.relations) + counts.unsupported_relations == len(items.relations)
    for relation in kept.relations:
        where = evidence.relation_sentences(relation.source, relation.target)
        assert where is not None, relation
        assert evidence.supported(relation.description, where, [relation.source, relation.target]), relation
    assert len(kept.entities) == len(items.entities)
    undescribed = [e for e in items.entities if not e.description and evidence.mentions(e.name)]
    assert counts.descriptions_filled >= len(undescribed)
    for before, after in zip(items.entities, kept.entities, strict=True):
        if before.description and not after.description:  # cleared: unsupported, and no sentence names it
            assert not evidence.mentions(before.name)
            assert not evidence.supported(before.description, (), [before.name])


EXAMPLE_WORDS = ("velloran", "quassel", "ostrimar", "ilse", "varnow", "brennis")


def test_no_kept_description_carries_the_examples_names() -> None:
    """The 0.5B model wrote real entities with the worked example's names in their descriptions ("Captain
    Ilse Varnow, an assistant at the Naval Observatory …" for a person of a biography); a description that
    names what its text never mentions is replaced or cleared, so none of them reaches the graph."""
    from kgrag.graph.extract.support import check_support

    carried = 0
    for record in EXTRACTIONS:
        text = _unit_text(record)
        try:
            reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
        except ReplyInvalid:
            continue
        items = parse_items(reply, TYPES)
        described = [*items.entities, *items.relations]
        carried += sum(any(w in x.description.casefold() for w in EXAMPLE_WORDS) for x in described)
        kept, _ = check_support(text, items)
        for item in [*kept.entities, *kept.relations]:
            assert not any(w in item.description.casefold() for w in EXAMPLE_WORDS), item
    assert carried, "the recorded replies include descriptions that carry the example's names"


def _parsed(record: dict[str, Any]) -> Any:
    try:
        reply, _ = parse_reply(record["response"], record.get("finish_reason"), ExtractionReply)
    except ReplyInvalid:
        return None
    return parse_items(reply, TYPES)


# Sentences of a letter and of a medical passage the 0.5B model stored as entities (or relation ends).
RECORDED_CLAUSES = {
    "I wish I could go right on to you",
    "You feel so troubled about you",
    "You will write to me, won’t you",
    "I had better take your time and visit at your leisure now",
    "You had better take your time and visit at your leisure now",
    "Things will be more settled in a couple of weeks",
    "The ball is in his chest and probably lodged near his lungs",
    "Not everyone with FL needs treatment right away",
    "B-cell or B-ALL T cell or T-ALL B-ALL B-cell ALL or B-ALL starts in B-cell lymphocytes",  # a run-on of a list
    "Tumors are measured in centimeters (cm)",  # the twelve medical passages
    "a prognosis is needed to make treatment decisions",
    "Kozen Ridderhoff in his study of Frau la Roche",  # the twelve Novel-26183 passages
    "Kurz expresses this opinion, which may have been derived from criticisms in the eighteenth century journals",
}
# Not a clause: a chapter heading of the twelve Novel-10762 passages, refused for the full stop after its numeral.
RECORDED_HEADINGS = {"XVII. SHADOWS OF THE COMING RACE"}


def test_the_recorded_clauses_are_refused_and_no_recorded_name_is() -> None:
    """Every name the model wrote, entity or relation end, judged by the clause check: the sentences it
    copied as entities are refused, every other name (people, places, diseases, garbled names) is not."""
    names = set()
    for record in EXTRACTIONS:
        items = _parsed(record)
        if items is not None:
            names |= {e.name for e in items.entities} | {n for r in items.relations for n in (r.source, r.target)}
    refused = {name for name in names if clause_reason(name) is not None}
    assert refused == RECORDED_CLAUSES | RECORDED_HEADINGS
    assert {"New York Central College", "Capt. Fox [his room-mate at McGrawville]", "Naval Observatory"} <= names


def test_no_recorded_description_in_the_examples_shape_survives_unless_its_sentence_says_it() -> None:
    """The second Novel run's "Rodman: The port where Naval Observatory is located" copies the example's
    "The port where Velloran Tide is based" with the text's names; with the examples' shapes it is replaced
    by the sentence that names Rodman, and so are the run's other example-shaped descriptions."""
    from kgrag.graph.extract.example_shape import shape, shaped_like
    from kgrag.graph.extract.support import check_support

    replaced = []
    for record in EXTRACTIONS:
        items = _parsed(record)
        if items is None or "novel-4096-run2" not in record["where"]:
            continue
        kept, _ = check_support(_unit_text(record), items, SHAPES)
        for before, after in zip(items.entities, kept.entities, strict=True):
            if (
                shaped_like(shape(before.description, [before.name]), SHAPES)
                and after.description != before.description
            ):
                replaced.append((before.name, before.description))
    assert ("Rodman", "The port where Naval Observatory is located.") in replaced
    assert len({name for name, _ in replaced}) >= 3  # Rodman, McGrawville, Washington, New York Central College
