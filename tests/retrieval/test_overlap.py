"""Neighbour passages handed over without their shared overlap, by the stored chunk offsets."""

from __future__ import annotations

from itertools import pairwise
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.core.context import ContextItem
from kgrag.documents import TokenCounter
from kgrag.documents.chunking import chunk_text
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.caches import TextCache
from kgrag.retrieval.steps import QueryState
from kgrag.retrieval.steps.budget import LABEL_TOKENS, FitBudget, item_tokens
from kgrag.retrieval.steps.overlap import uncovered, without_held

QUERY = "Which valve does the Heron pump use for cold starts?"
S = [f"Sentence {word} tells part {n} of the manual." for n, word in enumerate("abcdefghijklmnop")]
DOC = " ".join(S)


def words(text: str) -> int:
    return len(text.split())


class WordTokens:
    """The parts of a QueryContext that FitBudget uses on a chunk-only context (one token per word)."""

    count_tokens = staticmethod(words)

    def get(self, resource: object) -> TextCache[list[str]]:
        return TextCache(8)


ENV = cast(QueryContext, WordTokens())


def chunk(chunk_id: str, first: int, last: int, doc: str = "d", sentences: list[str] = S) -> ContextItem:
    """Sentences ``first`` to ``last`` (inclusive) of the document ``sentences`` make up, as the hydrated
    chunk ``chunk_id``."""
    start = sum(len(sentence) + 1 for sentence in sentences[:first])
    body = " ".join(sentences[first : last + 1])
    end = start + len(body)
    return ContextItem("chunk", chunk_id, body, 1.0, [chunk_id], doc_id=doc, span=(start, end),
                       metadata={"n_tokens": words(body), "ord": first})  # fmt: skip


def fit(items: list[ContextItem], tokens: int = 1000, k: int = 5, overlap: bool = True) -> QueryState:
    state = QueryState(query=QUERY, k=k, queries=[QUERY], items=items)
    FitBudget(tokens=tokens, overlap=overlap, excerpts=False).run(state, ENV)
    return state


def test_uncovered_cuts_a_head_or_a_tail_and_keeps_a_span_with_a_hole() -> None:
    assert uncovered((10, 20), []) == (10, 20)
    assert uncovered((10, 20), [(0, 12)]) == (12, 20)
    assert uncovered((10, 20), [(18, 30)]) == (10, 18)
    assert uncovered((10, 20), [(0, 12), (18, 30)]) == (12, 18)
    assert uncovered((10, 20), [(0, 10), (20, 30)]) == (10, 20)  # touching is not sharing
    assert uncovered((10, 20), [(5, 25)]) is None
    assert uncovered((10, 20), [(12, 15)]) == (10, 20)  # a hole would leave two pieces: kept whole


def test_a_neighbour_is_handed_over_after_the_shared_sentences() -> None:
    first, second = chunk("c0", 0, 4), chunk("c1", 3, 7)  # sentences 3 and 4 are in both
    state = fit([first, second])
    assert [item.id for item in state.items] == ["c0", "c1"]
    assert state.items[0] is first  # the first chosen stays whole
    cut = state.items[1]
    assert cut.text == " ".join(S[5:8]) and cut.span is not None
    assert DOC[cut.span[0] : cut.span[1]] == cut.text  # still an exact slice of the document
    assert cut.chunk_ids == ["c1"] and cut.metadata["n_tokens"] == words(cut.text)
    assert cut.metadata["chunk_span"] == list(second.span or ())
    assert second.text == " ".join(S[3:8])  # the candidate itself is not changed
    assert state.context_tokens == words(first.text) + words(cut.text) + 2 * LABEL_TOKENS


def test_a_neighbour_ranked_first_keeps_the_shared_part() -> None:
    later, earlier = chunk("c1", 3, 7), chunk("c0", 0, 4)
    state = fit([later, earlier])
    assert [item.text for item in state.items] == [later.text, " ".join(S[0:3])]  # the earlier one loses its tail


def test_three_in_a_row_hand_over_each_sentence_once() -> None:
    middle, left, right = chunk("c1", 3, 7), chunk("c0", 0, 4), chunk("c2", 6, 10)
    state = fit([middle, left, right])
    assert [item.text for item in state.items] == [middle.text, " ".join(S[0:3]), " ".join(S[8:11])]
    held = " ".join(sorted((item.text for item in state.items), key=DOC.index))
    assert held == " ".join(S[0:11])

    edges_first = fit([chunk("c0", 0, 4), chunk("c2", 6, 10), chunk("c1", 3, 7)])
    assert [item.text for item in edges_first.items] == [" ".join(S[0:5]), " ".join(S[6:11]), S[5]]


