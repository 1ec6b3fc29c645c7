"""Entity identity keys: what merges, what stays apart, and the properties every key must have."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.graph.normalize import entity_key, singular


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Sensors", "sensor"),
        ("the sensors", "sensor"),
        ("  The   Shale  Storage Layers. ", "shale storage layer"),
        ('"Brightwater\'s"', "brightwater"),
        ("ADRs", "adr"),
        ("APIs", "api"),
        ("SLAs", "sla"),
        ("policies", "policy"),
        ("classes", "class"),
        ("patches", "patch"),
        ("caches", "cache"),
        ("(beta)", "beta"),
        ("ﬁles", "file"),  # NFKC ligature
        ("Ｋｅｓｔｒｅｌ", "kestrel"),  # full-width
        ("The The Sensors", "sensor"),
    ],
)
def test_variants_share_a_key(name: str, key: str) -> None:
    assert entity_key(name) == key


@pytest.mark.parametrize(
    "word",
    ["bus", "analysis", "status", "kubernetes", "gas", "news", "series", "corpus", "access", "ios", "aws", "devops"],
)
def test_words_that_only_look_plural_stay(word: str) -> None:
    assert singular(word) == word
    assert entity_key(word.upper() if len(word) <= 3 else word) == word


@pytest.mark.parametrize(
    ("name", "key"),
    [("C#", "c#"), ("C++", "c++"), ("AT&T", "at&t"), ("AWS", "aws"), ("Tern 2", "tern 2"), ("the", "the"), ("!!!", "")],
)
def test_meaningful_symbols_and_edge_cases(name: str, key: str) -> None:
    assert entity_key(name) == key


def test_distinct_names_stay_apart() -> None:
    assert entity_key("Platform") != entity_key("Platform team")
    assert entity_key("Tern") != entity_key("Tern 2")
    assert entity_key("status") != entity_key("statue")


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60))
def test_key_is_idempotent_and_never_raises(name: str) -> None:
    key = entity_key(name)
    assert isinstance(key, str)
    assert entity_key(key) == key


_wordish = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ '\".,-()sS"), max_size=40
)


@settings(max_examples=400, deadline=None)
@given(_wordish)
def test_key_is_idempotent_on_name_like_text(name: str) -> None:
    key = entity_key(name)
    assert entity_key(key) == key
    assert key == key.strip() and "  " not in key


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=30))
def test_case_and_spacing_do_not_change_the_key(name: str) -> None:
    assert entity_key(name.upper().lower()) == entity_key(" ".join(name.upper().lower().split()))
