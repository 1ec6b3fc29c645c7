"""LLM-free question generation: known-item questions from the corpus itself.

Every prose sentence of every chunk is parsed with spaCy; each yields at most one candidate (its best
masked span, :mod:`kgrag.evaluation.qgen.cloze`). Precision over yield: every candidate that passed the
checks is scored on positive signs of a good question (:mod:`kgrag.evaluation.qgen.quality`), those below
a floor are dropped, and the best are kept. Two kinds are drawn from them, seeded:

- ``known-item``: one sentence is the evidence, the masked span the answer. Candidates are taken by three
  preferences (:func:`preference`): the question names the page its sentence is on, keeps every content
  word of its sentence, and has the trusted shape; each group by quality; one per document before any
  document gets a second, and near-duplicates are dropped. ``learned=True`` takes them by the chance that a
  reader finds them usable as they are instead (:mod:`kgrag.evaluation.qgen.usability`, a model fitted on
  the verdicts of blind reads): held out within the reads its first half was usable more often than the
  whole read, but read blind on fresh sites beside the preferences, from the same candidates, it was not
  (figures in ``docs/results/qgen-llm-free.md``).
- ``two-chunk``: two known-item questions about the same named entity whose evidence lies in different
  chunks, asked together; kept only when neither chunk holds both answers, so no single passage answers
  it. The answer is both answers, the evidence both sentences.

Each kept question names the headings its sentence sits under (:mod:`kgrag.evaluation.qgen.scope`), so a
sentence lifted from its page keeps what the page is about.

Such questions test whether a pipeline finds the passage a user is looking for; they are lexical by
construction (the question reuses the evidence sentence's words), which favours word-matching retrieval.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.documents.provenance import authored_title, changelog_source, changelog_title
from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import LLM_FREE_KINDS, QAItem
from kgrag.evaluation.qgen.checks import is_duplicate, jaccard
from kgrag.evaluation.qgen.cloze import Cloze, Passage, Rarity, clozes, prose_lines
from kgrag.evaluation.qgen.generate import ItemMeta, PerKind, QGenResult, count_for
from kgrag.evaluation.qgen.lookups import Lookups
from kgrag.evaluation.qgen.paragraphs import prose_texts
from kgrag.evaluation.qgen.placing import paged, scope_candidates, with_headings
from kgrag.evaluation.qgen.quality import MIN_QUALITY, trusted_shape
from kgrag.evaluation.qgen.scope import Heading, scoped_body, unscoped
from kgrag.evaluation.qgen.usability import features, shipped_model
from kgrag.store import Store

PAIRS_PER_TOPIC = 2
PARSE = "parse lines"
"""The progress stage of parsing the corpus's prose lines with spaCy."""
SEARCH = "find answers"
"""The progress stage of searching each passage's sentences for a span to ask about."""
CHANGELOG_SKIPPED = "passage of a changelog or release notes (evaluation.qgen_changelogs)"
EVIDENCE_OVERLAP = 0.6
"""Known-item questions whose evidence sentences share this share of content words are near-duplicates
(the same sentence repeated in overlapping chunks or restated a page later)."""


def parse_candidates(
    passages: Sequence[Passage],
    nlp: Any,
    rarity: Rarity,
    rejected: Counter[str],
    strict: bool = True,
    trimmed: bool = False,
    progress: Progress | None = None,
) -> list[Cloze]:
    """Every passage's candidates, in passage order (``nlp``: a loaded spaCy pipeline; ``strict``: the
    defect checks of :mod:`kgrag.evaluation.qgen.defects`; ``trimmed``: sentences too long to ask whole
    are asked with parts left out, :func:`kgrag.evaluation.qgen.cloze.make_cloze`). Parsing every line,
    then searching every passage, is nearly all of the generation's time: ``progress`` counts both
    (stages :data:`PARSE` and :data:`SEARCH`)."""
    shown = progress or SilentProgress()
    texts = prose_texts(passages)  # a chunk cut from inside a long code block holds no fence to tell it by
    lines = [(p, line) for p in passages for line in prose_lines(texts[p.chunk_id])]
    docs_by_chunk: dict[str, list[Any]] = defaultdict(list)
    shown.start(PARSE, len(lines))
    for (passage, _), doc in zip(lines, nlp.pipe([line for _, line in lines], batch_size=64), strict=True):
        docs_by_chunk[passage.chunk_id].append(doc)
        rarity.labels.add(doc)  # every name's labels are counted before any is asked about
        shown.advance(PARSE)
    shown.finish(PARSE)
    found: list[Cloze] = []
    shown.start(SEARCH, len(passages))
    for passage in passages:
        found += clozes(passage, docs_by_chunk.get(passage.chunk_id, []), rarity, rejected, strict, trimmed)
        shown.advance(SEARCH)
    shown.finish(SEARCH)
    return found


