"""Prompt tokens per corpus token, measured from the usage ledger on the sample corpus (target ≤ 2.5)."""

from __future__ import annotations

from typing import Any

import pytest

from kgrag.core.llm_usage import LedgerSummary, Totals
from kgrag.graph.extract.glean import GleanPolicy
from kgrag.graph.extract.llm import STAGE_EXTRACT, STAGE_GLEAN, extraction_cost_ratio
from kgrag.testing.extraction_responder import ExtractionResponder

TARGET = 2.5


def _corpus_tokens(kit: Any) -> int:
    return sum(kit.counter.count(text) for text in kit.sample_texts().values())


def test_sample_corpus_costs_at_most_two_and_a_half_prompt_tokens_per_corpus_token(kit: Any) -> None:
    chunks = kit.sample_chunks()
    corpus = _corpus_tokens(kit)
    extractor, extractions = kit.run_extraction(chunks, ExtractionResponder(), unit_tokens=1200)
    summary = extractor.client.summary()
    first_pass = extraction_cost_ratio(summary, corpus, stages=[STAGE_EXTRACT])
    total = extraction_cost_ratio(summary, corpus)
    print(
        f"\n[cost] corpus {corpus} tokens in {len(chunks)} chunks, {extractor.stats.units} units; prompt tokens "
        f"per corpus token: first pass {first_pass:.3f}, with gleaning {total:.3f} "
        f"({extractor.stats.gleaned_units} units gleaned: {dict(extractor.stats.glean_reasons)})"
    )
    assert all(x.error is None for x in extractions)
    assert summary.by_stage[STAGE_EXTRACT].calls == extractor.stats.units
    assert 1.0 < first_pass <= total <= TARGET


def test_gleaning_every_unit_stays_bounded(kit: Any) -> None:
    """The worst case (every unit looks incomplete) costs about two passes over the text."""
    chunks = kit.sample_chunks()
    corpus = _corpus_tokens(kit)
    always = GleanPolicy(min_entities_per_100_tokens=1000.0, min_tokens=1)
    extractor, _ = kit.run_extraction(chunks, ExtractionResponder(), glean=always)
    total = extraction_cost_ratio(extractor.client.summary(), corpus)
    print(f"\n[cost] every unit gleaned: {total:.3f} prompt tokens per corpus token")
    assert extractor.stats.gleaned_units == extractor.stats.units
    assert total < 3.4  # two passes, each with its worked example


def test_extraction_cost_ratio_reads_the_extraction_stages_only() -> None:
    summary = LedgerSummary(
        total=Totals(),
        by_stage={
            STAGE_EXTRACT: Totals(calls=2, prompt_tokens=1200, billed_prompt_tokens=600),
            STAGE_GLEAN: Totals(calls=1, prompt_tokens=300, billed_prompt_tokens=300),
            "query.generate": Totals(calls=5, prompt_tokens=99_999),
        },
    )
    assert extraction_cost_ratio(summary, 1000) == pytest.approx(1.5)
    assert extraction_cost_ratio(summary, 1000, billed=True) == pytest.approx(0.9)
    assert extraction_cost_ratio(summary, 1000, stages=[STAGE_EXTRACT]) == pytest.approx(1.2)
    assert extraction_cost_ratio(summary, 0) == 0.0
    assert extraction_cost_ratio(LedgerSummary(total=Totals()), 1000) == 0.0
