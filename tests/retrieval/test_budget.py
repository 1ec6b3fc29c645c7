"""Stored-vector cosines of the budget step and the ``fused`` reranker's fill: passages are read by chunk
id (on SQLite, rows of the matrix the dense search already holds), with the numbers the text-hash read
gives; other items still go by the hash of their text."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kgrag import Workspace
from kgrag.core.context import ContextItem
from kgrag.documents import content_hash
from kgrag.graph.texts import entity_text, relation_text
from kgrag.retrieval.resources.text import TOKEN_CACHE_SIZE, TOKEN_COUNTS
from kgrag.retrieval.steps import budget
from kgrag.retrieval.steps.budget import similarities
from kgrag.retrieval.steps.graph import entity_item, relation_item


def test_passage_cosines_come_from_chunk_vectors(sample_ws: Workspace) -> None:
    question = "Who leads the Platform team?"
    passages = sample_ws.retrieve(question, "hybrid", 5).items
    env = sample_ws.components.query_context
    query = env.embed_query(question)
    stored = env.store.vectors.get(env.model_id, [content_hash(item.text) for item in passages])
    expected = [float(stored[content_hash(item.text)] @ query) for item in passages]
    report = ContextItem("community", "r1", passages[0].text, 0.0)  # not a passage: read by its text's hash
    unhydrated = ContextItem("chunk", passages[0].id, "", 0.0)  # no text yet: by hash, as before (no vector)
    # a passage whose text no stored vector has: only a read by its chunk id finds its vector
    edited = replace(passages[1], text=passages[1].text + " (edited)")
    assert not env.store.vectors.get(env.model_id, [content_hash(edited.text)])
    found = similarities([*passages, report, unhydrated, edited], env, question)
    assert found[: len(passages)] == expected  # the same numbers, bit for bit
    assert found[-3] == expected[0] and found[-2] is None
    assert found[-1] == expected[1]  # by chunk id, not by the hash of its text


@pytest.mark.parametrize("room", [40, 120, 400, 2000])
def test_facts_bounded_over_the_budget_are_skipped_uncounted_with_the_same_choice(
    graph_ws: Workspace, room: int
) -> None:
    """The lower bound only spares the encoding of items the budget would pass over anyway. Every fact of
    the graph competes for the room twice: as the pipelines hand them over (no stored count: the bound
    decides what is counted), and with each fact's exact count stored (the bound is then the count, so
    every item is weighed in full). Same items, same tokens; fewer texts encoded the first time (what
    the context's token-count cache holds after it: every text counted is remembered there)."""
    graph_ws.components.__dict__.pop("query_context", None)  # a fresh context: no count remembered yet
    env = graph_ws.components.query_context
    index = env.graph_index()
    facts = [entity_item((e, 1.0), 0) for e in index.entities.values()]
    facts += [relation_item(r, 1.0, index) for r in index.relations.values()]
    assert len(facts) <= TOKEN_CACHE_SIZE  # so the cache forgets no count
    bounded, spent, _ = budget.FitBudget(room)._fill(facts, env, 3)
    counted = len(env.get(TOKEN_COUNTS))
    exact = [replace(f, metadata={**f.metadata, "n_tokens": env.count_tokens(f.text)}) for f in facts]
    weighed, spent_exact, _ = budget.FitBudget(room)._fill(exact, env, 3)
    assert [(i.kind, i.id) for i in bounded] == [(i.kind, i.id) for i in weighed] and spent == spent_exact
    assert counted < len(facts) if room < 2000 else counted <= len(facts)


def test_fact_texts_are_remembered_and_fact_vectors_match_the_store(graph_ws: Workspace) -> None:
    """The budget's fact vectors come from the graph index by the fact's remembered text: the vector the
    store holds for that text, and no answer for a text that is not the fact's."""
    env = graph_ws.components.query_context
    index = env.graph_index()
    names = {e.id: e.name for e in index.entities.values()}
    facts = [("entity", e.id, entity_text(e)) for e in index.entities.values()]
    facts += [("relation", r.id, relation_text(r, names)) for r in index.relations.values()]
    stored = env.store.vectors.get(env.model_id, [content_hash(text) for _, _, text in facts])
    for kind, fact_id, text in facts:
        assert index.fact_text(kind, fact_id) == text
        known, vector = index.fact_vector(kind, fact_id, text)
        expected = stored.get(content_hash(text))
        assert known and (vector is None if expected is None else np.array_equal(vector, expected))
        assert index.fact_vector(kind, fact_id, text + " (edited)") == (False, None)
    assert index.fact_text("community", "r1") is None and index.fact_text("entity", "no such id") is None
    assert len(index._texts) == len(facts)


def test_passages_with_stored_counts_load_no_tokenizer(sample_ws: Workspace) -> None:
    """The floor asks for the counter only for an item without a stored count: filling the budget with
    stored passages alone loads no tokenizer (a cold BM25 query stays light)."""
    sample_ws.components.__dict__.pop("query_context", None)  # a fresh context: nothing loaded yet
    env = sample_ws.components.query_context
    items = [ContextItem("chunk", f"c{i}", "word " * 300, 0.0, metadata={"n_tokens": 300}) for i in range(6)]
    chosen, spent, _ = budget.FitBudget(1000)._fill(items, env, 5)
    assert len(chosen) == 3 and spent == 3 * (300 + budget.LABEL_TOKENS)
    assert not env.created("tokenizer")
