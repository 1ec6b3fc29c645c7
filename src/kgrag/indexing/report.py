"""What an indexing run did, per stage, so the CLI, the API and the benchmark all read the same numbers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import JsonValue

from kgrag.core.stages import DISCOVER, EMBED, EMBED_GRAPH, EXTRACT, INGEST

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")


@dataclass
class FileProblem:
    """A file (or record) that was reported and skipped, with the reason the user can act on."""

    path: str
    reason: str

    def short_reason(self) -> str:
        """The reason without the path it often starts with (loaders name the file they read, resolved)."""
        for prefix in dict.fromkeys((self.path, str(Path(self.path).absolute()), _resolved(self.path))):
            if self.reason.startswith(f"{prefix}: "):
                return self.reason[len(prefix) + 2 :]
        return self.reason


def _resolved(path: str) -> str:
    """``path`` resolved, or as it is when it cannot be (a symlink loop, an unreadable link)."""
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop" on Python 3.11
        return path


# The run-summary counters, each read from the stage report that owns it (``{stage: (counter, ...)}``);
# the JSON summary (``to_dict``) keeps them as top-level keys beside ``stages``.
COUNTERS: dict[str, tuple[str, ...]] = {
    DISCOVER: ("files_seen",),
    INGEST: (
        "documents_new",
        "documents_changed",
        "documents_unchanged",
        "documents_removed",
        "documents_moved",
        "documents_duplicate",
        "chunks_written",
    ),
    EMBED: ("texts_embedded",),
    EXTRACT: ("chunks_extracted", "chunks_extraction_failed", "entities", "relations", "graph_texts_embedded"),
    EMBED_GRAPH: ("graph_texts_embedded",),
}


@dataclass
class IndexReport:
    """One ``index`` run: run-level facts (timings, LLM usage, problems, warnings) and each stage's own report.

    The counters of the built-in stages live in their stage reports (``stages``); the read-only properties
    below read them back under the names the CLI, the API and the benchmarks print."""

    llm_lines: list[str] = field(default_factory=list)  # this run's LLM usage per stage, if any
    extraction_prompt_ratio: float | None = None  # LLM prompt tokens per corpus token (target ≤ 2.5; peers spend 5–10)
    stages: dict[str, DataclassInstance] = field(default_factory=dict)
    """``{stage name: its report}``: a stage with counters of its own declares a report dataclass
    (``report_model``) and fills it through :meth:`stage`; ``asdict`` of this report includes them."""
    fallbacks: dict[str, int] = field(default_factory=dict)  # other LLM work that fell back, retried next run
    problems: list[FileProblem] = field(default_factory=list)
    notes: list[FileProblem] = field(default_factory=list)
    """Files indexed without part of what they reference (a snippet include missing or refused)."""
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

    def count(self, stage: str, counter: str) -> int:
        """Counter ``counter`` of stage ``stage``'s report (0 when the stage did not run or has no such count)."""
        return int(getattr(self.stages.get(stage), counter, 0))

    def to_dict(self) -> dict[str, JsonValue]:
        """The JSON summary: every counter of :data:`COUNTERS` at the top level, then the run's fields (with
        ``stages``, so a plug-in stage's report appears there without further work)."""
        counters = {name: getattr(self, name) for names in COUNTERS.values() for name in names}
        return {**counters, **asdict(self)}

    @property
    def files_failed(self) -> int:
        """Files this run could not index (each named once in :attr:`problems`)."""
        return len({problem.path for problem in self.problems})

    @property
    def files_seen(self) -> int:
        return self.count(DISCOVER, "files_seen")

    @property
    def documents_new(self) -> int:
        return self.count(INGEST, "documents_new")

    @property
    def documents_changed(self) -> int:
        return self.count(INGEST, "documents_changed")

    @property
    def documents_unchanged(self) -> int:
        return self.count(INGEST, "documents_unchanged")

    @property
    def documents_removed(self) -> int:
        return self.count(INGEST, "documents_removed")

    @property
    def documents_moved(self) -> int:
        return self.count(INGEST, "documents_moved")

    @property
    def documents_duplicate(self) -> int:
        return self.count(INGEST, "documents_duplicate")

    @property
    def chunks_written(self) -> int:
        return self.count(INGEST, "chunks_written")

    @property
    def texts_embedded(self) -> int:
        return self.count(EMBED, "texts_embedded")

    @property
    def chunks_extracted(self) -> int:
        return self.count(EXTRACT, "chunks_extracted")

    @property
    def chunks_extraction_failed(self) -> int:
        return self.count(EXTRACT, "chunks_extraction_failed")

    @property
    def entities(self) -> int:
        """Entities in the graph after extraction (0 when no extraction ran)."""
        return self.count(EXTRACT, "entities")

    @property
    def relations(self) -> int:
        return self.count(EXTRACT, "relations")

    @property
    def graph_texts_embedded(self) -> int:
        """Graph texts embedded by extraction and by the ``embed-graph`` stage together."""
        return self.count(EXTRACT, "graph_texts_embedded") + self.count(EMBED_GRAPH, "graph_texts_embedded")

    def add_time(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    @property
    def incomplete(self) -> list[str]:
        """What this run left for the next one, a phrase each (empty: the run's work is complete)."""
        parts: list[str] = []
        for own in self.stages.values():  # a stage report may name what it left (``incomplete()``)
            left = getattr(own, "incomplete", None)
            parts.extend(left() if callable(left) else ())
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
