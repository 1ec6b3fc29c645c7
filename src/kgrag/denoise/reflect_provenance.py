"""LLM-free triple reflection: how well does the source text support a relation?

Two signals, both from provenance the store already keeps: whether the supporting chunks name both
endpoints (any surface form they were extracted as) — 1 for a chunk with a sentence naming both, ½ for a
chunk naming both in different sentences, 0 otherwise — and how many chunks support the relation.
score = 0.6 · (mean text support) + 0.4 · min(1, chunks / 3). A relation seen once, whose ends the chunk
does not even name together, scores 0.13 and goes at δ = 0.2; one stated in a sentence scores ≥ 0.73.
"""

from __future__ import annotations

from collections.abc import Sequence

from kgrag.config.denoise import DenoiseConfig
from kgrag.core.graph_records import RelationRecord
from kgrag.denoise.reflect import ReflectContext, Reflector, Verdict
from kgrag.documents.sentences import split_sentences

SENTENCE_WEIGHT = 0.6
SUPPORT_WEIGHT = 0.4
FULL_SUPPORT = 3  # chunks at which the support signal saturates


def _surfaces(ctx: ReflectContext, entity_ids: Sequence[str]) -> dict[str, set[str]]:
    found = ctx.store.graph.entity_mentions(list(entity_ids))
    out = {i: {m.surface.casefold() for m in ms if m.surface.strip()} for i, ms in found.items()}
    for i in entity_ids:
        out.setdefault(i, set()).add(ctx.names.get(i, "").casefold())
    return out


def _sentences(ctx: ReflectContext, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
    return {
        c.id: [c.text[a:b].casefold() for a, b in split_sentences(c.text)]
        for c in ctx.store.chunks.get_many(list(chunk_ids))
    }


def _support(sentences: list[str], a: set[str], b: set[str]) -> float:
    """1 if a sentence names both ends, ½ if the chunk names both in different sentences, else 0."""
    has_a = [any(x and x in s for x in a) for s in sentences]
    has_b = [any(y and y in s for y in b) for s in sentences]
    if any(x and y for x, y in zip(has_a, has_b, strict=True)):
        return 1.0
    return 0.5 if any(has_a) and any(has_b) else 0.0


def score_by_provenance(relations: Sequence[RelationRecord], ctx: ReflectContext) -> list[Verdict]:
    entity_ids = list(dict.fromkeys(i for r in relations for i in (r.source_id, r.target_id)))
    surfaces = _surfaces(ctx, entity_ids)
    texts = _sentences(ctx, list(dict.fromkeys(c for r in relations for c in r.chunk_ids)))
    verdicts = []
    for r in relations:
        chunks = [c for c in r.chunk_ids if c in texts]
        if not chunks:
            verdicts.append(Verdict(r.id, None, "no source chunk left to check"))
            continue
        support = [_support(texts[c], surfaces[r.source_id], surfaces[r.target_id]) for c in chunks]
        score = SENTENCE_WEIGHT * sum(support) / len(chunks) + SUPPORT_WEIGHT * min(1.0, len(chunks) / FULL_SUPPORT)
        stated, named = support.count(1.0), support.count(0.5)
        reason = f"{len(chunks)} source chunks: {stated} state both ends in one sentence, {named} name both apart"
        verdicts.append(Verdict(r.id, round(score, 4), reason))
    return verdicts


def provenance_reflector(config: DenoiseConfig) -> Reflector:
    """``KINDS["triple_reflector"]["provenance"]``."""
    return score_by_provenance
