"""The batch run mode of indexing (``kgrag index --batch``): the LLM calls go through a Batch API in rounds,
then the normal run finishes.

1. Batches a killed run left are polled to the end and ingested (never submitted again).
2. The pipeline's stages before ``extract`` run for real (discovery, chunking, chunk vectors): they make no
   LLM call, and doing them once keeps every round below cheap.
3. Rounds: the pipeline runs inside a store dry run with the client in collect mode
   (:mod:`kgrag.models.llm.batch_collect`); what it could not find in the response cache becomes one batch,
   whose replies are cached (and recorded at batch price) before the next round. A round that collects
   nothing new, or ``llm.batch_max_rounds``, ends the rounds.
4. The normal run: every batched reply is a cache hit, and what is still missing (what the batches
   rejected and the live fallback could not fix, or what lies past the last round) is sent live.

So the graph is the one a live run builds from the same replies: the last step *is* a live run. The mode
needs a provider that implements :class:`~kgrag.models.llm.base.BatchCapable`; the workspace hands it the
client and a way to run the pipeline (:class:`PipelineRun`), so the same parts serve every round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Protocol

from kgrag.core.errors import ConfigError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.core.stages import EMBED, EXTRACT, INGEST
from kgrag.indexing.ingest import IngestReport
from kgrag.indexing.report import IndexReport
from kgrag.indexing.stages.embed import EmbedReport

if TYPE_CHECKING:
    from kgrag.config import LLMConfig
    from kgrag.models.llm import LLMClient
    from kgrag.models.llm.batch_collect import BatchCollector
    from kgrag.models.llm.batch_runner import BatchRunner
    from kgrag.store import Store


class PipelineRun(Protocol):
    """Runs the indexing pipeline ``pipeline`` (or only its ``stages``) over the workspace's parts."""

    def __call__(
        self, pipeline: str | None, engine: str | None, progress: Progress, /, *, stages: Sequence[str] | None = None
    ) -> IndexReport: ...


@dataclass(frozen=True)
class BatchJob:
    """What a batched run needs from the workspace: its store, ``[llm]`` settings, the client (made on first
    call, fitted to the server), the stage names of the pipeline, and the pipeline itself."""

    store: Store
    llm: LLMConfig
    client: Callable[[], LLMClient]
    stage_names: Callable[[str], list[str]]
    run: PipelineRun


def run_batched(job: BatchJob, pipeline: str, engine: str | None, progress: Progress) -> IndexReport:
    """Index with the LLM calls of each round sent as one batch (see the module docstring)."""
    if job.llm.provider == "none":
        progress.note("llm.batch: no LLM is configured (llm.provider = none), so nothing is batched")
        return job.run(pipeline, engine, progress)
    client = job.client()
    batches = batch_runner(job.llm, client, job.store, progress)
    prefix = None
    try:
        batches.resume()
        names = job.stage_names(pipeline)
        if EXTRACT in names and names.index(EXTRACT) > 0:
            prefix = job.run(pipeline, "local", progress, stages=names[: names.index(EXTRACT)])
        _rounds(job, client, batches, pipeline, progress)
        report = job.run(pipeline, engine, progress)
    finally:
        batches.api.close()
    if prefix is not None:
        _fold(report, prefix)
    report.llm_lines.append(batches.stats.line())
    return report


def _rounds(job: BatchJob, client: LLMClient, batches: BatchRunner, pipeline: str, progress: Progress) -> None:
    first = max((r.round for r in batches.book.records()), default=0) + 1
    for round_no in range(first, first + job.llm.batch_max_rounds):
        collector = _collect(job, client, pipeline, batches.book.attempted())
        collected = collector.requests()
        if not collected:
            return
        progress.note(f"batch round {round_no}: {len(collected)} requests ({', '.join(sorted(collector.families))})")
        batches.run_round(collected, round_no)


def _collect(job: BatchJob, client: LLMClient, pipeline: str, attempted: set[str]) -> BatchCollector:
    """One collect round: the pipeline in a dry run, every cache miss recorded, nothing kept. The round ends
    where the pipeline finishes or where the collector stops it at a barrier (the rest of the pipeline
    needs this round's replies first): both are the normal end of a round."""
    from kgrag.models.llm.batch_collect import BatchCollector, RoundBarrier

    collector = BatchCollector(attempted=attempted)
    with job.store.dry_run(), client.collecting(collector):
        try:
            job.run(pipeline, "local", SilentProgress())
        except RoundBarrier:
            collector.stopped_at_barrier = True
    return collector


def batch_runner(llm: LLMConfig, client: LLMClient, store: Store, progress: Progress) -> BatchRunner:
    """The Batch API runner for ``client``'s provider; a clear error when it has no Batch API or the
    response cache (through which batch replies reach the pipeline) is off."""
    from kgrag.models.llm.base import batch_capability
    from kgrag.models.llm.batch_book import BatchBook
    from kgrag.models.llm.batch_runner import BatchRunner, BatchSettings

    capable = batch_capability(client.runner.provider)
    if capable is None:
        raise ConfigError(
            f"llm.batch: batch indexing needs llm.provider = 'openai' (a server with /v1/batches), not "
            f"{llm.provider!r}; index without --batch"
        )
    if not llm.cache_enabled:
        raise ConfigError(
            "llm.batch needs llm.cache_enabled = true: batch replies reach the pipeline through the response cache"
        )
    settings = BatchSettings(llm.batch_completion_window, llm.batch_poll_s, llm.batch_poll_max_s, llm.batch_max_rounds)
    book = BatchBook(store.meta)
    return BatchRunner(capable.batch_api(), client.runner, book, capable.wire_body, settings, progress.note)


def _fold(report: IndexReport, prefix: IndexReport) -> None:
    """Put what the stages run before the rounds did into the final report (the final run found it done):
    the ``ingest`` and ``embed`` counts add up, except unchanged documents, which the final run re-counts."""
    for name, model in ((INGEST, IngestReport), (EMBED, EmbedReport)):
        before = prefix.stages.get(name)
        if isinstance(before, model):
            after = report.stage(name, model)
            for key, value in asdict(before).items():
                setattr(after, key, getattr(after, key) + value)
    report.stage(INGEST, IngestReport).documents_unchanged = prefix.documents_unchanged
    for stage, seconds in prefix.seconds.items():
        report.add_time(stage, seconds)
