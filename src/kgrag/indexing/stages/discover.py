"""Stage ``discover``: expand the given files and directories with the include/exclude globs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgrag.core.errors import DocumentError, KgragError
from kgrag.core.stages import DISCOVER
from kgrag.documents import discover
from kgrag.indexing.context import IndexContext
from kgrag.indexing.ingest import display_path
from kgrag.indexing.report import FileProblem


@dataclass
class DiscoverReport:
    """The ``discover`` stage's count: files found, skipped ones (special files, unlistable folders) included."""

    files_seen: int = 0


class DiscoverStage:
    """Fills ``ctx.files``; a path that does not exist stops the run before anything is written."""

    name = DISCOVER
    report_model = DiscoverReport

    def run(self, ctx: IndexContext) -> None:
        documents = ctx.config.documents
        skipped: list[tuple[Path, str]] = []
        try:
            ctx.files = discover(list(ctx.paths), documents.include, documents.exclude, skipped)
        except DocumentError as exc:  # a path that does not exist is a typo, not a file to skip
            raise KgragError(f"{exc}; nothing was indexed") from exc
        for path, reason in skipped:  # special files, unlistable directories: named by the finalize stage
            ctx.report.problems.append(FileProblem(display_path(path), reason))
        ctx.report.stage(self.name, DiscoverReport).files_seen = len(ctx.files) + len(skipped)
