"""The LLM-free answer: the retrieved sentences that answer the question, each with its citation, or
"not found in the documents" when none does.

Every sentence of the retrieved passages that can state a fact (not a heading, a signature, code or a
question: :mod:`.sentence_kinds`; a lead-in ending in a colon only with the command it introduces) is
scored by

* **coverage**: the share of the question's content words the sentence contains, each word weighted by
  its rarity among the candidate sentences (a name the passages rarely repeat counts more than a word
  every passage shares), words compared by a light stem ("owns" = "owned", "led" = "leads"); a word only
  the sentence's passage holds (a heading or signature above it names the subject) counts ``PASSAGE_CREDIT``;
* an **answer-type cue** (:mod:`.answer_cues`): the kind of thing the question asks for — a person for
  *who*, a date for *when*, a number for *how many*, a duration for *how long* — is in the sentence and
  not already in the question;
* the **rank of its passage**, a small tie-breaker;
* with ``embedding`` ranking only, the cosine to the question (one embedding per candidate sentence).

The best sentence comes first, with the sentences scoring at least ``NEAR_SHARE`` of it on their own (a
passage often states the fact in a sentence matching fewer question words than its neighbour); then, up
to ``generation.extractive_sentences``, the sentence adding most of what is still uncovered (a two-part
question gets a sentence per part), while it scores at least ``SECOND_SHARE`` of the first. When the best
sentence covers less than ``generation.extractive_min_coverage`` of the question, no passage states the
answer and the answer is :data:`NOT_FOUND` (``idk``), citing nothing; the closest sentence stays in
``evidence``. So is it when the question names something (a capitalised word past its first) that no
retrieved passage contains: whatever those sentences say, they are not about it. A sentence is stated
only when it answers what is asked (:mod:`.abstain`): an exception name for "what does X raise", a
version for "since which version", the subject doing what a yes/no question asks; the best such sentence
replaces one that only repeats the question's words, and with none the answer is "not found". ``lexical`` (and
``auto``) load no model. Figures and the threshold's calibration:
docs/results/extractive-answer.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from kgrag.core.context import RetrievalResult
from kgrag.documents.words import ordered_content_words
from kgrag.generation.abstain import (
    MISSING_SHARE,
    condition_words,
    holds_kinds,
    holds_predicate,
    identifiers_held,
    kind_named,
    missing_share,
    missing_subject,
    names_another,
    predicate_words,
    required_kinds,
    subject_terms,
)
from kgrag.generation.answer_cues import answer_types, cue_share
from kgrag.generation.answer_sentences import Candidate
from kgrag.generation.answer_sentences import candidates as quotable
from kgrag.generation.stemming import stem
from kgrag.generation.types import Answer, Evidence
from kgrag.models.embeddings import Embedder

CUE_WEIGHT = 0.25
RANK_WEIGHT = 0.05
NEAR_SHARE = 0.7  # sentences scoring this close to the best join it (bench/bench_extractive_answer.py)
SECOND_SHARE = 0.3  # a sentence adding uncovered question words joins when this close to the best one
PASSAGE_CREDIT = 0.3  # a question word found in the sentence's passage but not in the sentence
REPEAT_CREDIT = 0.3  # a question word a chosen sentence already holds, held again by the next one
DEFAULT_MIN_COVERAGE = 0.25  # generation.extractive_min_coverage; calibration: docs/results/extractive-answer.md
Ranking = Literal["embedding", "lexical"]
NO_CONTEXT = "I don't know: nothing relevant was retrieved for this question."
NOT_FOUND = "Not found in the documents: no retrieved passage states an answer to this question."
_COMPOUND = re.compile(r"[A-Za-z0-9]+(?:[-_./:][A-Za-z0-9]+)+")
# Capitalised words inside a question that are not names (an "I", a second question's lead word).
QUESTION_LEAD = frozenset("i who what when where which why how is are does do did can could should and or".split())
# Words that say how the question is asked, not what it is about.
QUESTION_WORDS = frozenset(
    "many much long often far old big large kind sort name named happen happened happens tell describe "
    "explain list give mean means exactly difference differences between compare comparison versus vs".split()
)


_CAPITALISED = re.compile(r"\b[A-ZÀ-Ö][\w'-]*")


def question_names(question: str) -> list[str]:
    """The names a question asks about: its capitalised words after the first, without digits (identifiers
    such as ``INC-2023-012`` are left to coverage: a multi-hop question may name an incident its answering
    passage does not repeat)."""
    rest = " ".join(question.split()[1:])
    words = _CAPITALISED.findall(rest)
    return list(dict.fromkeys(w for w in words if w.lower() not in QUESTION_LEAD and not any(c.isdigit() for c in w)))


def unmentioned_name(question: str, candidates: Sequence[Candidate]) -> str | None:
    """A name of the question whose words no retrieved passage holds (then no sentence is about it)."""
    present: frozenset[str] = frozenset().union(*_passages(candidates))
    return next((name for name, stems in _name_stems(question) if not stems <= present), None)


def _passages(candidates: Sequence[Candidate]) -> list[frozenset[str]]:
    """The word sets of the candidates' passages, each once (the sentences of one passage share its set)."""
    return list({id(c.passage): c.passage for c in candidates}.values())


