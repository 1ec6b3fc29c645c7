"""The built-in indexing pipelines: ordered lists of stage names (``KINDS["index_pipeline"]``).

A pipeline is only a list of names, so a variant is one tuple here (or in a plug-in) and every stage
stays reusable. Because each stage does only what is missing, pipelines compose over time: ``fast``
now and ``standard`` later ends with exactly what ``standard`` alone builds.
"""

from __future__ import annotations

from kgrag.core.stages import (
    COMMUNITIES,
    COMMUNITY_REPORTS,
    DISCOVER,
    EMBED,
    EMBED_GRAPH,
    EXTRACT,
    FINALIZE,
    INGEST,
    REFRESH,
)

STANDARD = (DISCOVER, INGEST, EMBED, EXTRACT, EMBED_GRAPH, FINALIZE)
"""Everything: chunks and full text, vectors, the graph (with the configured extractor), graph vectors."""

NO_GRAPH = (DISCOVER, INGEST, EMBED, REFRESH, EMBED_GRAPH, FINALIZE)
"""No extraction; an existing graph still drops the provenance of re-chunked or removed documents."""

FAST = (DISCOVER, INGEST, FINALIZE)
"""Lexical only: searchable by BM25 at once; documents stay ``chunked`` until a ``standard`` run."""

GRAPHRAG = (DISCOVER, INGEST, EMBED, EXTRACT, EMBED_GRAPH, COMMUNITIES, COMMUNITY_REPORTS, FINALIZE)
"""``standard`` plus hierarchical communities and their reports (LLM calls when an LLM is configured):
kept out of ``standard`` so plain indexing stays as cheap as before."""

COMMUNITIES_ONLY = (COMMUNITIES, COMMUNITY_REPORTS)
"""Communities and reports over the graph as it is (``kgrag graph communities``)."""
DENOISED = (DISCOVER, INGEST, EMBED, EXTRACT, "resolve", "reflect", EMBED_GRAPH, FINALIZE)
"""``standard`` with graph denoising (``kgrag.indexing.stages.resolve``/``reflect``) before graph vectors."""
