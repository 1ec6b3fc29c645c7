"""What a retrieval report must tell its reader when its questions were generated without an LLM.

LLM-free known-item and two-chunk questions (:mod:`kgrag.evaluation.qgen.known_item`) are cut from one
sentence of the corpus and keep its words, so a pipeline that matches words finds their evidence more
easily than a real question's. Measured against hand-written questions, their ranking of the pipelines
agreed on one shared dataset and not on the other (``docs/results/qgen-llm-free.md``), so a verdict drawn
from them alone can name the wrong pipeline. A report on such questions says so next to its tables, and
says when nearly every pipeline finds nearly all of their evidence, where the set cannot separate the
pipelines at all, whatever the intervals say.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable

from kgrag.evaluation.datasets import LLM_FREE_KINDS

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
    total = len({qid for qid, _, _, _ in rows})
    caveats = [
        f"{len(generated)} of {total} questions were generated without an LLM (`kgrag eval qgen --llm none`). "
        "They keep the words of the sentence they were cut from, so pipelines that match words find their "
        "evidence more easily than a real question's, and the ranking they give has disagreed with "
        "hand-written questions' on some corpora: use them to check that a pipeline finds passages named in "
        "their own words, and choose between pipelines on hand-written questions "
        "(docs/evaluation.md, 'When generated questions can be trusted')."
    ]
    recalls: dict[str, list[float]] = defaultdict(list)
    for qid, _, pipeline, recall in rows:
        if qid in generated and recall is not None:
            recalls[pipeline].append(recall)
    easy = sorted(p for p, values in recalls.items() if statistics.fmean(values) >= SATURATED)
    if len(recalls) >= 2 and 2 * len(easy) > len(recalls):
        caveats.append(
            f"{len(easy)} of {len(recalls)} pipelines ({', '.join(easy)}) find at least {SATURATED:.0%} of these "
            "questions' evidence: the set is too easy to tell them apart, so differences between them say "
            "little about real questions."
        )
    return caveats


def caveat_lines(caveats: list[str]) -> list[str]:
    """The caveats as a report's markdown paragraph (and the blank line after it); none without caveats."""
    return [f"**Generated questions.** {' '.join(caveats)}", ""] if caveats else []
