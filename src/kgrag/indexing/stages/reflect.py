"""Stage ``reflect``: triple reflection over the relations not judged yet (``denoise.reflection``).

Resumable by construction: every verdict is stored (``relation_scores``), so a re-run judges only new
relations and an unchanged graph costs nothing. LLM calls are booked as ``index.reflect``.
"""

from __future__ import annotations

from kgrag.denoise.runner import apply_denoise, unscored_relations
from kgrag.indexing.context import IndexContext
from kgrag.indexing.stages.resolve import ResolveReport, denoise_inputs

REFLECT = "reflect"


class ReflectReport(ResolveReport):
    """The stage's reflection run, when one ran: its id and its counts (relations judged, dropped)."""


class ReflectStage:
    """Scores new relations and drops those under ``denoise.drop_below``, as one undoable run."""

    name = REFLECT
    report_model = ReflectReport

    def run(self, ctx: IndexContext) -> None:
        inputs = denoise_inputs(ctx, self.name)
        if inputs.config.reflection == "none" or not unscored_relations(inputs):
            return
        outcome = apply_denoise(inputs, resolve=False, reflect=True, only_unscored=True)
        own = ctx.report.stage(self.name, ReflectReport)
        own.run_id, own.counts = outcome.run.id, dict(outcome.counts.get(self.name, {}))
