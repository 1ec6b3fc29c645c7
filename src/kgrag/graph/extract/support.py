"""Grounding beyond names: what a description says must come from the text it was extracted from.

Name grounding (:mod:`~kgrag.graph.extract.attribution`) keeps an item whose names the text holds; the
description a small model writes next to them can still say what the text does not ("X acquired Y" where
the text says X sold to Y). This check is LLM-free and cheap:

* the **evidence** of a relation is the unit's sentences that hold both its ends, or, when no sentence
  does, pairs of neighbouring sentences that hold one end each (a statement across one sentence
  boundary: "Aspirin is an NSAID. It inhibits platelets."). Ends that are named only further apart have
  no evidence, and the relation is unsupported: the text never states it, and a small model's relations
  between distant names put one sentence's words under another sentence's subject. Of an entity, the
  evidence is the sentences that hold its name. A name found only fuzzily in no sentence makes the
  sentences of the other end the evidence (the whole unit when neither is found).
* a description is **supported** when at least :data:`MIN_SUPPORT` of its content words (three letters
  or more, not a stop word, not a word of the item's own names, compared by a crude stem) occur in its
  evidence. A paraphrase keeps most of the text's words; an invented claim brings its own.
* a description that **names** something the unit never mentions (a capitalised word inside it, such as
  a person from the prompt's worked example, that the unit's text does not hold) is unsupported whatever
  its other words share: small models carry the example's names into descriptions of real entities.
* a description that puts an item's name in front of a clause copied from a sentence whose subject is
  someone else is unsupported too: the words are the text's, the statement is not.
* a description **shaped like a worked example's** (:mod:`~kgrag.graph.extract.example_shape`: "The port
  where Naval Observatory is located" after "The port where Velloran Tide is based") must earn every word
  the example lent it: it is supported only when one sentence of the unit holds the item's names and every
  name the description mentions, and those sentences hold all of its other content words. Shape and names
  are the text's; what it claims about them is the example's unless the text says it too.
* a relation with an unsupported description, or with no evidence, is dropped and counted
  (``unsupported_relations``); an
  entity is never dropped for its description: an unsupported one is replaced by the first sentence that
  mentions the entity (or cleared when no sentence names it), and an empty one (small models leave many
  empty) is filled from that sentence.
  A relation with an empty description gets the first sentence that holds both ends.

Descriptions written in another language than the text (``graph.language``) share few words with it, so
the check runs only with ``graph.extractors.llm.grounding`` on (off is for text whose names must be translated).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kgrag.graph.extract.example_shape import Shape, shape, shaped_like
from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.types import ExtractedEntity, ExtractedRelation

MIN_SUPPORT = 0.5  # share of a description's content words its evidence must hold
MAX_FILLED_WORDS = 40  # a sentence used as a description is cut to this many words
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_WORDS = re.compile(r"[^\W\d_]{3,}|\d+")
_ABBREVIATION = re.compile(r"(?<!\w)[A-Z][a-z]{0,2}\.$")  # "Mr.", "Dr.", "J." end no sentence
_NON_WORDS = re.compile(r"[\W_]+")
MIN_COPIED_WORDS = 4  # a run this long after the item's name is a copied clause, not a paraphrase
_SUFFIXES = ("ing", "ed", "es", "s", "ly")
STOP_WORDS = frozenset(
    "the and for with that this from into onto over under about after before during while which who whom whose "
    "what when where why how are was were been being has have had does did doing can could will would shall "
    "should may might must its their them they there then than also only such both each other some any all "
    "not but nor yet very more most less least one two per via upon within without between among your our "
    "his her him she these those here using used use".split()
)


def _plain(text: str) -> str:
    """Lower case, every run of non-word characters one space: for finding copied runs of words."""
    return " ".join(_NON_WORDS.sub(" ", text.casefold()).split())


def split_sentences(text: str) -> list[str]:
    """``text``'s sentences, not cut after a title or an initial ("Mr. Hall", "J. Smith")."""
    out: list[str] = []
    for piece in (p.strip() for p in _SENTENCES.split(text)):
        if not piece:
            continue
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) >= 5 else word


def content_words(text: str) -> set[str]:
    """The stems of ``text``'s content words (see the module docstring)."""
    return {_stem(w) for w in _WORDS.findall(text.casefold()) if w not in STOP_WORDS}


@dataclass
class SupportCounts:
    """What :func:`check_support` changed in one unit's items."""

    unsupported_relations: int = 0
    descriptions_filled: int = 0
    descriptions_replaced: int = 0