def test_other_documents_and_chunks_that_do_not_touch_stay_whole() -> None:
    other_doc = chunk("e1", 3, 7, doc="e")
    apart = chunk("c5", 8, 11)  # the same document, not a neighbour: no shared text
    state = fit([chunk("c0", 0, 4), other_doc, apart])
    assert [item.text for item in state.items] == [" ".join(S[0:5]), other_doc.text, apart.text]
    assert all("chunk_span" not in item.metadata for item in state.items)


def test_off_hands_both_whole_and_a_passage_held_entirely_is_skipped() -> None:
    assert [item.text for item in fit([chunk("c0", 0, 4), chunk("c1", 3, 7)], overlap=False).items] == [
        " ".join(S[0:5]),
        " ".join(S[3:8]),
    ]
    inside = chunk("c9", 1, 3)
    state = fit([chunk("c0", 0, 4), inside, chunk("c2", 6, 8)])
    assert [item.id for item in state.items] == ["c0", "c2"]


def test_an_item_whose_text_is_not_its_span_is_left_alone() -> None:
    odd = chunk("c1", 3, 7)
    odd.text = "A summary written by a step, not the chunk's text."
    assert without_held(odd, {"d": [(0, DOC.index(S[5]))]}, words) is odd


def test_the_freed_tokens_let_the_next_passage_in() -> None:
    a, b, c = chunk("c0", 0, 4), chunk("c1", 3, 7), chunk("c7", 11, 15)
    budget = item_tokens(a, ENV) + item_tokens(b, ENV) + 30  # c (46 tokens) does not fit after a and b whole
    assert [item.id for item in fit([a, b, c], tokens=budget, overlap=False).items] == ["c0", "c1"]
    assert [item.id for item in fit([a, b, c], tokens=budget).items] == ["c0", "c1", "c7"]


def test_excerpts_do_not_repeat_what_the_whole_passages_hold() -> None:
    sentences = [*S[:4], "The Heron pump uses the bypass valve for cold starts.", *S[5:]]
    a, b = chunk("c0", 0, 4, sentences=sentences), chunk("c1", 3, 7, sentences=sentences)
    state = QueryState(query=QUERY, k=5, queries=[QUERY], items=[a, b])
    FitBudget(tokens=item_tokens(a, ENV) + 20).run(state, ENV)
    assert [item.id for item in state.items] == ["c0"]  # b only as an excerpt, and its overlap is a's
    state = QueryState(query=QUERY, k=5, queries=[QUERY], items=[a, b])
    FitBudget(tokens=item_tokens(a, ENV) + 20, overlap=False).run(state, ENV)
    assert [item.id for item in state.items] == ["c0", "c1"]  # the repeated answer sentence, as an excerpt


@settings(max_examples=100, deadline=None)
@given(
    st.integers(8, 60),
    st.integers(0, 30),
    st.permutations(list(range(8))),
    st.integers(1, 6),
    st.integers(20, 400),
)
def test_real_chunks_never_exceed_the_budget_nor_repeat_a_sentence(
    size: int, overlap: int, order: list[int], k: int, tokens: int
) -> None:
    counter = TokenCounter.for_encoding()
    text = " ".join(f"Pump {n} has cold valve {n % 3}." for n in range(40))
    chunks = chunk_text(text, counter, size, min(overlap, size - 1))
    items = [
        ContextItem(
            "chunk",
            f"c{c.ord}",
            c.text,
            1.0,
            [f"c{c.ord}"],
            doc_id="d",
            span=(c.char_start, c.char_end),
            metadata={"n_tokens": c.n_tokens, "ord": c.ord},
        )
        for c in (chunks[i] for i in order if i < len(chunks))
    ]
    state = QueryState(query=QUERY, k=k, queries=[QUERY], items=items)
    env = cast(QueryContext, _Counter(counter))
    FitBudget(tokens=tokens).run(state, env)
    spent = sum(item_tokens(item, env) for item in state.items)
    assert spent == state.context_tokens
    assert spent <= tokens or len(state.items) == 1
    spans = sorted(item.span for item in state.items if item.span is not None)
    assert all(a[1] <= b[0] for a, b in pairwise(spans))  # no character handed over twice
    for item in state.items:
        if item.span is not None:
            assert text[item.span[0] : item.span[1]] == item.text


class _Counter:
    def __init__(self, counter: TokenCounter) -> None:
        self.count_tokens = counter.count

    def get(self, resource: object) -> TextCache[list[str]]:
        return TextCache(8)
