"""Stage ``extract``: extract the chunks the graph is missing and merge them, batch by batch.

The work is :func:`kgrag.graph.build.builder.build_graph` (resumable per batch); this stage hands it the
run's extractor and summariser and copies its :class:`GraphBuildStats` into the report, timings as
``extract.<part>``. Without an extractor (``graph.extractor = none``) it only refreshes the graph, as
the ``refresh`` stage does. Graph vectors are the ``embed-graph`` stage's.

Extraction never embeds, so the embedding model is released before it and the extractor's model (spaCy)
after it: the two local models are then never resident together, which is most of indexing's peak
memory (``bench/bench_cli_startup.py --index-peak`` measures it). A released model loads again on
next use; the outputs are the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import time
from dataclasses import dataclass

from kgrag.core.progress import Detail, show_detail
from kgrag.core.stages import EXTRACT, progress_label, timing_key
from kgrag.graph.build.builder import GraphBuildStats, build_graph
from kgrag.indexing.context import IndexContext
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages.refresh import refresh_only
from kgrag.models.llm.client import LLMClient


@dataclass
class ExtractReport:
    """What extraction did and left: chunks extracted and failed (retried next run), the graph's size after
    it, graph texts embedded on the way, corpus tokens read (overlap counted once), gleaning calls that
    failed (the first pass was kept), LLM entities and relations dropped because the text does not hold
    their names or because a name reads as a clause (a sentence copied as an entity), LLM relations dropped
    because their description is not drawn from the text, LLM entity descriptions taken from the text
    because the model left them empty or wrote what the text does not hold, descriptions whose summary
    fell back (summarised again next run), and what the LLM extractor did with its units (``llm_units``:
    units sent; of them split for their size, retried at a new temperature, gleaned, stopped in a
    repetition loop, failed; reply items dropped as invalid)."""

    chunks_extracted: int = 0
    chunks_extraction_failed: int = 0
    entities: int = 0
    relations: int = 0
    graph_texts_embedded: int = 0
    corpus_tokens: int = 0
    glean_failed: int = 0
    ungrounded_entities: int = 0
    ungrounded_relations: int = 0
    clause_entities: int = 0
    clause_relations: int = 0
    unsupported_relations: int = 0
    descriptions_filled: int = 0
    descriptions_replaced: int = 0
    summaries_pending: int = 0
    llm_units: int = 0
    llm_units_split: int = 0
    llm_units_retried: int = 0
    llm_units_gleaned: int = 0
    llm_units_loop_stopped: int = 0
    llm_units_failed: int = 0
    llm_items_invalid: int = 0

    def incomplete(self) -> list[str]:
        """What the next run redoes, a phrase each."""
        failed = self.chunks_extraction_failed
        parts = [f"{failed} chunks failed extraction"] if failed else []
        parts += [f"{self.glean_failed} gleaning calls failed"] if self.glean_failed else []
        return parts + ([f"{self.summaries_pending} summaries fell back"] if self.summaries_pending else [])

    def llm_line(self) -> str | None:
        """The LLM extractor's unit counters in one line, the units then each non-zero count (None: no unit
        was sent to an LLM this run)."""
        if not self.llm_units:
            return None
        counts = (
            (self.llm_units_split, "split"),
            (self.llm_units_retried, "retried"),
            (self.llm_units_gleaned, "gleaned"),
            (self.llm_units_loop_stopped, "stopped in a repetition loop"),
            (self.llm_units_failed, "failed"),
            (self.llm_items_invalid, "invalid items dropped"),
        )
        return ", ".join([f"LLM extraction: {self.llm_units} units", *(f"{n} {what}" for n, what in counts if n)])


class ExtractStage:
    """Brings the graph up to date with the chunks, using the workspace's extractor."""

    name = EXTRACT
    report_model = ExtractReport

    def run(self, ctx: IndexContext) -> None:
        if ctx.extractor is None:
            refresh_only(ctx)
            return
        _release(ctx.embedder)
        label = progress_label(self.name)
        show_detail(ctx.progress, label, _calls_answered(ctx.extractor))
        try:
            stats = build_graph(
                ctx.store,
                ctx.compute.extractor(ctx.extractor),
                ctx.description_summarizer(),
                ctx.progress,
                counter=ctx.plan.counter,
                label=label,
            )
        finally:
            show_detail(ctx.progress, label, None)
        _release(ctx.extractor)
        account(ctx.report, stats, self.name)
        account_llm(ctx.report, ctx.extractor)