def _name_stems(question: str) -> list[tuple[str, frozenset[str]]]:
    """The question's names (:func:`question_names`), each with the stems a passage must hold to name it."""
    named = ((name, frozenset(stem(w) for w in ordered_content_words(name))) for name in question_names(question))
    return [(name, stems) for name, stems in named if stems]


def question_terms(question: str) -> dict[str, float]:
    """The stems an answer should contain, each with its share: the question's content words minus
    how-it-is-asked words; the parts of one compound ("INC-2024-031", "follow_symlinks") share one word's
    weight, so an identifier does not outweigh the rest of the question."""
    shares: dict[str, float] = {}
    for compound in _COMPOUND.findall(question):
        parts = [stem(w) for w in ordered_content_words(compound)]
        for part in parts:
            shares[part] = min(shares.get(part, 1.0), 1.0 / len(parts))
    terms = [stem(w) for w in ordered_content_words(question) if w not in QUESTION_WORDS]
    return {term: shares.get(term, 1.0) for term in dict.fromkeys(terms)}


def _held(terms: Sequence[str], candidates: Sequence[Candidate]) -> np.ndarray:
    """(candidates x terms): 1 where the sentence holds the term, ``PASSAGE_CREDIT`` where only its
    passage does (a heading or signature above it names the subject), else 0."""
    return np.array(
        [[1.0 if t in c.words else PASSAGE_CREDIT if t in c.passage else 0.0 for t in terms] for c in candidates]
    ).reshape(len(candidates), len(terms))


def term_weights(terms: dict[str, float], held: np.ndarray) -> np.ndarray:
    """Each term's weight: its share times BM25's IDF over the candidate sentences, counted from ``held``
    (:func:`_held`: 1 where a sentence itself holds the term). A term in no candidate weighs most, so a
    question about something the passages never mention covers little."""
    n = held.shape[0]
    dfs = (held == 1.0).sum(axis=0).tolist()
    pairs = zip(terms.values(), dfs, strict=True)
    return np.array([share * math.log(1 + (n - df + 0.5) / (df + 0.5)) for share, df in pairs])


@dataclass(frozen=True)
class _Scored:
    terms: list[str]
    held: np.ndarray  # candidates x terms
    weights: np.ndarray  # terms, summing to 1
    bonus: np.ndarray  # per candidate: cue, rank prior and (embedding ranking) cosine
    coverage: np.ndarray  # per candidate: the weighted share of the question's terms it holds
    cues: np.ndarray  # per candidate: the share of the asked-for kinds of answer it holds

    def gains(self, covered: np.ndarray) -> np.ndarray:
        """Scores given the terms already ``covered`` by chosen sentences: new terms count fully, terms
        covered again count ``REPEAT_CREDIT`` (so a second sentence adds what the first one lacks)."""
        fresh = np.clip(self.held - covered, 0, None)
        again = self.held - fresh
        return np.asarray((fresh + REPEAT_CREDIT * again) @ self.weights) + self.bonus


def _score(question: str, candidates: Sequence[Candidate], embedder: Embedder | None, ranking: Ranking) -> _Scored:
    terms = question_terms(question)
    held = _held(list(terms), candidates)
    weights = term_weights(terms, held)
    total = weights.sum()
    if total > 0:
        weights = weights / total
    coverage = held @ weights
    kinds, lowered = answer_types(question), question.lower()
    cues = np.array([cue_share(kinds, c.text, lowered) for c in candidates])
    bonus = CUE_WEIGHT * cues * (coverage > 0) + RANK_WEIGHT * np.array([1.0 / (1 + c.rank) for c in candidates])
    if ranking == "embedding" and embedder is not None:
        vectors = embedder.embed([question, *(c.text for c in candidates)])
        bonus = bonus + np.asarray(vectors[1:] @ vectors[0])
    return _Scored(list(terms), held, weights, bonus, coverage, cues)


