"""Stage ``resolve``: entity resolution (deg-rag) as one undoable denoising run.

Resumable and free when nothing changed: the graph's fingerprint after the last resolution is kept in
the store's meta table, and an unchanged graph is skipped. A killed run leaves either nothing (the merge
is one transaction) or a finished merge. LLM confirmations are booked as ``index.resolve``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kgrag.core.stages import ledger_stage
from kgrag.denoise.runner import DenoiseInputs, apply_denoise
from kgrag.indexing.context import IndexContext

RESOLVE = "resolve"
FINGERPRINT_KEY = "denoise.resolve.fingerprint"


def denoise_inputs(ctx: IndexContext, stage: str) -> DenoiseInputs:
    """The denoiser's inputs from an indexing context, booking LLM calls under ``index.<stage>``."""
    return DenoiseInputs(
        store=ctx.store,
        config=ctx.config.denoise,
        embedder=ctx.embedder,
        summarizer=ctx.description_summarizer(),
        llm=ctx.llm,
        counter=ctx.plan.counter,
        resolve_stage=ledger_stage(stage),
        reflect_stage=ledger_stage(stage),
        registries=ctx.registries,
    )


@dataclass
class ResolveReport:
    """The stage's denoising run, when one ran: its id (what ``kgrag denoise undo`` takes) and its counts
    (the denoiser's own names, e.g. entities merged)."""

    run_id: str = ""
    counts: dict[str, int] = field(default_factory=dict)


class ResolveStage:
    """Merges duplicate entities; skipped when the graph is unchanged since its last run."""

    name = RESOLVE
    report_model = ResolveReport

    def run(self, ctx: IndexContext) -> None:
        store = ctx.store
        if not store.graph.counts()["entities"] or store.meta.get(FINGERPRINT_KEY) == store.denoise.fingerprint():
            return
        outcome = apply_denoise(denoise_inputs(ctx, self.name), resolve=True, reflect=False)
        own = ctx.report.stage(self.name, ResolveReport)
        own.run_id, own.counts = outcome.run.id, dict(outcome.counts.get(self.name, {}))
        with store.transaction():
            store.meta.set(FINGERPRINT_KEY, store.denoise.fingerprint())
