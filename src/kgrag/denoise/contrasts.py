"""Names that differ by a contrast: one says the opposite of the other, so they are never one entity.

Embeddings put "correct password" next to "incorrect password", "public key" next to "private key" and
"client-side encryption" next to "server-side encryption": the names share every word but one, and that
word is the point. Two names contrast when a word found only in one and a word found only in the other
are opposites, either

* by negation: one word is the other with a negating prefix (``un``, ``in``, ``im``, ``il``, ``ir``,
  ``dis``, ``mis``, ``non``; ``non-x`` and ``non x`` count as ``nonx``), and the rest of the two names
  shares a word, so that the two words play the same role ("invalid session ID", "valid session ID") and
  a word that merely starts like a prefix ("information", "formation") is not read as a negation; or
* by :data:`OPPOSITES`, a short list of word pairs that name opposite sides in technical and general
  text, also when both carry the same ending (``encryption``/``decryption``, ``uploads``/``downloads``).

A word present in one name and simply absent from the other is a modifier, not a contrast: "strong
password" and "password" are left to similarity. Words are compared case-folded, split at hyphens and
other non-letters, with a plural ``s`` dropped.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import product

OPPOSITES: tuple[tuple[str, str], ...] = (
    ("public", "private"),
    ("internal", "external"),
    ("client", "server"),
    ("input", "output"),
    ("inbound", "outbound"),
    ("ingress", "egress"),
    ("upload", "download"),
    ("upstream", "downstream"),
    ("encrypt", "decrypt"),
    ("encode", "decode"),
    ("read", "write"),
    ("allow", "deny"),
    ("allowlist", "denylist"),
    ("whitelist", "blacklist"),
    ("enable", "disable"),
    ("accept", "reject"),
    ("success", "failure"),
    ("successful", "failed"),
    ("pass", "fail"),
    ("good", "bad"),
    ("correct", "wrong"),
    ("correct", "bad"),
    ("safe", "dangerous"),
    ("true", "false"),
    ("positive", "negative"),
    ("minimum", "maximum"),
    ("min", "max"),
    ("upper", "lower"),
    ("uppercase", "lowercase"),
    ("first", "last"),
    ("before", "after"),
    ("start", "end"),
    ("open", "closed"),
    ("old", "new"),
    ("request", "response"),
    ("sender", "receiver"),
    ("source", "target"),
    ("source", "destination"),
    ("import", "export"),
    ("increase", "decrease"),
    ("high", "low"),
    ("strong", "weak"),
    ("short", "long"),
    ("local", "remote"),
    ("static", "dynamic"),
    ("synchronous", "asynchronous"),
    ("sync", "async"),
    ("online", "offline"),
    ("front", "back"),
    ("frontend", "backend"),
    ("primary", "secondary"),
    ("master", "slave"),
    ("parent", "child"),
    ("inner", "outer"),
    ("pre", "post"),
    ("left", "right"),
    ("horizontal", "vertical"),
    ("symmetric", "asymmetric"),
    ("stateful", "stateless"),
)
"""Word pairs that name opposite sides: two names differing by one such pair are never merged. Kept short
and general on purpose; each entry is a base form, matched also with a shared ending (:data:`ENDINGS`)."""

ENDINGS = ("", "s", "d", "ed", "ing", "ion", "ions", "er", "ers", "or", "ors", "ly", "side")
"""Endings two opposite words may share and still be opposites (``encrypt``+``ion``, ``upload``+``ed``)."""

NEGATIONS = ("un", "in", "im", "il", "ir", "dis", "mis", "non")
"""Prefixes that negate the word they are put before (``valid``/``invalid``, ``trusted``/``untrusted``)."""

_JOINED_NON = re.compile(r"\bnon[\s-]+(?=[a-z])")
_WORD = re.compile(r"[a-z]+")
_SHORTEST_BASE = 3
_PAIRS = {*OPPOSITES, *((b, a) for a, b in OPPOSITES)}


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def words(name: str) -> frozenset[str]:
    """The words of ``name`` as contrasts compare them: case-folded, ``non-x`` joined, plural dropped."""
    text = _JOINED_NON.sub("non", name.casefold().replace("’", "'"))
    return frozenset(_singular(w) for w in _WORD.findall(text))


def negates(word: str, other: str) -> bool:
    """Whether ``word`` is ``other`` with a negating prefix (``insecure`` of ``secure``)."""
    return len(other) >= _SHORTEST_BASE and any(word == prefix + other for prefix in NEGATIONS)


def opposite(word: str, other: str) -> bool:
    """Whether ``word`` and ``other`` are an :data:`OPPOSITES` pair sharing an ending."""
    for ending in ENDINGS:
        if word.endswith(ending) and other.endswith(ending):
            stem, other_stem = word[: len(word) - len(ending)], other[: len(other) - len(ending)]
            if (stem, other_stem) in _PAIRS:
                return True
    return False


def contrasting_names(a: str, b: str) -> bool:
    """True when names ``a`` and ``b`` differ by a contrast (see the module) and so must never merge."""
    wa, wb = words(a), words(b)
    only_a, only_b = wa - wb, wb - wa
    for x, y in product(only_a, only_b):
        if opposite(x, y):
            return True
        if (negates(x, y) or negates(y, x)) and wa & wb:
            return True
    return False
