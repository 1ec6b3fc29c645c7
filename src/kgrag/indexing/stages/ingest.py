"""Stage ``ingest``: files → documents → chunks (+ full-text index), one transaction per document.

After this stage the new text is searchable by BM25; the work itself is :class:`kgrag.indexing.ingest.Ingestor`.
"""

from __future__ import annotations

from kgrag.core.stages import INGEST, progress_label
from kgrag.documents.loaders import LOADERS
from kgrag.documents.snippets import reading_within
from kgrag.indexing.context import IndexContext
from kgrag.indexing.ingest import Ingestor, IngestReport
from kgrag.indexing.sync import prune


class IngestStage:
    """Reads each discovered file unless its fingerprint and chunking are unchanged; problems are reported.

    Unchanged files (and pages none of whose snippet includes changed) are found first (no read); the
    others are read and chunked by the run's ``ctx.compute`` (inline, or on the engine's workers; snippet
    includes only from inside the folders being indexed) and written here, one transaction per document,
    in discovery order. Then the documents of files deleted from the indexed folders are removed (one
    transaction; ``ctx.prune``), and copies whose content left its document are read again
    (:mod:`kgrag.indexing.sync`)."""

    name = INGEST
    report_model = IngestReport

    def run(self, ctx: IndexContext) -> None:
        with reading_within(ctx.paths):  # snippet includes are read only from the folders being indexed
            self._run(ctx)

    def _run(self, ctx: IndexContext) -> None:
        ingestor = Ingestor(ctx.store, ctx.config.documents, ctx.plan, ctx.registries.get(LOADERS))
        label = progress_label(self.name)
        ctx.progress.start(label, len(ctx.files))
        pending = []
        for path in ctx.files:
            work = ingestor.pending(path, ctx.report)
            if work is None:
                ctx.progress.advance(label)
            else:
                pending.append(work)
        ctx.note_problems()
        prepared = ctx.compute.prepare([work.path for work in pending], ctx.config.documents, ctx.plan)
        for work, result in zip(pending, prepared, strict=True):
            ingestor.apply(work, result, ctx.report)
            ctx.note_problems()  # as it happens, once
            ctx.progress.advance(label)
        if ctx.prune:
            ctx.report.stage(self.name, IngestReport).documents_removed += prune(ctx.store, ctx.paths)
        ingestor.reconcile(ctx.report)
        ctx.note_problems()
        ctx.progress.finish(label)
