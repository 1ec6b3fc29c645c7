"""Stage ``extract``: extract the chunks the graph is missing and merge them, batch by batch.

The work is :func:`kgrag.graph.build.builder.build_graph` (resumable per batch); this stage hands it the
run's extractor and summariser and copies its :class:`GraphBuildStats` into the report, timings as
``extract.<part>``. Without an extractor (``graph.extractor = none``) it only refreshes the graph, as
the ``refresh`` stage does. Graph vectors are the ``embed-graph`` stage's.
"""

from __future__ import annotations

from kgrag.core.stages import EXTRACT, progress_label, timing_key
from kgrag.graph.build.builder import GraphBuildStats, build_graph
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages.refresh import refresh_only


class ExtractStage:
    """Brings the graph up to date with the chunks, using the workspace's extractor."""

    name = EXTRACT

    def run(self, ctx: IndexContext) -> None:
        if ctx.extractor is None:
            refresh_only(ctx)
            return
        stats = build_graph(
            ctx.store,
            ctx.compute.extractor(ctx.extractor),
            ctx.description_summarizer(),
            ctx.progress,
            counter=ctx.plan.counter,
            label=progress_label(self.name),
        )
        account(ctx.report, stats, self.name)


def account(report: IndexReport, stats: GraphBuildStats, stage: str) -> None:
    """Add one graph build's numbers to the run's report (parts timed as ``<stage>.<part>``)."""
    report.chunks_extracted += stats.chunks_extracted
    report.chunks_extraction_failed += stats.chunks_extraction_failed
    report.extracted_corpus_tokens += stats.extracted_corpus_tokens
    report.graph_texts_embedded += stats.graph_texts_embedded
    report.graph_aggregates_pending = stats.aggregates_pending
    report.entities, report.relations = stats.entities, stats.relations
    for part, seconds in stats.seconds.items():
        report.add_time(timing_key(stage, part), seconds)
