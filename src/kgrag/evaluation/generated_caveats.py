"""What a retrieval report must tell its reader when its questions were generated without an LLM.

LLM-free known-item and two-chunk questions (:mod:`kgrag.evaluation.qgen.known_item`) are cut from one
sentence of the corpus and keep its words, so a pipeline that matches words finds their evidence more
easily than a real question's. Measured against hand-written questions, their ranking of the pipelines
agreed on one shared dataset and not on the other (``docs/results/qgen-llm-free.md``), so a verdict drawn
from them alone can name the wrong pipeline. A report on such questions says so next to its tables, and
says when nearly every pipeline finds nearly all of their evidence, where the set cannot separate the
pipelines at all, whatever the intervals say. A set that mixes them with questions an LLM wrote (and
nothing else) is told what such a mix is good for instead: the two kinds lean different ways, so neither
decides its ranking alone, and that ranking is a first choice to confirm on hand-written questions.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from collections.abc import Iterable

from kgrag.evaluation.datasets import LLM_FREE_KINDS, LLM_KINDS
from kgrag.evaluation.stats.rank_agreement import kendall_tau, means, tau_interval

SATURATED = 0.9
"""A pipeline finding at least this mean share of the generated questions' evidence has nothing left to show."""

EVIDENCE_RECALL = "evidence-recall"
"""The stored runs' name of the score the saturation caveat reads."""

Row = tuple[str, str, str, float | None]
"""One question through one pipeline: question id, question type, pipeline, evidence recall (None when the
row is another score or the question had no evidence)."""


def generated_caveats(rows: Iterable[Row]) -> list[str]:
    """One sentence per caveat (none for a set without LLM-free generated questions)."""
    rows = list(rows)
    generated = {qid for qid, kind, _, _ in rows if kind in LLM_FREE_KINDS}
    if not generated:
        return []
    kinds = {qid: kind for qid, kind, _, _ in rows}
    written = sum(kind in LLM_KINDS for kind in kinds.values())
    mixed = 0 < written == len(kinds) - len(generated)
    caveats = [_mixed(len(generated), written) if mixed else _alone(len(generated), len(kinds))]
    recalls: dict[str, list[float]] = defaultdict(list)
    for qid, _, pipeline, recall in rows:
        if qid in generated and recall is not None:
            recalls[pipeline].append(recall)
    easy = sorted(p for p, values in recalls.items() if statistics.fmean(values) >= SATURATED)
    if len(recalls) >= 2 and 2 * len(easy) > len(recalls):
        caveats.append(
            f"{len(easy)} of {len(recalls)} pipelines ({', '.join(easy)}) find at least {SATURATED:.0%} of the "
            "LLM-free questions' evidence: "
            + (
                "those questions cannot tell them apart, so the differences between them come from the LLM's."
                if mixed
                else "the set is too easy to tell them apart, so differences between them say little about real "
                "questions."
            )
        )
    if mixed and (agreement := _kinds_agreement(rows, generated)):
        caveats.append(agreement)
    return caveats


def _kinds_agreement(rows: list[Row], generated: set[str]) -> str | None:
    """How alike the LLM-free and the other questions rank the pipelines (Kendall τ with its interval,
    :mod:`kgrag.evaluation.stats.rank_agreement`); None with fewer than three pipelines or two questions of
    each kind holding every pipeline's evidence recall."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for qid, _, pipeline, recall in rows:
        if recall is not None:
            values[qid, pipeline].append(recall)
    pipelines = sorted({pipeline for _, pipeline in values})
    complete = sorted({qid for qid, _ in values if all((qid, p) in values for p in pipelines)})
    parts = [[q for q in complete if (q in generated) == free] for free in (True, False)]
    if len(pipelines) < 3 or min(map(len, parts)) < 2:
        return None
    free, other = ({p: [statistics.fmean(values[q, p]) for q in part] for p in pipelines} for part in parts)
    value, interval = kendall_tau(means(free), means(other)), tau_interval(free, other, random.Random(0))
    if value is None or interval is None:
        return None
    return (
        f"On this set the two kinds rank the {len(pipelines)} pipelines at Kendall τ {value:.2f} "
        f"[{interval[0]:.2f}, {interval[1]:.2f}] against each other (1: the same order, 0: unrelated; "
        f"{len(parts[0])} and {len(parts[1])} questions): the lower it is, the more the ranking depends on how "
        "many of each kind the set holds."
    )


def _alone(generated: int, total: int) -> str:
    return (
        f"{generated} of {total} questions were generated without an LLM (`kgrag eval qgen --llm none`). "
        "They keep the words of the sentence they were cut from, so pipelines that match words find their "
        "evidence more easily than a real question's, and the ranking they give has disagreed with "
        "hand-written questions' on some corpora: use them to check that a pipeline finds passages named in "
        "their own words, and choose between pipelines on hand-written questions "
        f"({_SECTION})."
    )


def _mixed(generated: int, written: int) -> str:
    return (
        f"{generated} of {generated + written} questions were generated without an LLM and {written} written by "
        "an LLM (`kgrag eval qgen`). The first keep the words of the sentence they were cut from, so pipelines "
        "that match words find their evidence more easily; a model rewords what it asks, but may ask vaguely. "
        "In one set neither lean decides the ranking alone (where this was measured, such a mix agreed with "
        "hand-written questions on every corpus, and each kind alone failed on one): take the ranking as a first "
        f"choice and confirm a close one on hand-written questions ({_SECTION})."
    )


_SECTION = "docs/evaluation.md, 'When generated questions can be trusted'"


def caveat_lines(caveats: list[str]) -> list[str]:
    """The caveats as a report's markdown paragraph (and the blank line after it); none without caveats."""
    return [f"**Generated questions.** {' '.join(caveats)}", ""] if caveats else []