def _choose(scored: _Scored, n_sentences: int) -> list[int]:
    """Up to ``n_sentences``: the best sentence and those scoring at least ``NEAR_SHARE`` of it on their own
    (the passages often state a fact in a sentence that matches fewer question words than its neighbour),
    then, while room is left, the sentence adding most of what is still uncovered, kept only when it
    scores at least ``SECOND_SHARE`` of the best and holds a term none of them holds (a two-part question
    gets a sentence per part; a passage's heading naming the term adds nothing to the answer)."""
    alone = scored.gains(np.zeros(scored.held.shape[1]))
    order = [int(i) for i in np.argsort(-alone, kind="stable")]
    first = float(alone[order[0]])
    chosen = [i for i in order[:n_sentences] if alone[i] >= NEAR_SHARE * first] or order[:1]
    covered = np.max(scored.held[chosen] == 1.0, axis=0).astype(float)  # words they hold, not their passages
    while len(chosen) < min(n_sentences, len(order)):
        gains = scored.gains(covered)
        gains[chosen] = -np.inf
        best = int(np.argmax(gains))
        adds = float(np.clip((scored.held[best] == 1.0) - covered, 0, None) @ scored.weights)
        if gains[best] < SECOND_SHARE * first or adds <= 0:
            break
        chosen.append(best)
        covered = np.maximum(covered, scored.held[best] == 1.0)
    return chosen


