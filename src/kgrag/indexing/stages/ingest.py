"""Stage ``ingest``: files → documents → chunks (+ full-text index), one transaction per document.

After this stage the new text is searchable by BM25; the work itself is :class:`kgrag.indexing.ingest.Ingestor`.
"""

from __future__ import annotations

from kgrag.core.stages import INGEST, progress_label
from kgrag.indexing.context import IndexContext
from kgrag.indexing.ingest import Ingestor


class IngestStage:
    """Reads each discovered file unless its fingerprint and chunking are unchanged; problems are reported."""

    name = INGEST

    def run(self, ctx: IndexContext) -> None:
        ingestor = Ingestor(ctx.store, ctx.config.documents, ctx.plan)
        label = progress_label(self.name)
        ctx.progress.start(label, len(ctx.files))
        for path in ctx.files:
            ingestor.process(path, ctx.report)
            ctx.progress.advance(label)
        ctx.progress.finish(label)
