"""Accented letters, and the copyright sign, that a PDF's text layer splits in two, put back together.

TeX (pdfTeX, texinfo) sets an accented letter as two glyphs, the accent over the base letter, so the
extracted text holds a spacing diacritic before the letter: "Wirtschaftsuniversit¨at", "Fran¸cois",
"Andr´e". Left so, the word matches neither a query nor the same word elsewhere.
:func:`recompose_accents` turns such a pair into the one precomposed letter ("ä", "ç", "é").

Only the non-ASCII spacing diacritics are read (¨ ´ ˆ ˜ ¸ ˇ ˘ ˙ ˚ ˝ ˛ ¯): the ASCII circumflex, tilde and
backtick of code (``x^2``, ``~/.Rprofile``, ``y ~ x``) stay as written. A diacritic counts as an accent only
where it sits inside a word, between two letters ("Andr´e"), or opens a word before a capital that a
lower-case letter follows ("¨Uber"), and only when the diacritic and the letter compose to one letter:
"20˚C", "x¯" and "/˜user" are left alone. The acute accent doubles as a typed apostrophe ("it´s",
"l´amore"), so it is recomposed only onto a vowel and never after a one-letter word.

TeX draws the copyright sign the same way, a "c" set inside a large circle; the circle's glyph is named
"circlecopyrt", so the text layer gives the letter and then "©" ("Copyright c© 2001").
:func:`copyright_signs` leaves the "©" alone, only where the "c" stands by itself before it: a word
ending in c ("Inc©") keeps its letter.
"""

from __future__ import annotations

import re
import unicodedata

COMBINING = {
    "\u00a8": "\u0308",  # ¨ diaeresis
    "\u00b4": "\u0301",  # ´ acute
    "\u02c6": "\u0302",  # ˆ circumflex
    "\u02dc": "\u0303",  # ˜ tilde
    "\u00b8": "\u0327",  # ¸ cedilla
    "\u02c7": "\u030c",  # ˇ caron
    "\u02d8": "\u0306",  # ˘ breve
    "\u02d9": "\u0307",  # ˙ dot above
    "\u02da": "\u030a",  # ˚ ring above
    "\u02dd": "\u030b",  # ˝ double acute
    "\u02db": "\u0328",  # ˛ ogonek
    "\u00af": "\u0304",  # ¯ macron
}
"""Spacing diacritic → the combining mark it stands for."""

_SPLIT = re.compile("[" + "".join(COMBINING) + r"](?=[^\W\d_])")
_ACUTE = "\u00b4"
_TEX_COPYRIGHT = re.compile(r"\bc\u00a9")
_DOTLESS = {"\u0131": "i", "\u0237": "j"}  # TeX puts accents on a dotless i or j


def recompose_accents(text: str) -> str:
    """``text`` with each split accent (a spacing diacritic before its letter, inside a word) replaced by
    the precomposed letter; anything that would not compose to a single letter is kept as it is."""
    if not any(mark in text for mark in COMBINING):
        return text
    parts: list[str] = []
    at = 0
    for match in _SPLIT.finditer(text):
        start = match.start()
        letter = _composed(text, start)
        if letter:
            parts += [text[at:start], letter]
            at = start + 2
    return "".join(parts) + text[at:]


def _composed(text: str, at: int) -> str:
    """The letter that the diacritic at ``text[at]`` and the letter after it stand for, "" when they are
    no split accent (see the module's description)."""
    mark, base = text[at], text[at + 1]
    inside = at > 0 and text[at - 1].isalpha()
    following = text[at + 2] if at + 2 < len(text) else ""
    if not inside and not (base.isupper() and following.islower() and (at == 0 or not text[at - 1].isalnum())):
        return ""
    one_letter_word = inside and (at < 2 or not text[at - 2].isalpha())
    if mark == _ACUTE and (base.lower() not in "aeiouy" or one_letter_word):
        return ""
    letter = unicodedata.normalize("NFC", _DOTLESS.get(base, base) + COMBINING[mark])
    return letter if len(letter) == 1 and letter.isalpha() else ""


def copyright_signs(text: str) -> str:
    """``text`` with each TeX copyright sign, a lone "c" before "©", read as the "©" alone."""
    return _TEX_COPYRIGHT.sub("\u00a9", text)
