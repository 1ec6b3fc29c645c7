"""The least-recently-used text cache behind the remembered token counts, sentence splits and passage
words: values computed once, at most ``size`` kept, the least recently used dropped first."""

from __future__ import annotations

from kgrag.retrieval.resources.caches import TextCache


def test_values_are_computed_once_and_the_size_is_bounded() -> None:
    computed: list[str] = []

    def lengths(texts: list[str]) -> list[int]:
        computed.extend(texts)
        return [len(text) for text in texts]

    cache: TextCache[int] = TextCache(3)
    assert cache.get_many(["a", "bb", "a"], lengths) == [1, 2, 1] and computed == ["a", "bb"]
    assert cache.get_many(["bb", "ccc", "dddd"], lengths) == [2, 3, 4] and computed[2:] == ["ccc", "dddd"]
    assert len(cache) == 3 and "a" not in cache._values  # the least recently used went first
    assert cache.get("bb", len) == 2 and computed[4:] == []
