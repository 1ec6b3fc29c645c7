"""`kgrag index PATH...`: index files incrementally (or estimate the run), then print what the run did."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from kgrag.cli.errors import exit_if_incomplete, guarded
from kgrag.cli.index_lines import print_estimate, print_left_out
from kgrag.cli.options import DebugOpt, WorkspaceOpt, new_console, open_workspace
from kgrag.core.errors import KgragError

if TYPE_CHECKING:  # types only: the modules are imported inside the command
    from kgrag.indexing import IndexReport


def print_index_report(console: Console, report: IndexReport) -> None:
    moved = f"moved {n} · " if (n := report.documents_moved) else ""
    copies = f"duplicates {n} (stored once) · " if (n := report.documents_duplicate) else ""
    failed = f"failed {n} · " if (n := report.files_failed) else ""
    console.print(
        f"files {report.files_seen} · new {report.documents_new} · changed {report.documents_changed} · "
        f"unchanged {report.documents_unchanged} · {failed}{moved}{copies}removed {report.documents_removed} · "
        f"chunks written {report.chunks_written} · texts embedded {report.texts_embedded}"
    )
    print_left_out(console, report)
    if report.chunks_extracted or report.chunks_extraction_failed or report.entities:
        from kgrag.core.stages import EXTRACT
        from kgrag.indexing.stages.extract import ExtractReport

        own = report.stage(EXTRACT, ExtractReport)
        console.print(
            f"graph: {report.chunks_extracted} chunks extracted ({report.chunks_extraction_failed} "
            f"failed, {own.glean_failed} gleaning calls failed) · {report.entities} entities · "
            f"{report.relations} relations"
            + (f" · {n} summaries retried next run" if (n := own.summaries_pending) else "")
            + (
                f" · ungrounded dropped: {own.ungrounded_entities} entities, {own.ungrounded_relations} relations"
                if own.ungrounded_entities or own.ungrounded_relations
                else ""
            )
            + (
                f" · clauses as names dropped: {own.clause_entities} entities, {own.clause_relations} relations"
                if own.clause_entities or own.clause_relations
                else ""
            )
            + (f" · unsupported relations dropped: {n}" if (n := own.unsupported_relations) else "")
            + (
                f" · descriptions taken from the text: {own.descriptions_filled} empty, "
                f"{own.descriptions_replaced} unsupported"
                if own.descriptions_filled or own.descriptions_replaced
                else ""
            ),
            markup=False,
        )
        if line := own.llm_line():
            console.print(line, markup=False)
        if report.entities and not report.relations:
            named = f"{report.entities} entit{'y' if report.entities == 1 else 'ies'}"
            console.print(f"! {NO_RELATIONS.format(entities=named)}", markup=False)
    for line in report.llm_lines:
        console.print(f"llm {line}")
    if report.extraction_prompt_ratio is not None:
        console.print(f"extraction cost: {report.extraction_prompt_ratio:.2f} prompt tokens per corpus token")
    if report.seconds:
        console.print("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in report.seconds.items()))
    # Skipped files were already named once each, as they happened (the finalize stage's notes).


NO_RELATIONS = (
    "the graph has {entities} and no relation: graph pipelines can only match entities to their "
    "passages, with no relation to follow (`kgrag eval retrieval` tells whether they still pay off; an LLM "
    "extractor that finds none may do better after `kgrag prompts tune`, or use graph.extractor = nlp)"
)


def check_index_outcome(report: IndexReport, paths: list[Path]) -> None:
    """Nothing to index is not success: a script must see a non-zero exit when no file matched or every
    file failed (the report above already named each failure). A folder emptied on purpose is not a
    mistake: its files' documents were removed."""
    if report.files_seen == 0 and not report.documents_removed:
        shown = ", ".join(str(p) for p in paths)
        raise KgragError(f"no file to index in {shown} (check the paths and documents.include/exclude)")
    if report.problems and report.files_failed >= report.files_seen:
        raise KgragError(f"every file failed ({report.files_failed} of {report.files_seen}); nothing was indexed")
    exit_if_incomplete(report.incomplete)


