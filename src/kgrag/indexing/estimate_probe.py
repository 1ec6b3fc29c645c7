"""``kgrag index --estimate --probe``: one real extraction of a sample unit before the estimate.

An estimate before any call knows nothing about the model: how long its replies are, how often they are
rejected, cut at the token limit or retried smaller. The probe extracts one unit of the corpus for real
(the unit of median size among the first documents, formed exactly as indexing forms it, so its reply is
cached and the real run pays nothing more for it), through the workspace's own client, so its calls land
in the ledger; the estimate that follows is calibrated from them
(:func:`~kgrag.indexing.estimate_assumptions.calibrate_assumptions`). Nothing is written but the ledger
rows and the cached replies.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kgrag.core.errors import KgragError
from kgrag.core.records import ChunkRecord
from kgrag.core.registry import Registry

if TYPE_CHECKING:
    from kgrag.config import KgragConfig
    from kgrag.documents.loaders import Loader
    from kgrag.graph.types import ChunkExtraction
    from kgrag.indexing.ingest import ChunkPlan
    from kgrag.models.llm import LLMClient
    from kgrag.store import Store


class ProbeParts(Protocol):
    """The workspace's parts the probe uses (the config is read after the client fitted it)."""

    @property
    def config(self) -> KgragConfig: ...

    @property
    def store(self) -> Store: ...

    def chunk_plan(self) -> tuple[ChunkPlan, list[str]]: ...

    def llm_for_extraction(self) -> LLMClient | None: ...


PROBE_DOCUMENTS = 8  # the sample unit is chosen among the units of this many documents


def _record_shares(parts: ProbeParts, chunks: Sequence[ChunkRecord], extractions: Sequence[ChunkExtraction]) -> None:
    """Store how many names and relations the model returned for the probe's unit per item of the
    estimate's stand-in graph of the same text (:mod:`kgrag.graph.extract.structural`)."""
    from kgrag.graph.extract.structural import structural_items
    from kgrag.indexing.estimate_assumptions import META_SHARES

    if any(x.error for x in extractions):
        return
    stand_in = structural_items("\n".join(c.text for c in chunks))
    names = {e.name.casefold() for x in extractions for e in x.entities}
    relations = {tuple(sorted((r.source.casefold(), r.target.casefold()))) for x in extractions for r in x.relations}
    if not stand_in.entities:
        return
    name_share = len(names) / len(stand_in.entities)
    kept = structural_items("\n".join(c.text for c in chunks), name_share)
    relation_share = len(relations) / len(kept.relations) if kept.relations else 1.0
    with parts.store.transaction():
        parts.store.meta.set(META_SHARES, f"{min(1.0, name_share):.4f} {min(1.0, relation_share):.4f}")


def _sample_chunks(parts: ProbeParts, loaders: Registry[Loader], paths: Sequence[Path]) -> list[ChunkRecord]:
    """The chunks of the probe's unit (median token size among the first documents' units)."""
    from kgrag.documents import chunk_text
    from kgrag.documents.discovery import discover
    from kgrag.documents.loaders import load_path
    from kgrag.documents.records import content_hash
    from kgrag.graph.extract.settings import llm_settings
    from kgrag.graph.extract.units import build_units

    config = parts.config
    plan, _ = parts.chunk_plan()
    units = []
    for path in discover(list(paths), config.documents.include, config.documents.exclude)[:PROBE_DOCUMENTS]:
        try:
            loaded = load_path(path, config.documents, loaders)
        except KgragError:
            continue  # the estimate names unreadable files; the probe only needs one readable one
        for number, document in enumerate(loaded):
            records = [
                ChunkRecord(f"probe{number}:{c.ord}", f"probe{number}:{path}", c.ord, c.char_start, c.char_end,
                            c.text, c.n_tokens, content_hash(c.text))
                for c in chunk_text(document.text, plan.counter, plan.size, plan.overlap)
            ]  # fmt: skip
            units.extend(build_units(records, llm_settings(config).unit_tokens, plan.counter))
    if not units:
        return []
    units.sort(key=lambda unit: unit.n_tokens)
    return list(units[len(units) // 2].chunks)


def probe_extraction(parts: ProbeParts, loaders: Registry[Loader], paths: Sequence[Path]) -> list[str]:
    """Extract one sample unit (of ``paths``, read with the workspace's ``loaders``) for real with ``parts``'
    client; the lines saying what it did and cost."""
    from kgrag.graph.extract.llm import LLMExtractor, create_llm_extractor

    client = parts.llm_for_extraction()  # first: it fits the config (unit size) to the server's window
    if client is None or parts.config.graph.extractor not in ("llm", "auto"):
        return ["probe: nothing to probe (no LLM graph extraction is configured)"]
    chunks = _sample_chunks(parts, loaders, paths)
    if not chunks:
        return ["probe: no readable text to probe"]
    extractor: LLMExtractor = create_llm_extractor(parts.config, client)
    extractions = list(extractor.extract(chunks))
    _record_shares(parts, chunks, extractions)
    spent = client.summary().total
    stats = extractor.stats
    tokens = sum(c.n_tokens for c in chunks)
    outcome = "failed" if any(x.error for x in extractions) else "extracted"
    smaller = f", retried as {stats.split_units} smaller halves" if stats.split_units else ""
    return [
        f"probe: one unit of {tokens} tokens sent for real ({outcome}{smaller}): {spent.calls} calls, "
        f"{spent.billed_prompt_tokens} prompt + {spent.billed_completion_tokens} completion tokens paid now "
        "(cached: the run reuses them)"
    ]
