"""Excerpts: the room whole passages leave in the budget, filled with the next passages' best sentences."""

from __future__ import annotations

from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.core.context import ContextItem
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.caches import TextCache
from kgrag.retrieval.steps import QueryState
from kgrag.retrieval.steps.budget import LABEL_TOKENS, FitBudget, item_tokens
from kgrag.retrieval.steps.excerpts import JOIN_TOKENS, excerpts

QUERY = "Which valve does the Heron pump use for cold starts?"


def words(text: str) -> int:
    """A stand-in tokenizer: one token per word (what the tests can count by eye)."""
    return len(text.split())


class WordTokens:
    """The parts of a QueryContext that FitBudget uses on a chunk-only context."""

    count_tokens = staticmethod(words)

    def get(self, resource: object) -> TextCache[list[str]]:  # the passage-sentences cache
        return TextCache(8)


def passage(chunk_id: str, text: str) -> ContextItem:
    return ContextItem("chunk", chunk_id, text, 1.0, [chunk_id], doc_id="d", span=(0, len(text)),
                       scores={"rerank": 1.0}, metadata={"n_tokens": words(text), "ord": 3})  # fmt: skip


FILLER = " ".join(["Maintenance logs are archived every month by the facilities team."] * 4)
ANSWER = "The Heron pump uses the bypass valve for cold starts."
NEAR = "Cold starts of the pump are rare in summer."
OFF = "The canteen opens at eight."


def test_the_sentences_naming_most_query_words_fill_the_room_in_their_order() -> None:
    sources = [passage("c3", f"{OFF} {NEAR} {ANSWER}"), passage("c4", f"{FILLER}")]
    made = excerpts(QUERY, sources, words(ANSWER) + words(NEAR) + LABEL_TOKENS + JOIN_TOKENS, words, LABEL_TOKENS)
    assert [item.id for item in made] == ["c3"]
    assert made[0].text == f"{NEAR} {ANSWER}"  # the passage's order, not the score's; the canteen left out
    assert made[0].metadata == {"ord": 3, "excerpt": True} and made[0].span is None
    assert made[0].chunk_ids == ["c3"] and made[0].scores == {"rerank": 1.0}
    assert sources[0].text.startswith(OFF)  # the source item is not changed


def test_no_room_or_no_matching_sentence_adds_nothing() -> None:
    sources = [passage("c3", ANSWER)]
    assert excerpts(QUERY, sources, LABEL_TOKENS, words, LABEL_TOKENS) == []
    assert excerpts(QUERY, [passage("c3", f"{OFF} {FILLER}")], 200, words, LABEL_TOKENS) == []
    assert excerpts(QUERY, [], 200, words, LABEL_TOKENS) == []


def test_budget_adds_an_excerpt_of_the_next_passage_and_keeps_k() -> None:
    big = " ".join(["Heron pump maintenance is described in the manual."] * 5)  # 40 words
    items = [passage("c1", big), passage("c2", big), passage("c3", f"{OFF} {ANSWER}"), passage("c4", FILLER)]
    env = cast(QueryContext, WordTokens())
    state = QueryState(query=QUERY, k=5, queries=[QUERY], items=list(items))
    FitBudget(tokens=110).run(state, env)
    assert [item.id for item in state.items] == ["c1", "c2", "c3"]
    assert state.items[2].text == ANSWER and state.items[2].metadata["excerpt"]
    spent = sum(item_tokens(item, env) for item in state.items)
    assert spent <= 110 and state.trace[-1].params["spent"] == spent
    assert state.trace[-1].params["by_kind"]["excerpt"] == words(ANSWER) + LABEL_TOKENS

    capped = QueryState(query=QUERY, k=2, queries=[QUERY], items=list(items))
    FitBudget(tokens=110).run(capped, env)
    assert [item.id for item in capped.items] == ["c1", "c2"]  # k passages, whole or excerpted

    off = QueryState(query=QUERY, k=5, queries=[QUERY], items=list(items))
    FitBudget(tokens=110, excerpts=False).run(off, env)
    assert [item.id for item in off.items] == ["c1", "c2"]


sentence = st.lists(st.sampled_from(["heron", "pump", "valve", "cold", "starts", "the", "canteen", "x" * 14]),
                    min_size=1, max_size=30).map(lambda ws: " ".join(ws).capitalize() + ".")  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(sentence, min_size=1, max_size=6), min_size=1, max_size=3), st.integers(0, 120))
def test_excerpts_never_exceed_the_room(passages: list[list[str]], room: int) -> None:
    sources = [passage(f"c{i}", " ".join(sentences)) for i, sentences in enumerate(passages)]
    made = excerpts(QUERY, sources, room, words, LABEL_TOKENS)
    assert sum(words(item.text) + LABEL_TOKENS for item in made) <= room
    assert len({item.id for item in made}) == len(made)
    for item in made:
        source = next(s for s in sources if s.id == item.id)
        assert all(part in source.text for part in item.text.split(". ") if part)
