"""Stage ``discover``: expand the given files and directories with the include/exclude globs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgrag.core.errors import DocumentError, KgragError
from kgrag.core.stages import DISCOVER
from kgrag.documents import discover
from kgrag.documents.ignore import Ignored, IgnoreRules
from kgrag.indexing.context import IndexContext
from kgrag.indexing.ingest import display_path
from kgrag.indexing.report import FileProblem


@dataclass
class DiscoverReport:
    """The ``discover`` stage's counts: files found, skipped ones (special files, unlistable folders)
    included; files and folders left out by an ignore file, as templates, generated or vendored, and as files
    that are not pages (MkDocs snippet sources, redirect stubs)."""

    files_seen: int = 0
    files_ignored: int = 0
    files_generated: int = 0
    files_not_pages: int = 0  # MkDocs snippet sources (read through the pages that include them)
    files_redirects: int = 0  # redirect stubs: front matter that sends readers elsewhere, and no text
    files_other_types: int = 0  # files of walked folders no documents.include pattern matches


class DiscoverStage:
    """Fills ``ctx.files``; a path that does not exist stops the run before anything is written."""

    name = DISCOVER
    report_model = DiscoverReport

    def run(self, ctx: IndexContext) -> None:
        documents = ctx.config.documents
        skipped: list[tuple[Path, str]] = []
        rules = IgnoreRules(tuple(documents.ignore_files), documents.skip_generated)
        passed = Ignored()
        try:
            ctx.files = discover(list(ctx.paths), documents.include, documents.exclude, skipped, rules, passed)
        except DocumentError as exc:  # a path that does not exist is a typo, not a file to skip
            raise KgragError(f"{exc}; nothing was indexed") from exc
        for path, reason in skipped:  # special files, unlistable directories
            ctx.report.problems.append(FileProblem(display_path(path), reason))
        own = ctx.report.stage(self.name, DiscoverReport)
        own.files_seen = len(ctx.files) + len(skipped)
        own.files_ignored, own.files_generated = passed.by_ignore_file, passed.generated
        own.files_not_pages, own.files_redirects = passed.not_pages, passed.redirects
        own.files_other_types = sum(passed.other_types.values())
        ctx.note_problems()
        if passed.by_ignore_file or passed.generated or passed.not_pages or passed.redirects:
            ctx.progress.note(ignored_line(passed))
        if passed.other_types:
            ctx.progress.note(other_types_line(passed.other_types))


def ignored_line(passed: Ignored) -> str:
    """One line for the files a walk left out on purpose, with an example or two."""
    parts = []
    if passed.by_ignore_file:
        parts.append(f"{passed.by_ignore_file} by an ignore file (documents.ignore_files)")
    if passed.generated:
        parts.append(f"{passed.generated} as templates, generated or vendored (documents.skip_generated)")
    if passed.not_pages:
        parts.append(f"{passed.not_pages} as MkDocs snippet files, not pages (read where pages include them)")
    if passed.redirects:
        parts.append(f"{passed.redirects} as redirect stubs, not pages (front matter that sends readers elsewhere)")
    return f"left out {' and '.join(parts)}, e.g. {', '.join(passed.examples[:2])}"


def other_types_line(counts: dict[str, int]) -> str:
    """One line for the files of types kgrag does not read, most common first (".po 128, .pot 16, .svg 1")."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{suffix} {n}" for suffix, n in ranked[:6]) + (", …" if len(ranked) > 6 else "")
    total = sum(counts.values())
    return (
        f"left out {total} file{'s' if total != 1 else ''} of types kgrag does not read ({shown}); "
        "documents.include lists the types it reads"
    )