DETAIL_EVERY_S = 1.0


def _calls_answered(extractor: object) -> Detail | None:
    """For an LLM extractor: the run's LLM calls answered so far, since the stage's count moves only when a
    whole unit is done (minutes apart with a small model on a CPU); None for other extractors."""
    client = getattr(extractor, "client", None)
    if not isinstance(client, LLMClient):
        return None

    read: list[float | str] = [float("-inf"), ""]  # when the ledger was last read, and what it said

    def answered() -> str:
        """Read from the ledger at most once every :data:`DETAIL_EVERY_S` (a terminal's bars redraw ten
        times a second, and each read is a query)."""
        now = time.monotonic()
        if now - float(read[0]) >= DETAIL_EVERY_S:
            calls = client.summary().total.calls
            read[:] = [now, f"{calls} LLM call{'' if calls == 1 else 's'} answered" if calls else ""]
        return str(read[1])

    return answered


def _release(model: object) -> None:
    """Free a loaded model if its holder can (``release()``); what a plug-in does not offer is kept."""
    release = getattr(model, "release", None)
    if callable(release) and release():
        gc.collect()  # parsed documents and sessions hold reference cycles: free them now, not later
        _trim_heap()


def _trim_heap() -> None:
    """Hand freed heap pages back to the OS (glibc keeps them otherwise, and the next model's memory
    would come on top); a no-op where the C library has no ``malloc_trim``."""
    name = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    if trim is not None:
        trim(0)


# ExtractReport field <- ExtractionStats field: the LLM extractor's counters the report carries
LLM_COUNTERS = (
    ("glean_failed", "glean_failures"),
    ("ungrounded_entities", "ungrounded_entities"),
    ("ungrounded_relations", "ungrounded_relations"),
    ("clause_entities", "clause_entities"),
    ("clause_relations", "clause_relations"),
    ("unsupported_relations", "unsupported_relations"),
    ("descriptions_filled", "descriptions_filled"),
    ("descriptions_replaced", "descriptions_replaced"),
    ("llm_units", "units"),
    ("llm_units_split", "split_units"),
    ("llm_units_retried", "retried_units"),
    ("llm_units_gleaned", "gleaned_units"),
    ("llm_units_loop_stopped", "loop_units"),
    ("llm_units_failed", "failed_units"),
    ("llm_items_invalid", "dropped_items"),
)


def account_llm(report: IndexReport, extractor: object) -> None:
    """Move an LLM extractor's counters summed over its ``extract`` calls (the builder makes one per window
    of documents; :meth:`~kgrag.graph.extract.llm.LLMExtractor.take_totals`) into the report: its units,
    failures and grounding drops (other extractors have none)."""
    from kgrag.graph.extract.llm_stats import ExtractionStats

    take = getattr(extractor, "take_totals", None)
    stats = take() if callable(take) else None
    if not isinstance(stats, ExtractionStats):
        return
    own = report.stage(EXTRACT, ExtractReport)
    for mine, theirs in LLM_COUNTERS:
        setattr(own, mine, getattr(own, mine) + getattr(stats, theirs))


def account(report: IndexReport, stats: GraphBuildStats, stage: str) -> None:
    """Add one graph build's numbers to the run's report (parts timed as ``<stage>.<part>``)."""
    own = report.stage(EXTRACT, ExtractReport)
    own.chunks_extracted += stats.chunks_extracted
    own.chunks_extraction_failed += stats.chunks_extraction_failed
    own.corpus_tokens += stats.extracted_corpus_tokens
    own.summaries_pending = stats.aggregates_pending
    own.graph_texts_embedded += stats.graph_texts_embedded
    own.entities, own.relations = stats.entities, stats.relations
    for part, seconds in stats.seconds.items():
        report.add_time(timing_key(stage, part), seconds)
