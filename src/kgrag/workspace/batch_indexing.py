"""``kgrag index --batch``: index through the OpenAI Batch API, in rounds, then finish with the normal run.

1. Batches a killed run left are polled to the end and ingested (never submitted again).
2. The pipeline's stages before ``extract`` run for real (discovery, chunking, chunk vectors): they make no
   LLM call, and doing them once keeps every round below cheap.
3. Rounds: the pipeline runs inside a store dry run with a collecting client
   (:mod:`kgrag.models.llm.batch_collect`); what it could not find in the response cache becomes one batch,
   whose replies are cached (and recorded at batch price) before the next round. A round that collects
   nothing new, or ``llm.batch_max_rounds``, ends the rounds.
4. The normal run: every batched reply is a cache hit, and what is still missing (what the batches
   rejected and the live fallback could not fix, or what lies past the last round) is sent live.

So the graph is the one a live run builds from the same replies: the last step *is* a live run.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from kgrag.core.errors import ConfigError
from kgrag.core.progress import Progress, SilentProgress
from kgrag.core.stages import EMBED, EXTRACT, INGEST
from kgrag.indexing import IndexReport
from kgrag.indexing.ingest import IngestReport
from kgrag.indexing.runner import pipeline_names
from kgrag.indexing.stages.embed import EmbedReport
from kgrag.models.llm import LLMClient
from kgrag.models.llm.batch_book import BatchBook
from kgrag.models.llm.batch_collect import BatchCollector, RoundBarrier
from kgrag.models.llm.batch_runner import BatchRunner, BatchSettings
from kgrag.workspace.components import Components
from kgrag.workspace.indexing_api import run_parts


def run_batched(
    parts: Components,
    paths: Sequence[Path],
    progress: Progress,
    pipeline: str | None,
    engine: str | None,
    prune: bool,
) -> IndexReport:
    """Index ``paths`` with the LLM calls of each round sent as one batch (see the module docstring)."""
    if parts.config.llm.provider == "none":
        progress.note("llm.batch: no LLM is configured (llm.provider = none), so nothing is batched")
        return run_parts(parts, list(paths), progress, pipeline, engine, prune)
    client = parts.llm()  # first: it fits the config to the server's window
    parts.llm_for_indexing()  # prompts sized to the model by a live probe, before any request is collected
    batches = _batch_runner(parts, client, progress)
    try:
        batches.resume()
        name = pipeline or parts.config.indexing.pipeline
        names = pipeline_names(name, parts.index_registries)
        prefix = None
        if EXTRACT in names and names.index(EXTRACT) > 0:
            prefix = run_parts(parts, list(paths), progress, name, "local", prune, stages=names[: names.index(EXTRACT)])
        first = max((r.round for r in batches.book.records()), default=0) + 1
        for round_no in range(first, first + parts.config.llm.batch_max_rounds):
            collector = _collect(parts, client, paths, name, prune, batches.book.attempted())
            collected = collector.requests()
            if not collected:
                break
            progress.note(
                f"batch round {round_no}: {len(collected)} requests ({', '.join(sorted(collector.families))})"
            )
            batches.run_round(collected, round_no)
        report = run_parts(parts, list(paths), progress, pipeline, engine, prune)
    finally:
        batches.api.close()
    if prefix is not None:
        _fold(report, prefix)
    report.llm_lines.append(batches.stats.line())
    return report


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


def _batch_runner(parts: Components, client: LLMClient, progress: Progress) -> BatchRunner:
    from kgrag.models.llm.providers import openai_batch_api

    llm = parts.config.llm
    provider: object = client.runner.provider
    while (inner := getattr(provider, "inner", None)) is not None:  # a recording wrapper: the HTTP provider
        provider = inner
    body = getattr(provider, "wire_body", None)
    if llm.provider != "openai" or body is None:
        raise ConfigError(
            f"llm.batch: batch indexing needs llm.provider = 'openai' (a server with /v1/batches), not "
            f"{llm.provider!r}; index without --batch"
        )
    if not llm.cache_enabled:
        raise ConfigError(
            "llm.batch needs llm.cache_enabled = true: batch replies reach the pipeline through the response cache"
        )
    settings = BatchSettings(llm.batch_completion_window, llm.batch_poll_s, llm.batch_poll_max_s, llm.batch_max_rounds)
    return BatchRunner(openai_batch_api(llm), client.runner, BatchBook(parts.store.meta), body, settings, progress.note)


def _collect(
    parts: Components, client: LLMClient, paths: Sequence[Path], pipeline: str, prune: bool, attempted: set[str]
) -> BatchCollector:
    """One collect round: the pipeline in a dry run, every cache miss recorded, nothing kept."""
    collector = BatchCollector(attempted=attempted)
    collecting_client = LLMClient(dataclasses.replace(client.runner, collector=collector), client.settings)
    collecting = Components(
        parts.path,
        parts.config,
        parts.store,
        llm_factory=lambda: collecting_client,
        embedder_factory=lambda: parts.embedder().inner(),
        index_registries=parts.index_registries,
    )
    # a barrier ends the round: the rest of the pipeline needs this round's replies first
    with parts.store.dry_run(), contextlib.suppress(RoundBarrier):
        run_parts(collecting, list(paths), SilentProgress(), pipeline, "local", prune)
    return collector
