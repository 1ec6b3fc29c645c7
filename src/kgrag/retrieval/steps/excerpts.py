"""The room whole items leave in a context budget, filled with the best sentences of the next passages.

:class:`~kgrag.retrieval.steps.budget.FitBudget` adds items whole, so a budget seldom ends where an item ends:
with chunks of about half the budget two passages fit and the rest stays empty. The passages ranked just
below the cut are where the evidence the context missed most often is (docs/results/design-measurements.md).
The empty room is therefore spent on the
sentences of the next :data:`EXCERPT_SOURCES` passages that name the most content words of the query,
each passage's chosen sentences in one item, in their original order, labelled with that passage's id
(so an answer cites the passage it came from). A sentence that names none of the query's words is
never added: an empty room costs nothing, an unrelated sentence costs tokens and attention.

Word coverage, not the sentence vectors, picks the sentences: it needs no stored vectors, so every
pipeline and store gets it, and it matched or beat the sentences' cosine to the query
(``docs/results/medical-retrieval-quality.md``, "Excerpts in the room the budget leaves").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kgrag.core.context import ContextItem
from kgrag.documents.sentences import sentence_texts
from kgrag.documents.words import content_word_finder, content_words

EXCERPT_SOURCES = 2
"""Passages after the last whole one whose sentences may fill the room. The next two give all of the gain;
drawing from more gives slightly less, as a passage ranked lower is more often off-topic
(docs/results/medical-retrieval-quality.md)."""
JOIN_TOKENS = 1
"""What joining two sentences with a space may add to their separate token counts."""


@dataclass(frozen=True)
class _Sentence:
    covered: int
    source: int
    position: int
    text: str


def excerpts(
    query: str,
    sources: Sequence[ContextItem],
    room: int,
    count_tokens: Callable[[str], int],
    label_tokens: int,
    sentences_of: Callable[[str], Sequence[str]] = sentence_texts,
) -> list[ContextItem]:
    """Items made of ``sources``' sentences (passages, best first) that fit ``room`` tokens together,
    each costing its text plus ``label_tokens``; the sentences covering most query words go first
    (ties: the better-ranked passage, then the earlier sentence). Empty when nothing useful fits.
    ``sentences_of`` splits a passage (a query context passes its cached split: passages recur)."""
    if room <= label_tokens or not sources:
        return []
    ranked = sorted(_covering_sentences(query, sources, sentences_of), key=lambda s: (-s.covered, s.source, s.position))
    picked: dict[int, list[_Sentence]] = {}
    for sentence in ranked:
        if room <= JOIN_TOKENS:
            break
        opened = sentence.source in picked
        cost = count_tokens(sentence.text) + (JOIN_TOKENS if opened else label_tokens)
        if cost <= room:
            picked.setdefault(sentence.source, []).append(sentence)
            room -= cost
    return [_excerpt(sources[source], chosen) for source, chosen in sorted(picked.items())]


def _covering_sentences(
    query: str, sources: Sequence[ContextItem], sentences_of: Callable[[str], Sequence[str]]
) -> list[_Sentence]:
    """The sentences naming at least one query word; each passage is first checked as a whole, so its
    sentences are searched only for the words it names (~half the time of searching every word)."""
    wanted = content_word_finder(content_words(query))
    found = []
    for source, item in enumerate(sources):
        named = wanted(item.text)
        if not named:
            continue
        find = content_word_finder(named)
        found += [
            _Sentence(len(covered), source, position, sentence)
            for position, sentence in enumerate(sentences_of(item.text))
            if (covered := find(sentence))
        ]
    return found


def _excerpt(source: ContextItem, sentences: list[_Sentence]) -> ContextItem:
    """``source`` cut down to ``sentences`` in their order in it; marked so a reader knows it is a part."""
    text = " ".join(s.text for s in sorted(sentences, key=lambda s: s.position))
    metadata = {key: value for key, value in source.metadata.items() if key != "n_tokens"}
    metadata["excerpt"] = True
    return replace(source, text=text, span=None, scores=dict(source.scores), metadata=metadata)
