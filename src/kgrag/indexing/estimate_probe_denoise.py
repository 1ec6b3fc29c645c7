"""The probe's denoising calls: one LLM merge confirmation and one triple-reflection batch, for real.

An extraction probe cannot see how a model answers the denoising prompts: how long its replies are, and
how often they are invalid and asked again (each re-ask re-sends the conversation). When the indexing
pipeline confirms merges or reflects triples with the LLM, the probe therefore also sends a few, built
from what the model just extracted from the probe's units: :data:`CONFIRMATIONS` candidate groups of two
of its entities (a share of invalid replies needs more than one reply; these prompts are small), and one
batch of its relations, through the same client and ledger stages as the real stages.
The estimate then reads their reply sizes and re-ask rates from the ledger
(:func:`~kgrag.indexing.estimate_assumptions.calibrate_assumptions`), like every other prompt's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgrag.core.stages import ledger_stage

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.graph.types import ChunkExtraction
    from kgrag.models.llm import LLMClient

CONFIRMATIONS = 3  # candidate groups the probe asks the model to confirm
RESOLVE_STAGE = "resolve"
REFLECT_STAGE = "reflect"


def probe_denoise(
    config: KgragConfig, client: LLMClient, stages: Sequence[str], extractions: Sequence[ChunkExtraction]
) -> list[str]:
    """Send a few merge confirmations and one reflection batch when the pipeline (``stages``) makes such
    calls; the line saying what was sent (none when nothing was)."""
    sent = []
    if RESOLVE_STAGE in stages and config.denoise.llm_confirm and _confirm(client, extractions):
        sent.append("merge confirmations")
    if REFLECT_STAGE in stages and config.denoise.reflection == "llm" and _reflect(config, client, extractions):
        sent.append("one reflection batch")
    return [f"probe: {' and '.join(sent)} sent for real (how this model answers them)"] if sent else []


def _confirm(client: LLMClient, extractions: Sequence[ChunkExtraction]) -> bool:
    from kgrag.denoise.confirm import CONFIRM_PROMPT, MergeDecision, entity_line

    entities = list({e.name.casefold(): e for x in extractions for e in x.entities}.values())
    pairs = [entities[start : start + 2] for start in range(0, 2 * CONFIRMATIONS, 2)]
    groups = [
        {"entities": "\n".join(entity_line(n, e.name, e.type, e.description) for n, e in enumerate(pair, start=1))}
        for pair in pairs
        if len(pair) == 2
    ]
    if groups:
        client.map_structured(CONFIRM_PROMPT, groups, MergeDecision, stage=ledger_stage(RESOLVE_STAGE))
    return bool(groups)


def _reflect(config: KgragConfig, client: LLMClient, extractions: Sequence[ChunkExtraction]) -> bool:
    from kgrag.core.graph_records import RelationRecord
    from kgrag.denoise.reflect_llm import REFLECT_PROMPT, TripleScores, triple_line
    from kgrag.denoise.settings import LlmReflectorSettings

    size = config.denoise.entry_settings("reflectors", "llm", LlmReflectorSettings).batch
    relations = {(r.source.casefold(), r.target.casefold()): r for x in extractions for r in x.relations}
    batch = [
        RelationRecord(str(n), r.source, r.target, r.label, r.description)
        for n, r in enumerate(list(relations.values())[:size])
    ]
    if not batch:
        return False
    text = "\n".join(triple_line(n, r, {}) for n, r in enumerate(batch, start=1))
    client.map_structured(REFLECT_PROMPT, [{"triples": text}], TripleScores, stage=ledger_stage(REFLECT_STAGE))
    return True
