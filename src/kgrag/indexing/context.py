"""The typed state of one indexing run, handed from stage to stage.

A stage reads what it needs from :class:`IndexContext` and writes what it produced back (``files``, the
report); adding a stage that needs something new adds one field here, not a parameter everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kgrag.config import KgragConfig
from kgrag.core.progress import Progress, SilentProgress
from kgrag.core.registries import Registries
from kgrag.graph.build.summarize import ExtractiveSummarizer, Summarizer
from kgrag.graph.types import Extractor
from kgrag.indexing.compute import LocalCompute, StageCompute
from kgrag.indexing.ingest import ChunkPlan
from kgrag.indexing.report import IndexReport
from kgrag.models.embeddings import Embedder
from kgrag.models.llm.client import LLMClient
from kgrag.store.base import Store


@dataclass
class IndexContext:
    """Everything a stage may read or extend during one indexing run.

    ``extractor`` is the workspace's configured extractor (None: the index has no graph); it is present
    even in pipelines that do not extract, because the ``finalize`` stage needs its name to tell whether a
    document's graph is still missing. ``llm`` is the workspace's client when one is configured, for
    stages that call the model themselves. ``compute`` is where the stages' pure compute (reading,
    chunking, extracting, embedding) runs; the indexing engine sets it (:mod:`kgrag.indexing.compute`).
    """

    store: Store
    config: KgragConfig
    plan: ChunkPlan
    embedder: Embedder
    paths: Sequence[Path] = ()
    progress: Progress = field(default_factory=SilentProgress)
    report: IndexReport = field(default_factory=IndexReport)
    extractor: Extractor | None = None
    summarizer: Summarizer | None = None
    llm: LLMClient | None = None
    files: list[Path] = field(default_factory=list)  # what ``discover`` found under ``paths``
    stages_run: list[str] = field(default_factory=list)  # names of the stages finished so far, in order
    compute: StageCompute = field(default_factory=LocalCompute)  # where stages' pure compute runs (engine)
    prune: bool = True
    """Whether ``ingest`` removes the documents of files deleted from the folders in ``paths``
    (:mod:`kgrag.indexing.sync`; ``kgrag index --no-prune`` keeps them)."""
    sentence_vectors: bool | Callable[[], bool] = False
    """Whether ``embed`` also embeds every chunk sentence (``embedding.sentence_vectors`` resolved for the
    stored chunks and the embedder: :func:`kgrag.documents.chunking.wants_sentence_vectors`); a callable
    is asked when the ``embed`` stage runs, so the chunks this run stored count."""
    registries: Registries = field(default_factory=Registries)
    """The workspace's registries: community builders, denoising strategies, stage settings come from here."""
    problems_noted: int = 0
    """How many of ``report.problems`` were already shown (:meth:`note_problems`)."""
    notes_noted: int = 0
    """How many of ``report.notes`` were already shown."""

    def note_problems(self) -> None:
        """Show the problems (and notes on files indexed in part) reported since the last call, once each,
        as the run goes."""
        for problem in self.report.problems[self.problems_noted :]:
            self.progress.note(f"skipped {problem.path}: {problem.short_reason()}")
        self.problems_noted = len(self.report.problems)
        for note in self.report.notes[self.notes_noted :]:
            self.progress.note(f"{note.path}: {note.reason}")
        self.notes_noted = len(self.report.notes)

    def embeds_sentences(self) -> bool:
        """:attr:`sentence_vectors`, asked now."""
        return self.sentence_vectors() if callable(self.sentence_vectors) else self.sentence_vectors

    def description_summarizer(self) -> Summarizer:
        """The summariser for merged descriptions; extractive at ``graph.max_description_tokens`` if none
        was given (kept, so every stage of the run uses the same one)."""
        if self.summarizer is None:
            self.summarizer = ExtractiveSummarizer(self.config.graph.max_description_tokens, self.plan.counter)
        return self.summarizer
