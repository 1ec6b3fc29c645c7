"""Content-word normalisation shared by lexical scoring and LLM-free metrics.

Lower-cased alphanumeric tokens minus a small stop-word list: crude, but deterministic, fast and the
same everywhere it is used, which is what matters for comparing pipelines.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

_WORD = re.compile(r"[a-z0-9]+")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")  # what _WORD's tokens are made of
STOP_WORDS = frozenset(
    "a an and are as at be been by can could did do does for from had has have how i if in into is it its "
    "may might more most must no not of on or our out over should so such than that the their them then "
    "there these they this those to under up was we were what when where which while who whom why will "
    "with would you your".split()
)


def folded(text: str) -> str:
    """``text`` in lower case with its accents removed ("Montréal" → "montreal", "Nicolò" → "nicolo"), for
    looking names up in lists that write them either way."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)).lower()


def content_words(text: str) -> set[str]:
    """The set of non-stop-word tokens of ``text``."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS}


def ordered_content_words(text: str) -> list[str]:
    """The distinct non-stop-word tokens of ``text`` in order of first appearance: for callers whose result
    depends on the order (ties), where a set's order changes from process to process (string hashing)."""
    return [w for w in dict.fromkeys(_WORD.findall(text.lower())) if w not in STOP_WORDS]


def content_word_finder(words: Iterable[str]) -> Callable[[str], set[str]]:
    """A function telling which of ``words`` (content words, as :func:`content_words` gives them) occur in
    a text: ``find(text) == set(words) & content_words(text)``. Each word is looked up with ``str.find``
    and kept where it stands alone (no letter or digit on either side), instead of tokenising the whole
    text: faster than a regex of the words or than tokenising when a few query words are checked against
    many passages (the ``lexical`` reranker: 50 per query; docs/results/design-measurements.md)."""
    wanted = list(dict.fromkeys(words))

    def find(text: str) -> set[str]:
        lowered = text.lower()
        return {word for word in wanted if _stands_alone(lowered, word)}

    return find


def content_word_counts(words: Iterable[str], texts: Sequence[str]) -> list[int]:
    """How many of ``words`` (content words) each text holds: ``len(content_word_finder(words)(text))`` for
    every text, found in one pass per word over all the texts joined (a separator no word can span) instead
    of one search per word and text. A word that stands alone in a text is not looked for again in it, so
    the work per word is one scan plus its matches: a reranker checks a question's few words against a
    pool of passages on every query, where a search per word and passage was most of its time."""
    wanted = list(dict.fromkeys(words))
    lowered = [text.lower() for text in texts]
    starts, at = [], 0
    for text in lowered:
        starts.append(at)
        at += len(text) + 1
    joined = "\n".join(lowered)
    counts = [0] * len(texts)
    for word in wanted:
        for index in _texts_holding(joined, word, starts):
            counts[index] += 1
    return counts


def _texts_holding(joined: str, word: str, starts: list[int]) -> Iterable[int]:
    """Indexes of the texts (starting at ``starts`` in ``joined``) where ``word`` stands alone."""
    start, size, end_of_text = 0, len(word), len(joined)
    while (at := joined.find(word, start)) >= 0:
        end = at + size
        if (at == 0 or joined[at - 1] not in _ALNUM) and (end == end_of_text or joined[end] not in _ALNUM):
            index = bisect_right(starts, at) - 1
            yield index
            if index + 1 == len(starts):
                return
            start = starts[index + 1]
        else:
            start = at + 1


def _stands_alone(text: str, word: str) -> bool:
    """Whether ``word`` occurs in ``text`` as a whole ``[a-z0-9]+`` token."""
    start, size, end_of_text = 0, len(word), len(text)
    while (at := text.find(word, start)) >= 0:
        end = at + size
        if (at == 0 or text[at - 1] not in _ALNUM) and (end == end_of_text or text[end] not in _ALNUM):
            return True
        start = at + 1
    return False