class UnitEvidence:
    """The sentences of one unit's text, and which of them mention a name."""

    def __init__(self, text: str, shapes: Sequence[tuple[str, ...]] = ()) -> None:
        """``shapes``: those of the worked examples' descriptions (:func:`~kgrag.graph.extract.example_shape.
        example_shapes`); none, and no description is checked for the example's shape."""
        self.shapes = shapes
        self.sentences = split_sentences(text)
        self._folded = [" ".join(s.split()).casefold() for s in self.sentences]
        self._words = [content_words(s) for s in self.sentences]
        self._memo: dict[str, tuple[int, ...]] = {}
        self._text = " ".join(self._folded)
        self._plain = [_plain(s) for s in self.sentences]

    def mentions(self, name: str) -> tuple[int, ...]:
        """Indices of the sentences holding ``name`` (the whole name, or every content word of it)."""
        key = " ".join(name.split()).casefold()
        if key not in self._memo:
            exact = tuple(i for i, s in enumerate(self._folded) if key and key in s)
            wanted = content_words(name)
            loose = tuple(i for i, words in enumerate(self._words) if wanted and wanted <= words)
            self._memo[key] = exact or loose
        return self._memo[key]

    def relation_sentences(self, source: str, target: str) -> tuple[int, ...] | None:
        """The evidence of a relation between ``source`` and ``target`` (see the module docstring); None
        when both are named, but never in one sentence or in two neighbouring ones."""
        a, b = self.mentions(source), self.mentions(target)
        if not a or not b:
            return tuple(sorted(set(a) | set(b)))
        both = tuple(i for i in a if i in b)
        if both:
            return both
        pairs = {n for i in a for j in b if abs(i - j) == 1 for n in (i, j)}
        return tuple(sorted(pairs)) or None

    def supported(self, description: str, sentences: Sequence[int], names: Sequence[str]) -> bool:
        """True when ``description`` draws at least :data:`MIN_SUPPORT` of its content words from ``sentences``
        (all sentences when none is given)."""
        if self.names_unknown(description) or self.subject_swapped(description, names):
            return False
        described = shape(description, names) if self.shapes else None
        if described is not None and shaped_like(described, self.shapes):
            return self.shape_supported(description, described, names)
        own = set().union(*(content_words(n) for n in names))
        words = content_words(description) - own
        if not words:
            return True
        pool = [self._words[i] for i in sentences] if sentences else self._words
        evidence = set().union(*pool) if pool else set()
        return len(words & evidence) >= MIN_SUPPORT * len(words)

    def shape_supported(self, description: str, described: Shape, names: Sequence[str]) -> bool:
        """Whether a description shaped like an example's is the text's: sentences holding the item's names
        and every name it mentions together, and all its other content words in them."""
        named = [*names, *described.names]
        where = set(range(len(self.sentences)))
        for name in named:
            where &= set(self.mentions(name))
        if not where:
            return False
        words = content_words(description) - set().union(*(content_words(n) for n in named))
        return words <= set().union(*(self._words[i] for i in where))

    def subject_swapped(self, description: str, names: Sequence[str]) -> bool:
        """True when ``description`` is one of the item's names followed by a copied run of a sentence
        whose own subject is someone else ("Naval Observatory went to Washington …" from "Mr. Hall went
        to Washington …"): the words match, the statement does not."""
        text = _plain(description)
        for name in (_plain(n) for n in names):
            rest = text[len(name) :].strip() if name and text.startswith(name + " ") else ""
            if len(rest.split()) < MIN_COPIED_WORDS:
                continue
            for sentence in self._plain:
                at = sentence.find(rest)
                if at > 0 and not sentence[:at].strip().endswith(name):
                    return True
        return False

    def names_unknown(self, description: str) -> bool:
        """True when a capitalised word inside ``description`` (not its first word) is nowhere in the text."""
        inner = [w for w in _WORDS.findall(description) if not w.isdigit()][1:]
        return any(w[0].isupper() and w.casefold() not in self._text for w in inner)

    def sentence(self, indices: Sequence[int]) -> str:
        """The first of ``indices``' sentences that is not a Markdown heading line (a title says what a
        section is about, not what the item is), cut to :data:`MAX_FILLED_WORDS` words ("" when none)."""
        prose = [i for i in indices if not self.sentences[i].lstrip().startswith("#")]
        if not prose:
            return ""
        words = self.sentences[prose[0]].split()
        return " ".join(words[:MAX_FILLED_WORDS]) + (" …" if len(words) > MAX_FILLED_WORDS else "")


def _entity(evidence: UnitEvidence, entity: ExtractedEntity, counts: SupportCounts) -> ExtractedEntity:
    where = evidence.mentions(entity.name)
    if entity.description and evidence.supported(entity.description, where, [entity.name]):
        return entity
    sentence = evidence.sentence(where)
    if not sentence and not entity.description:
        return entity
    if entity.description:
        counts.descriptions_replaced += 1
    else:
        counts.descriptions_filled += 1
    return replace(entity, description=sentence)


def _relation(evidence: UnitEvidence, relation: ExtractedRelation, counts: SupportCounts) -> ExtractedRelation | None:
    where = evidence.relation_sentences(relation.source, relation.target)
    if where is None:
        counts.unsupported_relations += 1
        return None
    if not relation.description:
        sentence = evidence.sentence(where)
        counts.descriptions_filled += bool(sentence)
        return replace(relation, description=sentence) if sentence else relation
    if evidence.supported(relation.description, where, [relation.source, relation.target]):
        return relation
    counts.unsupported_relations += 1
    return None


def check_support(
    text: str, items: ParsedItems, shapes: Sequence[tuple[str, ...]] = ()
) -> tuple[ParsedItems, SupportCounts]:
    """``items`` with unsupported relations dropped and entity descriptions filled or replaced from ``text``
    (the unit's), and the counts of each. ``shapes``: the worked examples' description shapes."""
    evidence = UnitEvidence(text, shapes)
    counts = SupportCounts()
    entities = [_entity(evidence, e, counts) for e in items.entities]
    relations = [r for r in (_relation(evidence, r, counts) for r in items.relations) if r is not None]
    return ParsedItems(entities, relations, items.dropped), counts