def _shuffled(items: Iterable[Cloze], rng: random.Random) -> list[Cloze]:
    ordered = sorted(items, key=lambda c: (c.chunk_id, c.sentence, c.answer))
    rng.shuffle(ordered)
    return ordered


def _fill(group: Sequence[Cloze], count: int, threshold: float, kept: list[Cloze]) -> None:
    """Adds to ``kept`` from ``group`` (best first) until ``count``: one per document before any gets a
    second, then one per chunk the same way, no near-duplicates of the question or evidence sentence."""
    kept_words = [content_words(c.question) for c in kept]
    kept_evidence = [content_words(c.sentence) for c in kept]
    per_doc = Counter(c.doc_id for c in kept)
    per_chunk = Counter(c.chunk_id for c in kept)
    most = max(Counter(c.doc_id for c in group).values(), default=0) + max(per_doc.values(), default=0)
    for cap in range(1, 1 + most):  # a cap above the most candidates of one document binds nothing
        for c in group:
            if len(kept) >= count:
                return
            if (
                c in kept
                or per_doc[c.doc_id] >= cap
                or per_chunk[c.chunk_id] >= cap
                or is_duplicate(c.question, kept_words, threshold)
                or is_duplicate(c.sentence, kept_evidence, EVIDENCE_OVERLAP)
            ):
                continue
            kept.append(c)
            kept_words.append(content_words(c.question))
            kept_evidence.append(content_words(c.sentence))
            per_doc[c.doc_id] += 1
            per_chunk[c.chunk_id] += 1


def preference(c: Cloze, headed: bool) -> tuple[bool, bool, bool]:
    """What a candidate is asked for first, in this order (module docstring): its question names the
    page its sentence is on (``headed``), keeps every content word of its sentence (``Cloze.whole``),
    and has the trusted shape (:func:`kgrag.evaluation.qgen.quality.trusted_shape`)."""
    return headed, c.whole, trusted_shape(c.answer, c.question)


def pick_known_items(
    candidates: Sequence[Cloze],
    count: int,
    rng: random.Random,
    threshold: float,
    min_quality: float = MIN_QUALITY,
    learned: bool = False,
    headed: Collection[Cloze] = (),
    scoped: Collection[Cloze] = (),
) -> list[Cloze]:
    """``count`` candidates, none below ``min_quality``, spread over documents (:func:`_fill`): by
    :func:`preference` (``headed``: the candidates whose question names their page), each group by quality and
    filled before the next; ties in seeded order. ``learned=True`` takes the likeliest usable first instead
    (:mod:`kgrag.evaluation.qgen.usability`; ``scoped``: the candidates whose question will name headings), ties
    by quality: read blind on fresh corpora it picked no more usable questions and ranked pipelines no closer
    to hand-written questions (``docs/results/qgen-llm-free.md``), so it is not the default."""
    ordered = sorted(
        (c for c in _shuffled(candidates, rng) if c.quality >= min_quality), key=lambda c: -round(c.quality, 6)
    )
    kept: list[Cloze] = []
    if learned:
        model = shipped_model()
        chance = {c: model.probability(_features(c, c in scoped)) for c in ordered}
        _fill(sorted(ordered, key=lambda c: -round(chance[c], 9)), count, threshold, kept)
        return kept
    groups: dict[tuple[bool, ...], list[Cloze]] = defaultdict(list)
    for c in ordered:
        groups[preference(c, c in headed)].append(c)
    for key in sorted(groups, reverse=True):
        _fill(groups[key], count, threshold, kept)
    return kept


def _features(c: Cloze, scoped: bool) -> tuple[float, ...]:
    """The usability features of ``c`` as its question will read: a question that will name headings is read
    after them (:func:`kgrag.evaluation.qgen.scope.scoped_body`), as the verdicts the model was fitted on read."""
    asked = scoped_body(c.question, c.name_first) if scoped else c.question
    return features(asked, c.answer, c.sentence, headed=scoped)


def _pairable(a: Cloze, b: Cloze, rarity: Rarity) -> bool:
    """Different chunks, different answers, neither chunk holding both answers, no answer in the other
    question."""
    return (
        a.chunk_id != b.chunk_id
        and not content_words(a.answer) & content_words(b.answer)
        and jaccard(content_words(a.question), content_words(b.question)) < 0.5
        and not rarity.contains(a.chunk_id, b.answer)
        and not rarity.contains(b.chunk_id, a.answer)
        and not content_words(a.answer) & content_words(b.question)
        and not content_words(b.answer) & content_words(a.question)
    )


