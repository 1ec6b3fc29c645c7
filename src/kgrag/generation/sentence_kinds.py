"""Which retrieved "sentences" can state a fact at all.

Passages of real documents hold lines that name a topic without saying anything about it: headings
(``## Deployment``, a title line), API signatures (``shutil.copystat(src, dst, *, follow_symlinks=True)``),
code (``>>> import shutil``, ``x = f(y);``). They share the question's words more densely than any
prose sentence, so a word-overlap ranking would pick them first; the LLM-free answer leaves them out.
Table rows and list items stay: "| 2. Skills interview | Video call | 60 minutes |" is a fact, and so is a
short row under a table's first row ("Manager DN | cn=admin,dc=example,dc=com"), which alone reads like a
title or a line of code (:func:`is_table_row`). A sidebar's label line ("TIP Installing the same selection of
packages") is a title however long it is. Nor does a question state anything (an FAQ's "How do I undo it?",
which matches a question best of all).
"""

from __future__ import annotations

import re

_TERMINAL = frozenset(".!?:;)\"'’”…")
_SIGNATURE = re.compile(r"^[\w.]+\s*\(.*\)\s*(?:->\s*[\w\[\]., |]+)?:?$")
_CODE_START = re.compile(r"^(?:def |class |async def |>>>|\.\.\. |\$ |import |from [\w.]+ import |@\w|#!|//|/\*)")
_CODE_END = re.compile(r"[{};]$")
_SYMBOLS = frozenset("{}[]()<>=;/\\_*&^%$#@~`\"'+")
_PROSE_WORD = re.compile(r"^[A-Za-z][a-z]+(?:['’][a-z]+)?[,.;:!?)]*$")
_LABEL_LINE = re.compile(r"^[A-Z]{2,}(?: [A-Z]{2,})* [A-Z][a-z]")  # "TIP Installing …", "BACK TO BASICS The …"
_ROW_SEPARATOR = re.compile(r"^[\s|:+-]*$")
HEADING_MAX_WORDS = 8
LABEL_MAX_WORDS = 16
SYMBOL_SHARE = 0.15  # code: more than this share of characters are brackets, operators and the like
PROSE_SHARE = 0.4  # prose: at least this share of tokens are plain words


def is_heading(sentence: str) -> bool:
    """A Markdown heading, or a short title line: no final punctuation, few words, no digit (a short
    list item with a number, "- 30 minutes", can be an answer)."""
    if sentence.startswith("#"):
        return True
    words = sentence.split()
    if sentence[-1] not in _TERMINAL and len(words) <= LABEL_MAX_WORDS and _LABEL_LINE.match(sentence):
        return True  # a sidebar's label and title: "TIP Installing the same selection of packages several times"
    return (
        sentence[-1] not in _TERMINAL
        and len(words) <= HEADING_MAX_WORDS
        and not any(ch.isdigit() for ch in sentence)
        and not sentence.startswith(("-", "*", "+", "•", "|"))
    )


def is_code(sentence: str) -> bool:
    """A signature, a code line or a line of mostly symbols and identifiers."""
    if _SIGNATURE.match(sentence) or _CODE_START.match(sentence) or _CODE_END.search(sentence):
        return True
    symbols = sum(ch in _SYMBOLS for ch in sentence)
    if symbols > SYMBOL_SHARE * len(sentence):
        return True
    tokens = sentence.split()
    prose = sum(bool(_PROSE_WORD.match(token)) for token in tokens)
    return prose < 3 or prose < PROSE_SHARE * len(tokens)


def is_table_row(sentence: str) -> bool:
    """A table row of two cells or more, one of them holding a word (not a ``|---|---|`` separator)."""
    cells = [cell.strip() for cell in sentence.strip().strip("|").split("|")]
    filled = [cell for cell in cells if cell]
    return len(filled) >= 2 and not _ROW_SEPARATOR.match(sentence) and any(_has_word(cell) for cell in filled)


def _has_word(cell: str) -> bool:
    return any(len(token) > 1 and token.isalpha() for token in re.split(r"[^\w]+", cell))


def is_question(sentence: str) -> bool:
    """A question, quoted or not ("How should I undo it?")."""
    return sentence.rstrip("\"'’”)").endswith("?")


def states_something(sentence: str) -> bool:
    """Whether ``sentence`` (whitespace-normalised, non-empty) can be part of an extractive answer."""
    return not (is_heading(sentence) or is_code(sentence) or is_question(sentence))
