"""The LLM-free report: the community's top entities by PageRank, its strongest relations and the
supporting sentences that name most of its members; higher levels combine their children's reports.

It costs no calls, so it is the path for ``llm.provider = none``, and the fallback when an LLM reply
cannot be used. Its rating is a size score, ``2·log2(1 + entities)`` capped at 10 (3 entities → 4,
31 → 10): without a model to judge importance, bigger communities are the better guess.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import igraph as ig

from kgrag.communities.material import Job, chunk_provenance, merged_provenance
from kgrag.core.community_records import CommunityReport, Finding
from kgrag.documents import split_sentences
from kgrag.store.base import Store

TOP_ENTITIES = 5
SUPPORT_SENTENCES = 3
SUPPORT_CHUNKS = 5
MAX_SENTENCE_CHARS = 400


def size_rating(size: int) -> float:
    return round(min(10.0, 2 * math.log2(1 + size)), 1)


def pagerank_order(job: Job) -> list[str]:
    """Entity ids by weighted PageRank inside the community (ties: the material's order)."""
    ids = [e.id for e in job.entities]
    if not job.relations:
        return ids
    index = {e: i for i, e in enumerate(ids)}
    edges = [
        (index[r.source_id], index[r.target_id]) for r in job.relations if r.source_id in index and r.target_id in index
    ]
    graph = ig.Graph(n=len(ids), edges=edges)
    weights = [r.weight for r in job.relations if r.source_id in index and r.target_id in index]
    ranks = graph.pagerank(weights=weights if edges else None)
    return [ids[i] for i in sorted(range(len(ids)), key=lambda i: (-ranks[i], i))]


def _names_pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    usable = sorted({n.lower() for n in names if len(n) >= 3}, key=len, reverse=True)
    if not usable:
        return None
    return re.compile(r"\b(" + "|".join(re.escape(n) for n in usable[:200]) + r")\b")


def support_sentences(texts: Sequence[str], names: Sequence[str], limit: int = SUPPORT_SENTENCES) -> list[str]:
    """The sentences naming the most distinct members (ties: earliest), at most ``limit``."""
    pattern = _names_pattern(names)
    if pattern is None:
        return []
    scored: list[tuple[int, int, str]] = []
    for text in texts:
        for start, end in split_sentences(text):
            sentence = " ".join(text[start:end].split())
            hits = len(set(pattern.findall(sentence.lower())))
            if hits and len(sentence) <= MAX_SENTENCE_CHARS:
                scored.append((-hits, len(scored), sentence))
    seen: dict[str, None] = {}
    for _, _, sentence in sorted(scored):
        seen.setdefault(sentence, None)
        if len(seen) == limit:
            break
    return list(seen)


class ExtractiveWriter:
    """Writes reports without a model; reads supporting chunks from the store."""

    method = "extractive"
    redoes_fallbacks = False  # it is the fallback
    failures = 0  # it cannot fail

    def __init__(self, store: Store, findings: int) -> None:
        self.store = store
        self.findings = findings

    def write(self, jobs: Sequence[Job]) -> list[CommunityReport]:
        return [self.one(job) for job in jobs]

    def one(self, job: Job) -> CommunityReport:
        return self._from_children(job) if job.children else self._from_graph(job)

    def _from_graph(self, job: Job) -> CommunityReport:
        by_id = {e.id: e for e in job.entities}
        top = [by_id[i] for i in pagerank_order(job)[:TOP_ENTITIES]]
        names = {e.id: e.name for e in job.entities}
        chunks = self.store.chunks.get_many(list(chunk_provenance(top, SUPPORT_CHUNKS)))
        sentences = support_sentences([c.text for c in chunks], [e.name for e in job.entities])
        title = ", ".join(e.name for e in top[:3]) or job.community.id
        centre = "; ".join(f"{e.name} ({e.type})" for e in top)
        summary = f"{job.community.size} entities centred on {centre}."
        if sentences:
            summary += " " + " ".join(sentences)
        findings = [
            Finding(
                f"{names.get(r.source_id, '?')} — {r.label.replace('_', ' ')} — {names.get(r.target_id, '?')}",
                " ".join(r.description.split())[:MAX_SENTENCE_CHARS],
                (r.id, r.source_id, r.target_id),
            )
            for r in job.relations[: self.findings]
        ]
        return CommunityReport(
            job.community.id,
            job.level,
            title,
            summary,
            tuple(findings),
            size_rating(job.community.size),
            "extractive",
            chunk_provenance(job.entities),
        )

    def _from_children(self, job: Job) -> CommunityReport:
        children = sorted(job.children, key=lambda r: (-r.rating, r.community_id))
        title = " / ".join(r.title for r in children[:2])
        parts = [f"{len(job.children)} sub-groups: " + "; ".join(r.title for r in children[:5]) + "."]
        parts += [r.summary.split(". ")[0].rstrip(".") + "." for r in children[:3]]
        findings = [f for r in children for f in r.findings][: self.findings]
        return CommunityReport(
            job.community.id,
            job.level,
            title,
            " ".join(parts),
            tuple(findings),
            max(size_rating(job.community.size), max(r.rating for r in children)),
            "extractive",
            merged_provenance(children),
        )
