"""Lines of `kgrag index`'s summary that are not counts of work done: files not read, the estimate."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from kgrag.indexing.report import IndexReport
    from kgrag.models.llm import Estimate


def print_left_out(console: Console, report: IndexReport) -> None:
    """Files not read on purpose: ignored, templates/generated/vendored, MkDocs snippet files and redirect stubs
    (not pages), failed before and unchanged."""
    from kgrag.core.stages import DISCOVER, INGEST
    from kgrag.indexing.ingest import IngestReport
    from kgrag.indexing.stages.discover import DiscoverReport

    found, ingested = report.stage(DISCOVER, DiscoverReport), report.stage(INGEST, IngestReport)
    parts = [
        f"{found.files_ignored} by ignore files" if found.files_ignored else "",
        f"{found.files_generated} templates/generated/vendored" if found.files_generated else "",
        f"{found.files_not_pages} MkDocs snippet files (not pages)" if found.files_not_pages else "",
        f"{found.files_redirects} redirect stubs (not pages)" if found.files_redirects else "",
        f"{found.files_other_types} of types kgrag does not read" if found.files_other_types else "",
        f"{ingested.failed_unchanged} failed before and unchanged (--retry-failed reads them again)"
        if ingested.failed_unchanged
        else "",
    ]
    if any(parts):
        console.print("not read: " + " · ".join(p for p in parts if p), markup=False)


def print_estimate(console: Console, cost: Estimate, new_chunks: int, batch_share: float) -> None:
    console.print(f"estimate (nothing was changed or sent): {cost.line()} for {new_chunks} new chunks")
    if (range_line := cost.range_line()) is not None:
        console.print(f"  {range_line}", soft_wrap=True)
    for line in (cost.prices_line(batch_share), *cost.predicted, *cost.assumptions):
        console.print(f"  {line}", soft_wrap=True)
