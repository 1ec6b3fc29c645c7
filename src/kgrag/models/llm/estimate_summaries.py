"""Description summaries predicted from the model's own entities and the description lengths it writes.

An entity's descriptions accumulate, one per unit that names it (and those a workspace already stores);
past ``graph.max_description_tokens`` the merged text costs one summary call in the run that touches it
(:func:`kgrag.graph.build.aggregate.merge_descriptions`). The estimate's stand-in graph cannot show this:
its entities carry no description, and they are capitalised names, while a model may take lower-case
terms as entities, which recur in many more units. So the prediction rests on what was measured on the
units the model really extracted (``--probe``'s, or the stored graph's; :class:`DescribedNames`):

* the model's own entity names, each with the description tokens already bound to be merged with the run's
  (those the workspace stores for it, and those of the probe's units, which the run reuses from the cache);
* the mean tokens of one description as this model writes them;
* the share of a unit naming an entity in its text that the model extracts it from (measured leaving
  each unit out: of the units naming an entity the model extracted elsewhere, in how many it did here).

Each name then gets that share of the run's units naming it in their text (the units the estimate sees,
those not answered from the cache), at the measured length each; a name whose descriptions pass the
limit, and that the run touches, costs one call: its descriptions (at most the summariser's input cap) plus
the prompt's overhead in, the measured summary reply (else the limit) out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

MAX_INPUT_TOKENS = 3000  # what the summariser sends of one name's descriptions at most (summarize_llm)
SEPARATOR_TOKENS = 1  # the line break merged descriptions are joined with (what the limit is checked on)
BULLET_TOKENS = 1  # the "- " each description is listed with in the summary prompt


@dataclass(frozen=True)
class DescribedName:
    """One of the model's entities: its names as written, the description tokens already
    bound to be merged in the run, and whether the run touches it for sure (a probed unit names it)."""

    surfaces: tuple[str, ...]
    known_tokens: int
    touched: bool = False
    hit: float | None = None  # the share of units naming it that the model extracts it from, if measured


@dataclass(frozen=True)
class DescribedNames:
    """The model's entities and description lengths, measured on ``units`` extracted units."""

    names: tuple[DescribedName, ...]
    mention_tokens: float  # mean tokens of one entity description as the model writes it
    hit: float  # share of units naming an entity in their text that the model extracts it from
    units: int


_WORD = re.compile(r"\w+")


@lru_cache(maxsize=4096)
def _pattern(surface: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(surface) + r"(?!\w)")


def occurs(surfaces: Sequence[str], text: str) -> bool:
    """Whether ``text`` names one of ``surfaces`` as written, as whole words."""
    return any(surface and _pattern(surface).search(text) for surface in surfaces)


class TextIndex:
    """Texts by the words they hold, to find those naming an entity without searching every one."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self._units: dict[str, set[int]] = {}
        for number, text in enumerate(self.texts):
            for word in set(_WORD.findall(text)):
                self._units.setdefault(word, set()).add(number)

    def naming(self, surfaces: Sequence[str]) -> set[int]:
        """The numbers of the texts naming one of ``surfaces`` (as written, as whole words)."""
        found: set[int] = set()
        for surface in surfaces:
            words = _WORD.findall(surface)
            if not words:
                continue
            candidates = set.intersection(*(self._units.get(word, set()) for word in words))
            found.update(n for n in candidates - found if occurs([surface], self.texts[n]))
        return found


def predicted_summaries(
    texts: Sequence[str], described: DescribedNames, limit: int, overhead: int, reply: int | None
) -> tuple[float, float, float]:
    """Summary calls, prompt and completion tokens a run over units of casefolded ``texts`` spends on
    ``described``'s names at ``graph.max_description_tokens`` = ``limit`` (``overhead``: the prompt's own
    tokens; ``reply``: the measured summary reply, else the limit). A name whose descriptions already
    pass the limit counts as far as the run is likely to touch it (one of its units extracts it)."""
    index = TextIndex(texts)
    each = described.mention_tokens + SEPARATOR_TOKENS
    calls = prompt = 0.0
    for name in described.names:
        naming = len(index.naming(name.surfaces))
        hit = described.hit if name.hit is None else name.hit
        tokens = name.known_tokens + hit * naming * each
        if tokens <= limit:
            continue
        touched = 1.0 if name.touched else 1 - (1 - hit) ** naming
        calls += touched
        listed = tokens + BULLET_TOKENS * tokens / each if each > 0 else tokens
        prompt += touched * (min(listed, MAX_INPUT_TOKENS) + overhead)
    return calls, prompt, calls * (reply or limit)
