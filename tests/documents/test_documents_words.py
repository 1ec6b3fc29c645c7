"""Content words: the ordered variant and the finder agree with ``content_words`` on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.documents.words import content_word_counts, content_word_finder, content_words, ordered_content_words

# Words, prefixes of each other, stop words, digits, punctuation, capitals, non-ASCII letters and marks.
PIECES = st.sampled_from(
    ["ab", "abc", "abcd", "the", "x1", "1x", "a", "ABC", "Ab", "é", "ß", "_", "-", " ", ".", "'", "\n", "İ"]
)
TEXTS = st.lists(PIECES, max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.lists(st.sampled_from(["ab", "abc", "abcd", "x1", "1x", "ss", "cd", "b"]), max_size=5))
def test_finder_is_content_words_intersection(text: str, words: list[str]) -> None:
    assert content_word_finder(words)(text) == set(words) & content_words(text)


WORDS = st.lists(st.sampled_from(["ab", "abc", "abcd", "x1", "1x", "ss", "cd", "b", "i"]), max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXTS, max_size=6), WORDS)
def test_counts_over_joined_texts_are_the_finder_on_each_text(texts: list[str], words: list[str]) -> None:
    find = content_word_finder(words)
    assert content_word_counts(words, texts) == [len(find(text)) for text in texts]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_ordered_content_words_are_the_set_in_reading_order(text: str) -> None:
    ordered = ordered_content_words(text)
    assert set(ordered) == content_words(text) and len(ordered) == len(set(ordered))
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    assert ordered == sorted(ordered, key=tokens.index)  # in order of first appearance


def test_finder_on_a_passage() -> None:
    find = content_word_finder(content_words("Which pumps does Kestrel run at night?"))
    assert find("Kestrel runs the PUMPS; night-shift pumps") == {"kestrel", "pumps", "night"}
    assert content_word_finder([])("anything") == set()
