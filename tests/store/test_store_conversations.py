"""Store contract, conversations: saved whole and replaced by id, turns kept in order with their rewrite
and citations, listed most recently updated first, deleted, persistent, and bookkeeping (no
content-generation change)."""

from __future__ import annotations

from tests.store.backends import StoreMaker

from kgrag.core.conversation_records import ConversationRecord, ConversationTurn
from kgrag.store import Store

TURNS = (
    ConversationTurn("Which team owns Kestrel?", "Which team owns Kestrel?", "Platform [c:c1]", ["c1"], "hybrid", 1.0),
    ConversationTurn("and who leads it?", "and who leads it? (Kestrel)", "Rui Carvalho [c:c2]", ["c2"], "hybrid", 2.0),
)


def test_save_get_list_replace_delete(store: Store) -> None:
    before = store.generation()
    store.conversations.save(ConversationRecord("a", 1.0, 1.0, "Which team owns Kestrel?", TURNS[:1]))
    store.conversations.save(ConversationRecord("b", 1.5, 1.5, "other"))
    assert store.generation() == before
    store.conversations.save(ConversationRecord("a", 1.0, 2.0, "Which team owns Kestrel?", TURNS))
    found = store.conversations.get("a")
    assert found is not None and found.turns == TURNS and found.updated_at == 2.0
    assert [c.id for c in store.conversations.list()] == ["a", "b"]
    assert store.conversations.get("missing") is None
    assert store.conversations.delete("a") is True and store.conversations.delete("a") is False
    assert [c.id for c in store.conversations.list()] == ["b"]


def test_conversations_persist(make_persistent_store: StoreMaker) -> None:
    first = make_persistent_store("ws")
    first.conversations.save(ConversationRecord("a", 1.0, 2.0, "t", TURNS))
    first.close()
    again = make_persistent_store("ws")
    found = again.conversations.get("a")
    assert found is not None and found.turns == TURNS
