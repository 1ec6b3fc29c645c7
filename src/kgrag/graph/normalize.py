"""Entity identity: the normalised key under which mentions from different chunks merge.

Two mentions are the same entity when their keys are equal, so the key must absorb the variation that
does not change meaning — case, Unicode compatibility forms, spacing, surrounding quotes, a leading
"the", a possessive, a regular plural — and nothing more. Anything cleverer (synonyms, abbreviations,
typos) is entity *resolution* (denoising), which works on the merged graph with embeddings and can be
undone; a key is forever, so it errs on the side of keeping entities apart.

The key is idempotent (``entity_key(entity_key(x)) == entity_key(x)``) and never raises, which the
property tests check: extractors feed it arbitrary model output.
"""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")
# Characters stripped from both ends: whitespace, quotes, brackets and sentence punctuation. Not "#",
# "+" or "&", which end real names ("C#", "C++", "AT&T").
_EDGE_CHARS = " \t\n\"'`´‘’‚‛“”„‟«»‹›()[]{}<>.,;:!?¡¿*_~|/\\-–—…·•"
_POSSESSIVE = ("'s", "’s")
_LEADING_ARTICLE = "the "
_MAX_ROUNDS = 8

# Words that end like a plural but are not one (or must stay as written to stay distinct).
_INVARIANT = frozenset(
    """
    analysis axis basis chassis crisis diagnosis emphasis hypothesis synopsis thesis
    bus campus census corpus focus genus nexus onus opus plus status stimulus virus
    series species news means lens physics economics mathematics ethics politics statistics
    kubernetes windows jenkins redis postgres https http aws dns ios macos ops devops gitops mlops
    sales always perhaps whereas towards afterwards minus canvas atlas alias bias gas
    diabetes herpes measles mumps rabies scabies arthritis hepatitis meningitis
""".split()
)

# Plurals the suffix rules would get wrong, mapped to their singular.
_IRREGULAR = {
    "movies": "movie",
    "cookies": "cookie",
    "caches": "cache",
    "niches": "niche",
    "headaches": "headache",
    "avalanches": "avalanche",
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "indices": "index",
    "matrices": "matrix",
    "vertices": "vertex",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "analyses": "analysis",
    "diagnoses": "diagnosis",
    "hypotheses": "hypothesis",
    "theses": "thesis",
    "crises": "crisis",
    "bases": "base",
    "statuses": "status",
    "buses": "bus",
    "viruses": "virus",
    "lenses": "lens",
    "aliases": "alias",
    "biases": "bias",
    "geese": "goose",
}

_ACRONYM_PLURAL = re.compile(r"^[A-Z][A-Z0-9]+s$")


def _fold(text: str) -> str:
    """Unicode compatibility form plus case folding, repeated until stable (a few code points need two
    rounds), so the result is a fixpoint whatever the input."""
    for _ in range(_MAX_ROUNDS):
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
        if folded == text:
            break
        text = folded
    return text


def _trim(text: str) -> str:
    """Strip edge punctuation, possessives and a leading "the" until nothing changes."""
    for _ in range(_MAX_ROUNDS * 4):
        before = text
        text = _SPACE.sub(" ", text).strip(_EDGE_CHARS)
        for suffix in _POSSESSIVE:
            if text.endswith(suffix) and len(text) > len(suffix):
                text = text[: -len(suffix)]
        if text.startswith(_LEADING_ARTICLE) and len(text) > len(_LEADING_ARTICLE):
            text = text[len(_LEADING_ARTICLE) :]
        if text == before:
            break
    return text


def singular(word: str) -> str:
    """The singular of a lower-case word where regular English rules make that safe, else the word.

    Short words, words ending in -ss/-us/-is and the known invariants ("status", "analysis", "bus",
    "kubernetes") are left alone: a wrong singular would merge distinct entities for good.
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.isalpha() or not word.isascii() or word in _INVARIANT:
        return word
    if not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zzes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


def _singular_last_word(original: str, folded: str) -> str:
    """Singularise the last word of ``folded``; ``original`` (same words, original case) lets an
    all-caps acronym plural such as "ADRs" or "APIs" lose its "s" where the lower-case rules refuse."""
    head, _, last = folded.rpartition(" ")
    original_last = original.rpartition(" ")[2]
    new_last = singular(last)
    if (
        new_last == last
        and _ACRONYM_PLURAL.match(original_last)
        and original_last.casefold() == last
        and singular(last[:-1]) == last[:-1]
    ):
        new_last = last[:-1]
    return f"{head} {new_last}" if head else new_last


def entity_key(name: str) -> str:
    """The identity key of an entity name ("" when nothing meaningful is left, e.g. "!!!")."""
    original = _trim(_SPACE.sub(" ", unicodedata.normalize("NFKC", name)))
    folded = _trim(_fold(original))
    if not folded:
        return ""
    key = _singular_last_word(original, folded)
    return key if key and key == _trim(key) else folded
