"""The corpus language from stopword profiles: no model, no download, good enough to pick an output language.

Each language's profile is a few dozen of its most frequent function words; the language whose words make
up the largest share of the sample's tokens wins, provided that share is clearly above noise (text in
a language without a profile, or code and tables, comes out as ``None``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
MIN_SHARE = 0.15  # function words are 30-50% of running prose; under 15% the text is not prose in this language
MIN_WORDS = 12  # fewer words say nothing (one "y" makes a line of code Spanish)

PROFILES: dict[str, frozenset[str]] = {
    "English": frozenset(
        "the of and to a in is it that for on with as was be by this are or from at an which have not but "
        "they his her their has were can will we you its also been one all".split()
    ),
    "German": frozenset(
        "der die und in den von zu das mit sich des auf für ist im dem nicht ein eine als auch es an werden "
        "aus er hat dass sie nach wird bei einer um am sind noch wie einem über".split()
    ),
    "French": frozenset(
        "le la les de des et en un une du est que qui dans pour pas au sur par plus il elle ne se ce sont "
        "avec ou aux son sa ses leur été mais nous vous".split()
    ),
    "Spanish": frozenset(
        "el la los las de del y en un una que es por con para no se su sus al lo como más pero ha fue son "
        "entre sobre también este esta ya muy".split()
    ),
    "Portuguese": frozenset(
        "o a os as de do da dos das e em um uma que é por com para não se seu sua ao no na nos nas mais "
        "como mas foi são também pelo pela".split()
    ),
    "Italian": frozenset(
        "il lo la i gli le di del della e in un una che è per con non si su al alla sono come più ma anche "
        "nel nella dei delle questo".split()
    ),
    "Dutch": frozenset(
        "de het een en van in is op te dat die voor met niet zijn aan er ook als bij of door om naar dan "
        "wordt werd maar nog deze".split()
    ),
    "Swedish": frozenset(
        "och i att det som en på är av för med den till inte har de om ett var men så från kan vid eller "
        "sig hade efter också".split()
    ),
}


@dataclass(frozen=True)
class LanguageGuess:
    """The best profile (None when no profile reaches :data:`MIN_SHARE`) and every profile's share."""

    language: str | None
    shares: dict[str, float]


def detect_language(texts: Iterable[str]) -> LanguageGuess:
    """The language whose function words cover most of ``texts``' words."""
    words = Counter(word.casefold() for text in texts for word in _WORD.findall(text))
    total = sum(words.values())
    if total < MIN_WORDS:
        return LanguageGuess(None, {})
    shares = {
        name: round(sum(n for word, n in words.items() if word in profile) / total, 3)
        for name, profile in PROFILES.items()
    }
    best = max(shares, key=lambda name: shares[name])
    return LanguageGuess(best if shares[best] >= MIN_SHARE else None, shares)
