"""What a retrieval evaluation's evidence lets it measure, told before its tables are read.

Two things silently change what a recall figure means. A question without usable evidence is not scored
at all, so the report covers fewer questions than the file holds. An evidence sentence that no single
chunk of the index holds (at the recall threshold, in the way :mod:`kgrag.evaluation.recall` counts a hit)
can never be recalled by a pipeline that hands over whole chunks: it was paraphrased across sentences the
chunker put apart, copied with something the indexed page does not say, or copied from another version of
the page. Every pipeline then scores lower by the same amount and the differences between them shrink,
while nothing in the tables shows why. :func:`check_evidence` finds both, reading every chunk once (memory
follows the evidence, not the index), and :meth:`EvidenceCheck.lines` says so in the report.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from kgrag.documents.words import content_words
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_word_forms, holds, usable_evidence

SHOWN = 5
"""Question ids named in a note before the rest are counted."""


class EvidenceCheckPayload(TypedDict):
    """The check as the report's JSON keeps it."""

    questions: int
    unscored: list[str]
    sentences: int
    unheld: dict[str, list[str]]


@dataclass(frozen=True)
class EvidenceCheck:
    """``unscored``: ids of the questions without usable evidence; ``unheld``: per question id, its
    evidence sentences held by no chunk; ``sentences``: usable evidence sentences in all."""

    questions: int
    sentences: int
    threshold: float
    unscored: list[str] = field(default_factory=list)
    unheld: dict[str, list[str]] = field(default_factory=dict)

    def payload(self) -> EvidenceCheckPayload:
        return {
            "questions": self.questions,
            "unscored": self.unscored,
            "sentences": self.sentences,
            "unheld": self.unheld,
        }

    @classmethod
    def from_payload(cls, payload: object, threshold: float) -> EvidenceCheck | None:
        """The check as a stored run's payload keeps it; None when the run has none."""
        if not isinstance(payload, dict):
            return None
        unheld = payload.get("unheld") or {}
        return cls(
            questions=int(payload.get("questions", 0)),
            sentences=int(payload.get("sentences", 0)),
            threshold=threshold,
            unscored=[str(q) for q in payload.get("unscored") or []],
            unheld={str(q): [str(s) for s in v] for q, v in unheld.items()} if isinstance(unheld, dict) else {},
        )

    def lines(self) -> list[str]:
        """The report's "Evidence" paragraph (and the blank line after it); none when there is nothing to say."""
        notes = []
        if self.unscored:
            notes.append(
                f"{len(self.unscored)} of {self.questions} questions have no evidence to score (an `evidence` list "
                f"of sentences from the documents) and are left out of every figure: {_ids(self.unscored)}."
            )
        if self.unheld:
            missing = sum(len(v) for v in self.unheld.values())
            reachable = 1 - missing / self.sentences if self.sentences else 0.0
            notes.append(
                f"{missing} of {self.sentences} evidence sentences ({len(self.unheld)} questions: "
                f"{_ids(list(self.unheld))}) are held by no single chunk of the index (≥ {self.threshold:.0%} of "
                f"their content words), so no pipeline handing over whole chunks can recall them; whole chunks can "
                f"reach {reachable:.0%} of the evidence. Evidence that paraphrases several sentences is often like "
                "this; evidence meant to be copied from the documents should be checked against them (the JSON's "
                "`evidence_check` lists the sentences)."
            )
        return [f"**Evidence.** {' '.join(notes)}", ""] if notes else []


def check_evidence(items: Sequence[QAItem], chunk_texts: Iterable[str], threshold: float) -> EvidenceCheck:
    """The check of ``items``' evidence against every chunk text of the index (read once, in any order)."""
    sentences = {item.id: usable_evidence(item.evidence) for item in items}
    forms = [(qid, s, form) for qid, usable in sentences.items() for s in usable for form in evidence_word_forms(s)]
    where = _prefix_index([form for _, _, form in forms], threshold)
    held: set[tuple[str, str]] = set()
    for text in chunk_texts:
        words = content_words(text)
        near = {i for word in words for i in where.get(word, ())}
        held.update(forms[i][:2] for i in near if forms[i][:2] not in held and holds(forms[i][2], words, threshold))
    unheld = {qid: [s for s in usable if (qid, s) not in held] for qid, usable in sentences.items()}
    return EvidenceCheck(
        questions=len(items),
        sentences=sum(len(usable) for usable in sentences.values()),
        threshold=threshold,
        unscored=[qid for qid, usable in sentences.items() if not usable],
        unheld={qid: missing for qid, missing in unheld.items() if missing},
    )


def _prefix_index(forms: Sequence[frozenset[str]], threshold: float) -> dict[str, list[int]]:
    """Word → the forms it can reveal. A text holding ``threshold`` of a form's n words misses at most
    n − m of them (m the fewest words that reach the threshold), so it holds at least one of any n − m + 1
    of them: each form is listed under that many of its words, the rarest among the forms first, and a text
    is checked only against the forms one of its words lists (prefix filtering; exact, and far fewer
    checks than listing every word, since common words are the ones left out)."""
    frequency: Counter[str] = Counter(word for form in forms for word in form)
    where: dict[str, list[int]] = defaultdict(list)
    for index, form in enumerate(forms):
        n = len(form)
        fewest = next((m for m in range(1, n + 1) if m / n >= threshold), n + 1)
        for word in sorted(form, key=lambda w: (frequency[w], w))[: n - fewest + 1]:
            where[word].append(index)
    return where


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    return shown if len(ids) <= SHOWN else f"{shown} and {len(ids) - SHOWN} more"
