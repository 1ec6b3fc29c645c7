"""The built-in entries of every registry kind, as ``"module:attr"`` strings.

This is the one table to read to see what kgrag can be configured with, and the one line to add when a
built-in joins. The strings are not imports, so this leaf module knows every layer's names without
importing any of them; :func:`new_registry` turns a kind into a fresh :class:`Registry` (plus installed
plug-ins from the kind's entry-point group).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgrag.core.registry import Registry, Target


@dataclass(frozen=True)
class Kind:
    """A registry kind: its message noun, its entry-point group and its built-in entries."""

    noun: str
    group: str
    builtins: dict[str, Target] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)


KINDS: dict[str, Kind] = {
    "store": Kind(
        "store backend",
        "kgrag.stores",
        {"sqlite": "kgrag.store.sqlite.store:open_sqlite_store"},
        {"sqlite": "One SQLite file (WAL) per workspace; FTS5 for BM25, exact NumPy vector search."},
    ),
    "embedder": Kind(
        "embedding provider",
        "kgrag.embedders",
        {
            "sentence-transformers": "kgrag.models.embeddings:local_embedder",
            "openai": "kgrag.models.embeddings:openai_embedder",
            "fake": "kgrag.models.embeddings:fake_embedder",
        },
    ),
    "llm_provider": Kind(
        "LLM provider",
        "kgrag.llm_providers",
        {
            "none": "kgrag.models.llm.providers:none_provider",
            "openai": "kgrag.models.llm.providers:openai_provider",
            "scripted": "kgrag.models.llm.providers:scripted_provider",
        },
    ),
    "extractor": Kind(
        "graph extractor",
        "kgrag.extractors",
        {
            "nlp": "kgrag.graph.extract.choose:nlp_extractor",
            "llm": "kgrag.graph.extract.choose:llm_extractor",
        },
    ),
    "summarizer": Kind(
        "description summariser",
        "kgrag.summarizers",
        {
            "extractive": "kgrag.graph.build.summarize:extractive_summarizer",
            "llm": "kgrag.graph.build.summarize_llm:llm_summarizer",
        },
    ),
    "prompt_schema": Kind(
        "prompt output schema",
        "kgrag.prompt_schemas",
        {
            "extraction_reply": "kgrag.graph.extract.parse:ExtractionReply",
            "statement_verdicts": "kgrag.evaluation.judges.schemas:StatementVerdicts",
            "accuracy_classification": "kgrag.evaluation.judges.schemas:AccuracyClassification",
            "context_relevance": "kgrag.evaluation.judges.schemas:ContextRelevance",
            "reference_score": "kgrag.evaluation.judges.schemas:ReferenceScore",
            "dimension_score": "kgrag.evaluation.judges.schemas:DimensionScore",
            "two_pass_verdict": "kgrag.evaluation.judges.schemas:TwoPassVerdict",
            "aspect_comparison": "kgrag.evaluation.judges.schemas:AspectComparison",
            "generated_questions": "kgrag.evaluation.judges.schemas:GeneratedQuestions",
            "answerability": "kgrag.evaluation.judges.schemas:Answerability",
        },
    ),
    "loader": Kind(
        "document loader",
        "kgrag.loaders",
        {
            ".txt": "kgrag.documents.loaders:load_plain",
            ".md": "kgrag.documents.loaders:load_plain",
            ".markdown": "kgrag.documents.loaders:load_plain",
            ".html": "kgrag.documents.loaders:load_html",
            ".htm": "kgrag.documents.loaders:load_html",
            ".pdf": "kgrag.documents.loaders:load_pdf",
            ".docx": "kgrag.documents.loaders:load_docx",
            ".json": "kgrag.documents.json_records:load_json",
            ".jsonl": "kgrag.documents.json_records:load_jsonl",
        },
    ),
    "pipeline": Kind(
        "retrieval pipeline",
        "kgrag.pipelines",
        {
            "dense": "kgrag.retrieval.recipes.dense:dense_pipeline",
            "bm25": "kgrag.retrieval.recipes.bm25:bm25_pipeline",
            "hybrid": "kgrag.retrieval.recipes.hybrid:hybrid_pipeline",
            "graph-local": "kgrag.retrieval.recipes.graph_local:graph_local_pipeline",
        },
    ),
    "stage": Kind(
        "indexing stage",
        "kgrag.stages",
        {
            "discover": "kgrag.indexing.stages.discover:DiscoverStage",
            "ingest": "kgrag.indexing.stages.ingest:IngestStage",
            "embed": "kgrag.indexing.stages.embed:EmbedStage",
            "refresh": "kgrag.indexing.stages.refresh:RefreshStage",
            "extract": "kgrag.indexing.stages.extract:ExtractStage",
            "embed-graph": "kgrag.indexing.stages.embed_graph:EmbedGraphStage",
            "finalize": "kgrag.indexing.stages.finalize:FinalizeStage",
        },
        {
            "discover": "Expand paths with documents.include/exclude.",
            "ingest": "Read, chunk and full-text index new or changed files (one transaction per document).",
            "embed": "Embed chunk texts that have no vector for the model yet.",
            "refresh": "Drop graph provenance of removed/re-chunked documents; re-summarise what lost some.",
            "extract": "Refresh, then extract and merge the chunks the graph is missing.",
            "embed-graph": "Embed new or changed entities.",
            "finalize": "Set document statuses from what is done (chunked / embedded / indexed).",
        },
    ),
    "index_pipeline": Kind(
        "indexing pipeline",
        "kgrag.index_pipelines",
        {
            "standard": "kgrag.indexing.pipelines:STANDARD",
            "no-graph": "kgrag.indexing.pipelines:NO_GRAPH",
            "fast": "kgrag.indexing.pipelines:FAST",
        },
        {
            "standard": "discover, ingest, embed, extract, embed-graph, finalize.",
            "no-graph": "discover, ingest, embed, refresh, embed-graph, finalize (no extraction).",
            "fast": "discover, ingest, finalize: BM25 at once; a later standard run adds the rest.",
        },
    ),
    "metric": Kind(
        "evaluation metric",
        "kgrag.metrics",
        {
            "rouge-l": "kgrag.evaluation.metrics.answer:RougeL",
            "answer-accuracy": "kgrag.evaluation.metrics.answer:AnswerAccuracy",
            "coverage": "kgrag.evaluation.metrics.answer:Coverage",
            "faithfulness": "kgrag.evaluation.metrics.answer:Faithfulness",
            "evidence-recall": "kgrag.evaluation.metrics.retrieval:EvidenceRecall",
            "context-relevance": "kgrag.evaluation.metrics.retrieval:ContextRelevance",
        },
    ),
    "judge": Kind(
        "evaluation judge",
        "kgrag.judges",
        {
            "panel": "kgrag.evaluation.judges.panel:ReferencePanel",
            "dimensions": "kgrag.evaluation.judges.dimensions:DimensionJudge",
            "two-pass": "kgrag.evaluation.pairwise.two_pass:TwoPassJudge",
            "unbiased": "kgrag.evaluation.pairwise.unbiased:UnbiasedJudge",
        },
        {
            "panel": "Reference-based 1-5 score averaged over several judge models (feldt-hellstrom-2026).",
            "dimensions": "Correctness, relevance, groundedness, retrieval relevance, 0-10 each (lundberg-2026).",
            "two-pass": "Pairwise winner per criterion in both orders, win rate (deg-rag).",
            "unbiased": "Length-aligned, both orders, N repeats, M trials, ties, CIs (zeng-unbiased-eval).",
        },
    ),
}


def new_registry(kind: str) -> Registry[Any]:
    """A fresh registry of ``kind`` holding its built-ins (plug-ins are read on first listing)."""
    spec = KINDS[kind]
    return Registry(spec.noun, spec.builtins, group=spec.group, summaries=spec.summaries)
