"""The LLM-free proposal: entity types from spaCy's NER labels and frequent noun-phrase heads, and a worked
example built from a real sentence of the corpus and the NER spans in it (so every name in it is grounded).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgrag.graph.tune.example import ExampleItems, entity_item, relation_item

if TYPE_CHECKING:
    from spacy.tokens import Span

# spaCy's OntoNotes labels → the type names the extraction prompt uses.
READABLE_LABELS = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "facility",
    "NORP": "group",
    "PRODUCT": "product",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "law",
    "LANGUAGE": "language",
    "MONEY": "amount",
    "PERCENT": "metric",
    "QUANTITY": "metric",
    "DATE": "date",
    "TIME": "time",
    "CARDINAL": "number",
    "ORDINAL": "number",
}
# Values rather than things: shown in the distribution, never proposed as node types.
VALUE_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL"})
# Heads too general to be a type of anything.
GENERIC_HEADS = frozenset(
    "thing way time part number lot kind type case use end example point day week month year today "
    "people one other rest set level step list time item name information detail change stage process datum "
    "data way result issue work".split()
)
MIN_TYPE_SHARE = 0.02  # a NER type under 2% of the spans is noise (often a misread name)
MIN_HEAD_COUNT = 3
EXAMPLE_WORDS = (8, 25)  # an example sentence long enough to carry a relation, short enough to be cheap
RELIABLE_LABELS = frozenset({"PERSON", "ORG", "GPE"})  # the labels a small pipeline gets right most often


@dataclass(frozen=True)
class Candidate:
    """A sampled sentence naming 2-4 distinct things: (name, NER label) in order, and the verb between the
    first two when the parse has one."""

    text: str
    names: tuple[tuple[str, str], ...]
    verb: str | None

    def example(self, types: Sequence[str], votes: Mapping[str, Counter[str]]) -> ExampleItems | None:
        """The sentence as a worked example when every name's type is among ``types``; each name takes the
        label spaCy gave it most often across the sample (one sentence's label is often wrong)."""
        typed = [(name, READABLE_LABELS[_majority(name, label, votes)]) for name, label in self.names]
        if any(type_ not in types for _, type_ in typed):
            return None
        entities = [entity_item(name, type_, self.text) for name, type_ in typed]  # "one sentence from the text"
        relations = []
        if self.verb is not None:
            (first, _), (second, _) = typed[0], typed[1]
            relations.append(relation_item(first, second, self.verb, self.text))
        return ExampleItems(self.text, entities, relations)

    def score(self) -> int:
        reliable = sum(label in RELIABLE_LABELS for _, label in self.names)
        # a relation in the example matters most: an example without one teaches a model to return none
        return len({label for _, label in self.names}) * 2 + (8 if self.verb else 0) + 2 * reliable


@dataclass
class NerProfile:
    """What spaCy saw in the sample: label and noun-phrase head counts, and candidate example sentences."""

    labels: Counter[str] = field(default_factory=Counter)
    heads: Counter[str] = field(default_factory=Counter)
    candidates: list[Candidate] = field(default_factory=list)
    votes: dict[str, Counter[str]] = field(default_factory=dict)  # span text → its labels in the sample

    def types(self, limit: int) -> list[str]:
        """Readable NER types over :data:`MIN_TYPE_SHARE`, most frequent first, then up to a third as many
        frequent noun-phrase heads; ``concept`` (the extractor's fallback type) always last."""
        total = sum(self.labels.values()) or 1
        ranked: Counter[str] = Counter()
        for label, n in self.labels.items():
            if label not in VALUE_LABELS and label in READABLE_LABELS and n / total >= MIN_TYPE_SHARE:
                ranked[READABLE_LABELS[label]] += n
        room = max(1, limit - 1)
        heads = [h for h, n in self.heads.most_common() if n >= MIN_HEAD_COUNT and h not in ranked]
        head_room = min(len(heads), max(1, room // 3))
        chosen = [name for name, _ in ranked.most_common()][: room - head_room]
        chosen += heads[: room - len(chosen)]
        return [*[t for t in chosen if t != "concept"], "concept"]

    def example(self, types: Sequence[str]) -> ExampleItems | None:
        """The best-scoring candidate sentence whose names all have one of ``types``."""
        for candidate in sorted(self.candidates, key=lambda c: -c.score()):
            made = candidate.example(types, self.votes)
            if made is not None and made.grounded():
                return made
        return None


def _majority(name: str, label: str, votes: Mapping[str, Counter[str]]) -> str:
    """The most frequent usable label of ``name`` in the sample (``label`` on a tie or when unseen)."""
    counts = Counter({k: n for k, n in votes.get(name, Counter()).items() if k in READABLE_LABELS})
    if not counts or counts[label] == max(counts.values()):
        return label
    return counts.most_common(1)[0][0]


def profile_texts(nlp: Any, texts: Sequence[str]) -> NerProfile:
    """Run ``nlp`` over ``texts``: NER label counts, noun-phrase head lemmas, candidate example sentences."""
    profile = NerProfile()
    for doc in nlp.pipe(texts):
        profile.labels.update(ent.label_ for ent in doc.ents)
        for ent in doc.ents:
            profile.votes.setdefault(ent.text, Counter())[ent.label_] += 1
        for chunk in _noun_chunks(doc):
            head = chunk.root
            if head.pos_ == "NOUN" and head.ent_type_ == "" and head.is_alpha and len(head.text) > 2:
                lemma = head.lemma_.casefold()
                if lemma not in GENERIC_HEADS:
                    profile.heads[lemma] += 1
        profile.candidates += [c for c in (_candidate(s) for s in doc.sents) if c is not None]
    return profile


def _noun_chunks(doc: Any) -> list[Any]:
    try:
        return list(doc.noun_chunks)
    except (ValueError, NotImplementedError):  # a pipeline without a parser has no noun chunks
        return []


def _candidate(sentence: Any) -> Candidate | None:
    words = len([t for t in sentence if not t.is_punct])
    text = sentence.text.strip()
    if not EXAMPLE_WORDS[0] <= words <= EXAMPLE_WORDS[1] or "\n" in text:
        return None
    spans: dict[str, Span] = {}
    for ent in sentence.ents:
        # one-word PERSON spans are mostly product or team names a small pipeline misreads
        misread = ent.label_ == "PERSON" and len(ent) < 2
        if ent.label_ not in VALUE_LABELS and ent.label_ in READABLE_LABELS and len(ent.text) > 1 and not misread:
            spans.setdefault(ent.text, ent)
    if not 2 <= len(spans) <= 4:
        return None
    first, second = list(spans.values())[:2]
    root = sentence.root
    verb = root.text if root.pos_ in ("VERB", "AUX") and first.end <= root.i < second.start else None
    return Candidate(text, tuple((name, span.label_) for name, span in spans.items()), verb)
