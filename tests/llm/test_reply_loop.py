"""The loop guard: a reply that repeats its items is stopped at the third copy and its part before kept."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kgrag.core.llm_types import ChatResponse
from kgrag.models.llm.reply_ceiling import ReplyPastCeiling
from kgrag.models.llm.reply_loop import LOOP_FINISH, LoopGuard, ReplyLooped, drop_repeats, stop_at_loop
from kgrag.models.llm.structured import parse_reply


def _words(text: str) -> int:
    return len(text.split())


def _entity(name: str, description: str = "A place.") -> dict[str, Any]:
    return {"name": name, "type": "location", "description": description}


def _looping_reply() -> str:
    """Two distinct entities, then the same three again and again (as a small model loops)."""
    distinct = [_entity("Lima"), _entity("Quito")]
    loop = [_entity("China"), _entity("Peru"), _entity("London pavement")] * 6
    return json.dumps({"entities": distinct + loop, "relations": []})


def _feed_in_pieces(guard: LoopGuard, text: str, size: int = 7) -> None:
    for start in range(0, len(text), size):
        guard.feed(text[start : start + size])


def test_the_third_copy_of_an_item_stops_the_reply_and_keeps_valid_json_before_it() -> None:
    text = _looping_reply()
    guard = LoopGuard(_words)
    with pytest.raises(ReplyLooped) as caught:
        _feed_in_pieces(guard, text)
    kept = json.loads(caught.value.text)  # whole JSON: the open brackets are closed
    names = [e["name"] for e in kept["entities"]]
    assert names == ["Lima", "Quito", "China", "Peru", "London pavement", "China", "Peru", "London pavement"]
    assert caught.value.tokens < _words(text)  # reading stopped before the end


def test_items_that_share_a_description_or_repeat_twice_are_not_a_loop() -> None:
    same = "A country that is moved by the women"
    entities = [_entity(f"Place {i}", same) for i in range(10)] + [_entity("Lima")] * 2
    text = json.dumps({"entities": entities, "relations": [{"source": "Lima", "description": same}] * 2})
    guard = LoopGuard(_words)
    _feed_in_pieces(guard, text)  # no ReplyLooped
    assert stop_at_loop(ChatResponse(text, "length"), _words).finish_reason == "length"


def test_quoted_braces_and_escapes_do_not_confuse_the_guard() -> None:
    tricky = _entity('He said "{a}" \\ [b]')
    text = json.dumps({"entities": [tricky, tricky, _entity("X"), tricky]})
    with pytest.raises(ReplyLooped) as caught:
        _feed_in_pieces(LoopGuard(_words), text, size=3)
    assert json.loads(caught.value.text)["entities"] == [tricky, tricky, _entity("X")]


def test_the_guard_holds_a_ceiling_when_given_one() -> None:
    with pytest.raises(ReplyPastCeiling):
        LoopGuard(_words, limit=5).feed("one two three four five six")


def test_a_looped_reply_parses_without_its_copies() -> None:
    looped = stop_at_loop(ChatResponse(_looping_reply(), "length", 10, 999), _words)
    assert looped.finish_reason == LOOP_FINISH
    assert looped.completion_tokens == 999  # a whole reply read keeps its usage
    value, _ = parse_reply(looped.text, looped.finish_reason, None)
    assert [e["name"] for e in value["entities"]] == ["Lima", "Quito", "China", "Peru", "London pavement"]
    with pytest.raises(Exception, match="cut off"):
        parse_reply(_looping_reply()[:300], "length", None)  # a plain cut reply is still refused


def test_drop_repeats_keeps_the_first_of_each() -> None:
    assert drop_repeats({"a": [1, 2, 1, {"x": [3, 3]}], "b": "s"}) == {"a": [1, 2, {"x": [3]}], "b": "s"}
