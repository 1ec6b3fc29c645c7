"""Which retrieved "sentences" can state a fact at all.

Passages of real documents hold lines that name a topic without saying anything about it: headings
(``## Deployment``, a title line), API signatures (``shutil.copystat(src, dst, *, follow_symlinks=True)``),
code (``>>> import shutil``, ``x = f(y);``). They share the question's words more densely than any
prose sentence, so a word-overlap ranking would pick them first; the LLM-free answer leaves them out.
Table rows and list items stay: "| 2. Skills interview | Video call | 60 minutes |" is a fact. Nor does a
question state anything (an FAQ's "How do I undo it?", which matches a question best of all).
"""

from __future__ import annotations

import re

_TERMINAL = frozenset(".!?:;)\"'’”…")
_SIGNATURE = re.compile(r"^[\w.]+\s*\(.*\)\s*(?:->\s*[\w\[\]., |]+)?:?$")
_CODE_START = re.compile(r"^(?:def |class |async def |>>>|\.\.\. |\$ |import |from [\w.]+ import |@\w|#!|//|/\*)")
_CODE_END = re.compile(r"[{};]$")
_SYMBOLS = frozenset("{}[]()<>=;/\\_*&^%$#@~`\"'+")
_PROSE_WORD = re.compile(r"^[A-Za-z][a-z]+(?:['’][a-z]+)?[,.;:!?)]*$")
HEADING_MAX_WORDS = 8
SYMBOL_SHARE = 0.15  # code: more than this share of characters are brackets, operators and the like
PROSE_SHARE = 0.4  # prose: at least this share of tokens are plain words


def is_heading(sentence: str) -> bool:
    """A Markdown heading, or a short title line: no final punctuation, few words, no digit (a short
    list item with a number, "- 30 minutes", can be an answer)."""
    if sentence.startswith("#"):
        return True
    words = sentence.split()
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


def is_question(sentence: str) -> bool:
    """A question, quoted or not ("How should I undo it?")."""
    return sentence.rstrip("\"'’”)").endswith("?")


def states_something(sentence: str) -> bool:
    """Whether ``sentence`` (whitespace-normalised, non-empty) can be part of an extractive answer."""
    return not (is_heading(sentence) or is_code(sentence) or is_question(sentence))