PruneOpt = Annotated[
    bool,
    typer.Option(
        "--prune/--no-prune",
        help="Remove the documents of files deleted from the folders being indexed (files indexed from "
        "elsewhere stay); --no-prune keeps them.",
    ),
]


RetryFailedOpt = Annotated[
    bool,
    typer.Option(
        "--retry-failed",
        help="Read files that failed before again even if they did not change (by default a failed "
        "file is retried once it changes). Same as documents.retry_failed = true for this run.",
    ),
]
ProbeOpt = Annotated[
    bool,
    typer.Option(
        "--probe",
        help="With --estimate: first extract two sample units for real (plus a few merge confirmations and one "
        "reflection batch when the pipeline denoises with the LLM; a few calls, cached for the run), so the "
        "estimate uses this model's own reply sizes, re-ask rates and share of the text's names.",
    ),
]


BatchOpt = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Send the LLM calls through the OpenAI Batch API (about half the price; results within the "
        "batch window); a killed run resumes polling. Same as llm.batch = true. See docs/llm.md.",
    ),
]


@guarded
def index(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories to index.")],
    estimate: Annotated[
        bool,
        typer.Option("--estimate", help="Print the LLM calls, tokens and money the run would spend; change nothing."),
    ] = False,
    probe: ProbeOpt = False,
    budget_tokens: Annotated[
        int | None,
        typer.Option(
            "--budget-tokens",
            min=1,
            help="Stop cleanly before the LLM would exceed this many tokens (prompt + completion); re-run to continue.",
        ),
    ] = None,
    engine: Annotated[
        str | None,
        typer.Option(
            "--engine",
            help="Indexing engine: local (this process) or ray (load, chunk, extract, embed on Ray; "
            "pip install 'kgrag[ray]'). Default: indexing.engine.",
        ),
    ] = None,
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="Ray cluster for --engine ray (auto, host:6379, ray://host:10001); unset: a local Ray for the run.",
        ),
    ] = None,
    prune: PruneOpt = True,
    batch: BatchOpt = False,
    retry_failed: RetryFailedOpt = False,
    workspace: WorkspaceOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Index files incrementally: unchanged files are skipped, changed ones re-processed, deleted ones
    removed; a moved file keeps its index and a copy is not stored twice."""
    from kgrag.cli.progress import console_progress

    if probe and not estimate:
        raise KgragError("--probe goes with --estimate (it calibrates the estimate); add --estimate")
    console = new_console()
    llm = {k: v for k, v in {"max_tokens_budget": budget_tokens, "batch": batch or None}.items() if v}
    overrides: dict[str, Any] = {"llm": llm} if llm else {}
    if indexing := _engine_overrides(engine, ray_address):
        overrides["indexing"] = indexing  # validated with the config: an unknown engine names the field
    if retry_failed:
        overrides["documents"] = {"retry_failed": True}
    with open_workspace(workspace, **overrides) as ws, console_progress(console) as progress:
        if estimate:
            report, cost = ws.estimate_index(paths, progress=progress, probe=probe)
        else:
            report = ws.index(paths, progress=progress, prune=prune)
    if estimate:
        print_estimate(console, cost, report.chunks_written, ws.config.llm.batch_price_share)
        return
    print_index_report(console, report)
    check_index_outcome(report, paths)


def _engine_overrides(engine: str | None, ray_address: str | None) -> dict[str, object]:
    """``--engine`` and ``--ray-address`` as ``[indexing]`` overrides (the address in the ray engine's table)."""
    indexing: dict[str, object] = {"engine": engine} if engine is not None else {}
    if ray_address is not None:
        indexing["engines"] = {"ray": {"address": ray_address}}
    return indexing
