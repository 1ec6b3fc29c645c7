"""The vocabulary of indexing stages: what a stage is, and the one naming rule everything uses.

An indexing run is an ordered list of named stages. Three observers report on it, and the stage *name* is
the only name they use, so their records join up:

* progress: the label of a stage's bar is its name (:func:`progress_label`);
* timings: ``IndexReport.seconds`` holds the stage's wall time under its name and the time of a part of
  it under ``<stage>.<part>``, e.g. ``extract.merge`` (:func:`timing_key`);
* LLM ledger: calls made by a stage are booked as ``index.<stage>``, by a part of it as
  ``index.<stage>.<part>`` (:func:`ledger_stage`) — except two parts booked under names of their own
  (``index.glean``, ``index.summarize``), which users' databases already hold (:data:`LEGACY_LEDGER_PARTS`).

This module is in ``core`` (imports nothing else of kgrag) so the graph layer can book its work under
the right names without importing the indexing layer that runs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypeVar

Ctx_contra = TypeVar("Ctx_contra", contravariant=True)

# Built-in stage names (the entries of ``KINDS["stage"]``).
DISCOVER = "discover"
INGEST = "ingest"
EMBED = "embed"
REFRESH = "refresh"
EXTRACT = "extract"
EMBED_GRAPH = "embed-graph"
FINALIZE = "finalize"
COMMUNITIES = "communities"
COMMUNITY_REPORTS = "community-reports"

# Parts of stages that other layers book work under.
GLEAN = "glean"
SUMMARIZE = "summarize"

LEDGER_PREFIX = "index"

# Ledger names that predate the rule. They are stored in users' usage ledgers (and compared across
# runs), so they keep their names whichever stage does the work: summaries are written by ``extract``,
# ``refresh`` and document removal alike.
LEGACY_LEDGER_PARTS: Mapping[str, str] = {GLEAN: "index.glean", SUMMARIZE: "index.summarize"}


class Stage(Protocol[Ctx_contra]):
    """One named step of an indexing run.

    ``run`` reads and extends the run's context. A stage must do only what is missing (so a re-run on
    unchanged input does nothing and a killed run resumes) and commit its work in units that survive a
    crash. ``name`` is the name the stage is registered under.
    """

    name: str

    def run(self, ctx: Ctx_contra) -> None: ...


def progress_label(stage: str) -> str:
    """The progress-bar label of ``stage``: its name."""
    return stage


def timing_key(stage: str, part: str | None = None) -> str:
    """The ``IndexReport.seconds`` key of ``stage`` (its whole run) or of one ``part`` of it."""
    return stage if part is None else f"{stage}.{part}"


def ledger_stage(stage: str, part: str | None = None) -> str:
    """The LLM ledger's stage string for calls made by ``stage`` (or one ``part`` of it)."""
    if part is None:
        return f"{LEDGER_PREFIX}.{stage}"
    return LEGACY_LEDGER_PARTS.get(part) or f"{LEDGER_PREFIX}.{stage}.{part}"
