"""What an indexing run did, per stage, so the CLI, the API and the benchmark all read the same numbers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

R = TypeVar("R")


@dataclass
class FileProblem:
    """A file (or record) that was reported and skipped, with the reason the user can act on."""

    path: str
    reason: str


@dataclass
class IndexReport:
    """Counts and timings of one ``index`` run."""

    files_seen: int = 0
    documents_new: int = 0
    documents_changed: int = 0
    documents_unchanged: int = 0
    documents_removed: int = 0
    documents_moved: int = 0  # same content under a new path: the document was re-pointed, nothing re-made
    documents_duplicate: int = 0  # copies of a stored document's content: recorded, not stored twice
    chunks_written: int = 0
    texts_embedded: int = 0
    # graph stage: chunks extracted/failed this run, graph size after it, graph texts embedded
    chunks_extracted: int = 0
    chunks_extraction_failed: int = 0
    entities: int = 0
    relations: int = 0
    graph_texts_embedded: int = 0
    llm_lines: list[str] = field(default_factory=list)  # this run's LLM usage per stage, if any
    extraction_prompt_ratio: float | None = None  # LLM prompt tokens per corpus token (target ≤ 2.5; peers spend 5–10)
    stages: dict[str, Any] = field(default_factory=dict)
    """``{stage name: its report}``: a stage with counters of its own declares a report dataclass
    (``report_model``) and fills it through :meth:`stage`; ``asdict`` of this report includes them."""
    fallbacks: dict[str, int] = field(default_factory=dict)  # other LLM work that fell back, retried next run
    problems: list[FileProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def stage(self, name: str, model: type[R]) -> R:
        """Stage ``name``'s report as ``model``, made empty on first use (typed for the stage that fills it)."""
        own = self.stages.get(name)
        if not isinstance(own, model):
            own = self.stages[name] = model()
        return own

    @property
    def communities(self) -> dict[str, int]:
        """The ``communities`` and ``community-reports`` stage reports as one flat mapping (report keys as
        ``reports_<counter>``), as the community commands print them."""
        flat: dict[str, int] = {}
        for name, prefix in (("communities", ""), ("community-reports", "reports_")):
            own = self.stages.get(name)
            if own is not None:
                flat.update({f"{prefix}{key}": value for key, value in asdict(own).items()})
        return flat

    def add_time(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    @property
    def incomplete(self) -> list[str]:
        """What this run left for the next one, a phrase each (empty: the run's work is complete)."""
        parts = []
        if self.chunks_extraction_failed:
            parts.append(f"{self.chunks_extraction_failed} chunks failed extraction")
        for own in self.stages.values():  # a stage report may name what it left (``incomplete()``)
            parts.extend(own.incomplete() if callable(getattr(own, "incomplete", None)) else ())
        parts.extend(f"{count} {what}" for what, count in self.fallbacks.items() if count)
        return parts

    @property
    def did_work(self) -> bool:
        return bool(
            self.documents_new
            or self.documents_changed
            or self.texts_embedded
            or self.documents_removed
            or self.documents_moved
            or self.documents_duplicate
            or self.chunks_extracted
            or self.graph_texts_embedded
        )