def extractive_answer(
    question: str,
    result: RetrievalResult,
    embedder: Embedder | None,
    n_sentences: int,
    ranking: Ranking = "lexical",
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> Answer:
    """Up to ``n_sentences`` sentences of the retrieved context that answer ``question``, best first,
    citing their chunks; :data:`NOT_FOUND`, with the reason, when no sentence answers it
    (:mod:`kgrag.generation.abstain`: the best covers less than ``min_coverage`` of the question, the
    question names something no passage holds, or the passages are not about its subject)."""
    candidates = quotable(result)
    if not candidates:
        return Answer(text=NO_CONTEXT, citations=[], mode="extractive", idk=True)
    scored = _score(question, candidates, embedder, ranking)
    chosen = _choose(scored, n_sentences)
    coverage = scored.coverage
    chosen, reason = _check(question, candidates, scored, chosen, min_coverage)
    if reason:
        best = [_evidence(candidates[i], float(coverage[i])) for i in chosen[:1]]
        text = f"{NOT_FOUND.removesuffix('.')} ({reason})."
        return Answer(text=text, citations=[], mode="extractive", idk=True, evidence=best)
    chosen = _without_repeats(chosen, candidates)
    evidence = [_evidence(candidates[i], float(coverage[i])) for i in chosen]
    text = " ".join(f"{candidates[i].text} [{candidates[i].chunk_id}]" for i in chosen)
    return Answer(
        text=text,
        citations=list(dict.fromkeys(candidates[i].chunk_id for i in chosen)),
        mode="extractive",
        evidence=evidence,
    )


def _without_repeats(chosen: list[int], candidates: Sequence[Candidate]) -> list[int]:
    """``chosen`` without a sentence another chosen one already quotes whole (overlapping passages cut the
    same text in different places)."""
    texts = [candidates[i].text.casefold() for i in chosen]

    def quoted(n: int) -> bool:
        return any(
            texts[n] in other and (len(other) > len(texts[n]) or m < n) for m, other in enumerate(texts) if m != n
        )

    return [i for n, i in enumerate(chosen) if not quoted(n)]


def _check(
    question: str, candidates: Sequence[Candidate], scored: _Scored, chosen: list[int], min_coverage: float
) -> tuple[list[int], str]:
    """The sentences to state, or why none is stated: a name or subject no passage holds, a question
    mostly off the passages, no sentence of the asked-for kind, too little coverage. Sentences that are not
    about the question's subject or do not answer its kind give way to the best one that does."""
    if min_coverage <= 0:
        return chosen, ""
    reason = _off_passages(question, candidates, scored)
    if reason:
        return chosen, reason
    about = _about(question, candidates)
    required, predicate = required_kinds(question), predicate_words(question)
    condition = condition_words(question) if required else ()

    def fits(i: int) -> bool:
        """About the subject, of the asked-for kind, for the question's condition (half its words), and
        saying what a yes/no question asks."""
        text, words = candidates[i].text, candidates[i].words
        kind = holds_kinds(required, text, question) and holds_predicate(condition, words, stem, 0.5)
        return about(i) and kind and holds_predicate(predicate, words, stem)

    kept = [i for i in chosen if fits(i)]
    if not kept:
        alone = scored.gains(np.zeros(scored.held.shape[1]))
        kept = [i for i in (int(j) for j in np.argsort(-alone, kind="stable")) if fits(i)][:1]
    if not kept:
        return chosen, _why_none(question, candidates, about, required, predicate)
    chosen = kept
    best = float(scored.coverage[chosen[0]])
    subjects = subject_terms(question, stem)
    identified = bool(subjects) and scored.cues[chosen[0]] > 0  # its passage names the subject, it holds the kind
    if best < min_coverage and not identified:
        return chosen, f"the best sentence covers {best:.2f} of the question, under this corpus's {min_coverage:.2f}"
    return chosen, ""


def _off_passages(question: str, candidates: Sequence[Candidate], scored: _Scored) -> str:
    """Why the passages are not about the question at all (a name none holds, most words in none), or ""."""
    name = unmentioned_name(question, candidates)
    if name is not None:
        return f"no retrieved passage mentions {name}"
    passages = _passages(candidates)
    off = missing_share(scored.terms, np.array(list(question_terms(question).values())), passages)
    if not subject_terms(question, stem) and off > MISSING_SHARE:  # a named identifier keeps it on them
        return f"{off:.0%} of the question's words are in no retrieved passage"
    return ""


def _about(question: str, candidates: Sequence[Candidate]) -> Callable[[int], bool]:
    """Whether a sentence's passage holds every identifier the question names (as written; a subject named by
    its kind named as such), and its names (most of them, when it names more than two: a long question
    names people its answer need not repeat), and the sentence is not about another thing of the subject's
    kind (:func:`names_another`)."""
    subjects = subject_terms(question, stem)
    names = [stems for _, stems in _name_stems(question)]

    def about(i: int) -> bool:
        passage, candidate = candidates[i].passage, candidates[i]
        held = sum(n <= passage for n in names)
        source = candidate.source
        if names_another(question, candidate.text) or not (
            identifiers_held(question, source) and kind_named(question, source)
        ):
            return False
        return missing_subject(subjects, passage) is None and held >= (
            len(names) if len(names) <= 2 else len(names) / 2
        )

    return about


def _why_none(
    question: str,
    candidates: Sequence[Candidate],
    about: Callable[[int], bool],
    required: Sequence[str],
    predicate: Sequence[str],
) -> str:
    """The reason no sentence was kept: none is about the subject, none holds the asked-for kind, or
    none says what a yes/no question asks."""
    on_subject = [i for i in range(len(candidates)) if about(i)]
    if not on_subject:
        return f"no retrieved passage is about {_unheld(question, candidates)}"
    condition = condition_words(question) if required else ()
    if not any(
        holds_kinds(required, candidates[i].text, question)  # type: ignore[arg-type]
        and holds_predicate(condition, candidates[i].words, stem, 0.5)
        for i in on_subject
    ):
        return f"no retrieved sentence states the {' or '.join(required)} asked for"
    return f"no retrieved sentence about it says whether it does what the question asks ({' '.join(predicate)})"


def _unheld(question: str, candidates: Sequence[Candidate]) -> str:
    """What to name as missing: the first subject or name of the question no retrieved passage holds; when
    each is held by some passage but none holds them all ("plpy.execute" in one, "PL/Python" in another),
    all of them, "together"; else the first subject or name."""
    passages = _passages(candidates)
    things = [*subject_terms(question, stem), *_name_stems(question)]
    if not things:
        return "what the question names"
    unheld = next((name for name, stems in things if not any(stems <= passage for passage in passages)), None)
    if unheld is not None:
        return unheld
    every = frozenset().union(*(stems for _, stems in things))
    if len(things) > 1 and not any(every <= passage for passage in passages):
        listed = [name for name, _ in things]
        return f"{', '.join(listed[:-1])} and {listed[-1]} together"
    return things[0][0]


def _evidence(candidate: Candidate, coverage: float) -> Evidence:
    return {"sentence": candidate.text, "chunk_id": candidate.chunk_id, "coverage": round(coverage, 4)}
