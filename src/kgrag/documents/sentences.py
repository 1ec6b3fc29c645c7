"""Regex sentence splitting, good enough to keep chunk boundaries off mid-sentence cuts.

A statistical splitter (spaCy) would be more accurate but costs seconds per megabyte and a model
load; chunking only needs boundaries that are *usually* right, because a missed boundary merely
makes one unit longer and an overlong unit is cut at token boundaries anyway.

Spans are returned trimmed of surrounding whitespace: the gaps between spans hold only whitespace,
and every non-whitespace character of the text lies in exactly one span.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator

# Sentence-final punctuation, with closing quotes/brackets, followed by whitespace.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'’”)\]]*(?=\s)")

# Line structure that always separates sentences: blank lines, a line break before a markdown
# heading / bullet / numbered item / quote, and a whole heading line (it has no final period).
_HARD_BREAK = re.compile(
    r"\n[ \t]*\n"
    r"|\n(?=[ \t]*(?:#{1,6}[ \t]|[-*+•][ \t]|\d{1,3}[.)][ \t]|>|\|))"
    r"|^[ \t]*#{1,6}[ \t][^\n]*",
    re.MULTILINE,
)

_WORD_BEFORE = re.compile(r"\S*$")
_NEXT_CHAR = re.compile(r"\s*(\S)")
_OPENERS = "([{\"'“‘"
_CLOSERS = ")]}\"'’”"

# Lower-case words that, followed by a period, are usually abbreviations, not sentence ends.
_ABBREVIATIONS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "sr",
        "jr",
        "st",
        "mt",
        "vs",
        "etc",
        "al",
        "fig",
        "figs",
        "eq",
        "eqs",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "ch",
        "sec",
        "approx",
        "ca",
        "cf",
        "ed",
        "eds",
        "dept",
        "univ",
        "inc",
        "ltd",
        "co",
        "corp",
        "gen",
        "col",
        "lt",
        "sgt",
        "rev",
        "hon",
        "est",
        "min",
        "max",
        "resp",
        "incl",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    }
)

# Dotted abbreviations: "e.g", "i.e", "U.S", "a.m", "Ph.D" (the final period is the candidate).
_DOTTED = re.compile(r"(?:[A-Za-z]{1,2}\.)+[A-Za-z]{1,2}")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``, in order.

    Boundaries are sentence-final punctuation followed by whitespace (unless the word before is an
    abbreviation, an initial, or a list number, or the next word starts lower-case), blank lines,
    markdown headings, and line breaks before bullets, numbered items, quotes and table rows.
    """
    return list(iter_sentences(text))


def iter_sentences(text: str) -> Iterator[tuple[int, int]]:
    """The spans of :func:`split_sentences`, produced lazily: memory stays flat on a text of any size,
    because both kinds of boundary are found in order and merged as they come."""
    hard = (cut for match in _HARD_BREAK.finditer(text) for cut in (match.start(), match.end()))
    ends = (match.end() for match in _SENTENCE_END.finditer(text) if _is_boundary(text, match))
    previous = 0
    for cut in heapq.merge(hard, ends, [len(text)]):
        if cut > previous:
            span = strip_span(text, previous, cut)
            if span is not None:
                yield span
            previous = cut


MIN_SENTENCE_CHARS = 12
"""Shorter pieces ("1.", "Key points") are headings or list markers, not statements worth a vector."""


def sentence_texts(text: str) -> list[str]:
    """The sentences of ``text`` that stand alone (at least ``MIN_SENTENCE_CHARS`` characters), stripped;
    the whole text when none does. Shared by the sentence vectors stored at indexing and the rerankers
    that score passages by their best sentences, so both cut a passage the same way."""
    parts = [text[a:b] for a, b in split_sentences(text)]
    kept = [p for p in parts if len(p) >= MIN_SENTENCE_CHARS]
    return kept or ([text.strip()] if text.strip() else [])


def _is_boundary(text: str, match: re.Match[str]) -> bool:
    """Whether the punctuation in ``match`` really ends a sentence."""
    following = _NEXT_CHAR.match(text, match.end())
    if following is not None and following.group(1).islower():
        return False
    if match.group().rstrip(_CLOSERS) != ".":
        # "?", "!", "…" and ellipses "..." end sentences whatever the word before them is.
        return True
    word_match = _WORD_BEFORE.search(text, max(0, match.start() - 40), match.start())
    word = word_match.group().lstrip(_OPENERS) if word_match else ""
    return not _is_abbreviation(text, word, match.start() - len(word))


def _is_abbreviation(text: str, word: str, word_start: int) -> bool:
    """Whether ``word`` directly before a period marks an abbreviation, an initial or a list number."""
    if not word:
        return False
    if word.lower() in _ABBREVIATIONS or _DOTTED.fullmatch(word):
        return True
    if len(word) == 1 and word.isupper():
        return True  # an initial, as in "J. Smith"
    at_line_start = word_start == 0 or text[word_start - 1] == "\n"
    return at_line_start and word.isdigit() and len(word) <= 3  # "1. First item"


def strip_span(text: str, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` narrowed to exclude surrounding whitespace; None when only whitespace is left.

    Shared with chunking so that sentence spans and force-split pieces are trimmed the same way.
    """
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None