def pick_pairs(
    candidates: Sequence[Cloze], count: int, rng: random.Random, rarity: Rarity
) -> list[tuple[Cloze, Cloze]]:
    """Up to ``count`` pairs of candidates sharing a named entity (each candidate in one pair at most,
    a second pair per entity only once every entity had its turn), seeded."""
    by_topic: dict[str, list[Cloze]] = defaultdict(list)
    for c in _shuffled(candidates, rng):
        for topic in c.topics:
            if 2 <= rarity.phrase_df(topic) <= max(5, round(0.2 * rarity.n)):
                by_topic[topic].append(c)
    topics = sorted(by_topic)
    rng.shuffle(topics)
    pairs: list[tuple[Cloze, Cloze]] = []
    used: set[Cloze] = set()
    for topic in topics * PAIRS_PER_TOPIC:
        group = [c for c in by_topic[topic] if c not in used]
        found = next(((a, b) for i, a in enumerate(group) for b in group[i + 1 :] if _pairable(a, b, rarity)), None)
        if found is not None:
            pairs.append(found)
            used.update(found)
        if len(pairs) >= count:
            break
    return pairs


def store_passages(store: Store) -> list[Passage]:
    """Every chunk of a workspace's store as question generation reads it, with its document's own title
    (:func:`kgrag.documents.provenance.authored_title`) and whether the document is a changelog
    (:func:`kgrag.documents.provenance.changelog_source`, by its path, or its title,
    :func:`kgrag.documents.provenance.changelog_title`)."""
    documents = {d.id: d for d in store.documents.list()}
    titles = {i: authored_title(d.title, d.source) for i, d in documents.items()}
    changelogs = {i for i, d in documents.items() if changelog_source(d.source) or changelog_title(d.title)}
    return [
        Passage(c.id, c.doc_id, c.text, c.char_start, titles.get(c.doc_id, ""), c.doc_id in changelogs)
        for c in store.chunks.iter_all()
    ]


def _qid(kind: str, question: str) -> str:
    return "ki-" + hashlib.sha1(f"{kind}|{question}".encode()).hexdigest()[:10]


def _single(c: Cloze) -> tuple[QAItem, ItemMeta]:
    item = QAItem(_qid("known-item", c.question), c.question, c.answer, "known-item", [c.sentence])
    meta: ItemMeta = {
        "chunk_ids": [c.chunk_id],
        "answer_label": c.label,
        "template": c.template,
        "quality": round(c.quality, 3),
    }
    if c.headings:
        meta["headings"] = list(c.headings)
    chance = shipped_model().probability(features(unscoped(c.question), c.answer, c.sentence, headed=bool(c.headings)))
    meta["usability"] = round(chance, 3)
    return item, meta


def _joined(a: Cloze, b: Cloze) -> tuple[QAItem, ItemMeta]:
    second = b.question
    if not b.name_first or b.headings:  # "Also, in the section …": a name opens only an unscoped question
        second = second[0].lower() + second[1:]
    question = f"{a.question} Also, {second}"
    answer, evidence = f"{a.answer}; {b.answer}", [a.sentence, b.sentence]
    item = QAItem(_qid("two-chunk", question), question, answer, "two-chunk", evidence)
    meta: ItemMeta = {
        "chunk_ids": [a.chunk_id, b.chunk_id],
        "answer_label": f"{a.label}+{b.label}",
        "template": f"{a.template}+{b.template}",
        "quality": round(min(a.quality, b.quality), 3),
    }
    if a.headings or b.headings:
        meta["headings"] = [*a.headings, *b.headings]
    return item, meta


def _above_floor(candidates: Sequence[Cloze], min_quality: float, result: QGenResult) -> list[Cloze]:
    """The candidates at or above the quality floor; ``result`` counts them all, those below among the
    rejections, and notes how many above have the trusted shape."""
    result.generated = len(candidates)
    below = sum(c.quality < min_quality for c in candidates)
    if below:
        result.rejected[f"quality below {min_quality:.2f} (kgrag.evaluation.qgen.quality)"] += below
    good = [c for c in candidates if c.quality >= min_quality]
    trusted = sum(trusted_shape(c.answer, c.question) for c in good)
    result.notes.append(f"{trusted} of {len(good)} candidates above the quality floor have the trusted shape")
    return good


def _shortfall(kept: int, asked: int, trimmed: bool, changelogs_skipped: bool) -> str:
    """Why fewer known-item questions than asked were kept, and what gives more."""
    line = (
        f"only {kept} known-item questions of the {asked} asked: few sentences of this corpus make questions "
        "that pass the checks and the quality floor"
    )
    more = []
    if not trimmed:
        more.append("evaluation.qgen_trimmed = true also asks long sentences with parts left out")
    if changelogs_skipped:
        more.append("evaluation.qgen_changelogs = true also asks changelogs and release notes")
    return line + (f"; {'; '.join(more)} (more questions, usable less often)" if more else "")


