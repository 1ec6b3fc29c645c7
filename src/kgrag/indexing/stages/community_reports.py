"""Stage ``community-reports``: write the reports the hierarchy is missing, then embed them.

Only communities without a report are written (ids follow membership, so those are exactly the
communities whose membership changed), with the LLM (calls booked as ``index.community-reports``) or
extractively; see :mod:`kgrag.communities.generate` for what is skipped or inherited instead of written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kgrag.communities.extractive import ExtractiveWriter
from kgrag.communities.generate import ReportStats, ReportWriter, generate_reports
from kgrag.communities.llm_writer import LLMWriter
from kgrag.communities.vectors import embed_reports
from kgrag.core.errors import ConfigError
from kgrag.core.stages import COMMUNITY_REPORTS, ledger_stage, progress_label, timing_key
from kgrag.indexing.context import IndexContext


def choose_writer(ctx: IndexContext, stage: str) -> ReportWriter:
    """``communities.reports``: llm, extractive, or auto (llm when a provider is configured)."""
    config = ctx.config.communities
    extractive = ExtractiveWriter(ctx.store, config.report_findings)
    llm_ready = ctx.llm is not None and ctx.llm.available
    if config.reports == "llm" and not llm_ready:
        raise ConfigError("communities.reports = llm needs an LLM; set llm.provider or use `auto`/`extractive`")
    if config.reports == "extractive" or not llm_ready or ctx.llm is None:
        return extractive
    return LLMWriter(ctx.llm, config, extractive, ledger_stage(stage), language=ctx.config.graph.language)


@dataclass
class CommunityReportsReport(ReportStats):
    """What the ``community-reports`` stage did (the report run's :class:`ReportStats`), plus the report
    vectors it embedded."""

    embedded: int = 0


class CommunityReportsStage:
    """Reports for new communities, and vectors for new report texts."""

    name = COMMUNITY_REPORTS
    report_model = CommunityReportsReport

    def run(self, ctx: IndexContext) -> None:
        from kgrag.indexing.stages.communities import WAITING

        if WAITING in ctx.report.fallbacks:  # the hierarchy is replaced next run: its reports would be wasted
            return
        writer = choose_writer(ctx, self.name)
        stats = generate_reports(ctx.store, ctx.config.communities, writer, ctx.progress, progress_label(self.name))
        started = time.perf_counter()
        embedded = embed_reports(ctx.store, ctx.embedder)
        ctx.report.add_time(timing_key(self.name, "embed"), time.perf_counter() - started)
        ctx.report.stages[self.name] = CommunityReportsReport(**stats.as_dict(), embedded=embedded)
        if writer.failures:  # LLM replies that fell back (an estimate sends none, so has none)
            ctx.report.fallbacks["community reports fell back to extractive"] = writer.failures
        if stats.waiting:
            ctx.report.fallbacks["community reports wait for entity summaries"] = stats.waiting