def _pair_shortfall(kept: int, asked: int, good: int) -> str:
    """Why fewer two-chunk questions than asked were made."""
    return (
        f"only {kept} two-chunk questions of the {asked} asked: a pair needs two sentences of different passages "
        f"that pass the checks and name the same thing, a name a few passages of the corpus share, and the "
        f"{good} sentences above the quality floor held {'no such pair' if not kept else 'no more such pairs'}"
    )


def _check_kinds(kinds: Sequence[str]) -> None:
    """A kind this generator does not make is one clear error naming it, before anything is parsed."""
    if unknown := [k for k in kinds if k not in LLM_FREE_KINDS]:
        raise KgragError(
            f"unknown question kind(s) without an LLM: {', '.join(unknown)}; choose from {', '.join(LLM_FREE_KINDS)}"
        )


def known_item_questions(
    passages: Sequence[Passage],
    nlp: Any,
    kinds: Sequence[str],
    per_kind: PerKind,
    *,
    seed: int = 0,
    dedup_threshold: float = 0.8,
    on_question: Callable[[], None] | None = None,
    strict: bool = True,
    min_quality: float = MIN_QUALITY,
    learned: bool = False,
    scope: bool = True,
    trimmed: bool = False,
    changelogs: bool = False,
    lookups: Lookups | None = None,
    progress: Progress | None = None,
) -> QGenResult:
    """Up to ``per_kind`` questions of each of ``kinds`` (``known-item``, ``two-chunk``) from
    ``passages``; the same passages, pipeline and seed give the same questions. ``strict=False`` leaves out
    the defect checks (kept to measure what they change); ``min_quality=0`` keeps candidates of any
    quality (:mod:`kgrag.evaluation.qgen.quality`); ``learned=True`` ranks by the usability model instead of
    :func:`preference` and quality (:func:`pick_known_items`); ``scope=False`` leaves the headings
    above each sentence out of its question (:func:`kgrag.evaluation.qgen.placing.with_headings`);
    ``trimmed=True`` also asks sentences too long to ask whole with parts left out
    (:func:`kgrag.evaluation.qgen.cloze.make_cloze`); ``changelogs=True`` also cuts questions from
    changelogs and release notes (``Passage.changelog``), which otherwise count in the corpus's statistics
    but give no question; ``lookups`` (a gazetteer, first names) let a place be asked by its kind ("which city")
    and a person named by a first name "who" (:mod:`kgrag.evaluation.qgen.lookups`); ``progress`` is told how
    the parsing and the search go (:func:`parse_candidates`)."""
    _check_kinds(kinds)
    ordered = sorted(passages, key=lambda p: p.chunk_id)
    result, rarity = QGenResult(), Rarity(ordered, lookups)
    questioned = [p for p in ordered if changelogs or not p.changelog]
    if skipped := len(ordered) - len(questioned):
        result.rejected[CHANGELOG_SKIPPED] += skipped
    candidates = parse_candidates(questioned, nlp, rarity, result.rejected, strict, trimmed, progress)
    good = _above_floor(candidates, min_quality, result)
    made: list[tuple[QAItem, ItemMeta]] = []
    named: dict[Cloze, tuple[Heading, ...]] = {}
    if scope:
        candidates, good, named = scope_candidates(candidates, good, ordered, result)
    if "known-item" in kinds:
        count, rng = count_for(per_kind, "known-item"), random.Random(seed)
        scoped = {c for c, these in named.items() if these}
        picked = pick_known_items(candidates, count, rng, dedup_threshold, min_quality, learned, paged(named), scoped)
        made += [_single(c) for c in with_headings(picked, named)]
        if len(picked) < count:
            result.notes.append(_shortfall(len(picked), count, trimmed, skipped > 0))
    if "two-chunk" in kinds:
        asked = count_for(per_kind, "two-chunk")
        pairs = pick_pairs(good, asked, random.Random(seed + 1), rarity)
        both = with_headings([c for pair in pairs for c in pair], named)
        made += [_joined(a, b) for a, b in zip(both[::2], both[1::2], strict=True)]
        if len(pairs) < asked:
            result.notes.append(_pair_shortfall(len(pairs), asked, len(good)))
    _record(result, made, on_question)
    return result


def _record(
    result: QGenResult, made: Sequence[tuple[QAItem, ItemMeta]], on_question: Callable[[], None] | None
) -> None:
    """Adds the questions made to ``result``, telling ``on_question`` of each."""
    for item, meta in made:
        result.items.append(item)
        result.meta[item.id] = meta
        if on_question is not None:
            on_question()
